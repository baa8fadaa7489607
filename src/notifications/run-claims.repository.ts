import { and, asc, eq, inArray, lt, lte, sql } from 'drizzle-orm';
import { notificationRuns, notifications, type RunStatus } from '../../schema/notifications';
import { FROZEN_ACCOUNTS } from '../core/account-moving';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import { rowsOf } from './notifications.repository';
import type { Schedule } from './schedule';

/**
 * The statements of the cron's claim: due notifications by the (next_run_at, id) index, the
 * guarded batch that turns slots into runs, and the stranded-run sweep.
 */

/** What the claim reads of a due notification: its schedule, its slot (a due row has one) and whether it delivers. */
export type DueNotification = Schedule &
  Pick<typeof notifications.$inferSelect, 'id' | 'notificationEnabled'> & { nextRunAt: string };

/** One page of due notifications (next run ≤ the tick), keyset on the (next_run_at, id) index the cron walks. */
export async function selectDue(
  db: Db,
  tick: Date,
  after: { nextRunAt: string; id: number } | null,
  limit: number,
): Promise<DueNotification[]> {
  // Only the columns the claim uses: a due row's filters and switchers can be large, and a tick
  // reads up to CLAIM_PAGE rows a page.
  const rows = await db
    .select({
      id: notifications.id,
      nextRunAt: notifications.nextRunAt,
      scheduleType: notifications.scheduleType,
      minute: notifications.minute,
      hour: notifications.hour,
      dayOfWeek: notifications.dayOfWeek,
      dayOfMonth: notifications.dayOfMonth,
      customCron: notifications.customCron,
      timezone: notifications.timezone,
      notificationEnabled: notifications.notificationEnabled,
    })
    .from(notifications)
    .where(
      and(
        lte(notifications.nextRunAt, tick.toISOString()),
        eq(notifications.isEnabled, true),
        // A row-value comparison (drizzle has none): the keyset the index walks in one range.
        after
          ? sql`(${notifications.nextRunAt}, ${notifications.id}) > (${after.nextRunAt}, ${after.id})`
          : undefined,
      ),
    )
    .orderBy(asc(notifications.nextRunAt), asc(notifications.id))
    .limit(limit);
  // next_run_at ≤ tick holds only for a set one.
  return rows.map((n) => ({ ...n, nextRunAt: n.nextRunAt as string }));
}

export interface Claim {
  id: number;
  /** The slot being claimed: the notification's stored next run. */
  slot: string;
  /** Its next run after this tick (null: the schedule stopped firing). */
  next: string | null;
}

/**
 * Claims slots in ONE batch (one transaction), hand-written: the guarded claim statements. A run row is inserted only while the
 * notification still holds that slot as its next run, and `ON CONFLICT DO NOTHING` on the
 * (notification, slot) unique index makes a doubled tick insert nothing; RETURNING hands back
 * only the runs this call created. The next run then moves on, compare-and-set on the slot.
 * A notification whose deliveries are off gets its run recorded as suppressed. An account the
 * operator is moving claims nothing and keeps its slot: it is claimed where the account lands.
 */
export async function claimSlots(
  db: Db,
  claims: Claim[],
  tick: Date,
): Promise<{ runId: number; notificationId: number; status: RunStatus }[]> {
  if (claims.length === 0) return [];
  const now = tick.toISOString();
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
      WHERE n.account_id NOT IN ${FROZEN_ACCOUNTS} ON CONFLICT DO NOTHING
      RETURNING *`,
    sql`UPDATE notifications SET next_run_at = j.value ->> 'next'
      FROM json_each(${json}) j
      WHERE notifications.id = j.value ->> 'id' AND notifications.next_run_at = j.value ->> 'slot'
        AND notifications.account_id NOT IN ${FROZEN_ACCOUNTS}`,
  ]);
  return rowsOf(inserted)
    .map((raw) => mapRow(notificationRuns, raw))
    .map((r) => ({ runId: r.id, notificationId: r.notificationId, status: r.status }));
}

/** Queued runs whose message may have been lost (enqueue failed); their clock restarts now. */
export async function takeStrandedRuns(db: Db, enqueuedBefore: Date, now: Date, limit: number) {
  const stranded = db
    .select({ id: notificationRuns.id })
    .from(notificationRuns)
    .where(
      and(
        eq(notificationRuns.status, 'queued'),
        lt(notificationRuns.enqueuedAt, enqueuedBefore.toISOString()),
      ),
    )
    .orderBy(asc(notificationRuns.enqueuedAt))
    .limit(limit);
  const rows = await db
    .update(notificationRuns)
    .set({ enqueuedAt: now.toISOString() })
    .where(inArray(notificationRuns.id, stranded))
    .returning({ id: notificationRuns.id });
  return rows.map((r) => r.id);
}
