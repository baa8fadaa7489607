import type { InferOutput } from 'valibot';
import { idCursor, idPage, pageRequest } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import { getDeployment } from '../deployments/deployments.service';
import { deploymentStore } from '../sources/deployment-store';
import type { PartitionRecord } from '../sources/rollup-store';
import { NEVER } from './pre-aggregations.limits';
import * as repo from './pre-aggregations.repository';
import type { partitionSchema } from './pre-aggregations.schemas';

type PartitionItem = InferOutput<typeof partitionSchema>;

/**
 * A page of a deployment's partitions: the refresh state from D1 beside the last build's figures
 * from the deployment's store (one call to it per page).
 */
export async function listPartitions(
  scope: AccountScope,
  deploymentId: number,
  query: { first?: number; after?: string },
) {
  await getDeployment(scope, deploymentId);
  const request = pageRequest(query, 'pre-aggregation-partitions', 1);
  const { afterId, limit } = idCursor(request);
  const rows = await repo.listPartitions(scope.db, scope.accountId, deploymentId, afterId, limit);
  const keys = rows.slice(0, limit).map((r) => ({ tableName: r.tableName, timezone: r.timezone }));
  const records =
    keys.length === 0
      ? []
      : ((await deploymentStore(scope.env, deploymentId).describePartitions(keys)) as PartitionRecord[]);
  const byKey = new Map(records.map((r) => [`${r.tableName}\n${r.timezone}`, r]));
  const page = idPage(rows, request, 'pre-aggregation-partitions');
  return {
    ...page,
    items: page.items.map((row): PartitionItem => {
      const stored = byKey.get(`${row.tableName}\n${row.timezone}`);
      const serving = stored && stored.version > 0 ? stored : null;
      return {
        id: row.id,
        preAggregation: row.preAggregation,
        tableName: row.tableName,
        timezone: row.timezone,
        range: row.rangeStart && row.rangeEnd ? { start: row.rangeStart, end: row.rangeEnd } : null,
        state: row.state,
        version: row.version,
        builtVersion: row.builtVersion,
        rows: serving?.rows ?? null,
        bytes: serving?.bytes ?? null,
        lastBuiltAt: serving?.builtAt ?? row.lastBuiltAt,
        buildMs: serving?.buildMs ?? null,
        nextRefreshAt: row.nextRefreshAt === NEVER ? null : row.nextRefreshAt,
        lastError: row.lastError,
      };
    }),
  };
}
