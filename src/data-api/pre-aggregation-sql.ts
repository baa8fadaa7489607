import { postgres } from '../semantic/dialects/postgres';
import { sqlite } from '../semantic/dialects/sqlite';
import type { CompiledModel } from '../semantic/model/model.types';
import { buildQueryOf } from '../semantic/query/pre-aggregations/build';
import type { SourceDialect } from '../semantic/query/pre-aggregations/layout';
import { matchPreAggregation, partitionsNeeded } from '../semantic/query/pre-aggregations/match';
import { PreAggregationError } from '../semantic/query/pre-aggregations/partitions';
import { rollupQueryOf } from '../semantic/query/pre-aggregations/rollup-query';
import type { NormalizedFilter, NormalizedQuery } from '../semantic/query/query.types';

/**
 * What Cube's `/sql` shows of the rollup a query matches: the SQL that reads it (on the store's
 * SQLite, its partitions named by Cube's table names) and the pre-aggregation with the SQL that
 * builds its first partition on the source (`loadSql`). Null when no rollup matches, or when the
 * query's range needs more partitions than a rollup may have.
 */
export function rollupSqlOf(
  model: CompiledModel,
  query: NormalizedQuery,
  extraFilters: NormalizedFilter[],
  source: SourceDialect,
) {
  const match = matchPreAggregation(model, query, extraFilters, { source });
  if (!match) return null;
  try {
    const partitions = partitionsNeeded(match, query);
    const tables = partitions.map((spec) => ({ tableName: spec.tableName, physical: spec.tableName }));
    const [first] = partitions;
    const load =
      first && buildQueryOf(model, match.preAggregation, first, source === 'postgres' ? postgres : sqlite);
    const pre = match.preAggregation;
    return {
      compiled: rollupQueryOf(model, match, query, tables),
      preAggregation: {
        preAggregationId: `${pre.cube}.${pre.name}`,
        tableName: match.tableName,
        // Cube's names of the types.
        type: pre.type === 'rollup' ? 'rollup' : 'originalSql',
        timezone: match.timezone,
        granularity: pre.granularity ?? null,
        partitionGranularity: pre.partitionGranularity ?? null,
        partitions: partitions.map((spec) => spec.tableName),
        external: true,
        ...(load && { loadSql: [load.sql, load.params] }),
      },
    };
  } catch (err) {
    if (err instanceof PreAggregationError) return null;
    throw err;
  }
}
