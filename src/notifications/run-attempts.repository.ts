import { eq, getTableColumns, sql } from 'drizzle-orm';
import { accounts } from '../../schema/accounts';
import { deployments } from '../../schema/deployments';
import {
  type NotificationFilter,
  type NotificationFormat,
  notificationRuns,
  notifications,
  type RunStatus,
  type TimeGrain,
} from '../../schema/notifications';
import { accountSettings } from '../../schema/settings';
import type { StoredConfig } from '../accounts/app-config.policy';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { RequestScope } from '../core/scope';
import { accountAttributesColumn, accountAttributesOf } from '../data-api/account-identity';
import { catalogueNames } from '../embedding/embed-dashboards.repository';
import { rowsOf } from './notifications.repository';
import { type RecipientRow, selectRecipients, toRecipientRow } from './recipients.repository';
import type { RunRow } from './runs.repository';
import { type Schedule, scheduleOf } from './schedule';

/**
 * The guarded batches of a delivery attempt: starting or resuming a run and leasing its
 * recipients, recording what an attempt did, failing dead-lettered runs. Their writes are
 * hand-written: each is guarded by the run's or the lease's state in the same batch (D1 has no
 * interactive transaction), and the outcomes travel as one JSON parameter (json_each).
 */

/** Why a delivery to a deactivated account user is skipped (its `lastError`). */
export const DEACTIVATED_RECIPIENT = 'The recipient is a deactivated user';

export interface RunContext {
  run: RunRow;
  accountId: number;
  deploymentId: number;
  /** The deployment's URL host label (`https://<slug>.<domain>`): links in a delivery point there. */
  deploymentSlug: string;
  dashboardId: number;
  format: NotificationFormat;
  filters: NotificationFilter[];
  timeGrains: TimeGrain[];
  chatWebhookUrl: string | null;
  schedule: Schedule;
  /** The account's app config (time zone policy, theme, download restriction); null: never set. */
  appConfig: StoredConfig;
}

export interface LeasedDelivery {
  deliveryId: number;
  attempts: number;
  recipient: RecipientRow;
  /**
   * For an embed recipient, the attribute names of the account's and its tenant's catalogues
   * (≤ 200 each): row-level security restricts by them even where the recipient holds no value.
   */
  catalogue: string[];
  /**
   * For an account user recipient, the attribute values they hold (the data access policies read
   * them); `{}` for anyone else.
   */
  accountAttributes: Record<string, unknown>;
}

/**
 * Starts (or resumes) a run in ONE batch: a run whose deliveries are off is suppressed; a
 * queued run snapshots its recipients into delivery rows (unique per run and recipient) and
 * becomes running; pending deliveries to deactivated account users nobody holds are skipped; then
 * at most `maxLease` pending deliveries nobody holds are leased to
 * `owner` (lowest id first) and read back with their recipients. A redelivered message finds
 * sent rows sent and leases nothing twice.
 */
export async function startRun(
  scope: RequestScope,
  runId: number,
  owner: string,
  leaseUntil: Date,
  maxLease: number,
): Promise<{ context: RunContext | null; leased: LeasedDelivery[] }> {
  const { db } = scope;
  const now = scope.now.toISOString();
  const results = await runBatch(db, [
    sql`UPDATE notification_runs SET status = 'suppressed', finished_at = ${now}
      WHERE id = ${runId} AND status = 'queued'
        AND (SELECT notification_enabled FROM notifications WHERE id = notification_runs.notification_id) = 0`,
    sql`INSERT INTO notification_deliveries (run_id, recipient_id, status, attempts, updated_at)
      SELECT r.id, rc.id, 'pending', 0, ${now}
      FROM notification_runs r JOIN notification_recipients rc ON rc.notification_id = r.notification_id
      WHERE r.id = ${runId} AND r.status = 'queued'
      ON CONFLICT DO NOTHING`,
    sql`UPDATE notification_runs SET status = 'running', started_at = ${now} WHERE id = ${runId} AND status = 'queued'`,
    // Recipients who are deactivated account users are skipped rather than leased, at every
    // attempt (a user deactivated mid-run is skipped by the next one), with the reason.
    sql`UPDATE notification_deliveries SET status = 'skipped', last_error = ${DEACTIVATED_RECIPIENT},
        updated_at = ${now}
      WHERE run_id = ${runId} AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now})
        AND recipient_id IN (SELECT rc.id FROM notification_recipients rc JOIN users u ON u.id = rc.user_id
          WHERE rc.notification_id = (SELECT notification_id FROM notification_runs WHERE id = ${runId})
            AND u.deactivated_at IS NOT NULL)
        AND (SELECT status FROM notification_runs WHERE id = ${runId}) = 'running'`,
    sql`UPDATE notification_deliveries SET attempts = attempts + 1, lease_until = ${leaseUntil.toISOString()},
        lease_owner = ${owner}, updated_at = ${now}
      WHERE id IN (SELECT id FROM notification_deliveries
        WHERE run_id = ${runId} AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY id LIMIT ${maxLease})
        AND (SELECT status FROM notification_runs WHERE id = ${runId}) = 'running'`,
    db
      .select({
        ...getTableColumns(notifications),
        chatWebhookUrl: accounts.chatWebhookUrl,
        deploymentSlug: deployments.slug,
        appConfig: accountSettings.appConfig,
      })
      .from(notificationRuns)
      .innerJoin(notifications, eq(notifications.id, notificationRuns.notificationId))
      .innerJoin(accounts, eq(accounts.id, notifications.accountId))
      .innerJoin(deployments, eq(deployments.id, notifications.deploymentId))
      .leftJoin(accountSettings, eq(accountSettings.accountId, notifications.accountId))
      .where(eq(notificationRuns.id, runId)),
    // Hand-written: the recipients' join, catalogues and account users' values as subqueries of
    // the leased rows (every recipient's values in this one statement).
    sql`SELECT d.id AS delivery_id, d.attempts AS delivery_attempts, rr.*,
        CASE WHEN rr.type = 'EMBED_USER'
          THEN ${catalogueNames(sql`rr.embed_account_id`, sql`rr.embed_tenant_id`)} END AS catalogue,
        CASE WHEN rr.user_id IS NOT NULL THEN ${accountAttributesColumn(sql`rr.user_id`)} END AS account_attributes
      FROM notification_deliveries d
      JOIN (${selectRecipients}) rr ON rr.id = d.recipient_id
      WHERE d.run_id = ${runId} AND d.lease_owner = ${owner} AND d.status = 'pending'
      ORDER BY d.id`,
    db.select().from(notificationRuns).where(eq(notificationRuns.id, runId)),
  ]);
  const raw = rowsOf(results[5])[0];
  const run = rowsOf(results[7])[0];
  if (!raw || !run) return { context: null, leased: [] };
  const n = mapRow(notifications, raw);
  const context: RunContext = {
    run: mapRow(notificationRuns, run),
    accountId: n.accountId,
    deploymentId: n.deploymentId,
    deploymentSlug: String(raw.slug),
    dashboardId: n.dashboardId,
    format: n.notificationFormat,
    filters: n.filters,
    timeGrains: n.timeGrains,
    chatWebhookUrl: typeof raw.chat_webhook_url === 'string' ? raw.chat_webhook_url : null,
    schedule: scheduleOf(n),
    appConfig:
      typeof raw.app_config === 'string' ? (JSON.parse(raw.app_config) as NonNullable<StoredConfig>) : null,
  };
  const leased = rowsOf(results[6]).map((d) => ({
    deliveryId: Number(d.delivery_id),
    attempts: Number(d.delivery_attempts),
    recipient: toRecipientRow(d),
    catalogue: typeof d.catalogue === 'string' ? (JSON.parse(d.catalogue) as string[]) : [],
    accountAttributes: accountAttributesOf(d.account_attributes),
  }));
  return { context, leased };
}

export interface DeliveryOutcome {
  deliveryId: number;
  /** null: sent. */
  error: string | null;
  /** A failure retrying cannot mend: the delivery fails now. */
  permanent: boolean;
}

/**
 * The run's status once nothing is pending: delivered (skipped recipients are no failure), failed,
 * or partially failed.
 */
const FINAL_STATUS = sql`CASE
    WHEN NOT EXISTS (SELECT 1 FROM notification_deliveries WHERE run_id = notification_runs.id
        AND status NOT IN ('sent', 'skipped'))
      THEN 'delivered'
    WHEN NOT EXISTS (SELECT 1 FROM notification_deliveries WHERE run_id = notification_runs.id AND status = 'sent')
      THEN 'failed'
    ELSE 'partially_failed' END`;

/**
 * Records what this attempt did, in ONE batch: sent rows become sent, failures keep their
 * error (pending for another attempt, or failed when permanent), the lease is released, and
 * the run is finished when nothing is pending any more. Only rows this owner leased change.
 * Answers how many deliveries of the run are still pending, and how many of those nobody holds.
 */
export async function finishAttempt(
  db: Db,
  runId: number,
  owner: string,
  outcomes: DeliveryOutcome[],
  finishedAt: Date,
): Promise<{ pending: number; unleased: number; status: RunStatus }> {
  const now = finishedAt.toISOString();
  const json = JSON.stringify(outcomes);
  const results = await runBatch(db, [
    sql`UPDATE notification_deliveries SET
        status = CASE WHEN j.value ->> 'error' IS NULL THEN 'sent'
          WHEN j.value ->> 'permanent' THEN 'failed' ELSE 'pending' END,
        sent_at = CASE WHEN j.value ->> 'error' IS NULL THEN ${now} END,
        last_error = j.value ->> 'error', lease_until = NULL, lease_owner = NULL, updated_at = ${now}
      FROM json_each(${json}) j
      WHERE notification_deliveries.id = j.value ->> 'deliveryId' AND notification_deliveries.lease_owner = ${owner}`,
    sql`UPDATE notification_runs SET status = ${FINAL_STATUS}, finished_at = ${now}
      WHERE id = ${runId} AND status = 'running'
        AND NOT EXISTS (SELECT 1 FROM notification_deliveries WHERE run_id = ${runId} AND status = 'pending')`,
    sql`SELECT *,
        (SELECT count(*) FROM notification_deliveries WHERE run_id = ${runId} AND status = 'pending') AS pending,
        (SELECT count(*) FROM notification_deliveries WHERE run_id = ${runId} AND status = 'pending'
          AND (lease_until IS NULL OR lease_until <= ${now})) AS unleased
      FROM notification_runs WHERE id = ${runId}`,
  ]);
  const raw = rowsOf(results[2])[0];
  if (!raw) return { pending: 0, unleased: 0, status: 'failed' };
  return {
    pending: Number(raw.pending),
    unleased: Number(raw.unleased),
    status: mapRow(notificationRuns, raw).status,
  };
}

/**
 * Records the failure of runs whose messages ran out of retries, in ONE batch for all of them:
 * what is still pending fails, and each run ends failed (or partially so when some were sent).
 */
export async function failRuns(scope: RequestScope, runIds: number[], error: string): Promise<void> {
  const ids = JSON.stringify(runIds);
  const now = scope.now.toISOString();
  await runBatch(scope.db, [
    sql`UPDATE notification_deliveries SET status = 'failed', last_error = coalesce(last_error, ${error}),
        lease_until = NULL, lease_owner = NULL, updated_at = ${now}
      WHERE run_id IN (SELECT value FROM json_each(${ids})) AND status = 'pending'`,
    sql`UPDATE notification_runs SET
        status = CASE WHEN EXISTS (SELECT 1 FROM notification_deliveries d
            WHERE d.run_id = notification_runs.id AND d.status = 'sent')
          THEN 'partially_failed' ELSE 'failed' END,
        error = ${error}, finished_at = ${now}
      WHERE id IN (SELECT value FROM json_each(${ids})) AND status IN ('queued', 'running')`,
  ]);
}
