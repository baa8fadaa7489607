import { sql } from 'drizzle-orm';
import { notificationDeliveries, notificationRuns } from '../../schema/notifications';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';

/** The manual run's guarded insert and the reads of the runs list and a run's deliveries. */

type Raw = Record<string, unknown>;
const rowsOf = (result: D1Result | undefined): Raw[] => (result?.results ?? []) as Raw[];

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
