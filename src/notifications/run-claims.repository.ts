import { sql } from 'drizzle-orm';
import { notificationRuns, notifications, type RunStatus } from '../../schema/notifications';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import { type Schedule, scheduleOf } from './schedule';

/**
 * The statements of the cron's claim: due notifications by the (next_run_at, id) index, the
 * guarded batch that turns slots into runs, and the stranded-run sweep.
 */

type Raw = Record<string, unknown>;
const rowsOf = (result: D1Result | undefined): Raw[] => (result?.results ?? []) as Raw[];

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
