// The form controls FILTER and TIME_GRAIN widgets become in the viewer page (see viewer-client.ts):
// a searchable list of the member's values, or the grains.
import type { ViewerControl } from '../viewer.boot';
import { filters, grains, type Scalar, shownControls } from './control-values';
import { section } from './page';

/** What a form control does when used: set values, set a grain, read the values it offers. */
export interface ControlActions {
  setFilters(next: { member: string; values: Scalar[] }[]): void;
  setGrain(member: string, grain: string): void;
  offeredValues(widgetId: string, search: string): Promise<{ values: Scalar[]; truncated: boolean } | null>;
}

const GRAINS = ['day', 'week', 'month', 'quarter', 'year'];

const valueText = (value: Scalar) => (value === null ? '(empty)' : String(value));

function option(value: string, text: string, selected = false): HTMLOptionElement {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = text;
  o.selected = selected;
  return o;
}

/** The options of a filter's list: All, the current value(s), then the values offered. */
function fillFilter(select: HTMLSelectElement, current: Scalar[], offered: Scalar[]): void {
  const options = [option('', 'All', current.length === 0)];
  const currentKey = current.length === 1 ? JSON.stringify(current[0]) : JSON.stringify(current);
  if (current.length > 1) options.push(option(currentKey, current.map(valueText).join(', '), true));
  const seen = new Set<string>();
  if (current.length === 1) {
    options.push(option(currentKey, valueText(current[0] ?? null), true));
    seen.add(currentKey);
  }
  for (const value of offered) {
    const key = JSON.stringify(value);
    if (seen.has(key)) continue;
    seen.add(key);
    options.push(option(key, valueText(value)));
  }
  select.replaceChildren(...options);
}

let uid = 0;

function labelled(tag: 'label' | 'span', text: string, className: string, htmlFor?: string): HTMLElement {
  const el = document.createElement(tag);
  el.className = className;
  el.textContent = text;
  if (htmlFor && el instanceof HTMLLabelElement) el.htmlFor = htmlFor;
  return el;
}

function filterForm(control: ViewerControl, actions: ControlActions): HTMLElement {
  const form = document.createElement('div');
  form.className = 'eb-form';
  form.setAttribute('role', 'group');
  form.setAttribute('aria-label', control.label);
  const n = ++uid;
  const select = document.createElement('select');
  select.id = `eb-filter-${n}`;
  select.dataset.ebFilter = control.widgetId;
  const current = () => filters.get(control.member) ?? [];
  fillFilter(select, current(), []);
  if (control.locked) {
    select.disabled = true;
    const hint = labelled('span', '🔒 Fixed', 'eb-lock');
    hint.id = `eb-lock-${n}`;
    hint.title = 'Set for your session; it cannot be changed here';
    select.setAttribute('aria-describedby', hint.id);
    form.append(labelled('label', control.label, 'eb-sr', select.id), select, hint);
    return form;
  }
  const search = document.createElement('input');
  search.type = 'search';
  search.id = `eb-search-${n}`;
  search.placeholder = 'Search…';
  search.autocomplete = 'off';
  search.dataset.ebSearch = control.widgetId;
  search.setAttribute('aria-controls', select.id);
  const found = labelled('span', '', 'eb-sr');
  found.setAttribute('aria-live', 'polite');
  let asked = 0;
  const load = async () => {
    const mine = ++asked;
    const answer = await actions.offeredValues(control.widgetId, search.value.trim());
    if (mine !== asked || !answer) return;
    fillFilter(select, current(), answer.values);
    select.dataset.ebLoaded = 'true';
    const count = answer.values.length;
    found.textContent = `${count}${answer.truncated ? '+' : ''} value${count === 1 ? '' : 's'}`;
  };
  let typing: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(load, 250);
  });
  select.addEventListener('change', () => {
    const chosen = select.value;
    const parsed: unknown = chosen === '' ? [] : JSON.parse(chosen);
    actions.setFilters([
      { member: control.member, values: Array.isArray(parsed) ? (parsed as Scalar[]) : [parsed as Scalar] },
    ]);
  });
  form.append(
    labelled('label', `Search ${control.label}`, 'eb-sr', search.id),
    search,
    labelled('label', control.label, 'eb-sr', select.id),
    select,
    found,
  );
  void load();
  return form;
}

function grainForm(control: ViewerControl, actions: ControlActions): HTMLElement {
  const form = document.createElement('div');
  form.className = 'eb-form';
  const select = document.createElement('select');
  select.id = `eb-grain-${++uid}`;
  select.dataset.ebGrain = control.widgetId;
  const grain = grains.get(control.member) ?? control.grain ?? 'month';
  const offered = GRAINS.includes(grain) ? GRAINS : [grain, ...GRAINS];
  select.replaceChildren(
    ...offered.map((g) => option(g, g.charAt(0).toUpperCase() + g.slice(1), g === grain)),
  );
  select.addEventListener('change', () => actions.setGrain(control.member, select.value));
  form.append(labelled('label', control.label, 'eb-sr', select.id), select);
  return form;
}

/**
 * Replaces each control widget's read-only value with its form control. A control that can change
 * no chart (a dashboard of static snapshots) keeps its label: a list that does nothing would mislead.
 */
export function makeControls(actions: ControlActions): void {
  for (const control of shownControls().widgets) {
    if (control.targets.length === 0 && !control.locked) continue;
    const body = section(control.widgetId)?.querySelector('.eb-widget-body');
    if (!body) continue;
    body.replaceChildren(
      control.kind === 'filter' ? filterForm(control, actions) : grainForm(control, actions),
    );
  }
}

/** The filter lists show the values as they now stand (a host page's set, a renewal's answer). */
export function syncControls(): void {
  for (const control of shownControls().widgets) {
    if (control.kind !== 'filter') continue;
    const select = section(control.widgetId)?.querySelector<HTMLSelectElement>('select[data-eb-filter]');
    if (!select) continue;
    const offered = [...select.options].slice(1).map((o) => JSON.parse(o.value) as unknown);
    const values = offered.filter((v) => !Array.isArray(v)) as Scalar[];
    fillFilter(select, filters.get(control.member) ?? [], values);
  }
}
