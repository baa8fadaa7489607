import { fillMissingRows, MAX_FILLED_ROWS } from './fill-missing-rows';
import { mergeComparison, outputOf, unitOf } from './period-comparisons';
import type { NormalizedQuery } from './query.types';
import { COMPARISON_OUTPUTS, type ReportFields, type ResultRow } from './report-fields.types';
import { seriesKeysOf, timeDimensionOf } from './result-rows';

/**
 * The fields a report computes on its query's rows: `fillMissingRows` (the time buckets a series
 * has no row for) and `periodComparisons` (a measure beside its value one offset earlier). Pure:
 * rows in, rows out, in Cube's `data` shape (a time dimension with a granularity under both
 * `Cube.dim.granularity` and `Cube.dim`, as local wall-clock text `2024-03-01T00:00:00.000`).
 */

export { type FilledRows, fillMissingRows, MAX_FILLED_ROWS } from './fill-missing-rows';
export { comparisonQuery, mergeComparison } from './period-comparisons';
export {
  COMPARISON_OUTPUTS,
  COMPARISON_UNITS,
  type ComparisonOutput,
  type ComparisonUnit,
  type FillMissingRowsField,
  type PeriodComparisonField,
  type ReportFields,
  type ResultRow,
} from './report-fields.types';

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
