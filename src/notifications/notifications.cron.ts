import { countedD1, createDb } from '../core/db';
import type { Bindings, NotificationQueue } from '../core/env';
import { claimDueRuns, type TickResult } from './runs.service';

/** Every minute: claim the due runs of the tick's scheduledTime and enqueue them on `queue`. */
export async function notificationsTick(
  env: Bindings,
  queue: NotificationQueue,
  scheduledTime: Date,
): Promise<TickResult> {
  const db = createDb(countedD1(env.DB, { queries: 0, roundTrips: 0 }));
  return claimDueRuns(db, queue, scheduledTime);
}
