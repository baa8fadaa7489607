import type { Bindings, NotificationQueue } from '../core/env';
import { openShard } from '../core/shards';
import { claimDueRuns, type TickResult } from './runs.service';

/** Every minute, on each shard: claim the due runs of the tick's scheduledTime and enqueue them on `queue`. */
export async function notificationsTick(
  env: Bindings,
  queue: NotificationQueue,
  scheduledTime: Date,
  shard = 0,
): Promise<TickResult> {
  const { db } = openShard(env, shard, { queries: 0, roundTrips: 0 });
  return claimDueRuns(db, queue, scheduledTime);
}
