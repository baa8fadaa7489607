import { createApp } from './app';
import { countedD1, createDb } from './core/db';
import type { Bindings, BuildMessage } from './core/env';
import { backgroundScope, type RequestScope } from './core/scope';
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
import { platformOf as deployedPlatform, type Platform, type PlatformOf } from './platform';

/** The scope of a cron tick or queue batch: the platform's ports, a fresh counted D1, `now` when given. */
function jobScope(env: Bindings, platform: Platform, ctx: ExecutionContext, now?: Date): RequestScope {
  const d1 = countedD1(env.DB, { queries: 0, roundTrips: 0 });
  const ports = {
    clock: platform.clock,
    sessionRateLimiter: platform.sessionRateLimiter,
    notificationsQueue: platform.deliveryPorts.queue,
    exportsQueue: platform.exportsQueue,
    replicaView: platform.replicaView,
  };
  return backgroundScope({ db: createDb(d1), d1, env, ports, now }, (p) => ctx.waitUntil(p));
}

/**
 * The Worker's handlers on a platform: `src/index.ts` exports it on the deployed one; tests and
 * embedders create their own with `platformOf` answering their clock, ports or limiter.
 */
export function createWorker(platformOf: PlatformOf = deployedPlatform) {
  const app = createApp(platformOf);
  return {
    fetch: app.fetch,

    /** Every minute: find due work and enqueue it; the queue consumers do the work. */
    async scheduled(controller, env, ctx) {
      const db = createDb(countedD1(env.DB, { queries: 0, roundTrips: 0 }));
      const platform = platformOf(env);
      const now = new Date(controller.scheduledTime);
      // Each job runs even when the other fails; the tick fails if either did.
      const jobs = await Promise.allSettled([
        sweepStrandedBuilds(db, env.BUILDS_QUEUE, now),
        sweepExpiredUploads(db, now),
        notificationsTick(env, platform.deliveryPorts.queue, now),
        purgeExpiredRevocations(db, now),
        sweepExpiredExports(jobScope(env, platform, ctx, now)),
      ]);
      const failed = jobs.find((j) => j.status === 'rejected');
      if (failed) throw failed.reason;
    },

    async queue(batch, env, ctx) {
      const platform = platformOf(env);
      const { clock, deliveryPorts } = platform;
      if (batch.queue.startsWith('edgeboard-builds')) {
        await consumeBuilds(batch as MessageBatch<BuildMessage>, env, clock);
        return;
      }
      if (batch.queue === NOTIFICATIONS_DLQ_NAME) return consumeNotificationDeadLetters(batch, env, clock);
      if (batch.queue === NOTIFICATIONS_QUEUE_NAME) {
        return consumeNotifications(batch, env, { clock, ports: deliveryPorts });
      }
      if (batch.queue === EXPORTS_QUEUE_NAME) return consumeExports(jobScope(env, platform, ctx), batch);
      throw new Error(`No consumer for queue ${batch.queue}`);
    },
  } satisfies ExportedHandler<Bindings>;
}
