import type { RequestScope } from '../core/scope';
import { claimDueRuns, type TickResult } from './run-claims.service';

/**
 * Every minute: claim the runs due at the tick (the scope's `now`, the tick's scheduledTime)
 * and enqueue them on the scope's notifications queue.
 */
export async function notificationsTick(scope: RequestScope): Promise<TickResult> {
  return claimDueRuns(scope);
}
