import { sql } from 'drizzle-orm';
import type {
  NotificationFilter,
  NotificationFormat,
  RunStatus,
  TimeGrain,
} from '../../schema/notifications';
import { runBatch } from '../core/db';
import type { Db } from '../env';
import { type RecipientRow, selectRecipients, toRecipientRow } from './recipients.repository';
import type { Schedule } from './schedule';

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
  const rows = await db.all<Record<string, unknown>>(sql`
    SELECT id, next_run_at, schedule_type, minute, hour, day_of_week, day_of_month, custom_cron, timezone,
      notification_enabled
    FROM notifications
    WHERE next_run_at <= ${scheduledTime} AND is_enabled = 1
      ${after ? sql`AND (next_run_at, id) > (${after.nextRunAt}, ${after.id})` : sql``}
    ORDER BY next_run_at, id LIMIT ${limit}`);
  return rows.map((r) => ({
    id: r.id as number,
    nextRunAt: r.next_run_at as string,
    scheduleType: r.schedule_type as Schedule['scheduleType'],
    minute: r.minute as number | null,
    hour: r.hour as number | null,
    dayOfWeek: r.day_of_week as number | null,
    dayOfMonth: r.day_of_month as number | null,
    customCron: r.custom_cron as string | null,
    timezone: r.timezone as string,
    notificationEnabled: r.notification_enabled === 1,
  }));
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
      RETURNING id, notification_id, status`,
    sql`UPDATE notifications SET next_run_at = j.value ->> 'next'
      FROM json_each(${json}) j
      WHERE notifications.id = j.value ->> 'id' AND notifications.next_run_at = j.value ->> 'slot'`,
  ]);
  return ((inserted?.results ?? []) as { id: number; notification_id: number; status: RunStatus }[]).map(
    (r) => ({ runId: r.id, notificationId: r.notification_id, status: r.status }),
  );
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

/** A manual run of the account's notification, or null when there is no such notification. */
export async function insertManualRun(
  db: Db,
  accountId: number,
  deploymentId: number,
  notificationId: number,
  now: string,
): Promise<RunRow | null> {
  const rows = await db.all<Record<string, unknown>>(sql`
    INSERT INTO notification_runs (notification_id, slot, "trigger", status, enqueued_at, finished_at, created_at)
    SELECT n.id, ${now}, 'manual',
      CASE WHEN n.notification_enabled = 1 THEN 'queued' ELSE 'suppressed' END,
      CASE WHEN n.notification_enabled = 1 THEN ${now} END,
      CASE WHEN n.notification_enabled = 1 THEN NULL ELSE ${now} END,
      ${now}
    FROM notifications n WHERE n.id = (${notificationOf(accountId, deploymentId, notificationId)})
    RETURNING *`);
  return rows[0] ? toRunRow(rows[0]) : null;
}

export interface RunRow {
  id: number;
  notificationId: number;
  slot: string;
  trigger: 'scheduled' | 'manual';
  status: RunStatus;
  error: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface DeliveryRow {
  runId: number;
  recipientId: number;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  lastError: string | null;
  sentAt: string | null;
}

function toRunRow(r: Record<string, unknown>): RunRow {
  return {
    id: r.id as number,
    notificationId: r.notification_id as number,
    slot: r.slot as string,
    trigger: r.trigger as RunRow['trigger'],
    status: r.status as RunStatus,
    error: (r.error as string | null) ?? null,
    createdAt: r.created_at as string,
    startedAt: (r.started_at as string | null) ?? null,
    finishedAt: (r.finished_at as string | null) ?? null,
  };
}

/**
 * One round trip: the notification check, a page of runs newest first (keyset on id), and
 * the deliveries of exactly those runs (the same page, computed again inside SQL).
 */
export async function listRuns(
  db: Db,
  accountId: number,
  deploymentId: number,
  notificationId: number,
  beforeId: number | null,
  limit: number,
): Promise<{ notificationFound: boolean; runs: RunRow[]; deliveries: DeliveryRow[] }> {
  const page = sql`SELECT id FROM notification_runs WHERE notification_id = ${notificationId}
    ${beforeId === null ? sql`` : sql`AND id < ${beforeId}`} ORDER BY id DESC LIMIT ${limit + 1}`;
  const [found, runs, deliveries] = await runBatch(db, [
    notificationOf(accountId, deploymentId, notificationId),
    sql`SELECT * FROM notification_runs WHERE id IN (${page}) ORDER BY id DESC`,
    sql`SELECT run_id, recipient_id, status, attempts, last_error, sent_at FROM notification_deliveries
      WHERE run_id IN (${page}) ORDER BY run_id DESC, recipient_id ASC`,
  ]);
  return {
    notificationFound: (found?.results.length ?? 0) > 0,
    runs: ((runs?.results ?? []) as Record<string, unknown>[]).map(toRunRow),
    deliveries: ((deliveries?.results ?? []) as Record<string, unknown>[]).map((d) => ({
      runId: d.run_id as number,
      recipientId: d.recipient_id as number,
      status: d.status as DeliveryRow['status'],
      attempts: d.attempts as number,
      lastError: (d.last_error as string | null) ?? null,
      sentAt: (d.sent_at as string | null) ?? null,
    })),
  };
}

// ---- The consumer ----

export interface RunContext {
  run: RunRow;
  accountId: number;
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
}

/**
 * Starts (or resumes) a run in ONE batch: a run whose deliveries are off is suppressed; a
 * queued run snapshots its recipients into delivery rows (unique per run and recipient) and
 * becomes running; then every pending delivery nobody holds is leased to `owner` and read
 * back with its recipient. A redelivered message finds sent rows sent and leases nothing twice.
 */
export async function startRun(
  db: Db,
  runId: number,
  owner: string,
  now: string,
  leaseUntil: string,
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
      WHERE run_id = ${runId} AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ${now})
        AND (SELECT status FROM notification_runs WHERE id = ${runId}) = 'running'`,
    sql`SELECT r.*, n.account_id, n.dashboard_id, n.notification_format, n.filters, n.time_grains,
        n.schedule_type, n.minute, n.hour, n.day_of_week, n.day_of_month, n.custom_cron, n.timezone,
        a.chat_webhook_url
      FROM notification_runs r JOIN notifications n ON n.id = r.notification_id
        JOIN accounts a ON a.id = n.account_id
      WHERE r.id = ${runId}`,
    sql`SELECT d.id AS delivery_id, d.attempts AS delivery_attempts, rr.* FROM notification_deliveries d
      JOIN (${selectRecipients}) rr ON rr.id = d.recipient_id
      WHERE d.run_id = ${runId} AND d.lease_owner = ${owner} AND d.status = 'pending'
      ORDER BY d.id`,
  ]);
  const row = results[4]?.results[0] as Record<string, unknown> | undefined;
  if (!row) return { context: null, leased: [] };
  const context: RunContext = {
    run: toRunRow(row),
    accountId: row.account_id as number,
    dashboardId: row.dashboard_id as number,
    format: row.notification_format as NotificationFormat,
    filters: JSON.parse(row.filters as string),
    timeGrains: JSON.parse(row.time_grains as string),
    chatWebhookUrl: (row.chat_webhook_url as string | null) ?? null,
    schedule: {
      scheduleType: row.schedule_type as Schedule['scheduleType'],
      minute: row.minute as number | null,
      hour: row.hour as number | null,
      dayOfWeek: row.day_of_week as number | null,
      dayOfMonth: row.day_of_month as number | null,
      customCron: row.custom_cron as string | null,
      timezone: row.timezone as string,
    },
  };
  const leased = ((results[5]?.results ?? []) as Record<string, unknown>[]).map((d) => ({
    deliveryId: d.delivery_id as number,
    attempts: d.delivery_attempts as number,
    recipient: toRecipientRow(d),
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
 * Answers how many deliveries of the run are still pending.
 */
export async function finishAttempt(
  db: Db,
  runId: number,
  owner: string,
  outcomes: DeliveryOutcome[],
  now: string,
): Promise<{ pending: number; status: RunStatus }> {
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
    sql`SELECT status, (SELECT count(*) FROM notification_deliveries WHERE run_id = ${runId} AND status = 'pending')
        AS pending FROM notification_runs WHERE id = ${runId}`,
  ]);
  const row = results[2]?.results[0] as { status: RunStatus; pending: number } | undefined;
  return { pending: row?.pending ?? 0, status: row?.status ?? 'failed' };
}

/**
 * The dead-letter queue's end of a run, in ONE batch: what is still pending fails (keeping its
 * last error), and the run records the failure.
 */
export async function failRun(db: Db, runId: number, error: string, now: string): Promise<void> {
  await runBatch(db, [
    sql`UPDATE notification_deliveries SET status = 'failed', last_error = coalesce(last_error, ${error}),
        lease_until = NULL, lease_owner = NULL, updated_at = ${now}
      WHERE run_id = ${runId} AND status = 'pending'`,
    sql`UPDATE notification_runs SET
        status = CASE WHEN EXISTS (SELECT 1 FROM notification_deliveries WHERE run_id = ${runId} AND status = 'sent')
          THEN 'partially_failed' ELSE 'failed' END,
        error = ${error}, finished_at = ${now}
      WHERE id = ${runId} AND status IN ('queued', 'running')`,
  ]);
}
