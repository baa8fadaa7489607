import type { Dialect } from '../../dialects/dialect';
import { type CompiledModel, isCount } from '../../model/model.types';
import type { PartitionBuildQuery, PartitionSpec, PreAggregation } from '../../model/pre-aggregations.types';
import { compileQuery } from '../plan';
import type { NormalizedQuery } from '../query.types';
import { type RollupLayout, rollupLayoutOf } from './layout';
import { PreAggregationError } from './partitions';

/** The most rows one partition may hold: its build query asks for one more, to know it overflowed. */
export const MAX_PARTITION_ROWS = 1_000_000;

/**
 * The rollup as a query of the model: its measures by its dimensions, segments and time
 * dimension (at its granularity, restricted to `range`), in `timezone`. Planned by the same
 * planner as every query, so fan-out, segments and time buckets are computed exactly as there.
 */
export function rollupAsQuery(
  preAggregation: PreAggregation,
  timezone: string,
  range?: [string, string],
  limit = MAX_PARTITION_ROWS + 1,
): NormalizedQuery {
  const member = (name: string) => ({ name, target: name });
  const query: NormalizedQuery = {
    measures: preAggregation.measures.map(member),
    dimensions: preAggregation.dimensions.map(member),
    segments: preAggregation.segments.map(member),
    timeDimensions: [],
    filters: [],
    order: [],
    limit,
    offset: 0,
    total: false,
    timezone,
    ungrouped: false,
    joinHints: [],
  };
  if (preAggregation.timeDimension && preAggregation.granularity) {
    query.timeDimensions.push({
      ...member(preAggregation.timeDimension),
      granularity: preAggregation.granularity,
      ...(range && { dateRange: range }),
    });
  }
  return query;
}

/**
 * The SQL, on the deployment's data source, that computes one partition's rows: the rollup's
 * query (see `rollupAsQuery`) with its columns renamed to the layout's (`rollupLayoutOf`) and,
 * on PostgreSQL, numbers as text with a numeric's scale beside it. At most `maxRows + 1` rows:
 * a build that gets more fails rather than storing a partial partition.
 */
export function buildQueryOf(
  model: CompiledModel,
  preAggregation: PreAggregation,
  spec: PartitionSpec,
  dialect: Dialect,
  options: { maxRows?: number } = {},
): PartitionBuildQuery {
  const id = `${preAggregation.cube}.${preAggregation.name}`;
  if (spec.preAggregation !== id) {
    throw new PreAggregationError(`Partition ${spec.tableName} is not a partition of ${id}`);
  }
  const layout = rollupLayoutOf(model, preAggregation, dialect.name);
  // The stored measures (the listed ones and the leaves of number measures), in the layout's order.
  const query = rollupAsQuery(
    { ...preAggregation, measures: layout.measures.map((measure) => measure.member) },
    spec.timezone,
    spec.range,
    (options.maxRows ?? MAX_PARTITION_ROWS) + 1,
  );
  const compiled = compileQuery(model, query, dialect);
  const select = outerColumns(layout, dialect);
  return {
    ...spec,
    sql: `SELECT ${select.join(', ')} FROM (${compiled.sql}) AS r`,
    params: compiled.params,
    dialect: dialect.name,
    columns: layout.columns,
    indexes: preAggregation.indexes.map((index) => ({
      name: `${preAggregation.cube}_${preAggregation.name}_${index.name}`.toLowerCase(),
      columns: index.columns.map((member) => columnOf(layout, member)),
    })),
  };
}

/** The planner's columns (`c<i>`: dimensions, the time bucket, then measures) as the layout's. */
function outerColumns(layout: RollupLayout, dialect: Dialect): string[] {
  const pg = dialect.name === 'postgres';
  const select: string[] = [];
  let index = 0;
  for (const dimension of layout.dimensions) {
    const value = `r.c${index++}`;
    select.push(`${pg && dimension.type === 'number' ? `(${value})::text` : value} AS ${dimension.column}`);
  }
  if (layout.time) select.push(`r.c${index++} AS ${layout.time.column}`);
  for (const measure of layout.measures) {
    const value = `r.c${index++}`;
    const counted = isCount(measure.type);
    select.push(`${pg && !counted ? `(${value})::text` : value} AS ${measure.column}`);
    if (measure.scaleColumn) {
      select.push(
        `CASE WHEN pg_typeof(${value}) = 'numeric'::regtype THEN scale((${value})::numeric) END AS ${measure.scaleColumn}`,
      );
    }
  }
  return select;
}

function columnOf(layout: RollupLayout, member: string): string {
  if (layout.time?.member === member) return layout.time.column;
  const dimension = layout.dimensions.find((candidate) => candidate.member === member);
  if (!dimension) throw new PreAggregationError(`Index column ${member} is not a column of the rollup`);
  return dimension.column;
}
