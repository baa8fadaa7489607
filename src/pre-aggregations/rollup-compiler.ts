import type { Dialect } from '../semantic/dialects/dialect';
import type { CompiledModel } from '../semantic/model/model.types';
import type {
  PartitionBuildQuery,
  PartitionSpec,
  PreAggregation,
} from '../semantic/model/pre-aggregations.types';
import { normalizeQuery } from '../semantic/query/normalize';
import { compileQuery } from '../semantic/query/plan';
import { buildQueryOf } from '../semantic/query/pre-aggregations/build';
import { partitionsOf } from '../semantic/query/pre-aggregations/partitions';
import { shapeRows } from '../semantic/query/results';

/**
 * What the refresh needs of the semantic layer: a rollup's partitions over a build range, the
 * source query computing one partition, and the range of a time dimension's data. A port, so a
 * test can hand the consumer a build query that fails halfway.
 */
export interface RollupCompiler {
  partitionsOf(
    preAggregation: PreAggregation,
    buildRange: [string, string],
    timezone: string,
  ): PartitionSpec[];
  buildQueryOf(
    model: CompiledModel,
    preAggregation: PreAggregation,
    spec: PartitionSpec,
    dialect: Dialect,
    options: { maxRows?: number },
  ): PartitionBuildQuery;
  /** The first and last instants of the rollup's time dimension in the source's data (Cube's default build range). */
  dataRangeOf(
    model: CompiledModel,
    preAggregation: PreAggregation,
    dialect: Dialect,
    run: (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>,
  ): Promise<[string, string] | null>;
}

/**
 * The first and last instants of `preAggregation`'s time dimension in the data: two one-row
 * queries through the query compiler (the dimension, not null, ordered each way), in UTC.
 */
export async function dataRangeOf(
  model: CompiledModel,
  preAggregation: PreAggregation,
  dialect: Dialect,
  run: (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>,
): Promise<[string, string] | null> {
  const member = preAggregation.timeDimension;
  if (!member) return null;
  const edge = async (direction: 'asc' | 'desc') => {
    const normalized = normalizeQuery(
      model,
      {
        dimensions: [member],
        filters: [{ member, operator: 'set' }],
        order: [[member, direction]],
        limit: 1,
      },
      { now: new Date() },
    );
    const compiled = compileQuery(model, normalized, dialect);
    const [row] = shapeRows(compiled, (await run(compiled.sql, compiled.params)).rows);
    const value = row?.[member];
    if (typeof value !== 'string') return null;
    const ms = Date.parse(/Z|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
    return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
  };
  const [first, last] = await Promise.all([edge('asc'), edge('desc')]);
  return first && last ? [first, last] : null;
}

/** The semantic layer's rollup functions. */
export const rollupCompiler: RollupCompiler = { partitionsOf, buildQueryOf, dataRangeOf };
