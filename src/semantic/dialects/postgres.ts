import { type Dialect, escapeLike, patternAround } from './dialect';

/**
 * PostgreSQL. The session runs in UTC; `timestamptz AT TIME ZONE zone` gives local time with DST,
 * and the zone is a bound parameter.
 */
export const postgres: Dialect = {
  name: 'postgres',
  reusesParams: true,
  quote: (identifier) => `"${identifier.replace(/"/g, '""')}"`,
  placeholder: (position) => `$${position}`,

  instant: (expr) => `(${expr})::timestamptz`,
  instantParam: (param) => `${param}::timestamptz`,
  instantValue: (iso) => iso,
  requiresValue: () => undefined,
  localTime(expr, zone, granularity) {
    const local = `((${expr})::timestamptz AT TIME ZONE ${zone.zoneParam}::text)`;
    const truncated = granularity ? `date_trunc('${granularity}', ${local})` : local;
    return `to_char(${truncated}, 'YYYY-MM-DD"T"HH24:MI:SS.MS')`;
  },

  inList: (expr, param) => `(${expr}) = ANY(${param})`,
  notInList: (expr, param) => `(${expr}) <> ALL(${param})`,
  listValue: (values) => values,
  // PostgreSQL types the parameter after the expression (text '02' against an integer is 2).
  textForms: (_expr, value) => [value],
  textPattern: (value, kind) => patternAround(escapeLike(value), kind, '%'),
  // ILIKE folds case by the database's locale, beyond ASCII.
  likeAny: (expr, param) => `(${expr})::text ILIKE ANY(${param}::text[])`,
  same: (left, right) => `${left} IS NOT DISTINCT FROM ${right}`,
  // Without the cast PostgreSQL types the parameter after the column (2.5 against a bigint fails).
  numberParam: (param, list) => `${param}::numeric${list ? '[]' : ''}`,
  booleanValue: (value) => value,
  asText: (expr) => `(${expr})::text`,
};
