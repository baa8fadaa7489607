import { consumeMoves, resumeStalledMoves } from './accounts/move-steps.service';
import { createApp } from './app';
import { sweepShard } from './control/sweep.service';
import type { Bindings, BuildMessage, MoveMessage } from './core/env';
import { backgroundScope, type RequestScope } from './core/scope';
import { openShard, shardNames, shardOfId } from './core/shards';
import { sweepExpiredUploads } from './deployments/data-model.service';
import { consumeBuilds } from './deployments/deployments.consumer';
import { sweepStrandedBuilds } from './deployments/deployments.service';
import { purgeExpiredRevocations } from './embedding/embed-sessions.service';
import { consumeExports, EXPORTS_QUEUE_NAME } from './exports/exports.consumer';
import { sweepExpiredExports } from './exports/exports.cron';
import {
  consumeNotificationDeadLetters,
  consumeNotifications,
  NOTIFICATIONS_DLQ_NAME,
  NOTIFICATIONS_QUEUE_NAME,
} from './notifications/notifications.consumer';
import { notificationsTick } from './notifications/notifications.cron';
import { platformOf as deployedPlatform, type Platform, type PlatformOf, portsOf } from './platform';
import {
  consumePreAggregations,
  PRE_AGGREGATIONS_QUEUE_NAME,
} from './pre-aggregations/pre-aggregations.consumer';
import { refreshTick } from './pre-aggregations/refresh.service';

/** A tick's or batch's scope on shard `shard`, over its own counted D1; `now` defaults to the platform's clock. */
function jobScope(
  env: Bindings,
  platform: Platform,
  shard: number,
  { now, waitUntil }: { now?: Date; waitUntil?: (p: Promise<unknown>) => void } = {},
): RequestScope {
  const { db, d1 } = openShard(env, shard, { queries: 0, roundTrips: 0 });
  return backgroundScope({ db, d1, env, ports: portsOf(platform), now }, waitUntil);
}

/**
 * The shard a queue message belongs to: the one it names (`shard`, of `shards`), else the one its
 * id (a build's, a run's, an export's, a pre-aggregation partition's or plan's deployment) was
 * made on. Messages about rows a move may have carried to another shard name their shard.
 */
function shardOfMessage(body: unknown, shards: number): number {
  const ids = body as {
    shard?: unknown;
    buildId?: unknown;
    runId?: unknown;
    exportId?: unknown;
    partitionId?: unknown;
    deploymentId?: unknown;
  } | null;
  const named = ids?.shard;
  if (Number.isSafeInteger(named) && (named as number) >= 0 && (named as number) < shards)
    return named as number;
  const id = ids?.buildId ?? ids?.runId ?? ids?.exportId ?? ids?.partitionId ?? ids?.deploymentId;
  // A malformed message goes to shard 0, whose consumer acknowledges and logs it.
  return Number.isSafeInteger(id) ? shardOfId(id as number) : 0;
}

/** A batch split by the shard of each message: the same messages, so their ack/retry reach the queue. */
function batchesByShard<T>(batch: MessageBatch<T>, shards: number): Map<number, MessageBatch<T>> {
  const groups = new Map<number, Message<T>[]>();
  for (const message of batch.messages) {
    const shard = shardOfMessage(message.body, shards);
    groups.set(shard, [...(groups.get(shard) ?? []), message]);
  }
  return new Map([...groups].map(([shard, messages]) => [shard, partOf(batch, messages)]));
}

/** A batch of some of `batch`'s messages: the same messages, so their ack/retry reach the queue. */
function partOf<T>(batch: MessageBatch<T>, messages: readonly Message<T>[]): MessageBatch<T> {
  return {
    queue: batch.queue,
    metadata: batch.metadata,
    messages,
    ackAll: () => {
      for (const m of messages) m.ack();
    },
    retryAll: (options?: QueueRetryOptions) => {
      for (const m of messages) m.retry(options);
    },
  };
}

/** The Cron Trigger (wrangler.toml) that resumes stalled account moves, apart from the per-minute one. */
export const MOVES_CRON = '*/5 * * * *';

/** A message of an account move (src/accounts/move-steps.service.ts), on the builds queue. */
const isMoveMessage = (message: Message<unknown>): message is Message<MoveMessage> =>
  (message.body as { kind?: unknown } | null)?.kind === 'account-move';

/**
 * The Worker's handlers on a platform: `src/index.ts` exports it on the deployed one; tests and
 * embedders create their own with `platformOf` answering their clock, ports or limiter.
 */
export function createWorker(platformOf: PlatformOf = deployedPlatform) {
  const app = createApp(platformOf);
  return {
    fetch: app.fetch,

    /**
     * Every minute, on every shard: find due work and enqueue it (the queue consumers do the
     * work), and one bounded pass of the sweep of writes cut in half with the control database.
     */
    async scheduled(controller, env, ctx) {
      const platform = platformOf(env);
      const now = new Date(controller.scheduledTime);
      // The control database's own trigger: account moves whose step stalled are enqueued again.
      if (controller.cron === MOVES_CRON) {
        await resumeStalledMoves(jobScope(env, platform, 0, { now }));
        return;
      }
      // Each job of each shard runs even when another fails; the tick fails if any did.
      const jobs = await Promise.allSettled(
        shardNames(env).flatMap((_, shard) => {
          const scope = jobScope(env, platform, shard, { now, waitUntil: (p) => ctx.waitUntil(p) });
          return [
            sweepStrandedBuilds(scope),
            sweepExpiredUploads(scope),
            notificationsTick(scope),
            purgeExpiredRevocations(scope),
            sweepExpiredExports(scope),
            sweepShard(scope),
            refreshTick(scope),
          ];
        }),
      );
      const failed = jobs.find((j) => j.status === 'rejected');
      if (failed) throw failed.reason;
    },

    /** Each message is consumed on the shard its id names (ids are per-shard ranges). */
    async queue(whole, env, ctx) {
      const platform = platformOf(env);
      const waitUntil = (p: Promise<unknown>) => ctx.waitUntil(p);
      // The steps of account moves ride on the builds queue; they read the control database.
      const moves = whole.messages.filter(isMoveMessage);
      if (moves.length > 0) await consumeMoves(jobScope(env, platform, 0, { waitUntil }), moves);
      const rest = whole.messages.filter((m) => !isMoveMessage(m));
      if (rest.length === 0) return;
      const batch = partOf(whole, rest);
      const consume = async (shardBatch: MessageBatch<unknown>, shard: number) => {
        const scope = jobScope(env, platform, shard, { waitUntil });
        if (batch.queue.startsWith('edgeboard-builds')) {
          return consumeBuilds(shardBatch as MessageBatch<BuildMessage>, scope);
        }
        if (batch.queue === NOTIFICATIONS_DLQ_NAME) return consumeNotificationDeadLetters(shardBatch, scope);
        if (batch.queue === NOTIFICATIONS_QUEUE_NAME) {
          return consumeNotifications(shardBatch, { ...scope, delivery: platform.deliveryPorts });
        }
        if (batch.queue === PRE_AGGREGATIONS_QUEUE_NAME) {
          return consumePreAggregations(shardBatch, scope, platform.rollupCompiler);
        }
        if (batch.queue === EXPORTS_QUEUE_NAME) {
          return consumeExports(scope, shardBatch as Parameters<typeof consumeExports>[1]);
        }
        throw new Error(`No consumer for queue ${batch.queue}`);
      };
      const results = await Promise.allSettled(
        [...batchesByShard(batch, shardNames(env).length)].map(([shard, shardBatch]) =>
          consume(shardBatch, shard),
        ),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  } satisfies ExportedHandler<Bindings>;
}
