import type { PreAggregationMessage } from '../core/env';
import type { RequestScope } from '../core/scope';
import { runPartitionBuild, runPlan } from './refresh.service';
import type { RollupCompiler } from './rollup-compiler';

export const PRE_AGGREGATIONS_QUEUE_NAME = 'edgeboard-pre-aggregations';

const isMessage = (body: unknown): body is PreAggregationMessage => {
  const m = body as Partial<Record<string, unknown>> | null;
  if (!m || !Number.isSafeInteger(m.version)) return false;
  if (m.kind === 'pre-aggregation-plan') return Number.isSafeInteger(m.deploymentId);
  return m.kind === 'pre-aggregation-build' && Number.isSafeInteger(m.partitionId);
};

/**
 * The pre-aggregations queue: a plan registers a deployment's partitions, a build fills one
 * partition. Each is guarded by the version its claim took, so a redelivery does nothing; what
 * throws (D1 or the store unreachable) is delivered again after a delay.
 */
export async function consumePreAggregations(
  batch: MessageBatch<unknown>,
  scope: RequestScope,
  compiler: RollupCompiler,
): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body;
    if (!isMessage(body)) {
      console.error(JSON.stringify({ event: 'pre_aggregation_message_malformed', body }));
      message.ack();
      continue;
    }
    try {
      const now = scope.ports.clock.now();
      if (body.kind === 'pre-aggregation-plan') {
        await runPlan({ ...scope, now }, compiler, body.deploymentId, body.version);
      } else {
        await runPartitionBuild({ ...scope, now }, compiler, body.partitionId, body.version);
      }
      message.ack();
    } catch (err) {
      console.error(JSON.stringify({ event: 'pre_aggregation_message_failed', body, error: String(err) }));
      message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts * 5) });
    }
  }
}
