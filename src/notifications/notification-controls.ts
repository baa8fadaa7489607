import type { NotificationFilter, TimeGrain } from '../../schema/notifications';
import type { DashboardControls } from '../dashboards/controls';
import { widgetLabel, widgetsOf } from '../dashboards/dashboard-widgets';
import {
  CASE_INSENSITIVE_OPERATORS as CASE_INSENSITIVE,
  VALUELESS_OPERATORS as VALUELESS,
} from '../semantic/query/control-operators';
import type { ControlFilter, ControlOperator } from '../semantic/query/controls';

/**
 * A notification's stored filters and time grains as dashboard controls: what every chart's
 * query of a delivery runs under, and what its email says was filtered.
 */

type Scalar = string | number | boolean | null;

/** Operators the data API matches case-sensitively. */
const CASE_SENSITIVE = new Set<string>(['equals', 'not_equals']);

/**
 * Why a stored filter cannot be applied as written, or null. Such a filter fails its run's
 * deliveries instead of being left out: a file that says "Country is FR" must show FR's rows.
 * `custom` (a Cube Cloud filter edgeboard has no definition of) and a `caseSensitive` the
 * operator cannot honour are refused.
 */
export function filterProblem(filter: NotificationFilter): string | null {
  const operator = filter.operator ?? 'equals';
  if (operator === 'custom') {
    return `The filter on ${filter.member} uses the operator custom, which edgeboard cannot apply`;
  }
  if (filter.caseSensitive === true && CASE_INSENSITIVE.has(operator)) {
    return `The filter on ${filter.member} asks for a case-sensitive ${operator}, which edgeboard matches case-insensitively`;
  }
  if (filter.caseSensitive === false && CASE_SENSITIVE.has(operator)) {
    return `The filter on ${filter.member} asks for a case-insensitive ${operator}, which edgeboard matches case-sensitively`;
  }
  return null;
}

const valuesOf = (value: NotificationFilter['value']): Scalar[] =>
  value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];

/**
 * The caller values `resolveControls` takes for a notification: its filters (`operator`
 * defaults to `equals`; `value` a scalar or a list) and time grains, each set on the dashboard's
 * control of its member, or added when no control shows it. Call `filterProblem` first:
 * `custom` has no control operator.
 */
export function controlValuesOf(filters: readonly NotificationFilter[], timeGrains: readonly TimeGrain[]) {
  return {
    filters: filters.map((f) => ({
      member: f.member,
      operator: (f.operator ?? 'equals') as ControlOperator,
      values: valuesOf(f.value),
      ...(typeof f.startInclusive === 'boolean' ? { startInclusive: f.startInclusive } : {}),
      ...(typeof f.endInclusive === 'boolean' ? { endInclusive: f.endInclusive } : {}),
    })),
    timeGrains: timeGrains.map((g) => ({ member: g.member, grain: g.grain })),
  };
}

const PHRASES: Record<ControlOperator, string> = {
  equals: 'is',
  not_equals: 'is not',
  greater_than: 'is greater than',
  greater_than_or_equal: 'is at least',
  less_than: 'is less than',
  less_than_or_equal: 'is at most',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  not_starts_with: 'does not start with',
  ends_with: 'ends with',
  not_ends_with: 'does not end with',
  is_null: 'is not set',
  is_not_null: 'is set',
  is_empty: 'is empty',
  is_not_empty: 'is not empty',
  between: 'is between',
};

/**
 * A member's name for people: the label of the dashboard's control on it, else its last part
 * in words (`orders.created_at` → "Created at").
 */
function labelsOf(config: unknown): (member: string) => string {
  const labels = new Map<string, string>();
  for (const widget of widgetsOf(config)) {
    const c = widget.config;
    const member = [c.member, c.dimension, c.timeDimension].find((m) => typeof m === 'string');
    const label = widgetLabel(widget) ?? (typeof c.name === 'string' && c.name.trim() ? c.name.trim() : null);
    if (typeof member === 'string' && label && !labels.has(member)) labels.set(member, label);
  }
  return (member) => {
    const known = labels.get(member);
    if (known) return known;
    const words = (member.split('.').pop() ?? member).replace(/_/g, ' ').trim();
    return words.charAt(0).toUpperCase() + words.slice(1);
  };
}

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function phrase(filter: ControlFilter, label: string): string | null {
  const shown = filter.values.map((v) => (v === null ? 'not set' : String(v)));
  if (VALUELESS.has(filter.operator)) return `${label} ${PHRASES[filter.operator]}`;
  // A cleared control filters nothing, so it is not said to.
  if (shown.length === 0) return null;
  if (filter.operator === 'between') return `${label} is between ${shown[0]} and ${shown[1]}`;
  const joiner = filter.operator.startsWith('not_') ? ' nor ' : ' or ';
  return `${label} ${PHRASES[filter.operator]} ${shown.join(joiner)}`;
}

/**
 * What a delivery's data was run under, in words: "Filtered: Status is completed · Time grain:
 * Week"; null when nothing narrows or regroups it. Filters and grains are the dashboard's
 * controls as the delivery resolved them (the notification's over the saved defaults).
 */
export function describeControls(config: unknown, controls: DashboardControls): string | null {
  const label = labelsOf(config);
  const filters = controls.filters.flatMap((f) => phrase(f, label(f.member)) ?? []);
  const parts: string[] = [];
  if (filters.length > 0) parts.push(`Filtered: ${filters.join(', ')}`);
  const grains = controls.timeGrains;
  if (grains.length === 1) parts.push(`Time grain: ${capitalized(grains[0]?.grain ?? '')}`);
  else if (grains.length > 1) {
    parts.push(`Time grains: ${grains.map((g) => `${label(g.member)} by ${g.grain}`).join(', ')}`);
  }
  return parts.length > 0 ? parts.join(' · ') : null;
}
