import type { Dialect } from '../semantic/dialects/dialect';
import type { CompiledModel } from '../semantic/model/model.types';
import type {
  PartitionBuildQuery,
  PartitionSpec,
  PreAggregation,
} from '../semantic/model/pre-aggregations.types';
import { instantOfText, toIso } from '../semantic/query/date-range';
import { MemberSql } from '../semantic/query/member-sql';
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
    preAggregation: Pick<PreAggregation, 'timeDimension'>,
    dialect: Dialect,
    run: (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>,
  ): Promise<[string, string] | null>;
}

/** An instant the source answered (`2024-03-10 12:00:00.000`, ISO, with or without a zone) as ISO UTC. */
function isoOf(value: unknown): string | null {
  const ms = typeof value === 'string' ? instantOfText(value) : undefined;
  return ms === undefined ? null : toIso(ms);
}

/**
 * The first and last instants of `preAggregation`'s time dimension in the data, in UTC. As Cube
 * reads them, when the dimension's SQL is its own cube's alone: `min` and `max` of its instant
 * over that cube's table, two one-row aggregates an index on the column (or, in the embedded
 * store, on its instant) answers without reading the table. Otherwise through the query compiler:
 * the dimension, not null, ordered each way, which groups every distinct value first.
 */
export async function dataRangeOf(
  model: CompiledModel,
  preAggregation: Pick<PreAggregation, 'timeDimension'>,
  dialect: Dialect,
  run: (sql: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>,
): Promise<[string, string] | null> {
  const member = preAggregation.timeDimension;
  if (!member) return null;
  const cube = member.slice(0, member.indexOf('.'));
  const members = new MemberSql(model, dialect);
  const instant = dialect.instant(members.dimension(cube, member.slice(cube.length + 1)));
  const ownCube = members.cubes.size === 1 && members.cubes.has(cube);
  const edge = async (direction: 'asc' | 'desc') => {
    if (ownCube) {
      // One aggregate per statement: SQLite answers a lone min() or max() from an index, not both.
      const aggregate = direction === 'asc' ? 'min' : 'max';
      const { rows } = await run(`SELECT ${aggregate}(${instant}) AS edge FROM ${members.source(cube)}`, []);
      return isoOf(rows[0]?.edge);
    }
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
    return isoOf(row?.[member]);
  };
  const [first, last] = await Promise.all([edge('asc'), edge('desc')]);
  return first && last ? [first, last] : null;
}

/** The semantic layer's rollup functions. */
export const rollupCompiler: RollupCompiler = { partitionsOf, buildQueryOf, dataRangeOf };
