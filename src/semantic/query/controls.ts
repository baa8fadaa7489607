import { sqlite } from '../dialects/sqlite';
import { type CompiledModel, GRANULARITIES, type Granularity } from '../model/model.types';
import {
  CONTROL_OPERATORS,
  type ControlOperator,
  VALUELESS_OPERATORS as VALUELESS,
} from './control-operators';
import { findMember } from './members';
import { normalizeQuery } from './normalize';
import { compileQuery } from './plan';
import type { CubeFilter, CubeQuery } from './query.types';
import { QueryError } from './query-error';

export { CONTROL_OPERATORS, type ControlOperator };

/** A time-grain control's values: the model's granularities. */
export const TIME_GRAINS = GRANULARITIES;
export type TimeGrain = Granularity;

type Scalar = string | number | boolean | null;

/** The current value of one filter control (or a filter a notification or session fixes). */
export interface ControlFilter {
  member: string;
  operator: ControlOperator;
  /** Empty for every operator that takes values: the control is cleared ("All") and filters nothing. */
  values: Scalar[];
  /** `between`: whether each bound is included (default true). */
  startInclusive?: boolean | null;
  endInclusive?: boolean | null;
}

/** The current grain of one time-grain control. */
export interface ControlGrain {
  member: string;
  grain: TimeGrain;
}

export interface QueryControls {
  filters: readonly ControlFilter[];
  timeGrains: readonly ControlGrain[];
}

const SIMPLE: Partial<Record<ControlOperator, string>> = {
  equals: 'equals',
  not_equals: 'notEquals',
  greater_than: 'gt',
  greater_than_or_equal: 'gte',
  less_than: 'lt',
  less_than_or_equal: 'lte',
  contains: 'contains',
  not_contains: 'notContains',
  starts_with: 'startsWith',
  not_starts_with: 'notStartsWith',
  ends_with: 'endsWith',
  not_ends_with: 'notEndsWith',
};

const text = (values: Scalar[]) => values.filter((x) => x !== null).map(String);

/**
 * A control filter in the REST API's form, or null when it restricts nothing (a cleared control).
 * `between` on a time dimension is `inDateRange`; on anything else a pair of bounds.
 */
export function cubeFilterOf(model: CompiledModel, filter: ControlFilter): CubeFilter | null {
  const member = filter.member;
  const values = filter.values;
  if (!VALUELESS.has(filter.operator) && text(values).length === 0 && !values.includes(null)) return null;
  switch (filter.operator) {
    case 'is_null':
      return { member, operator: 'notSet' };
    case 'is_not_null':
      return { member, operator: 'set' };
    case 'is_empty':
      return {
        or: [
          { member, operator: 'notSet' },
          { member, operator: 'equals', values: [''] },
        ],
      };
    case 'is_not_empty':
      return {
        and: [
          { member, operator: 'set' },
          { member, operator: 'notEquals', values: [''] },
        ],
      };
    case 'between': {
      const [start, end] = text(values);
      if (start === undefined || end === undefined)
        throw new QueryError(`between on ${member} takes [start, end]`);
      if (isTimeDimension(model, member)) return { member, operator: 'inDateRange', values: [start, end] };
      return {
        and: [
          { member, operator: filter.startInclusive === false ? 'gt' : 'gte', values: [start] },
          { member, operator: filter.endInclusive === false ? 'lt' : 'lte', values: [end] },
        ],
      };
    }
    default: {
      const operator = SIMPLE[filter.operator];
      if (!operator) throw new QueryError(`Unknown filter operator: ${String(filter.operator)}`);
      // Cube's equals takes null to match unset values; the text operators take strings only.
      const bound =
        operator === 'equals' || operator === 'notEquals'
          ? values.map((x) => (x === null ? null : String(x)))
          : text(values);
      return { member, operator, values: bound };
    }
  }
}

function isTimeDimension(model: CompiledModel, member: string): boolean {
  try {
    const found = findMember(model, member);
    return found.target.kind === 'dimension' && found.target.dimension.type === 'time';
  } catch {
    return false;
  }
}

/** Why the model cannot answer this query (a member, a value, no join), or null: planned in a throwaway dialect. */
function planError(model: CompiledModel, query: CubeQuery, now: Date): string | null {
  try {
    compileQuery(model, normalizeQuery(model, query, { now }), sqlite);
    return null;
  } catch (err) {
    if (err instanceof QueryError) return err.message;
    throw err;
  }
}

const plans = (model: CompiledModel, query: CubeQuery, now: Date) => planError(model, query, now) === null;

/**
 * A report's query under a dashboard's controls: each filter is ANDed in where the query can be
 * filtered by its member (the model joins the member's cube to the query's), and each time grain
 * replaces the granularity of the query's time dimensions on its member (a time dimension that
 * has no granularity, a plain date range, keeps none). `applied` names the filters' members
 * that narrowed it. A filter whose member the query cannot reach leaves it as it is, unless the
 * filter is `required` (a locked filter): then the query is refused, failing closed. A filter
 * the query could take but whose values the member refuses (a date that is no date) refuses
 * the query too: it is never answered unfiltered.
 */
export function applyControls(
  model: CompiledModel,
  query: CubeQuery,
  controls: QueryControls & { required?: readonly ControlFilter[] },
  now: Date,
): { query: CubeQuery; applied: string[] } {
  const grains = new Map(controls.timeGrains.map((g) => [targetOf(model, g.member), g.grain]));
  let result: CubeQuery = {
    ...query,
    timeDimensions: query.timeDimensions?.map((td) => {
      const grain = grains.get(targetOf(model, td.dimension));
      return grain && td.granularity ? { ...td, granularity: grain } : td;
    }),
  };
  if (result.timeDimensions === undefined) delete result.timeDimensions;
  const applied: string[] = [];
  const narrow = (filter: ControlFilter, required: boolean) => {
    const cube = cubeFilterOf(model, filter);
    if (!cube) return;
    const candidate = { ...result, filters: [...(result.filters ?? []), cube] };
    const error = planError(model, candidate, now);
    if (error === null) {
      result = candidate;
      applied.push(filter.member);
      return;
    }
    // The query can be filtered by the member, but not by these values: never left unfiltered.
    const reachable = plans(
      model,
      { ...result, filters: [...(result.filters ?? []), { member: filter.member, operator: 'set' }] },
      now,
    );
    if (reachable) throw new QueryError(`The filter on ${filter.member} cannot be applied: ${error}`);
    if (required && touches(model, result, filter.member)) {
      throw new QueryError(`This query cannot be filtered by ${filter.member}`);
    }
  };
  for (const filter of controls.filters) narrow(filter, false);
  for (const filter of controls.required ?? []) narrow(filter, true);
  return { query: result, applied };
}

/** The cube member behind a name (a view's member resolves to its cube's); the name itself when unknown. */
function targetOf(model: CompiledModel, name: string): string {
  try {
    return findMember(model, name).target.name;
  } catch {
    return name;
  }
}

/** Whether the query reads the cube that holds `member` (what a row-level filter must then restrict). */
function touches(model: CompiledModel, query: CubeQuery, member: string): boolean {
  const cube = targetOf(model, member).split('.')[0];
  const names = [
    ...(query.measures ?? []),
    ...(query.dimensions ?? []),
    ...(query.segments ?? []),
    ...(query.timeDimensions ?? []).map((td) => td.dimension),
  ];
  return names.some((name) => targetOf(model, name).split('.')[0] === cube);
}

/**
 * Which of the controls' members can change a query: a filter member the model lets narrow it,
 * a time-grain member the query has a time dimension with a granularity on. The viewer refreshes
 * only the charts a changed control reaches.
 */
export function controlReach(
  model: CompiledModel,
  query: CubeQuery,
  members: { filters: readonly string[]; timeGrains: readonly string[] },
  now: Date,
): { filters: string[]; timeGrains: string[] } {
  const filters = members.filters.filter((member) =>
    plans(model, { ...query, filters: [...(query.filters ?? []), { member, operator: 'set' }] }, now),
  );
  const grained = new Set(
    (query.timeDimensions ?? []).filter((td) => td.granularity).map((td) => targetOf(model, td.dimension)),
  );
  const timeGrains = members.timeGrains.filter((member) => grained.has(targetOf(model, member)));
  return { filters, timeGrains };
}
