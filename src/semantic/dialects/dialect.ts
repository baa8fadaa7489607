import type { Granularity } from '../model/model.types';

/** How a query converts times to local time: the validated zone and its bound parameter. */
export interface ZoneContext {
  /** An IANA zone name `Intl` accepts. */
  zone: string;
  /** The placeholder of the zone bound as a parameter (for dialects that take it as a value). */
  zoneParam: string;
  /** UTC instants (ms) the converted times are expected to fall in. */
  span: [number, number];
}

/**
 * Everything that differs between the SQL of two databases. The planner writes portable SQL
 * around these pieces; values reach them as placeholders (see `sql-params.ts`), never as text.
 */
export interface Dialect {
  readonly name: 'postgres' | 'sqlite';
  quote(identifier: string): string;
  /** The text of the bound parameter at 1-based `position`. */
  placeholder(position: number): string;
  /** Whether a parameter used twice may be bound once (PostgreSQL's numbered `$n`). */
  readonly reusesParams: boolean;

  /** A time expression as a value comparable with `instantParam` (UTC). */
  instant(expr: string): string;
  /** A bound instant (`param` is its placeholder) comparable with `instant`. */
  instantParam(param: string): string;
  /** How an ISO-8601 UTC instant is bound. */
  instantValue(iso: string): unknown;
  /**
   * A condition to add to a time filter that already rejects rows where `expr` is NULL, true
   * wherever `expr` is not NULL, so that the engine's planner sees the rejection too; undefined
   * where it needs none. (SQLite's cannot see through `instant`: a date range on a LEFT JOINed
   * cube left the join a scan of the root table instead of a search of the range's index.)
   */
  requiresValue(expr: string): string | undefined;
  /**
   * A time expression as local wall-clock text `YYYY-MM-DDTHH:MM:SS.mmm` in the zone, truncated
   * to the granularity when one is given.
   */
  localTime(expr: string, zone: ZoneContext, granularity?: Granularity): string;

  /** `expr` equals one of the values of a list parameter (`listValue`). */
  inList(expr: string, param: string): string;
  /** `expr` differs from every value of a list parameter (NULL for a NULL `expr`). */
  notInList(expr: string, param: string): string;
  /** How a list of values is bound as one parameter. */
  listValue(values: unknown[]): unknown;
  /**
   * The values a `string` member whose SQL is `expr` is compared with for the text `value` by
   * `equals` and `notEquals`: the text alone where the engine reads the text as the expression's
   * type, as PostgreSQL does and SQLite does for a column (its affinity). An expression has no
   * affinity on SQLite, so its number never equals text there: SQLite also binds the number the
   * text reads as.
   */
  textForms(expr: string, value: string): unknown[];
  /**
   * The pattern `likeAny` matches `value` with: anywhere in the text (`contains`), at its start
   * or at its end, case-insensitively, every character of `value` literal.
   */
  textPattern(value: string, kind: TextMatch): string;
  /** `expr` matches one of the patterns (`textPattern`) of a list parameter. */
  likeAny(expr: string, param: string): string;
  /** Null-safe equality. */
  same(left: string, right: string): string;
  /** A bound number (or list of numbers) that compares with any numeric type. */
  numberParam(param: string, list: boolean): string;
  /** How a boolean is bound. */
  booleanValue(value: boolean): unknown;
  /** Text of a number for LIKE and comparisons with text. */
  asText(expr: string): string;
}

/** Where a text filter (`contains`, `startsWith`, `endsWith` and their negations) looks. */
export type TextMatch = 'contains' | 'startswith' | 'endswith';

/** `literal` (its wildcards already escaped) with the wildcard `any` where `kind` lets text run on. */
export function patternAround(literal: string, kind: TextMatch, any: '%' | '*'): string {
  return kind === 'contains'
    ? `${any}${literal}${any}`
    : kind === 'startswith'
      ? `${literal}${any}`
      : `${any}${literal}`;
}

/** Escapes LIKE wildcards (`%`, `_`) and the escape character itself; patterns use `ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** `"cube".column` with its parentheses: a cube's column as member SQL resolves it (`MemberSql`). */
const ALIASED_COLUMN = /^"((?:[^"]|"")+)"\.([A-Za-z_][A-Za-z0-9_]*)$/;

/**
 * The cube and column a resolved SQL expression is, when it is one column of a cube (`"orders".id`,
 * `("orders".id)` for a dimension referenced by another), else null.
 */
export function aliasedColumnOf(sql: string): { cube: string; column: string } | null {
  let text = sql.trim();
  while (text.startsWith('(') && text.endsWith(')')) text = text.slice(1, -1).trim();
  const match = ALIASED_COLUMN.exec(text);
  return match ? { cube: (match[1] ?? '').replaceAll('""', '"'), column: match[2] ?? '' } : null;
}
