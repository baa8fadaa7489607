import type { RequestScope } from '../core/scope';
import { compileSchedule, nextRunAfter } from './cron-expression';
import { CLAIM_PAGE, CLAIM_PER_TICK, REQUEUE_PER_TICK } from './notifications.limits';
import * as repo from './run-claims.repository';
import { enqueueRuns } from './run-messages';

/**
 * The cron's side of runs: claiming the slots that fell due, enqueuing the runs it created, and
 * sending again the queued runs whose message was lost.
 */

/** A queued run whose message has not started it by then is enqueued again. */
const STRANDED_MS = 10 * 60_000;

/**
 * The run after the tick of each due notification, or null: computed once per distinct schedule
 * of the tick (compiling one and walking its days costs tens of microseconds, and a tick's due
 * rows share a few schedules, so a tick of thousands computes a handful). A stored schedule
 * that no longer compiles (a cron or time zone refused since it was written) parks its
 * notification (null: no next run) and is logged, instead of throwing and leaving it due at the
 * head of every later tick, where it would stall every notification behind it.
 */
function nextRunsAfter(tick: Date): (n: repo.DueNotification) => number | null {
  const known = new Map<string, { next: number | null } | { error: unknown }>();
  return (n) => {
    const key = JSON.stringify([
      n.scheduleType,
      n.minute,
      n.hour,
      n.dayOfWeek,
      n.dayOfMonth,
      n.customCron,
      n.timezone,
    ]);
    let outcome = known.get(key);
    if (!outcome) {
      try {
        outcome = { next: nextRunAfter(compileSchedule(n), tick.getTime()) };
      } catch (error) {
        outcome = { error };
      }
      known.set(key, outcome);
    }
    if ('next' in outcome) return outcome.next;
    console.error(
      JSON.stringify({ event: 'notification_schedule_invalid', id: n.id, error: String(outcome.error) }),
    );
    return null;
  };
}

export interface TickResult {
  claimed: number;
  enqueued: number;
  suppressed: number;
  requeued: number;
}

/**
 * The cron's work: claim due slots (next run ≤ the tick's scheduledTime, the scope's `now`) page by page, at most
 * CLAIM_PER_TICK of them, earliest first; advance each claimed notification's next run past
 * the tick, and send only the runs this tick created. What is left stays due, and the next
 * tick claims it first. A doubled tick claims nothing twice; a skipped tick leaves next runs
 * in the past, so the next tick claims them (missed slots of one notification collapse into
 * one run).
 */
export async function claimDueRuns(scope: RequestScope): Promise<TickResult> {
  const { db, now: tick } = scope;
  const queue = scope.ports.notificationsQueue;
  const result: TickResult = { claimed: 0, enqueued: 0, suppressed: 0, requeued: 0 };
  let after: { nextRunAt: string; id: number } | null = null;
  // Counted in due rows read, not runs created: a tick racing a doubled one (claiming nothing)
  // still stops after CLAIM_PER_TICK rows.
  let read = 0;
  const nextRunOf = nextRunsAfter(tick);
  while (read < CLAIM_PER_TICK) {
    const due = await repo.selectDue(db, tick, after, Math.min(CLAIM_PAGE, CLAIM_PER_TICK - read));
    read += due.length;
    if (due.length === 0) break;
    const claims = due.map((n) => {
      const next = nextRunOf(n);
      return { id: n.id, slot: n.nextRunAt, next: next === null ? null : new Date(next).toISOString() };
    });
    const runs = await repo.claimSlots(db, claims, tick);
    const queued = runs.filter((r) => r.status === 'queued').map((r) => r.runId);
    result.claimed += runs.length;
    result.suppressed += runs.length - queued.length;
    try {
      await enqueueRuns(queue, queued);
      result.enqueued += queued.length;
    } catch (err) {
      // The runs are committed as queued: the stranded-run sweep sends them again.
      console.error(
        JSON.stringify({ event: 'notification_enqueue_failed', runs: queued.length, error: String(err) }),
      );
    }
    const last = due[due.length - 1] as repo.DueNotification;
    after = { nextRunAt: last.nextRunAt, id: last.id };
    if (due.length < CLAIM_PAGE) break;
  }
  if (read >= CLAIM_PER_TICK) {
    const event = {
      event: 'notification_claim_capped',
      tick: tick.toISOString(),
      read,
      claimed: result.claimed,
    };
    console.warn(JSON.stringify(event));
  }
  const stranded = await repo.takeStrandedRuns(
    db,
    new Date(tick.getTime() - STRANDED_MS),
    tick,
    REQUEUE_PER_TICK,
  );
  if (stranded.length > 0) {
    await enqueueRuns(queue, stranded);
    result.requeued = stranded.length;
  }
  return result;
}
