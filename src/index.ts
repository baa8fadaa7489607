import { createApp } from './app';
import { countedD1, createDb } from './core/db';
import type { Bindings, BuildMessage } from './core/env';
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

const app = createApp();

export default {
  fetch: app.fetch,

  /** Every minute: find due work and enqueue it; the queue consumers do the work. */
  async scheduled(controller, env, _ctx) {
    const db = createDb(countedD1(env.DB, { queries: 0, roundTrips: 0 }));
    const now = new Date(controller.scheduledTime);
    // Each job runs even when the other fails; the tick fails if either did.
    const jobs = await Promise.allSettled([
      sweepStrandedBuilds(db, env.BUILDS_QUEUE, now),
      sweepExpiredUploads(db, now),
      notificationsTick(env, now),
      purgeExpiredRevocations(db, now),
    ]);
    const failed = jobs.find((j) => j.status === 'rejected');
    if (failed) throw failed.reason;
  },

  async queue(batch, env, _ctx) {
    if (batch.queue.startsWith('edgeboard-builds')) {
      await consumeBuilds(batch as MessageBatch<BuildMessage>, env);
      return;
    }
    if (batch.queue === NOTIFICATIONS_DLQ_NAME) return consumeNotificationDeadLetters(batch, env);
    if (batch.queue === NOTIFICATIONS_QUEUE_NAME) return consumeNotifications(batch, env);
    throw new Error(`No consumer for queue ${batch.queue}`);
  },
} satisfies ExportedHandler<Bindings>;

/** The Durable Object class of each deployment's embedded data store (binding DEPLOYMENT_STORE). */
export { DeploymentStore } from './sources/deployment-store';
