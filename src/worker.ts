import { createApp } from './app';
import { countedD1, createDb } from './core/db';
import type { Bindings, BuildMessage } from './core/env';
import { backgroundScope } from './core/scope';
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

/**
 * The Worker's handlers on a platform: `src/index.ts` exports it on the deployed one; tests and
 * embedders create their own with `platformOf` answering their clock, ports or limiter.
 */
export function createWorker(platformOf: PlatformOf = deployedPlatform) {
  const app = createApp(platformOf);
  return {
    fetch: app.fetch,

    /** Every minute: find due work and enqueue it; the queue consumers do the work. */
    async scheduled(controller, env, _ctx) {
      const db = createDb(countedD1(env.DB, { queries: 0, roundTrips: 0 }));
      const platform = platformOf(env);
      const now = new Date(controller.scheduledTime);
      const scope = backgroundScope({
        db,
        d1: db.$client,
        env,
        now,
        ports: {
          clock: platform.clock,
          sessionRateLimiter: platform.sessionRateLimiter,
          notificationsQueue: platform.deliveryPorts.queue,
          replicaView: platform.replicaView,
        },
      });
      // Each job runs even when the other fails; the tick fails if either did.
      const jobs = await Promise.allSettled([
        sweepStrandedBuilds(db, env.BUILDS_QUEUE, now),
        sweepExpiredUploads(db, now),
        notificationsTick(env, platform.deliveryPorts.queue, now),
        purgeExpiredRevocations(scope),
      ]);
      const failed = jobs.find((j) => j.status === 'rejected');
      if (failed) throw failed.reason;
    },

    async queue(batch, env, _ctx) {
      const { clock, deliveryPorts } = platformOf(env);
      if (batch.queue.startsWith('edgeboard-builds')) {
        await consumeBuilds(batch as MessageBatch<BuildMessage>, env, clock);
        return;
      }
      if (batch.queue === NOTIFICATIONS_DLQ_NAME) return consumeNotificationDeadLetters(batch, env, clock);
      if (batch.queue === NOTIFICATIONS_QUEUE_NAME) {
        return consumeNotifications(batch, env, { clock, ports: deliveryPorts });
      }
      throw new Error(`No consumer for queue ${batch.queue}`);
    },
  } satisfies ExportedHandler<Bindings>;
}
