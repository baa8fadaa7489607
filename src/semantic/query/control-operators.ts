/**
 * A dashboard control's operators (the ones a FILTER widget, a notification's `filters` and a
 * session's locked filters use), as opposed to the REST API's camel-case ones.
 */
/** The operators that match text within a value (Cube's `contains` family). */
const TEXT_MATCH_OPERATORS = [
  'contains',
  'not_contains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
] as const;

export const CONTROL_OPERATORS = [
  'equals',
  'not_equals',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  ...TEXT_MATCH_OPERATORS,
  'is_null',
  'is_not_null',
  'is_empty',
  'is_not_empty',
  'between',
] as const;
export type ControlOperator = (typeof CONTROL_OPERATORS)[number];

/** Operators that test the member alone: they take no value. */
export const VALUELESS_OPERATORS: ReadonlySet<string> = new Set<ControlOperator>([
  'is_null',
  'is_not_null',
  'is_empty',
  'is_not_empty',
]);

/** Operators the data API matches case-insensitively (the `contains` family). */
export const CASE_INSENSITIVE_OPERATORS: ReadonlySet<string> = new Set<ControlOperator>(TEXT_MATCH_OPERATORS);
