import {
  CONTROL_OPERATORS,
  type ControlFilter,
  type ControlGrain,
  type ControlOperator,
  TIME_GRAINS,
  type TimeGrain,
} from '../semantic/query/controls';
import { widgetsOf } from './dashboard-widgets';

/**
 * A dashboard's controls as they stand for one load: each FILTER and TIME_GRAIN widget's value
 * (its saved default, or what the viewer, host page or notification set), plus filters on
 * members no widget shows (a notification's, a session's locked ones).
 */
export interface DashboardControls {
  filters: (ControlFilter & { widgetId?: string; locked?: boolean })[];
  timeGrains: (ControlGrain & { widgetId?: string })[];
}

/**
 * Values a caller sets: a list `[{widgetId | member, operator?, value | values}]` or a map
 * `{<widgetId or member>: value}`, for filters; likewise `grain` for time grains. `locked`
 * filters (a session's) win over every other value of their member and cannot be cleared.
 */
export interface ControlValues {
  filters?: unknown;
  timeGrains?: unknown;
  locked?: readonly ControlFilter[];
}

type Obj = Record<string, unknown>;
type Scalar = string | number | boolean | null;

const obj = (value: unknown): Obj =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;

const isScalar = (value: unknown): value is Scalar =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** A value as the list of values it stands for (a scalar is one value; null or missing, none). */
function valuesOf(value: unknown): Scalar[] {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value.filter(isScalar).slice(0, 100);
  return isScalar(value) ? [value] : [];
}

const operatorOf = (value: unknown): ControlOperator | undefined =>
  CONTROL_OPERATORS.includes(value as ControlOperator) ? (value as ControlOperator) : undefined;
const grainOf = (value: unknown): TimeGrain | undefined =>
  typeof value === 'string' && TIME_GRAINS.includes(value.toLowerCase() as TimeGrain)
    ? (value.toLowerCase() as TimeGrain)
    : undefined;

interface Entry {
  keys: string[];
  raw: Obj;
}

/** Caller values in one shape: each with the keys (widget id, member) it may be looked up by. */
function entriesOf(input: unknown, valueKey: 'values' | 'grain'): Entry[] {
  if (Array.isArray(input)) {
    return input.map((e) => {
      const raw = obj(e);
      const keys = [raw.widgetId, raw.id, raw.member, raw.dimension].filter(
        (k): k is string => typeof k === 'string' && k !== '',
      );
      return { keys, raw };
    });
  }
  return Object.entries(obj(input)).map(([key, value]) => ({
    keys: [key],
    raw: valueKey === 'values' ? { member: key, values: value } : { member: key, grain: value },
  }));
}

const firstDefined = (o: Obj, keys: string[]) => keys.map((k) => o[k]).find((x) => x !== undefined);

/** The value an entry sets: `values`, else `value`. */
const entryValues = (raw: Obj) => valuesOf('values' in raw ? raw.values : raw.value);

/**
 * The controls of a dashboard for one load: every FILTER widget bound to a member (`config.member`
 * or `config.dimension`) with its saved default (`values`, `value`, `defaultValues`,
 * `defaultValue`; operator `config.operator`, default `equals`) and every TIME_GRAIN widget bound
 * to a time dimension (`config.member` or `config.timeDimension`; `grain`, `value`,
 * `granularity`, `defaultGrain`, `defaultValue`), each replaced by the caller's value for the
 * widget's id or member. Caller values for members no widget shows are added. Unknown grains
 * and operators are left out rather than guessed.
 */
export function resolveControls(config: unknown, input: ControlValues = {}): DashboardControls {
  const filters: DashboardControls['filters'] = [];
  const timeGrains: DashboardControls['timeGrains'] = [];
  for (const { widgetId, type, config: c } of widgetsOf(config)) {
    if (type === 'FILTER') {
      const member = str(c.member) ?? str(c.dimension);
      if (!member) continue;
      const values = valuesOf(firstDefined(c, ['values', 'value', 'defaultValues', 'defaultValue']));
      filters.push({ widgetId, member, operator: operatorOf(c.operator) ?? 'equals', values });
    } else if (type === 'TIME_GRAIN') {
      const member = str(c.member) ?? str(c.timeDimension);
      const grain = grainOf(
        firstDefined(c, ['grain', 'value', 'granularity', 'defaultGrain', 'defaultValue']),
      );
      if (member) timeGrains.push({ widgetId, member, grain: grain ?? 'month' });
    }
  }
  const wanted = new Set<string>();
  for (const { keys, raw } of entriesOf(input.filters, 'values')) {
    const matches = filters.filter((f) => keys.includes(f.widgetId ?? '') || keys.includes(f.member));
    const operator = operatorOf(raw.operator);
    const bounds = { startInclusive: raw.startInclusive, endInclusive: raw.endInclusive } as Obj;
    for (const f of matches) {
      f.values = entryValues(raw);
      if (operator) f.operator = operator;
      if (typeof bounds.startInclusive === 'boolean') f.startInclusive = bounds.startInclusive;
      if (typeof bounds.endInclusive === 'boolean') f.endInclusive = bounds.endInclusive;
    }
    const member = str(raw.member) ?? str(raw.dimension);
    if (matches.length === 0 && member && !wanted.has(member)) {
      wanted.add(member);
      filters.push({
        member,
        operator: operator ?? 'equals',
        values: entryValues(raw),
        ...(typeof bounds.startInclusive === 'boolean' ? { startInclusive: bounds.startInclusive } : {}),
        ...(typeof bounds.endInclusive === 'boolean' ? { endInclusive: bounds.endInclusive } : {}),
      });
    }
  }
  for (const { keys, raw } of entriesOf(input.timeGrains, 'grain')) {
    const grain = grainOf(raw.grain ?? raw.value ?? raw.granularity);
    if (!grain) continue;
    const matches = timeGrains.filter((g) => keys.includes(g.widgetId ?? '') || keys.includes(g.member));
    for (const g of matches) g.grain = grain;
    const member = str(raw.member) ?? str(raw.dimension);
    if (matches.length === 0 && member) timeGrains.push({ member, grain });
  }
  // A locked filter replaces the value of every control on its member: the viewer sees it, fixed.
  for (const lock of input.locked ?? []) {
    for (const f of filters) {
      if (f.member !== lock.member) continue;
      Object.assign(f, { operator: lock.operator, values: lock.values, locked: true });
    }
  }
  return { filters, timeGrains };
}

/**
 * The controls as the data API applies them: the widgets' and caller's filters, and the locked
 * ones as `required` (a query that reads their cube but cannot be narrowed by them is refused).
 */
export function queryControls(controls: DashboardControls, locked: readonly ControlFilter[] = []) {
  return {
    filters: controls.filters.filter((f) => !f.locked),
    timeGrains: controls.timeGrains,
    required: locked,
  };
}

/** The controls' current values as the renderer shows them (`[{widgetId, member, values | grain}]`). */
export function displayedControls(controls: DashboardControls) {
  return {
    filters: controls.filters.map((f) => ({ widgetId: f.widgetId, member: f.member, values: f.values })),
    timeGrains: controls.timeGrains.map((g) => ({ widgetId: g.widgetId, member: g.member, grain: g.grain })),
  };
}
