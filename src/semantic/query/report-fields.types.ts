/** The computed fields a report holds, and the rows they compute on (see report-fields.ts). */

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
