import type { BuildMessage } from '../core/env';
import type { RequestScope } from '../core/scope';
import { indexStoreForModel } from './data-store.service';
import { runBuild } from './deployments.service';

/**
 * The builds queue: each message names one build; redeliveries are harmless (claimBuild). The
 * scope is the batch's (`backgroundScope`); each build is claimed at the time it is picked up.
 */
export async function consumeBuilds(batch: MessageBatch<BuildMessage>, scope: RequestScope): Promise<void> {
  for (const message of batch.messages) {
    try {
      const run = await runBuild({ ...scope, now: scope.ports.clock.now() }, message.body.buildId);
      if (run.state === 'built') await indexStoreForModel(scope, run.deploymentId, run.model);
      message.ack();
    } catch (err) {
      console.error(
        JSON.stringify({ event: 'build_failed_to_run', buildId: message.body.buildId, error: String(err) }),
      );
      message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts * 5) });
    }
  }
}
