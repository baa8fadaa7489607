import { createApp } from './app';
import { countedD1, createDb } from './core/db';
import type { Bindings, BuildMessage } from './core/env';
import { backgroundScope, type RequestScope, type ScopePorts } from './core/scope';
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

/** The platform's boundaries as a scope carries them. */
const portsOf = (platform: Platform): ScopePorts => ({
  clock: platform.clock,
  sessionRateLimiter: platform.sessionRateLimiter,
  notificationsQueue: platform.deliveryPorts.queue,
  exportsQueue: platform.exportsQueue,
  replicaView: platform.replicaView,
});

/** A tick's or batch's scope over its own counted D1; `now` defaults to the platform's clock. */
function jobScope(
  env: Bindings,
  platform: Platform,
  { now, waitUntil }: { now?: Date; waitUntil?: (p: Promise<unknown>) => void } = {},
): RequestScope {
  const d1 = countedD1(env.DB, { queries: 0, roundTrips: 0 });
  return backgroundScope({ db: createDb(d1), d1, env, ports: portsOf(platform), now }, waitUntil);
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
      const platform = platformOf(env);
      const now = new Date(controller.scheduledTime);
      const scope = jobScope(env, platform, { now, waitUntil: (p) => ctx.waitUntil(p) });
      // Each job runs even when the other fails; the tick fails if either did.
      const jobs = await Promise.allSettled([
        sweepStrandedBuilds(scope),
        sweepExpiredUploads(scope),
        notificationsTick(scope),
        purgeExpiredRevocations(scope),
        sweepExpiredExports(scope),
      ]);
      const failed = jobs.find((j) => j.status === 'rejected');
      if (failed) throw failed.reason;
    },

    async queue(batch, env, ctx) {
      const platform = platformOf(env);
      if (batch.queue.startsWith('edgeboard-builds')) {
        await consumeBuilds(batch as MessageBatch<BuildMessage>, jobScope(env, platform));
        return;
      }
      if (batch.queue === NOTIFICATIONS_DLQ_NAME) {
        return consumeNotificationDeadLetters(batch, jobScope(env, platform));
      }
      if (batch.queue === NOTIFICATIONS_QUEUE_NAME) {
        const scope = jobScope(env, platform, { waitUntil: (p) => ctx.waitUntil(p) });
        return consumeNotifications(batch, { ...scope, delivery: platform.deliveryPorts });
      }
      if (batch.queue === EXPORTS_QUEUE_NAME)
        return consumeExports(jobScope(env, platform, { waitUntil: (p) => ctx.waitUntil(p) }), batch);
      throw new Error(`No consumer for queue ${batch.queue}`);
    },
  } satisfies ExportedHandler<Bindings>;
}
