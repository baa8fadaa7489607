/**
 * A dashboard control's operators (the ones a FILTER widget, a notification's `filters` and a
 * session's locked filters use), as opposed to the REST API's camel-case ones.
 */
export const CONTROL_OPERATORS = [
  'equals',
  'not_equals',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'contains',
  'not_contains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
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
