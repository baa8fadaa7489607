import {
  createExecutionContext,
  createScheduledController,
  env,
  getQueueResult,
  type QueueResult,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { exports } from 'cloudflare:workers';
import type { Clock } from '../../src/core/clock';
import { platformOf } from '../../src/platform';
import { createWorker } from '../../src/worker';
import { platform } from './test-state';

export { platform, resetPlatform, type TestPlatform } from './test-state';

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
