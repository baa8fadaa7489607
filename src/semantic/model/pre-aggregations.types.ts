import type { Granularity, SourcePosition } from './model.types';

/**
 * Cube's pre-aggregations, compiled (Cube's data-model reference, "Pre-aggregations"): small
 * tables of already-aggregated rows, kept in the deployment's own store and matched to incoming
 * queries as Cube matches them. Plain data, stored with the build like the rest of the model.
 */

export const PRE_AGGREGATION_TYPES = ['rollup', 'original_sql'] as const;
export type PreAggregationType = (typeof PRE_AGGREGATION_TYPES)[number];

export interface PreAggregationRefreshKey {
  /** Seconds between refreshes (`every`); absent with `sql`: checked on every tick. */
  every?: number;
  /** `refresh_key.sql`: a query on the source whose value changing makes the partitions due. */
  sql?: string;
  /** `incremental: true`: only partitions inside `updateWindow` are rebuilt on refresh. */
  incremental: boolean;
  /** `update_window` in seconds (with `incremental`). */
  updateWindow?: number;
}

export interface PreAggregationIndex {
  name: string;
  /** Column members, `Cube.member` (a time dimension as its member). */
  columns: string[];
}

export interface PreAggregation {
  /** The pre-aggregation's own name within its cube. */
  name: string;
  /** The cube it belongs to. */
  cube: string;
  type: PreAggregationType;
  /** `Cube.member` names, in definition order (rollup only). */
  measures: string[];
  dimensions: string[];
  segments: string[];
  /** The rollup's time dimension (`Cube.member`) and its granularity; both or neither. */
  timeDimension?: string;
  granularity?: Granularity;
  /** Partition size; needs a time dimension. Absent: one partition. */
  partitionGranularity?: Granularity;
  /** SQL on the source answering the first and last instant to build (`build_range_start/end.sql`). */
  buildRangeStart?: string;
  buildRangeEnd?: string;
  refreshKey: PreAggregationRefreshKey;
  /** `scheduled_refresh` (Cube's default: true). */
  scheduledRefresh: boolean;
  allowNonStrictDateRangeMatch: boolean;
  indexes: PreAggregationIndex[];
  position: SourcePosition;
}

/**
 * A stored partition's table name as Cube names it: `<schema>.<cube>_<name>` and, for a
 * partitioned rollup, the partition's start as `YYYYMMDD` (or `YYYYMMDDHH` for hourly ones).
 */
export const PRE_AGGREGATIONS_SCHEMA = 'prod_pre_aggregations';

/**
 * A store column of a rollup table. `value` has no declared type (no affinity): it keeps each
 * value as the source's query read it, a number as a number and text as text.
 */
export interface RollupColumn {
  name: string;
  type: 'text' | 'integer' | 'real' | 'timestamp' | 'value';
}

/** One partition of a pre-aggregation, in one time zone: what a build produces. */
export interface PartitionSpec {
  /** `Cube.preAggregation`. */
  preAggregation: string;
  /** Cube's table name, partition suffix included (see PRE_AGGREGATIONS_SCHEMA). */
  tableName: string;
  timezone: string;
  /** The partition's inclusive UTC range; absent for an unpartitioned rollup. */
  range?: [string, string];
}

/** The query that computes a partition's rows on the deployment's data source. */
export interface PartitionBuildQuery extends PartitionSpec {
  sql: string;
  params: unknown[];
  dialect: 'postgres' | 'sqlite';
  columns: RollupColumn[];
  indexes: { name: string; columns: string[] }[];
}
