import { createApp } from './app';
import { countedD1, createDb } from './core/db';
import { consumeBuilds } from './deployments/deployments.consumer';
import { sweepStrandedBuilds } from './deployments/deployments.service';
import type { Bindings, BuildMessage } from './env';

const app = createApp();

export default {
  fetch: app.fetch,

  /** Every minute: find due work and enqueue it; the queue consumers do the work. */
  async scheduled(controller, env, _ctx) {
    const db = createDb(countedD1(env.DB, { queries: 0, roundTrips: 0 }));
    const now = new Date(controller.scheduledTime);
    await sweepStrandedBuilds(db, env.BUILDS_QUEUE, now);
  },

  async queue(batch, env, _ctx) {
    if (batch.queue.startsWith('edgeboard-builds')) {
      await consumeBuilds(batch as MessageBatch<BuildMessage>, env);
      return;
    }
    throw new Error(`No consumer for queue ${batch.queue}`);
  },
} satisfies ExportedHandler<Bindings>;
