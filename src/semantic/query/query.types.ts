import type { Granularity } from '../model/model.types';

/**
 * A query in Cube's REST API format (`/cubejs-api/v1/load`), as a caller sends it. Validated
 * structurally by the data API's schema and semantically by `normalizeQuery`.
 */
export interface CubeQuery {
  measures?: string[];
  dimensions?: string[];
  segments?: string[];
  timeDimensions?: CubeTimeDimension[];
  filters?: CubeFilter[];
  /** `{ member: 'asc' | 'desc' }` or `[[member, 'asc' | 'desc'], …]`. */
  order?: Record<string, 'asc' | 'desc'> | [string, 'asc' | 'desc'][];
  limit?: number;
  offset?: number;
  total?: boolean;
  timezone?: string;
  ungrouped?: boolean;
  renewQuery?: boolean;
  /** How the Cube REST API's `/load` writes the rows: objects, or Cube's compact lists. */
  responseFormat?: 'default' | 'compact';
}

export interface CubeTimeDimension {
  dimension: string;
  granularity?: Granularity;
  /** `[from, to]` (dates or timestamps) or a relative expression such as `last 7 days`. */
  dateRange?: string | [string, string];
  /** Cube's compare-date-range query: one query per range (the Cube REST API expands it). */
  compareDateRange?: (string | [string, string])[];
}

export type CubeFilter =
  | { member?: string; dimension?: string; operator: string; values?: (string | number | boolean | null)[] }
  | { and: CubeFilter[] }
  | { or: CubeFilter[] };

/** The filter operators whose values are dates. */
export const DATE_FILTER_OPERATORS = [
  'inDateRange',
  'notInDateRange',
  'beforeDate',
  'beforeOrOnDate',
  'afterDate',
  'afterOrOnDate',
] as const;

/** The filter operators that match a member's text. */
export const TEXT_FILTER_OPERATORS = [
  'contains',
  'notContains',
  'startsWith',
  'notStartsWith',
  'endsWith',
  'notEndsWith',
] as const;

export const FILTER_OPERATORS = [
  'equals',
  'notEquals',
  ...TEXT_FILTER_OPERATORS,
  'gt',
  'gte',
  'lt',
  'lte',
  'set',
  'notSet',
  ...DATE_FILTER_OPERATORS,
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** Cube's default row limit, and the most a query may ask for. */
export const DEFAULT_LIMIT = 10_000;
export const MAX_LIMIT = 50_000;

/**
 * A query checked against the model: members exist (views resolved to their cube members),
 * operators and granularities are known, date ranges are absolute UTC instants, limits set.
 * Member names stay the ones the caller used (a view's names for a view query), so answers use
 * the caller's keys; `target` is the cube member behind each.
 */
export interface NormalizedQuery {
  measures: QueryMember[];
  dimensions: QueryMember[];
  segments: QueryMember[];
  timeDimensions: NormalizedTimeDimension[];
  filters: NormalizedFilter[];
  /** `granularity` when the order names a time dimension by it (`orders.created_at.month`). */
  order: { member: string; desc: boolean; granularity?: Granularity }[];
  limit: number;
  offset: number;
  total: boolean;
  timezone: string;
  ungrouped: boolean;
  /** Join paths a view fixes (root first); absent: the planner finds the join tree. */
  joinHints: string[][];
}

export interface QueryMember {
  /** As the caller named it (`View.member` or `Cube.member`). */
  name: string;
  /** The cube member behind it. */
  target: string;
}

export interface NormalizedTimeDimension extends QueryMember {
  granularity?: Granularity;
  /** Inclusive bounds as UTC instants (ISO strings, millisecond precision). */
  dateRange?: [string, string];
}

/**
 * Values are canonical text for the member's type: numbers as numeric text, booleans `true` or
 * `false`, times (and every date operator's values) as UTC instants; `null` only for `equals`
 * and `notEquals`.
 */
export type NormalizedFilter =
  | { member: QueryMember; operator: FilterOperator; values: (string | null)[] }
  | { and: NormalizedFilter[] }
  | { or: NormalizedFilter[] };

/** SQL text for one source's dialect, with its bound values in order. */
export interface CompiledSql {
  sql: string;
  params: unknown[];
}

/** What an answer's `annotation` says of each member. */
export interface Annotation {
  measures: Record<string, { title: string; shortTitle: string; type: string; format?: string }>;
  dimensions: Record<string, { title: string; shortTitle: string; type: string; format?: string }>;
  segments: Record<string, { title: string; shortTitle: string }>;
  timeDimensions: Record<string, { title: string; shortTitle: string; type: string; granularity?: unknown }>;
}
