import { type LocalTime, localToMs, utcToZoned, zonedTimeToUtc } from '../../core/time-zone';
import type { Granularity } from '../model/model.types';
import { addUnits, resolveDateRange, startOf, toIso } from './date-range';
import type { CubeQuery, NormalizedQuery, NormalizedTimeDimension } from './query.types';
import { QueryError } from './query-error';

/**
 * The fields a report computes on its query's rows: `fillMissingRows` (the time buckets a series
 * has no row for) and `periodComparisons` (a measure beside its value one offset earlier). Pure:
 * rows in, rows out, in Cube's `data` shape (a time dimension with a granularity under both
 * `Cube.dim.granularity` and `Cube.dim`, as local wall-clock text `2024-03-01T00:00:00.000`).
 */

/** One row of Cube's `data`. */
export type ResultRow = Record<string, unknown>;

/** A report's `fillMissingRows`. */
export interface FillMissingRowsField {
  /** The time dimension to fill: `Cube.dim` or `Cube.dim.granularity`, as the query names it. */
  member: string;
  /** Dimensions that do not split the series: filled rows hold `null` for them. */
  excludedDimensions: string[];
}

/** The units an offset counts in. */
export const COMPARISON_UNITS = [
  'second',
  'minute',
  'hour',
  'day',
  'week',
  'month',
  'quarter',
  'year',
] as const;
export type ComparisonUnit = (typeof COMPARISON_UNITS)[number];

/**
 * What a comparison adds to each row, as the column `<measure>.<output>`: `value` (the current
 * period's value, as the measure's own column holds it), `previousValue` (the measure one offset
 * earlier, as that row holds it), `change` (current minus previous) and `percentChange` (the
 * change as a percentage of the previous value's magnitude, `12.5` for +12.5 %).
 */
export const COMPARISON_OUTPUTS = ['value', 'previousValue', 'change', 'percentChange'] as const;
export type ComparisonOutput = (typeof COMPARISON_OUTPUTS)[number];

/** One of a report's `periodComparisons`. */
export interface PeriodComparisonField {
  /** The measure compared, as the query names it. */
  measure: string;
  /** The time dimension shifted: `Cube.dim` or `Cube.dim.granularity`, as the query names it. */
  timeDimension: string;
  /** How far back the comparison looks (`{amount: 1, unit: 'year'}`: a year earlier). */
  offset: { amount: number; unit: string };
  outputs: string[];
}

/** The computed fields a report holds (either may be absent or empty). */
export interface ReportFields {
  fillMissingRows?: FillMissingRowsField | null;
  periodComparisons?: PeriodComparisonField[] | null;
}

/** The most rows `fillMissingRows` adds; a result needing more is returned unfilled. */
export const MAX_FILLED_ROWS = 5_000;

// ---- Checking the fields against the report's query ----

/**
 * Messages naming each report field the query cannot compute, empty when all are fine. With a
 * query (normalized against the deployment's model), members are checked too: the filled member
 * and the compared time dimension must be time dimensions of the query (the filled one with a
 * granularity), excluded dimensions dimensions of it, the compared measure one of its measures.
 * Without one (a report with static data), only units, outputs and amounts are checked.
 */
export function checkReportFields(fields: ReportFields, query: NormalizedQuery | null): string[] {
  const errors: string[] = [];
  const fill = fields.fillMissingRows;
  if (fill && query) {
    const time = timeDimensionOf(query, fill.member);
    if (!time) {
      errors.push(`fillMissingRows.member '${fill.member}' is not a time dimension of the query`);
    } else if (!time.granularity) {
      errors.push(`fillMissingRows.member '${fill.member}' has no granularity in the query`);
    }
    fill.excludedDimensions.forEach((name, index) => {
      const excluded = seriesKeysOf(query, time).find((key) => key.names.includes(name));
      if (!excluded) {
        errors.push(`fillMissingRows.excludedDimensions[${index}] '${name}' is not a dimension of the query`);
      }
    });
  }
  (fields.periodComparisons ?? []).forEach((comparison, index) => {
    const at = `periodComparisons[${index}]`;
    const { amount, unit } = comparison.offset ?? {};
    if (!Number.isInteger(amount)) errors.push(`${at}.offset.amount: not an integer: ${String(amount)}`);
    if (!unitOf(unit)) errors.push(`${at}.offset.unit: unknown unit '${String(unit)}'`);
    comparison.outputs.forEach((output, outputIndex) => {
      if (!outputOf(output)) {
        errors.push(
          `${at}.outputs[${outputIndex}]: unknown output '${output}' (one of ${COMPARISON_OUTPUTS.join(', ')})`,
        );
      }
    });
    if (!query) return;
    if (!query.measures.some((measure) => measure.name === comparison.measure)) {
      errors.push(`${at}.measure '${comparison.measure}' is not a measure of the query`);
    }
    if (!timeDimensionOf(query, comparison.timeDimension)) {
      errors.push(`${at}.timeDimension '${comparison.timeDimension}' is not a time dimension of the query`);
    }
  });
  return errors;
}

// ---- fillMissingRows ----

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

/**
 * The query's dimensions other than `time`, each as the row columns that hold it, the key
 * that tells series apart, and the names a field may call it by.
 */
function seriesKeysOf(
  query: NormalizedQuery,
  time: NormalizedTimeDimension | undefined,
): { column: string; columns: string[]; names: string[] }[] {
  const keys = query.dimensions.map((member) => ({
    column: member.name,
    columns: [member.name],
    names: [member.name],
  }));
  for (const other of query.timeDimensions) {
    if (other === time || !other.granularity) continue;
    const column = `${other.name}.${other.granularity}`;
    if (time?.granularity && column === `${time.name}.${time.granularity}`) continue;
    if (keys.some((key) => key.column === column)) continue;
    keys.push({ column, columns: [column, other.name], names: [column, other.name] });
  }
  return keys;
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

// ---- periodComparisons ----

/**
 * The query a comparison reads its previous values from: the same query with the compared time
 * dimension's date range shifted back by the offset, in the query's time zone on the wall clock
 * (`last 12 months` a year back is the 12 months before them; a month back from 31 March is 29
 * February). The shifted range is absolute (UTC instants), so the comparison reads the same
 * period however long after `now` it runs. The end shifts as the first instant after the range,
 * so a whole month stays a whole month (March back one month is all of February). Without a
 * date range on that time dimension the comparison query has none either: it is the same query,
 * and rows pair purely by shifted bucket. Only the `timeDimensions` entry's range shifts, not
 * date filters on the same member.
 *
 * @throws QueryError when the time dimension is not in the query's `timeDimensions`, the unit is
 * unknown or the date range cannot be read.
 */
export function comparisonQuery(
  query: CubeQuery,
  comparison: PeriodComparisonField,
  options: { now: Date },
): CubeQuery {
  const unit = checkedUnit(comparison);
  const entries = query.timeDimensions ?? [];
  const index = entries.findIndex(
    (entry) =>
      entry.dimension === comparison.timeDimension ||
      (entry.granularity !== undefined &&
        `${entry.dimension}.${entry.granularity}` === comparison.timeDimension),
  );
  const entry = entries[index];
  if (!entry) {
    throw new QueryError(
      `periodComparisons: '${comparison.timeDimension}' is not a time dimension of the query`,
    );
  }
  if (entry.dateRange === undefined) return query;
  const zone = query.timezone ?? 'UTC';
  const [from, to] = resolveDateRange(entry.dateRange, zone, options.now).map((iso) => Date.parse(iso)) as [
    number,
    number,
  ];
  const shift = (ms: number) =>
    zonedTimeToUtc(addUnits(utcToZoned(ms, zone), unit, -comparison.offset.amount), zone);
  const shifted = [toIso(shift(from)), toIso(shift(to + 1) - 1)] as [string, string];
  const timeDimensions = entries.map((other, at) =>
    at === index ? { ...other, dateRange: shifted } : other,
  );
  return { ...query, timeDimensions };
}

/**
 * Adds a comparison's output columns (`<measure>.previousValue`, `<measure>.change`,
 * `<measure>.percentChange`, those `outputs` asks for) to each row. A row pairs with the
 * comparison row whose bucket is the row's bucket shifted back by the offset (on the wall clock,
 * then truncated to the granularity: a week back a month is the week holding that day) and whose
 * other dimensions hold the same values. Without a granularity on the time dimension (a total
 * over a date range), rows pair by their other dimensions alone. No pair, or a previous value
 * that is `null`: every output `null`. `previousValue` is the comparison row's value as is
 * (numeric text, like the measure's own column); `change` and `percentChange` are numbers
 * (rounded to 12 significant digits), `percentChange` `null` when the previous value is 0.
 *
 * @throws QueryError when the measure or time dimension is not the query's, or the unit or an
 * output is unknown.
 */
export function mergeComparison(
  rows: ResultRow[],
  comparisonRows: ResultRow[],
  comparison: PeriodComparisonField,
  query: NormalizedQuery,
): ResultRow[] {
  const unit = checkedUnit(comparison);
  const outputs = comparison.outputs.map((output) => {
    const known = outputOf(output);
    if (!known) throw new QueryError(`periodComparisons: unknown output '${output}'`);
    return known;
  });
  const { measure } = comparison;
  if (!query.measures.some((member) => member.name === measure)) {
    throw new QueryError(`periodComparisons: '${measure}' is not a measure of the query`);
  }
  const time = timeDimensionOf(query, comparison.timeDimension);
  if (!time) {
    throw new QueryError(
      `periodComparisons: '${comparison.timeDimension}' is not a time dimension of the query`,
    );
  }
  const granularity = time.granularity;
  const bucketKey = granularity ? `${time.name}.${granularity}` : undefined;
  const others = seriesKeysOf(query, time).map((key) => key.column);
  const keyOf = (row: ResultRow, bucket: unknown) =>
    JSON.stringify([bucket ?? null, ...others.map((column) => row[column] ?? null)]);

  const previous = new Map<string, unknown>();
  for (const row of comparisonRows) {
    const key = keyOf(row, bucketKey ? row[bucketKey] : null);
    if (!previous.has(key)) previous.set(key, row[measure]);
  }
  return rows.map((row) => {
    let before: unknown = null;
    if (!bucketKey || !granularity) before = previous.get(keyOf(row, null));
    else {
      const bucket = typeof row[bucketKey] === 'string' ? parseLocal(row[bucketKey] as string) : undefined;
      if (bucket) {
        const shifted = startOf(addUnits(bucket, unit, -comparison.offset.amount), granularity);
        before = previous.get(keyOf(row, formatLocal(shifted)));
      }
    }
    const current = numberOf(row[measure]);
    const last = numberOf(before);
    const change = current !== null && last !== null ? rounded(current - last) : null;
    const merged: ResultRow = { ...row };
    for (const output of outputs) {
      merged[`${measure}.${output}`] =
        output === 'value'
          ? (row[measure] ?? null)
          : output === 'previousValue'
            ? (before ?? null)
            : output === 'change'
              ? change
              : change !== null && last !== null && last !== 0
                ? rounded((change / Math.abs(last)) * 100)
                : null;
    }
    return merged;
  });
}

// ---- All of a report's fields at once ----

/**
 * A report's rows with its fields computed: missing rows filled first (so filled buckets get
 * their comparisons too), then each comparison merged, `comparisonRows[i]` being the rows of
 * `comparisonQuery(query, periodComparisons[i])`. A field the query cannot compute is skipped
 * and named in `errors` (a report saved before its query or model changed), never a failure.
 */
export function applyReportFields(input: {
  rows: ResultRow[];
  query: NormalizedQuery;
  fields: ReportFields;
  comparisonRows?: ResultRow[][];
}): { rows: ResultRow[]; errors: string[]; filled: number; overLimit: boolean } {
  const { query, fields } = input;
  const errors: string[] = [];
  let rows = input.rows;
  let filled = 0;
  let overLimit = false;
  if (fields.fillMissingRows) {
    const fieldErrors = checkReportFields({ fillMissingRows: fields.fillMissingRows }, query);
    if (fieldErrors.length > 0) errors.push(...fieldErrors);
    else {
      const result = fillMissingRows(rows, query, fields.fillMissingRows);
      ({ rows, filled, overLimit } = result);
      if (overLimit) {
        errors.push(`fillMissingRows: more than ${MAX_FILLED_ROWS} rows missing; rows left unfilled`);
      }
    }
  }
  (fields.periodComparisons ?? []).forEach((comparison, index) => {
    const fieldErrors = checkReportFields({ periodComparisons: [comparison] }, query).map((message) =>
      message.replace('periodComparisons[0]', `periodComparisons[${index}]`),
    );
    const previous = input.comparisonRows?.[index];
    if (fieldErrors.length === 0 && !previous) {
      fieldErrors.push(`periodComparisons[${index}]: no comparison rows`);
    }
    if (fieldErrors.length > 0 || !previous) errors.push(...fieldErrors);
    else rows = mergeComparison(rows, previous, comparison, query);
  });
  return { rows, errors, filled, overLimit };
}

// ---- Helpers ----

/** The query's time dimension `name` (`Cube.dim`) or `name.granularity` names. */
function timeDimensionOf(query: NormalizedQuery, member: string): NormalizedTimeDimension | undefined {
  return (
    query.timeDimensions.find((time) => time.granularity && `${time.name}.${time.granularity}` === member) ??
    query.timeDimensions.find((time) => time.name === member && time.granularity) ??
    query.timeDimensions.find((time) => time.name === member)
  );
}

function unitOf(unit: unknown): ComparisonUnit | undefined {
  return COMPARISON_UNITS.find((known) => known === unit);
}

function outputOf(output: unknown): ComparisonOutput | undefined {
  return COMPARISON_OUTPUTS.find((known) => known === output);
}

function checkedUnit(comparison: PeriodComparisonField): ComparisonUnit {
  const unit = unitOf(comparison.offset?.unit);
  if (!unit) throw new QueryError(`periodComparisons: unknown unit '${String(comparison.offset?.unit)}'`);
  if (!Number.isInteger(comparison.offset.amount)) {
    throw new QueryError(`periodComparisons: offset amount is not an integer: ${comparison.offset.amount}`);
  }
  return unit;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

/** A bucket's wall-clock text (`2024-03-01T00:00:00.000`) as a local time. */
function parseLocal(text: string): LocalTime | undefined {
  const match = LOCAL.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[];
  const millisecond = Number((match[7] ?? '0').padEnd(3, '0'));
  return { year, month, day, hour, minute, second, millisecond } as LocalTime;
}

/** A local time as Cube writes it: `YYYY-MM-DDTHH:MM:SS.mmm`. */
function formatLocal(local: LocalTime): string {
  return new Date(localToMs(local)).toISOString().slice(0, 23);
}

function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || value.trim() === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

function rounded(value: number): number {
  return Number(value.toPrecision(12));
}
