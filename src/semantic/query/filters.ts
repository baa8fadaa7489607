import type { Dialect, TextMatch } from '../dialects/dialect';
import type { DimensionType } from '../model/model.types';
import type { NormalizedFilter, QueryMember } from './query.types';
import type { SqlParams } from './sql-params';

/** The SQL a filter applies to and the type its values are bound as. */
export interface FilterTarget {
  sql: string;
  type: DimensionType;
}

export interface FilterContext {
  dialect: Dialect;
  params: SqlParams;
  target(member: QueryMember): FilterTarget;
}

/**
 * A filter as a SQL condition, every value a bound parameter. Cube's semantics: `contains` and
 * its kin are case-insensitive; the negative operators (`notEquals`, `notContains`, …) keep rows
 * where the member is NULL; several values of a positive operator are ORed, of a negative ANDed.
 */
export function filterSql(filter: NormalizedFilter, context: FilterContext): string {
  if ('and' in filter) return junction(filter.and, 'AND', '1 = 1', context);
  if ('or' in filter) return junction(filter.or, 'OR', '1 = 0', context);
  const { dialect, params } = context;
  const target = context.target(filter.member);
  const isTime = target.type === 'time';
  const expr = isTime ? dialect.instant(target.sql) : `(${target.sql})`;
  const one = (value: string) => {
    if (isTime) return dialect.instantParam(params.add(dialect.instantValue(value)));
    if (target.type === 'number') return dialect.numberParam(params.add(Number(value)), false);
    if (target.type === 'boolean') return params.add(dialect.booleanValue(value === 'true'));
    return params.add(value);
  };
  const list = (values: unknown[]) => {
    if (isTime)
      return params.add(dialect.listValue(values.map((value) => dialect.instantValue(String(value)))));
    if (target.type === 'number')
      return dialect.numberParam(params.add(dialect.listValue(values.map(Number))), true);
    if (target.type === 'boolean') {
      return params.add(dialect.listValue(values.map((value) => dialect.booleanValue(value === 'true'))));
    }
    return params.add(dialect.listValue(values));
  };
  const present = filter.values.filter((value): value is string => value !== null);
  const hasNull = present.length < filter.values.length;
  const first = present[0] ?? '';
  // What `equals` and `notEquals` compare with: a string member's values in every form its
  // dialect compares them in (on SQLite an expression's number too, see Dialect.textForms).
  const compared: unknown[] =
    target.type === 'string' ? present.flatMap((value) => dialect.textForms(target.sql, value)) : present;

  // A range on a time rejects the rows without one: said so the planner sees it (Dialect.requiresValue).
  const valued = isTime ? dialect.requiresValue(target.sql) : undefined;
  const ranged = (condition: string) => (valued ? `(${condition} AND ${valued})` : `(${condition})`);

  switch (filter.operator) {
    case 'equals': {
      const parts: string[] = [];
      if (compared.length === 1) parts.push(`${expr} = ${one(first)}`);
      if (compared.length > 1) parts.push(dialect.inList(expr, list(compared)));
      if (hasNull) parts.push(`${expr} IS NULL`);
      return `(${parts.join(' OR ')})`;
    }
    case 'notEquals': {
      const differs =
        compared.length === 0
          ? undefined
          : compared.length === 1
            ? `${expr} <> ${one(first)}`
            : dialect.notInList(expr, list(compared));
      if (hasNull) return differs ? `(${expr} IS NOT NULL AND ${differs})` : `(${expr} IS NOT NULL)`;
      return `(${differs} OR ${expr} IS NULL)`;
    }
    case 'contains':
    case 'notContains':
    case 'startsWith':
    case 'notStartsWith':
    case 'endsWith':
    case 'notEndsWith': {
      const kind = filter.operator.replace(/^not/, '').toLowerCase() as TextMatch;
      const patterns = present.map((value) => dialect.textPattern(value, kind));
      // A boolean's text is `true` or `false` on every store (SQLite keeps it as 1 or 0).
      const text = target.type === 'boolean' ? booleanText(target.sql) : target.sql;
      const matches = dialect.likeAny(text, params.add(dialect.listValue(patterns)));
      return filter.operator.startsWith('not') ? `(NOT ${matches} OR ${expr} IS NULL)` : `(${matches})`;
    }
    case 'gt':
      return ranged(`${expr} > ${one(first)}`);
    case 'gte':
      return ranged(`${expr} >= ${one(first)}`);
    case 'lt':
      return ranged(`${expr} < ${one(first)}`);
    case 'lte':
      return ranged(`${expr} <= ${one(first)}`);
    case 'set':
      return `(${expr} IS NOT NULL)`;
    case 'notSet':
      return `(${expr} IS NULL)`;
    case 'inDateRange':
      return ranged(`${expr} >= ${one(first)} AND ${expr} <= ${one(present[1] ?? '')}`);
    case 'notInDateRange':
      return `(${expr} < ${one(first)} OR ${expr} > ${one(present[1] ?? '')})`;
    case 'beforeDate':
      return ranged(`${expr} < ${one(first)}`);
    case 'beforeOrOnDate':
      return ranged(`${expr} <= ${one(first)}`);
    case 'afterDate':
      return ranged(`${expr} > ${one(first)}`);
    case 'afterOrOnDate':
      return ranged(`${expr} >= ${one(first)}`);
  }
}

const booleanText = (sql: string) => `CASE WHEN (${sql}) THEN 'true' WHEN NOT (${sql}) THEN 'false' END`;

function junction(
  children: NormalizedFilter[],
  operator: 'AND' | 'OR',
  empty: string,
  context: FilterContext,
): string {
  if (children.length === 0) return empty;
  return `(${balanced(
    children.map((child) => filterSql(child, context)),
    operator,
  )})`;
}

/**
 * `parts` joined by `operator` as a balanced tree: SQLite refuses an expression nested deeper
 * than 100, and a flat chain of a hundred conditions is one, so a query of many filters would
 * fail there on the depth of its SQL before it reached the bound on its parameters.
 */
export function balanced(parts: readonly string[], operator: 'AND' | 'OR'): string {
  if (parts.length <= 2) return parts.join(` ${operator} `);
  const middle = Math.ceil(parts.length / 2);
  return `(${balanced(parts.slice(0, middle), operator)}) ${operator} (${balanced(parts.slice(middle), operator)})`;
}

/** A filter on one member: the leaves of `and` and `or`. */
export type MemberFilter = Extract<NormalizedFilter, { member: QueryMember }>;

/** The one-member filters of a filter, nested ones included. */
export function filterLeaves(filter: NormalizedFilter): MemberFilter[] {
  if ('and' in filter) return filter.and.flatMap(filterLeaves);
  if ('or' in filter) return filter.or.flatMap(filterLeaves);
  return [filter];
}

/** The members a filter tests, nested ones included. */
export function filterMembers(filter: NormalizedFilter): QueryMember[] {
  return filterLeaves(filter).map((leaf) => leaf.member);
}
