import { and, asc, desc, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import { notificationDeliveries, notificationRuns } from '../../schema/notifications';
import { mapRow, runBatch } from '../core/db';
import type { IdCursor } from '../core/pagination';
import type { DeploymentScope } from '../core/scope';
import { ownNotification, type Raw, rowsOf } from './notifications.repository';

/** The manual run's guarded insert and the reads of the runs list and a run's deliveries. */

export type RunRow = typeof notificationRuns.$inferSelect;
export type DeliveryRow = typeof notificationDeliveries.$inferSelect;

/** What a manual-run insert found: the typed outcome of its SQL conditions. */
export type ManualRunResult = { kind: 'created'; run: RunRow } | { kind: 'notFound' } | { kind: 'inFlight' };

/**
 * A manual run (now) of the scope's notification, in ONE batch. The partial unique index
 * `notification_runs_manual_inflight_uq` (one queued or running manual run per notification)
 * makes `ON CONFLICT DO NOTHING` insert nothing while one is in flight, so two concurrent
 * requests cannot both start one; the second statement tells a missing notification apart.
 * The insert is hand-written: INSERT … SELECT with ON CONFLICT DO NOTHING is the guard.
 */
export async function insertManualRun(
  scope: DeploymentScope,
  notificationId: number,
): Promise<ManualRunResult> {
  const now = scope.now.toISOString();
  const [inserted, found] = await runBatch(scope.db, [
    sql`INSERT INTO notification_runs (notification_id, slot, "trigger", status, enqueued_at, finished_at, created_at)
      SELECT n.id, ${now}, 'manual',
        CASE WHEN n.notification_enabled = 1 THEN 'queued' ELSE 'suppressed' END,
        CASE WHEN n.notification_enabled = 1 THEN ${now} END,
        CASE WHEN n.notification_enabled = 1 THEN NULL ELSE ${now} END,
        ${now}
      FROM notifications n WHERE n.id = ${ownNotification(scope, notificationId)}
      ON CONFLICT DO NOTHING
      RETURNING *`,
    ownNotification(scope, notificationId),
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
  /** Not sent on purpose (a deactivated user), with the reason in the delivery's `lastError`. */
  skipped: number;
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
  scope: DeploymentScope,
  notificationId: number,
  { afterId: beforeId, limit }: IdCursor,
  preview: number,
): Promise<{ notificationFound: boolean; runs: RunListItem[] }> {
  const page = scope.db
    .select({ id: notificationRuns.id })
    .from(notificationRuns)
    .where(
      and(
        eq(notificationRuns.notificationId, notificationId),
        beforeId === null ? undefined : lt(notificationRuns.id, beforeId),
      ),
    )
    .orderBy(desc(notificationRuns.id))
    .limit(limit + 1);
  const [found, runs, deliveries] = await runBatch(scope.db, [
    ownNotification(scope, notificationId),
    // Hand-written: counts by status (FILTER) and the first deliveries of each run (a window)
    // have no drizzle builder. One pass over each run's deliveries (its (run_id, recipient_id)
    // index), counted by status.
    sql`SELECT r.*, c.pending AS deliveries_pending, c.sent AS deliveries_sent, c.failed AS deliveries_failed,
        c.skipped AS deliveries_skipped
      FROM notification_runs r LEFT JOIN (SELECT d.run_id,
          count(*) FILTER (WHERE d.status = 'pending') AS pending,
          count(*) FILTER (WHERE d.status = 'sent') AS sent,
          count(*) FILTER (WHERE d.status = 'failed') AS failed,
          count(*) FILTER (WHERE d.status = 'skipped') AS skipped
        FROM notification_deliveries d WHERE d.run_id IN ${page} GROUP BY d.run_id) c ON c.run_id = r.id
      WHERE r.id IN ${page} ORDER BY r.id DESC`,
    sql`SELECT * FROM (
        SELECT d.*, row_number() OVER (PARTITION BY d.run_id ORDER BY d.recipient_id) AS rn
        FROM notification_deliveries d WHERE d.run_id IN ${page})
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
          count(raw, 'deliveries_skipped'),
        ),
        deliveries: byRun.get(run.id) ?? [],
      };
    }),
  };
}

/**
 * One round trip: whether the run is one of the scope's notification's, and one page of its
 * deliveries by recipient id (keyset on the (run_id, recipient_id) unique index).
 */
export async function listDeliveries(
  scope: DeploymentScope,
  notificationId: number,
  runId: number,
  { afterId: afterRecipientId, limit }: IdCursor,
): Promise<{ runFound: boolean; rows: DeliveryRow[] }> {
  const [found, page] = await runBatch(scope.db, [
    scope.db
      .select({ id: notificationRuns.id })
      .from(notificationRuns)
      .where(
        and(
          eq(notificationRuns.id, runId),
          inArray(notificationRuns.notificationId, ownNotification(scope, notificationId)),
        ),
      ),
    scope.db
      .select()
      .from(notificationDeliveries)
      .where(
        and(
          eq(notificationDeliveries.runId, runId),
          afterRecipientId === null ? undefined : gt(notificationDeliveries.recipientId, afterRecipientId),
        ),
      )
      .orderBy(asc(notificationDeliveries.recipientId))
      .limit(limit + 1),
  ]);
  return {
    runFound: rowsOf(found).length > 0,
    rows: rowsOf(page).map((raw) => mapRow(notificationDeliveries, raw)),
  };
}

/** A run's deliveries by status; every delivery is pending, sent, failed or skipped, so the total is their sum. */
const countsOf = (pending: number, sent: number, failed: number, skipped: number): DeliveryCounts => ({
  total: pending + sent + failed + skipped,
  pending,
  sent,
  failed,
  skipped,
});
