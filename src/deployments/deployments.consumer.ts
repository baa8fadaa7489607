import type { Clock } from '../core/clock';
import type { Bindings, BuildMessage } from '../core/env';
import { openShard } from '../core/shards';
import { runBuild } from './deployments.service';

/**
 * The builds queue: each message names one build; redeliveries are harmless (claimBuild). The
 * batch's builds are all on `shard` (the Worker splits a batch by the shard of each build id).
 */
export async function consumeBuilds(
  batch: MessageBatch<BuildMessage>,
  env: Bindings,
  clock: Clock,
  shard = 0,
): Promise<void> {
  const { db } = openShard(env, shard, { queries: 0, roundTrips: 0 });
  for (const message of batch.messages) {
    try {
      await runBuild(db, message.body.buildId, clock.now());
      message.ack();
    } catch (err) {
      console.error(
        JSON.stringify({ event: 'build_failed_to_run', buildId: message.body.buildId, error: String(err) }),
      );
      message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts * 5) });
    }
  }
}
