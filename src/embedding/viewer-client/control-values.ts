// The controls' values as they stand in the viewer page (see viewer-client.ts): what every load
// sends, renewals included, and what the host page hears in `edgeboard:filters-changed`.
import type { ViewerControls } from '../viewer.boot';
import { boot, post } from './page';

export type Scalar = string | number | boolean | null;

/** Filter values by member. */
export const filters = new Map<string, Scalar[]>();
/** Time grains by member. */
export const grains = new Map<string, string>();
/** The members of the session's locked filters: shown, never changed or sent. */
export const locked = new Set<string>();
/** Filters set while a whole load was in flight: its answer must not undo them. */
export const pending = new Map<string, Scalar[]>();

let controls: ViewerControls = boot.controls;

/** The controls of the last whole load. */
export const shownControls = (): ViewerControls => controls;

/** Takes the values a whole load applied, keeping those set while it ran. */
export function takeValues(next: ViewerControls): void {
  controls = next;
  filters.clear();
  grains.clear();
  locked.clear();
  for (const f of next.filters) {
    filters.set(f.member, f.values);
    if (f.locked) locked.add(f.member);
  }
  for (const g of next.timeGrains) grains.set(g.member, g.grain);
  for (const [member, values] of pending) if (!locked.has(member)) filters.set(member, values);
}

/** The controls' values as query parameters (locked filters are the session's; never sent). */
export function controlQuery(widgetIds: string[] | null): string {
  const params = new URLSearchParams();
  const set = [...filters].filter(([member]) => !locked.has(member));
  if (set.length > 0)
    params.set('filters', JSON.stringify(set.map(([member, values]) => ({ member, values }))));
  if (grains.size > 0) {
    params.set('timeGrains', JSON.stringify([...grains].map(([member, grain]) => ({ member, grain }))));
  }
  if (widgetIds) params.set('widgets', JSON.stringify(widgetIds));
  const query = params.toString();
  return query ? `?${query}` : '';
}

function currentFilters(): { member: string; values: Scalar[]; locked?: boolean }[] {
  return [...filters].map(([member, values]) => ({
    member,
    values,
    ...(locked.has(member) && { locked: true }),
  }));
}

export function announceFilters(): void {
  post('edgeboard:filters-changed', { filters: currentFilters() });
}

/** The charts a change of these members can change; null when one of them has no widget (all of them may). */
export function targetsOf(changed: { filters: string[]; grains: string[] }): string[] | null {
  const ids = new Set<string>();
  for (const member of changed.filters) {
    const shown = controls.widgets.filter((w) => w.kind === 'filter' && w.member === member);
    if (shown.length === 0) return null;
    for (const w of shown) for (const t of w.targets) ids.add(t);
  }
  for (const member of changed.grains) {
    for (const w of controls.widgets) {
      if (w.kind === 'timeGrain' && w.member === member) for (const t of w.targets) ids.add(t);
    }
  }
  return [...ids];
}

export const same = (a: readonly Scalar[] | undefined, b: readonly Scalar[]) =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

/** A `filters` message's list (or the fragment's), checked: members with lists of scalar values. */
export function filtersOf(value: unknown): { member: string; values: Scalar[] }[] | null {
  if (!Array.isArray(value)) return null;
  const out: { member: string; values: Scalar[] }[] = [];
  for (const entry of value.slice(0, 50)) {
    const { member, values } = (entry ?? {}) as { member?: unknown; values?: unknown };
    if (typeof member !== 'string' || !member || member.length > 255 || !Array.isArray(values)) continue;
    const scalars = values.filter(
      (v): v is Scalar => v === null || ['string', 'number', 'boolean'].includes(typeof v),
    );
    out.push({ member, values: scalars.slice(0, 100) });
  }
  return out;
}
