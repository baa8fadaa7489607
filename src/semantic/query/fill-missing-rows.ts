import { type LocalTime, localToMs, utcToZoned, zonedTimeToUtc } from '../../core/time-zone';
import type { Granularity } from '../model/model.types';
import { addUnits, startOf } from './date-range';
import type { NormalizedQuery, NormalizedTimeDimension } from './query.types';
import { QueryError } from './query-error';
import type { FillMissingRowsField, ResultRow } from './report-fields.types';
import { formatLocal, numberOf, parseLocal, seriesKeysOf, timeDimensionOf } from './result-rows';

/** A report's `fillMissingRows`: the time buckets a series has no row for, added as empty rows. */

/** The most rows `fillMissingRows` adds; a result needing more is returned unfilled. */
export const MAX_FILLED_ROWS = 5_000;

/** Rows with their missing buckets filled, and whether the fill was given up. */
export interface FilledRows {
  rows: ResultRow[];
  /** How many rows were added. */
  filled: number;
  /** More than `MAX_FILLED_ROWS` were missing: `rows` are the query's, unfilled. */
  overLimit: boolean;
}

/**
 * Adds a row for every bucket of `field.member` a series has no row for. The buckets run from
 * the query's date range on that time dimension (its first to its last bucket, in the query's
 * time zone) or, without a date range, from the earliest to the latest bucket in the rows. A
 * series is one combination, present in the rows, of the values of the query's other dimensions
 * (its other time dimensions with a granularity included) but the excluded ones. A filled row
 * holds the bucket, the series' values, `null` for the excluded dimensions and `0` for every
 * measure: an empty bucket counts and sums nothing, as Cube's client fills missing dates.
 * Buckets step on the wall clock (a day is a local day, 23 or 25 hours on DST days); an hour a
 * DST change skips is no bucket. Rows come back in the query's order (filled rows after the
 * query's rows they tie with). Rows whose bucket is `null` stay as they are.
 */
export function fillMissingRows(
  rows: ResultRow[],
  query: NormalizedQuery,
  field: FillMissingRowsField,
): FilledRows {
  const unchanged: FilledRows = { rows, filled: 0, overLimit: false };
  const time = timeDimensionOf(query, field.member);
  const granularity = time?.granularity;
  if (!time || !granularity) {
    throw new QueryError(`fillMissingRows.member '${field.member}' is not a time dimension of the query`);
  }
  const bucketKey = `${time.name}.${granularity}`;
  const range = bucketRange(rows, bucketKey, time, granularity, query.timezone);
  if (!range) return unchanged;

  const seriesKeys = seriesKeysOf(query, time);
  const excluded = seriesKeys.filter((key) =>
    key.names.some((name) => field.excludedDimensions.includes(name)),
  );
  const splitting = seriesKeys.filter((key) => !excluded.includes(key));
  const series = new Map<string, { values: unknown[]; buckets: Set<string> }>();
  if (rows.length === 0 && splitting.length === 0) series.set('[]', { values: [], buckets: new Set() });
  for (const row of rows) {
    const values = splitting.map((key) => row[key.column] ?? null);
    const id = JSON.stringify(values);
    let entry = series.get(id);
    if (!entry) {
      entry = { values, buckets: new Set() };
      series.set(id, entry);
    }
    const bucket = row[bucketKey];
    if (typeof bucket === 'string') entry.buckets.add(bucket);
  }

  const added: ResultRow[] = [];
  for (const { values, buckets } of series.values()) {
    for (let local = range.first; localToMs(local) <= localToMs(range.last); ) {
      const bucket = formatLocal(local);
      local = startOf(addUnits(local, granularity, 1), granularity);
      if (buckets.has(bucket) || !existsIn(bucket, granularity, query.timezone)) continue;
      if (added.length === MAX_FILLED_ROWS) return { ...unchanged, overLimit: true };
      const row: ResultRow = {};
      for (const key of seriesKeys) {
        const value = splitting.includes(key) ? (values[splitting.indexOf(key)] ?? null) : null;
        for (const column of key.columns) row[column] = value;
      }
      row[bucketKey] = bucket;
      row[time.name] = bucket;
      for (const measure of query.measures) row[measure.name] = '0';
      added.push(row);
    }
  }
  if (added.length === 0) return unchanged;
  return { rows: ordered([...rows, ...added], query), filled: added.length, overLimit: false };
}

/** The first and last bucket to fill, as wall-clock starts; none without rows or a range. */
function bucketRange(
  rows: ResultRow[],
  bucketKey: string,
  time: NormalizedTimeDimension,
  granularity: Granularity,
  zone: string,
): { first: LocalTime; last: LocalTime } | undefined {
  if (time.dateRange) {
    const [from, to] = time.dateRange.map((iso) => startOf(utcToZoned(Date.parse(iso), zone), granularity));
    return from && to ? { first: from, last: to } : undefined;
  }
  let first: string | undefined;
  let last: string | undefined;
  for (const row of rows) {
    const bucket = row[bucketKey];
    if (typeof bucket !== 'string' || !parseLocal(bucket)) continue;
    if (first === undefined || bucket < first) first = bucket;
    if (last === undefined || bucket > last) last = bucket;
  }
  const [start, end] = [first && parseLocal(first), last && parseLocal(last)];
  return start && end ? { first: start, last: end } : undefined;
}

/**
 * Whether a bucket's wall-clock start occurs in the zone. Only sub-day buckets can fall in a
 * DST gap: the database truncates local times, so a day's bucket is its local midnight even
 * where midnight is skipped.
 */
function existsIn(bucket: string, granularity: Granularity, zone: string): boolean {
  if (granularity !== 'hour' && granularity !== 'minute' && granularity !== 'second') return true;
  const local = parseLocal(bucket);
  return local !== undefined && formatLocal(utcToZoned(zonedTimeToUtc(local, zone), zone)) === bucket;
}

/** Rows in the query's order, stable: nulls last ascending and first descending, as PostgreSQL. */
function ordered(rows: ResultRow[], query: NormalizedQuery): ResultRow[] {
  if (query.order.length === 0) return rows;
  return rows
    .map((row, index) => ({ row, index }))
    .sort((a, b) => {
      for (const { member, desc } of query.order) {
        const compared = compareValues(a.row[member], b.row[member]);
        if (compared !== 0) return desc ? -compared : compared;
      }
      return a.index - b.index;
    })
    .map(({ row }) => row);
}

function compareValues(a: unknown, b: unknown): number {
  const aNull = a === null || a === undefined;
  const bNull = b === null || b === undefined;
  if (aNull || bNull) return aNull === bNull ? 0 : aNull ? 1 : -1;
  const [x, y] = [numberOf(a), numberOf(b)];
  if (x !== null && y !== null) return x - y;
  const [s, t] = [String(a), String(b)];
  return s < t ? -1 : s > t ? 1 : 0;
}
