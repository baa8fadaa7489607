import { sql } from 'drizzle-orm';
import {
  type NotificationFilter,
  type NotificationFormat,
  notificationDeliveries,
  notificationRuns,
  notifications,
  type RunStatus,
  type TimeGrain,
} from '../../schema/notifications';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import { catalogueNames } from '../embedding/embed-dashboards.repository';
import { type RecipientRow, selectRecipients, toRecipientRow } from './recipients.repository';
import { type Schedule, scheduleOf } from './schedule';

type Raw = Record<string, unknown>;
const rowsOf = (result: D1Result | undefined): Raw[] => (result?.results ?? []) as Raw[];

// ---- The cron's claim ----

export interface DueNotification extends Schedule {
  id: number;
  nextRunAt: string;
  notificationEnabled: boolean;
}

/** One page of due notifications, keyset on the (next_run_at, id) index the cron walks. */
export async function selectDue(
  db: Db,
  scheduledTime: string,
  after: { nextRunAt: string; id: number } | null,
  limit: number,
): Promise<DueNotification[]> {
  // Only the columns the claim uses: a due row's filters and switchers can be large, and a tick
  // reads up to CLAIM_PAGE rows a page.
  const rows = await db.all<Raw>(sql`
    SELECT id, next_run_at, schedule_type, minute, hour, day_of_week, day_of_month, custom_cron, timezone,
      notification_enabled
    FROM notifications
    WHERE next_run_at <= ${scheduledTime} AND is_enabled = 1
      ${after ? sql`AND (next_run_at, id) > (${after.nextRunAt}, ${after.id})` : sql``}
    ORDER BY next_run_at, id LIMIT ${limit}`);
  return rows.map((raw) => {
    const n = mapRow(notifications, raw);
    return {
      ...scheduleOf(n),
      id: n.id,
      nextRunAt: n.nextRunAt as string,
      notificationEnabled: n.notificationEnabled,
    };
  });
}

export interface Claim {
  id: number;
  /** The slot being claimed: the notification's stored next run. */
  slot: string;
  /** Its next run after this tick (null: the schedule stopped firing). */
  next: string | null;
}

/**
 * Claims slots in ONE batch (one transaction). A run row is inserted only while the
 * notification still holds that slot as its next run, and `ON CONFLICT DO NOTHING` on the
 * (notification, slot) unique index makes a doubled tick insert nothing; RETURNING hands back
 * only the runs this call created. The next run then moves on, compare-and-set on the slot.
 * A notification whose deliveries are off gets its run recorded as suppressed.
 */
export async function claimSlots(
  db: Db,
  claims: Claim[],
  now: string,
): Promise<{ runId: number; notificationId: number; status: RunStatus }[]> {
  if (claims.length === 0) return [];
  const json = JSON.stringify(claims);
  const [inserted] = await runBatch(db, [
    sql`INSERT INTO notification_runs (notification_id, slot, "trigger", status, enqueued_at, finished_at, created_at)
      SELECT n.id, n.next_run_at, 'scheduled',
        CASE WHEN n.notification_enabled = 1 THEN 'queued' ELSE 'suppressed' END,
        CASE WHEN n.notification_enabled = 1 THEN ${now} END,
        CASE WHEN n.notification_enabled = 1 THEN NULL ELSE ${now} END,
        ${now}
      FROM json_each(${json}) j JOIN notifications n
        ON n.id = j.value ->> 'id' AND n.next_run_at = j.value ->> 'slot' AND n.is_enabled = 1
      WHERE true ON CONFLICT DO NOTHING
      RETURNING *`,
    sql`UPDATE notifications SET next_run_at = j.value ->> 'next'
      FROM json_each(${json}) j
      WHERE notifications.id = j.value ->> 'id' AND notifications.next_run_at = j.value ->> 'slot'`,
  ]);
  return rowsOf(inserted)
    .map((raw) => mapRow(notificationRuns, raw))
    .map((r) => ({ runId: r.id, notificationId: r.notificationId, status: r.status }));
}

/** Queued runs whose message may have been lost (enqueue failed); their clock restarts. */
export async function takeStrandedRuns(db: Db, enqueuedBefore: string, now: string, limit: number) {
  const rows = await db.all<{ id: number }>(sql`
    UPDATE notification_runs SET enqueued_at = ${now}
    WHERE id IN (SELECT id FROM notification_runs WHERE status = 'queued' AND enqueued_at < ${enqueuedBefore}
      ORDER BY enqueued_at LIMIT ${limit})
    RETURNING id`);
  return rows.map((r) => r.id);
}

// ---- Manual runs and the runs list ----

const notificationOf = (accountId: number, deploymentId: number, id: number) =>
  sql`SELECT id FROM notifications WHERE id = ${id} AND account_id = ${accountId} AND deployment_id = ${deploymentId}`;

export type RunRow = typeof notificationRuns.$inferSelect;
export type DeliveryRow = typeof notificationDeliveries.$inferSelect;

/** What a manual-run insert found: the typed outcome of its SQL conditions. */
export type ManualRunResult = { kind: 'created'; run: RunRow } | { kind: 'notFound' } | { kind: 'inFlight' };

/**
 * A manual run of the account's notification, in ONE batch. The partial unique index
 * `notification_runs_manual_inflight_uq` (one queued or running manual run per notification)
 * makes `ON CONFLICT DO NOTHING` insert nothing while one is in flight, so two concurrent
 * requests cannot both start one; the second statement tells a missing notification apart.
 */
export async function insertManualRun(
  db: Db,
  accountId: number,
  deploymentId: number,
  notificationId: number,
  now: string,
): Promise<ManualRunResult> {
  const [inserted, found] = await runBatch(db, [
    sql`INSERT INTO notification_runs (notification_id, slot, "trigger", status, enqueued_at, finished_at, created_at)
      SELECT n.id, ${now}, 'manual',
        CASE WHEN n.notification_enabled = 1 THEN 'queued' ELSE 'suppressed' END,
        CASE WHEN n.notification_enabled = 1 THEN ${now} END,
        CASE WHEN n.notification_enabled = 1 THEN NULL ELSE ${now} END,
        ${now}
      FROM notifications n WHERE n.id = (${notificationOf(accountId, deploymentId, notificationId)})
      ON CONFLICT DO NOTHING
      RETURNING *`,
    notificationOf(accountId, deploymentId, notificationId),
  ]);
  const run = rowsOf(inserted)[0];
  if (run) return { kind: 'created', run: mapRow(notificationRuns, run) };
  return rowsOf(found).length > 0 ? { kind: 'inFlight' } : { kind: 'notFound' };
}

/** How many deliveries of a run are in each state. */
export interface DeliveryCounts {
  total: number;
  pending: number;
  sent: number;
  failed: number;
}

export interface RunListItem {
  run: RunRow;
  counts: DeliveryCounts;
  /** The first deliveries of the run by recipient id, one more than asked for. */
  deliveries: DeliveryRow[];
}

/**
 * One round trip: the notification check, a page of runs newest first (keyset on id), and for
 * exactly those runs their delivery counts and first `preview` + 1 deliveries. Rows read are
 * bounded: `limit` runs of at most MAX_RECIPIENTS_PER_NOTIFICATION deliveries each, read
 * through the (run_id, recipient_id) index.
 */
export async function listRuns(
  db: Db,
  accountId: number,
  deploymentId: number,
  notificationId: number,
  beforeId: number | null,
  limit: number,
  preview: number,
): Promise<{ notificationFound: boolean; runs: RunListItem[] }> {
  const page = sql`SELECT id FROM notification_runs WHERE notification_id = ${notificationId}
    ${beforeId === null ? sql`` : sql`AND id < ${beforeId}`} ORDER BY id DESC LIMIT ${limit + 1}`;
  const [found, runs, deliveries] = await runBatch(db, [
    notificationOf(accountId, deploymentId, notificationId),
    // One pass over each run's deliveries (its (run_id, recipient_id) index), counted by status.
    sql`SELECT r.*, c.pending AS deliveries_pending, c.sent AS deliveries_sent, c.failed AS deliveries_failed
      FROM notification_runs r LEFT JOIN (SELECT d.run_id,
          count(*) FILTER (WHERE d.status = 'pending') AS pending,
          count(*) FILTER (WHERE d.status = 'sent') AS sent,
          count(*) FILTER (WHERE d.status = 'failed') AS failed
        FROM notification_deliveries d WHERE d.run_id IN (${page}) GROUP BY d.run_id) c ON c.run_id = r.id
      WHERE r.id IN (${page}) ORDER BY r.id DESC`,
    sql`SELECT * FROM (
        SELECT d.*, row_number() OVER (PARTITION BY d.run_id ORDER BY d.recipient_id) AS rn
        FROM notification_deliveries d WHERE d.run_id IN (${page}))
      WHERE rn <= ${preview + 1} ORDER BY run_id DESC, recipient_id ASC`,
  ]);
  const byRun = new Map<number, DeliveryRow[]>();
  for (const raw of rowsOf(deliveries)) {
    const d = mapRow(notificationDeliveries, raw);
    const list = byRun.get(d.runId);
    if (list) list.push(d);
    else byRun.set(d.runId, [d]);
  }
  const count = (raw: Raw, key: string) => Number(raw[key] ?? 0);
  return {
    notificationFound: rowsOf(found).length > 0,
    runs: rowsOf(runs).map((raw) => {
      const run = mapRow(notificationRuns, raw);
      return {
        run,
        counts: countsOf(
          count(raw, 'deliveries_pending'),
          count(raw, 'deliveries_sent'),
          count(raw, 'deliveries_failed'),
        ),
        deliveries: byRun.get(run.id) ?? [],
      };
    }),
  };
}

/**
 * One round trip: whether the run is one of the account's notification's, and one page of its
 * deliveries by recipient id (keyset on the (run_id, recipient_id) unique index).
 */
export async function listDeliveries(
  db: Db,
  accountId: number,
  deploymentId: number,
  notificationId: number,
  runId: number,
  afterRecipientId: number | null,
  limit: number,
): Promise<{ runFound: boolean; rows: DeliveryRow[] }> {
  const [found, page] = await runBatch(db, [
    sql`SELECT id FROM notification_runs WHERE id = ${runId}
      AND notification_id = (${notificationOf(accountId, deploymentId, notificationId)})`,
    sql`SELECT * FROM notification_deliveries WHERE run_id = ${runId}
      ${afterRecipientId === null ? sql`` : sql`AND recipient_id > ${afterRecipientId}`}
      ORDER BY recipient_id ASC LIMIT ${limit + 1}`,
  ]);
  return {
    runFound: rowsOf(found).length > 0,
    rows: rowsOf(page).map((raw) => mapRow(notificationDeliveries, raw)),
  };
}

/** A run's deliveries by status; every delivery is pending, sent or failed, so the total is their sum. */
const countsOf = (pending: number, sent: number, failed: number): DeliveryCounts => ({
  total: pending + sent + failed,
  pending,
  sent,
  failed,
});

// ---- The consumer ----

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
}

/**
 * Starts (or resumes) a run in ONE batch: a run whose deliveries are off is suppressed; a
 * queued run snapshots its recipients into delivery rows (unique per run and recipient) and
 * becomes running; then at most `maxLease` pending deliveries nobody holds are leased to
 * `owner` (lowest id first) and read back with their recipients. A redelivered message finds
 * sent rows sent and leases nothing twice.
 */
export async function startRun(
  db: Db,
  runId: number,
  owner: string,
  now: string,
  leaseUntil: string,
  maxLease: number,
): Promise<{ context: RunContext | null; leased: LeasedDelivery[] }> {
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
    sql`UPDATE notification_deliveries SET attempts = attempts + 1, lease_until = ${leaseUntil},
        lease_owner = ${owner}, updated_at = ${now}
      WHERE id IN (SELECT id FROM notification_deliveries
        WHERE run_id = ${runId} AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY id LIMIT ${maxLease})
        AND (SELECT status FROM notification_runs WHERE id = ${runId}) = 'running'`,
    sql`SELECT n.*, a.chat_webhook_url, dp.slug AS deployment_slug
      FROM notification_runs r JOIN notifications n ON n.id = r.notification_id
        JOIN accounts a ON a.id = n.account_id JOIN deployments dp ON dp.id = n.deployment_id
      WHERE r.id = ${runId}`,
    sql`SELECT d.id AS delivery_id, d.attempts AS delivery_attempts, rr.*,
        CASE WHEN rr.type = 'EMBED_USER'
          THEN ${catalogueNames(sql`rr.embed_account_id`, sql`rr.embed_tenant_id`)} END AS catalogue
      FROM notification_deliveries d
      JOIN (${selectRecipients}) rr ON rr.id = d.recipient_id
      WHERE d.run_id = ${runId} AND d.lease_owner = ${owner} AND d.status = 'pending'
      ORDER BY d.id`,
    sql`SELECT * FROM notification_runs WHERE id = ${runId}`,
  ]);
  const raw = rowsOf(results[4])[0];
  const run = rowsOf(results[6])[0];
  if (!raw || !run) return { context: null, leased: [] };
  const n = mapRow(notifications, raw);
  const context: RunContext = {
    run: mapRow(notificationRuns, run),
    accountId: n.accountId,
    deploymentId: n.deploymentId,
    deploymentSlug: String(raw.deployment_slug),
    dashboardId: n.dashboardId,
    format: n.notificationFormat,
    filters: n.filters,
    timeGrains: n.timeGrains,
    chatWebhookUrl: typeof raw.chat_webhook_url === 'string' ? raw.chat_webhook_url : null,
    schedule: scheduleOf(n),
  };
  const leased = rowsOf(results[5]).map((d) => ({
    deliveryId: Number(d.delivery_id),
    attempts: Number(d.delivery_attempts),
    recipient: toRecipientRow(d),
    catalogue: typeof d.catalogue === 'string' ? (JSON.parse(d.catalogue) as string[]) : [],
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

/** The run's status once nothing is pending: delivered, failed, or partially failed. */
const FINAL_STATUS = sql`CASE
    WHEN NOT EXISTS (SELECT 1 FROM notification_deliveries WHERE run_id = notification_runs.id AND status <> 'sent')
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
  now: string,
): Promise<{ pending: number; unleased: number; status: RunStatus }> {
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
export async function failRuns(db: Db, runIds: number[], error: string, now: string): Promise<void> {
  const ids = JSON.stringify(runIds);
  await runBatch(db, [
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
