import { utcToZoned, zonedTimeToUtc } from '../../../core/time-zone';
import type { Granularity } from '../../model/model.types';
import { preAggregationTableName } from '../../model/pre-aggregations';
import type { PartitionSpec, PreAggregation } from '../../model/pre-aggregations.types';
import { addUnits, startOf, toIso } from '../date-range';
import { formatLocal } from '../result-rows';

/**
 * The most partitions one rollup may have in one time zone: a build range that would need more
 * fails, naming the rollup and this bound (three years of daily partitions fit; hourly ones over
 * more than six weeks do not).
 */
export const MAX_PARTITIONS_PER_ROLLUP = 1_200;

/** A pre-aggregation that cannot be built or served as asked: the message names it and why. */
export class PreAggregationError extends Error {}

/** The local wall-clock text (`YYYY-MM-DDTHH:MM:SS.mmm`) of a UTC instant in `zone`. */
export function localText(ms: number, zone: string): string {
  return formatLocal(utcToZoned(ms, zone));
}

/** The UTC instant a bucket of `granularity` holding `ms` starts at, in `zone`. */
export function bucketStart(ms: number, granularity: Granularity, zone: string): number {
  return zonedTimeToUtc(startOf(utcToZoned(ms, zone), granularity), zone);
}

/** The UTC instant the bucket after the one starting at `start` starts at, in `zone`. */
export function nextBucket(start: number, granularity: Granularity, zone: string): number {
  return zonedTimeToUtc(addUnits(startOf(utcToZoned(start, zone), granularity), granularity, 1), zone);
}

/**
 * Cube's partition suffix: the partition's local start as `YYYYMMDD`, or `YYYYMMDDHH` for hourly
 * partitions (`orders_main20240101`). Finer partitions are refused by the compiler's bound.
 */
function suffixOf(start: number, granularity: Granularity, zone: string): string {
  const text = localText(start, zone);
  const digits = text.slice(
    0,
    granularity === 'hour' || granularity === 'minute' || granularity === 'second' ? 13 : 10,
  );
  return digits.replace(/[-T:]/g, '');
}

/**
 * The partitions of a pre-aggregation covering `buildRange` (inclusive UTC instants, ISO), in
 * `timezone`: one per `partition_granularity` bucket in that zone, each with Cube's table name
 * (`prod_pre_aggregations.<cube>_<name>` + the partition's local start) and its inclusive UTC
 * range. An unpartitioned pre-aggregation is one table without a range. More than
 * `MAX_PARTITIONS_PER_ROLLUP` partitions is a `PreAggregationError`.
 */
export function partitionsOf(
  preAggregation: PreAggregation,
  buildRange: [string, string],
  timezone: string,
): PartitionSpec[] {
  const id = `${preAggregation.cube}.${preAggregation.name}`;
  const tableName = preAggregationTableName(preAggregation);
  const granularity = preAggregation.partitionGranularity;
  if (!granularity || !preAggregation.timeDimension) {
    return [{ preAggregation: id, tableName, timezone }];
  }
  const from = Date.parse(buildRange[0]);
  const to = Date.parse(buildRange[1]);
  if (!Number.isFinite(from) || !Number.isFinite(to)) {
    throw new PreAggregationError(
      `Pre-aggregation ${id}: the build range ${buildRange.join(' – ')} is not two instants`,
    );
  }
  if (to < from) return [];
  const specs: PartitionSpec[] = [];
  for (let start = bucketStart(from, granularity, timezone); start <= to; ) {
    if (specs.length === MAX_PARTITIONS_PER_ROLLUP) {
      throw new PreAggregationError(
        `Pre-aggregation ${id}: the build range ${buildRange.join(' – ')} needs more than ${MAX_PARTITIONS_PER_ROLLUP} ${granularity} partitions (the most one rollup may have)`,
      );
    }
    const next = nextBucket(start, granularity, timezone);
    specs.push({
      preAggregation: id,
      tableName: `${tableName}${suffixOf(start, granularity, timezone)}`,
      timezone,
      range: [toIso(start), toIso(next - 1)],
    });
    start = next;
  }
  return specs;
}
