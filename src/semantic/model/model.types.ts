import type { PreAggregation } from './pre-aggregations.types';

/**
 * The compiled data model: what a build produces from a deployment's YAML files (Cube's data
 * model format) and what the query compiler plans against. Plain data (JSON-serialisable), so a
 * build stores it and a request reads it back without compiling again.
 *
 * SQL fragments keep Cube's references unresolved: `{CUBE}` (the cube's own alias), `{member}`
 * (a member of the same cube), `{cube.member}` (a member of another cube) and `{cube}` (another
 * cube's alias). The query compiler resolves them; the model compiler has checked that every
 * reference names something that exists and that member references have no cycle.
 */

/** Where a definition stands in its file, for error messages (1-based). */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export const MEASURE_TYPES = [
  'count',
  'count_distinct',
  'count_distinct_approx',
  'sum',
  'avg',
  'min',
  'max',
  'number',
  'string',
  'time',
  'boolean',
] as const;
export type MeasureType = (typeof MEASURE_TYPES)[number];

/**
 * Measures whose `sql` is the whole aggregate expression (Cube's `number`, `string`, `time` and
 * `boolean`): other measures it references are computed in it, and columns or dimensions it
 * reads are aggregated by its own functions (`MAX(created_at)`, `SUM({CUBE}.amount)`).
 */
export const COMPUTED_MEASURE_TYPES: ReadonlySet<MeasureType> = new Set([
  'number',
  'string',
  'time',
  'boolean',
]);

/**
 * Whether a measure counts distinct values: `count_distinct`, and Cube's `count_distinct_approx`,
 * which edgeboard counts exactly (an exact count is within any approximation's error).
 */
export function countsDistinct(type: MeasureType): boolean {
  return type === 'count_distinct' || type === 'count_distinct_approx';
}

/** Whether a measure's value is a count of rows or of values (an integer): `count` and the distinct counts. */
export function isCount(type: MeasureType): boolean {
  return type === 'count' || countsDistinct(type);
}

/** The type of a measure's values as Cube's `/meta` and `annotation` give it. */
export function measureValueType(type: MeasureType): 'number' | 'string' | 'time' | 'boolean' {
  return type === 'string' || type === 'time' || type === 'boolean' ? type : 'number';
}

export const DIMENSION_TYPES = ['string', 'number', 'boolean', 'time'] as const;
export type DimensionType = (typeof DIMENSION_TYPES)[number];

export const RELATIONSHIPS = ['many_to_one', 'one_to_many', 'one_to_one'] as const;
export type Relationship = (typeof RELATIONSHIPS)[number];

export const GRANULARITIES = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export interface MemberMeta {
  /** `Cube.member`. */
  name: string;
  /** The member's own name within its cube. */
  shortName: string;
  title: string;
  description?: string;
  /** `public: false` members are queryable by nothing but other members' SQL. */
  public: boolean;
  /** Cube's `format` (e.g. `currency`, `percent`), passed through to `/meta`. */
  format?: string;
  meta?: Record<string, unknown>;
  position: SourcePosition;
}

export interface Measure extends MemberMeta {
  type: MeasureType;
  /** Absent for `count` without `sql` (count of rows). */
  sql?: string;
  /** Each filter's `sql` must hold for a row to count. */
  filters: { sql: string }[];
}

export interface Dimension extends MemberMeta {
  type: DimensionType;
  sql: string;
  primaryKey: boolean;
}

export interface Segment extends MemberMeta {
  sql: string;
}

export interface Join {
  /** The cube joined to. */
  cube: string;
  relationship: Relationship;
  /** The ON condition, with references. */
  sql: string;
  position: SourcePosition;
}

/** Cube's `access_policy` entry, compiled. */
export interface AccessPolicy {
  /** The groups the policy applies to; `*` (or none named) means every caller. */
  groups: string[];
  /** Row filters that must all hold (Cube's `row_level.filters`); absent: every row. */
  rowLevel?: { filters: PolicyFilter[] } | { allowAll: true };
  /** Members the caller may query: `includes` (`*` for all) less `excludes`, named `Cube.member`. */
  memberLevel?: { includes: string[] | '*'; excludes: string[] };
  position: SourcePosition;
}

/**
 * A row-level filter of a policy: `member` (`Cube.member` or `View.member`, of the policy's own
 * cube or view) `operator` `values`, values possibly from the caller.
 */
export type PolicyFilter =
  | { member: string; operator: string; values: PolicyValue[] }
  | { and: PolicyFilter[] }
  | { or: PolicyFilter[] };

/** A literal, or a value taken from the caller's security context or user attributes. */
export type PolicyValue = { literal: string } | { securityContext: string[] } | { userAttribute: string };

export interface Cube {
  name: string;
  title: string;
  description?: string;
  /** Exactly one of `sql` and `sqlTable` is set. */
  sql?: string;
  sqlTable?: string;
  public: boolean;
  /** Cube's `meta`, passed through to `/meta`. */
  meta?: Record<string, unknown>;
  measures: Record<string, Measure>;
  dimensions: Record<string, Dimension>;
  segments: Record<string, Segment>;
  /** Keyed by the joined cube's name. */
  joins: Record<string, Join>;
  /** Seconds between refreshes of cached results (`refresh_key.every`); absent: the default. */
  refreshEvery?: number;
  accessPolicies: AccessPolicy[];
  /** Cube's `pre_aggregations`, in definition order; absent in builds compiled before them. */
  preAggregations?: PreAggregation[];
  position: SourcePosition;
}

/** One member a view exposes: the view's own name for it and the cube member behind it. */
export interface ViewMember {
  /** `View.member`. */
  name: string;
  /** `Cube.member` it resolves to. */
  target: string;
  /** The cubes joined from the first `join_path` cube to the member's cube, in order. */
  joinPath: string[];
  kind: 'measure' | 'dimension' | 'segment';
  title: string;
  description?: string;
}

export interface View {
  name: string;
  title: string;
  description?: string;
  public: boolean;
  /** Cube's `meta`, passed through to `/meta`. */
  meta?: Record<string, unknown>;
  members: Record<string, ViewMember>;
  accessPolicies: AccessPolicy[];
  position: SourcePosition;
}

export interface CompiledModel {
  cubes: Record<string, Cube>;
  views: Record<string, View>;
}

/** A compile error, with where it is when known. */
export interface ModelError {
  message: string;
  file: string | null;
  line: number | null;
  column: number | null;
}

export interface ModelFile {
  path: string;
  content: string;
}

export type CompileResult = { ok: true; model: CompiledModel } | { ok: false; errors: ModelError[] };
