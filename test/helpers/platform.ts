import {
  createExecutionContext,
  createScheduledController,
  env,
  getQueueResult,
  type QueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import { afterEach } from 'vitest';
import type { Clock } from '../../src/core/clock';
import type { ExportQueue, MoveQueue, PreAggregationQueue, ReplicaView } from '../../src/core/env';
import type { DeliveryPorts } from '../../src/notifications/delivery';
import { platformOf } from '../../src/platform';
import type { RollupCompiler } from '../../src/pre-aggregations/rollup-compiler';
import { createWorker } from '../../src/worker';

/** The boundaries a test puts in place of the deployed ones; what it leaves unset stays real. */
export interface TestPlatform {
  clock?: Clock;
  deliveryPorts?: Partial<DeliveryPorts>;
  exportsQueue?: ExportQueue;
  movesQueue?: MoveQueue;
  preAggregationsQueue?: PreAggregationQueue;
  rollupCompiler?: RollupCompiler;
  sessionRateLimiter?: RateLimit;
  replicaView?: ReplicaView;
}

/**
 * The platform of the running test: a test sets a boundary on it (`platform.clock =
 * clockAt(…)`), and every request (`api`), cron tick and queue batch it sends afterwards runs on
 * it. It is emptied after each test (below), so nothing carries over to the next one.
 */
export const platform: TestPlatform = {};

export function resetPlatform(): void {
  for (const key of Object.keys(platform)) delete platform[key as keyof TestPlatform];
}

// Whatever boundary a test replaced (clock, delivery ports, …) is the real one again for the next:
// registered in every test file that loads this module (each file has its own instance of it).
afterEach(resetPlatform);

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
    preAggregationsQueue: platform.preAggregationsQueue ?? deployed.preAggregationsQueue,
    rollupCompiler: platform.rollupCompiler ?? deployed.rollupCompiler,
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

/**
 * One run of the Worker's scheduled handler at `at` (a second from now unless given: after what
 * the test just wrote), for trigger `cron` (the every-minute one unless named), on the test's
 * platform with `bindings`, waited for with the work it left running.
 */
export async function cronTick(
  at: Date | string | number = Date.now() + 1_000,
  options: { cron?: string; bindings?: typeof env } = {},
): Promise<void> {
  const controller = createScheduledController({
    scheduledTime: new Date(at),
    cron: options.cron ?? '* * * * *',
  });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, options.bindings ?? env, ctx);
  await waitOnExecutionContext(ctx);
}

/**
 * Delivers a batch (from `createMessageBatch`) to the Worker's queue handler on the test's
 * platform, with `bindings`; answers the acks and the retries, each retry with the delay it asked
 * for (getQueueResult leaves retry() options out, so they are recorded here).
 */
export async function deliverBatch(batch: MessageBatch, bindings: typeof env = env): Promise<QueueResult> {
  const delays = new Map<string, number | undefined>();
  for (const message of batch.messages) {
    const retry = message.retry.bind(message);
    Object.defineProperty(message, 'retry', {
      value: (options?: QueueRetryOptions) => {
        delays.set(message.id, options?.delaySeconds);
        retry(options);
      },
    });
  }
  const ctx = createExecutionContext();
  await worker.queue(batch, bindings, ctx);
  const result = await getQueueResult(batch, ctx);
  return {
    ...result,
    retryMessages: result.retryMessages.map((r) => ({ msgId: r.msgId, delaySeconds: delays.get(r.msgId) })),
  };
}
