import { postgres } from '../semantic/dialects/postgres';
import { sqlite } from '../semantic/dialects/sqlite';
import type { CompiledModel } from '../semantic/model/model.types';
import { buildQueryOf } from '../semantic/query/pre-aggregations/build';
import type { SourceDialect } from '../semantic/query/pre-aggregations/layout';
import { PreAggregationError } from '../semantic/query/pre-aggregations/partitions';
import type { NormalizedFilter, NormalizedQuery } from '../semantic/query/query.types';
import { matchedRollup } from './rollup-serving';

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
  const matched = matchedRollup(model, query, extraFilters, source, (tableName) => tableName);
  if (!matched) return null;
  const { match, specs } = matched;
  const pre = match.preAggregation;
  const [first] = specs;
  let load: ReturnType<typeof buildQueryOf> | undefined;
  try {
    load = first && buildQueryOf(model, pre, first, source === 'postgres' ? postgres : sqlite);
  } catch (err) {
    if (!(err instanceof PreAggregationError)) throw err;
  }
  return {
    compiled: matched.query,
    preAggregation: {
      preAggregationId: `${pre.cube}.${pre.name}`,
      tableName: match.tableName,
      // Cube's names of the types.
      type: pre.type === 'rollup' ? 'rollup' : 'originalSql',
      timezone: match.timezone,
      granularity: pre.granularity ?? null,
      partitionGranularity: pre.partitionGranularity ?? null,
      partitions: specs.map((spec) => spec.tableName),
      external: true,
      ...(load && { loadSql: [load.sql, load.params] }),
    },
  };
}
