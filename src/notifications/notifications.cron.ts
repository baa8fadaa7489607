import { countedD1, createDb } from '../core/db';
import type { Bindings } from '../core/env';
import { deliveryPorts } from './delivery';
import { claimDueRuns, type TickResult } from './runs.service';

/** Every minute: claim the due runs of the tick's scheduledTime and enqueue them. */
export async function notificationsTick(env: Bindings, scheduledTime: Date): Promise<TickResult> {
  const db = createDb(countedD1(env.DB, { queries: 0, roundTrips: 0 }));
  return claimDueRuns(db, deliveryPorts(env).queue, scheduledTime);
}
