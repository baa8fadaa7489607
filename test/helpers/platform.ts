import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import type { Clock } from '../../src/core/clock';
import type { ExportQueue, MoveQueue, ReplicaView } from '../../src/core/env';
import type { DeliveryPorts } from '../../src/notifications/delivery';
import { platformOf } from '../../src/platform';
import { createWorker } from '../../src/worker';

/** The boundaries a test puts in place of the deployed ones; what it leaves unset stays real. */
export interface TestPlatform {
  clock?: Clock;
  deliveryPorts?: Partial<DeliveryPorts>;
  exportsQueue?: ExportQueue;
  movesQueue?: MoveQueue;
  sessionRateLimiter?: RateLimit;
  replicaView?: ReplicaView;
}

/**
 * The platform of the running test: a test sets a boundary on it (`platform.clock =
 * clockAt(…)`), and every request (`api`), cron tick and queue batch it sends afterwards runs on
 * it. test/setup.ts empties it after each test, so nothing carries over to the next one.
 */
export const platform: TestPlatform = {};

export function resetPlatform(): void {
  for (const key of Object.keys(platform)) delete platform[key as keyof TestPlatform];
}

/** A clock stopped at `at`. */
export const clockAt = (at: string | number | Date): Clock => ({ now: () => new Date(at) });

/** The Worker on the test's platform: the deployed one but for what the test set. */
export const worker = createWorker((bindings) => {
  const deployed = platformOf(bindings);
  return {
    clock: platform.clock ?? deployed.clock,
    deliveryPorts: { ...deployed.deliveryPorts, ...platform.deliveryPorts },
    exportsQueue: platform.exportsQueue ?? deployed.exportsQueue,
    movesQueue: platform.movesQueue ?? deployed.movesQueue,
    sessionRateLimiter: platform.sessionRateLimiter ?? deployed.sessionRateLimiter,
    replicaView: platform.replicaView,
  };
});

/**
 * One request through the Worker: through the Worker as deployed (`exports.default`), unless the running test
 * replaced a boundary; then through `worker`, waiting for the work it left running (`waitUntil`).
 */
export async function fetchWorker(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  if (!Object.values(platform).some((boundary) => boundary !== undefined))
    return exports.default.fetch(request);
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}
