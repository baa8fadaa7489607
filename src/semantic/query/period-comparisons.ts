import { utcToZoned, zonedTimeToUtc } from '../../core/time-zone';
import { addUnits, inYears, resolveDateRange, startOf, toIso, withinYears } from './date-range';
import type { CubeQuery, NormalizedQuery } from './query.types';
import { QueryError } from './query-error';
import {
  COMPARISON_OUTPUTS,
  COMPARISON_UNITS,
  type ComparisonOutput,
  type ComparisonUnit,
  type PeriodComparisonField,
  type ResultRow,
} from './report-fields.types';
import { formatLocal, numberOf, parseLocal, seriesKeysOf, timeDimensionOf } from './result-rows';

/** A report's `periodComparisons`: the query of the earlier period, and its values merged beside each row. */

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
  const shifted = withinYears(
    `periodComparisons offset of ${comparison.offset.amount} ${unit}`,
    () => [toIso(inYears(shift(from))), toIso(inYears(shift(to + 1) - 1))] as [string, string],
  );
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

export function unitOf(unit: unknown): ComparisonUnit | undefined {
  return COMPARISON_UNITS.find((known) => known === unit);
}

export function outputOf(output: unknown): ComparisonOutput | undefined {
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

function rounded(value: number): number {
  return Number(value.toPrecision(12));
}
