import { createApp } from './app';
import type { Bindings, BuildMessage } from './core/env';
import { openShard, shardNames, shardOfId } from './core/shards';
import { sweepExpiredUploads } from './deployments/data-model.service';
import { consumeBuilds } from './deployments/deployments.consumer';
import { sweepStrandedBuilds } from './deployments/deployments.service';
import { purgeExpiredRevocations } from './embedding/embed-sessions.service';
import {
  consumeNotificationDeadLetters,
  consumeNotifications,
  NOTIFICATIONS_DLQ_NAME,
  NOTIFICATIONS_QUEUE_NAME,
} from './notifications/notifications.consumer';
import { notificationsTick } from './notifications/notifications.cron';
import { platformOf as deployedPlatform, type PlatformOf } from './platform';

/** The shard a queue message belongs to: the one its id (a build's, a run's) was made on. */
function shardOfMessage(body: unknown): number {
  const id =
    (body as { buildId?: unknown; runId?: unknown } | null)?.buildId ??
    (body as { runId?: unknown } | null)?.runId;
  // A malformed message goes to shard 0, whose consumer acknowledges and logs it.
  return Number.isSafeInteger(id) ? shardOfId(id as number) : 0;
}

/** A batch split by the shard of each message: the same messages, so their ack/retry reach the queue. */
function batchesByShard<T>(batch: MessageBatch<T>): Map<number, MessageBatch<T>> {
  const groups = new Map<number, Message<T>[]>();
  for (const message of batch.messages) {
    const shard = shardOfMessage(message.body);
    groups.set(shard, [...(groups.get(shard) ?? []), message]);
  }
  return new Map(
    [...groups].map(([shard, messages]) => [
      shard,
      {
        queue: batch.queue,
        metadata: batch.metadata,
        messages,
        ackAll: () => {
          for (const m of messages) m.ack();
        },
        retryAll: (options?: QueueRetryOptions) => {
          for (const m of messages) m.retry(options);
        },
      },
    ]),
  );
}

/**
 * The Worker's handlers on a platform: `src/index.ts` exports it on the deployed one; tests and
 * embedders create their own with `platformOf` answering their clock, ports or limiter.
 */
export function createWorker(platformOf: PlatformOf = deployedPlatform) {
  const app = createApp(platformOf);
  return {
    fetch: app.fetch,

    /** Every minute, on every shard: find due work and enqueue it; the queue consumers do the work. */
    async scheduled(controller, env, _ctx) {
      const platform = platformOf(env);
      const now = new Date(controller.scheduledTime);
      // Each job of each shard runs even when another fails; the tick fails if any did.
      const jobs = await Promise.allSettled(
        shardNames(env).flatMap((_, shard) => {
          const { db } = openShard(env, shard, { queries: 0, roundTrips: 0 });
          return [
            sweepStrandedBuilds(db, env.BUILDS_QUEUE, now),
            sweepExpiredUploads(db, now),
            notificationsTick(env, platform.deliveryPorts.queue, now, shard),
            purgeExpiredRevocations(db, now),
          ];
        }),
      );
      const failed = jobs.find((j) => j.status === 'rejected');
      if (failed) throw failed.reason;
    },

    /** Each message is consumed on the shard its id names (ids are per-shard ranges). */
    async queue(batch, env, _ctx) {
      const { clock, deliveryPorts } = platformOf(env);
      const consume = async (shardBatch: MessageBatch<unknown>, shard: number) => {
        if (batch.queue.startsWith('edgeboard-builds')) {
          return consumeBuilds(shardBatch as MessageBatch<BuildMessage>, env, clock, shard);
        }
        if (batch.queue === NOTIFICATIONS_DLQ_NAME) {
          return consumeNotificationDeadLetters(shardBatch, env, clock, shard);
        }
        if (batch.queue === NOTIFICATIONS_QUEUE_NAME) {
          return consumeNotifications(shardBatch, env, { clock, ports: deliveryPorts }, shard);
        }
        throw new Error(`No consumer for queue ${batch.queue}`);
      };
      const results = await Promise.allSettled(
        [...batchesByShard(batch)].map(([shard, shardBatch]) => consume(shardBatch, shard)),
      );
      const failed = results.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  } satisfies ExportedHandler<Bindings>;
}
