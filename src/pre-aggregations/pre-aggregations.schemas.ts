import * as v from 'valibot';
import { PARTITION_STATES } from '../../schema/pre-aggregations';
import { pageQueryEntries, pageSchema } from '../core/pagination';
import { obj } from '../core/validation';

export const partitionsQuery = obj(pageQueryEntries);

/** One partition of a pre-aggregation in one time zone: its refresh state and its last build. */
export const partitionSchema = v.object({
  id: v.number(),
  preAggregation: v.pipe(v.string(), v.description('`Cube.preAggregation`')),
  tableName: v.pipe(v.string(), v.description("Cube's table name, partition suffix included")),
  timezone: v.string(),
  range: v.pipe(
    v.nullable(v.object({ start: v.string(), end: v.string() })),
    v.description('The inclusive UTC range of a partition; null for an unpartitioned rollup'),
  ),
  state: v.picklist(PARTITION_STATES),
  version: v.pipe(v.number(), v.description('The build version last claimed')),
  builtVersion: v.pipe(v.number(), v.description('The version serving (0: not built yet)')),
  rows: v.nullable(v.number()),
  bytes: v.pipe(
    v.nullable(v.number()),
    v.description("The stored values' bytes (their text), a bound's measure"),
  ),
  lastBuiltAt: v.nullable(v.string()),
  buildMs: v.nullable(v.number()),
  nextRefreshAt: v.pipe(
    v.nullable(v.string()),
    v.description('Null for an incremental partition outside its update window: never refreshed again'),
  ),
  lastError: v.nullable(v.string()),
});

export const partitionsListSchema = pageSchema(partitionSchema);
