// The viewer page's script, run in the browser. Type-checked with the DOM library by
// tsconfig.client.json and bundled by scripts/build-client.mjs into viewer-client.bundle.ts,
// which the page inlines under its CSP nonce.
//
// The renewal protocol (docs/rendering.md): near expiry the page posts
// {type: "edgeboard:session-expiring"}, at expiry it hides the dashboard and posts
// {type: "edgeboard:session-expired"}; the parent answers {type: "edgeboard:set-session", sessionId}
// and the page loads the dashboard with it, without a reload. The session id only travels in the
// Authorization header of that fetch and is never written anywhere. A page opened with
// `#session=<id>` (a fragment never reaches a server, so no request log can hold it) loads the
// same way, and drops the fragment from its address.
//
// For a host that sizes the frame to the dashboard (the embed SDK), the page posts
// {type: "edgeboard:resize", height} whenever the height of #eb-root (the dashboard or its notice)
// changes, and {type: "edgeboard:error", code} when it shows an error other than expiry: at boot,
// or when a renewal fails.
//
// Controls: FILTER and TIME_GRAIN widgets become form controls (a searchable list of the member's
// values from the filter-values endpoint; the grains). A change fetches the content again with
// the controls' values and only the charts the control can change (`widgets`), and swaps those
// widgets' sections. The host page sets filters with {type: "edgeboard:set-filters", filters}
// (also `#…&filters=<json>&timeGrains=<json>` for the first load); the page posts
// {type: "edgeboard:filters-changed", filters} once ready and whenever the values change. The
// values are kept across renewals; a session's locked filters cannot be changed.
import type { ViewerBoot, ViewerContent, ViewerControl, ViewerControls } from './viewer.boot';

type Scalar = string | number | boolean | null;

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`viewer page without #${id}`);
  return found as T;
}

const boot = JSON.parse(element('eb-boot').textContent ?? '{}') as ViewerBoot;
const root = element('eb-root');
const content = element('eb-content');
const notice = element('eb-notice');
const sheet = element<HTMLStyleElement>('eb-dashboard-style');
const framed = window.parent !== null && window.parent !== window;
/** The code of a renewal that got no answer from the API (network down, a proxy's page). */
const UNREACHABLE = 'UNAVAILABLE';
let timers: ReturnType<typeof setTimeout>[] = [];
let generation = 0;
/** The session the dashboard was loaded with (memory only): control changes and value lists use it. */
let session: string | null = new URLSearchParams(location.search).get('session');
/** The controls' values as they stand: what every load sends, renewals included. */
const filters = new Map<string, Scalar[]>();
const grains = new Map<string, string>();
const locked = new Set<string>();
let controls: ViewerControls = boot.controls;
/** Filters set while a whole load was in flight: its answer must not undo them. */
const pending = new Map<string, Scalar[]>();
let loading = false;
const GRAINS = ['day', 'week', 'month', 'quarter', 'year'];
const status = document.createElement('div');
status.className = 'eb-sr';
status.setAttribute('role', 'status');
status.setAttribute('aria-live', 'polite');
root.appendChild(status);

function post(type: string, fields: Record<string, unknown> = {}): void {
  if (framed) window.parent.postMessage({ ...fields, type }, '*');
}

/** Expiry has its own message and a renewal answers it; every other refusal is an error. */
function fail(code: string): void {
  post('edgeboard:error', { code });
}

function clearTimers(): void {
  for (const timer of timers) clearTimeout(timer);
  timers = [];
}

function show(kind: string): void {
  const n = boot.notices[kind] ?? boot.notices.unavailable ?? { title: '', message: '' };
  const heading = notice.querySelector('h1');
  const text = notice.querySelector('p');
  if (heading) heading.textContent = n.title;
  if (text) text.textContent = n.message;
  notice.hidden = false;
  content.hidden = true;
  content.innerHTML = '';
  root.setAttribute('data-state', kind);
  document.title = n.title;
}

function expire(): void {
  clearTimers();
  show('expired');
  post('edgeboard:session-expired');
}

function schedule(ms: number | null): void {
  clearTimers();
  if (typeof ms !== 'number') return;
  const lead = Math.min(60_000, ms / 2);
  timers.push(setTimeout(() => post('edgeboard:session-expiring'), Math.max(0, ms - lead)));
  timers.push(setTimeout(expire, Math.max(0, ms)));
}

/** A picture that fails to load is removed: the initials underneath remain. */
function avatars(): void {
  for (const img of content.querySelectorAll<HTMLImageElement>('img[data-eb-avatar]')) {
    let done = false;
    const fallback = () => {
      if (done) return;
      done = true;
      img.parentElement?.classList.add('eb-avatar--initials');
      img.remove();
    };
    img.addEventListener('error', fallback);
    if (img.complete) img.decode().catch(fallback);
  }
}

function chat(): void {
  content.querySelector('[data-eb-chat]')?.addEventListener('click', () => post('edgeboard:open-chat'));
}

/** Exact origins, or `scheme://*.domain` patterns matching any subdomain. */
function allowed(origin: string): boolean {
  if (!boot.allowedOrigins) return true;
  return boot.allowedOrigins.some((pattern) => {
    if (pattern === origin) return true;
    const m = /^(https?:\/\/)\*\.(.+)$/.exec(pattern);
    if (!m) return false;
    const [, scheme = '', domain = ''] = m;
    return (
      origin.startsWith(scheme) &&
      origin.length > scheme.length + domain.length + 1 &&
      origin.endsWith(`.${domain}`)
    );
  });
}

/** The controls' values as query parameters (locked filters are the session's; never sent). */
function controlQuery(widgetIds: string[] | null): string {
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

function announceFilters(): void {
  post('edgeboard:filters-changed', { filters: currentFilters() });
}

/** A refusal of the API (or no answer) while the dashboard is shown: its notice, and the message it calls for. */
function refused(code: string | undefined): void {
  clearTimers();
  const kind = (code && boot.codes[code]) || 'unavailable';
  show(kind);
  if (kind === 'expired') post('edgeboard:session-expired');
  else fail(code ?? UNREACHABLE);
}

async function fetchContent(sessionId: string, widgetIds: string[] | null) {
  const res = await fetch(`${boot.contentUrl}${controlQuery(widgetIds)}`, {
    headers: { Authorization: `Session ${sessionId}` },
    cache: 'no-store',
    credentials: 'omit',
  });
  return { res, body: (await res.json()) as ViewerContent & { code?: string } };
}

/** Takes the values a whole load applied (keeping those set while it ran) and makes the controls. */
function takeControls(next: ViewerControls): void {
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
  makeControls();
}

async function renew(sessionId: string, done = 'edgeboard:session-renewed'): Promise<void> {
  const mine = ++generation;
  loading = true;
  pending.clear();
  try {
    const { res, body } = await fetchContent(sessionId, null);
    if (mine !== generation) return;
    loading = false;
    if (!res.ok) return refused(body.code);
    session = sessionId;
    sheet.textContent = body.css;
    content.innerHTML = body.html;
    document.title = body.title;
    notice.hidden = true;
    content.hidden = false;
    root.setAttribute('data-state', 'ready');
    avatars();
    chat();
    const stale = pending.size > 0;
    takeControls(body.controls);
    pending.clear();
    schedule(body.expiresInMs);
    post(done);
    if (done === 'edgeboard:ready' || stale) announceFilters();
    // Values the host set while this load ran were not in it: one more load shows them.
    if (stale) void renew(sessionId, 'edgeboard:filters-applied');
  } catch {
    // No answer, or one that is not the API's JSON: nothing says which code, so the page's own.
    if (mine === generation) {
      loading = false;
      clearTimers();
      show('unavailable');
      fail(UNREACHABLE);
    }
  }
}

let refreshing = 0;

/**
 * Runs the charts of `widgetIds` again with the current values and swaps their sections; null:
 * the whole dashboard (a filter no widget shows may narrow any chart).
 */
async function refresh(widgetIds: string[] | null): Promise<void> {
  if (!session || root.getAttribute('data-state') !== 'ready') return;
  if (widgetIds === null) return renew(session, 'edgeboard:filters-applied');
  if (widgetIds.length === 0) return;
  const mine = ++refreshing;
  const start = generation;
  const sections = widgetIds.map(section).filter((s): s is HTMLElement => s !== null);
  for (const s of sections) s.setAttribute('aria-busy', 'true');
  try {
    const { res, body } = await fetchContent(session, widgetIds);
    if (mine !== refreshing || start !== generation) return;
    if (!res.ok) return refused(body.code);
    const fresh = document.createElement('template');
    fresh.innerHTML = body.html;
    let swapped = 0;
    for (const id of body.widgets ?? []) {
      const next = fresh.content.querySelector(`section[data-widget-id="${CSS.escape(id)}"]`);
      const old = section(id);
      if (next && old) {
        old.replaceWith(next);
        swapped++;
      }
    }
    schedule(body.expiresInMs);
    status.textContent = `${swapped} chart${swapped === 1 ? '' : 's'} updated`;
    post('edgeboard:filters-applied');
  } catch {
    if (mine === refreshing && start === generation) refused(undefined);
  } finally {
    for (const s of sections) s.removeAttribute('aria-busy');
  }
}

function section(widgetId: string): HTMLElement | null {
  return content.querySelector<HTMLElement>(`section[data-widget-id="${CSS.escape(widgetId)}"]`);
}

/** The charts a change of these members can change; null when one of them has no widget (all of them may). */
function targetsOf(changed: { filters: string[]; grains: string[] }): string[] | null {
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

const same = (a: readonly Scalar[] | undefined, b: readonly Scalar[]) =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

/** Sets filter values (a control or the host page); locked members are left as they are. */
function setFilters(next: { member: string; values: Scalar[] }[]): void {
  const changed: string[] = [];
  for (const { member, values } of next) {
    if (locked.has(member) || same(filters.get(member), values)) continue;
    filters.set(member, values);
    if (loading) pending.set(member, values);
    changed.push(member);
  }
  if (changed.length === 0) return;
  syncControls();
  announceFilters();
  if (!loading) void refresh(targetsOf({ filters: changed, grains: [] }));
}

function setGrain(member: string, grain: string): void {
  if (grains.get(member) === grain) return;
  grains.set(member, grain);
  void refresh(targetsOf({ filters: [], grains: [member] }));
}

// ---- The form controls ----

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

async function offeredValues(
  widgetId: string,
  search: string,
): Promise<{ values: Scalar[]; truncated: boolean } | null> {
  if (!session) return null;
  const params = new URLSearchParams({ widgetId });
  if (search) params.set('search', search);
  try {
    const res = await fetch(`${boot.filterValuesUrl}?${params}`, {
      headers: { Authorization: `Session ${session}` },
      cache: 'no-store',
      credentials: 'omit',
    });
    if (!res.ok) return null;
    return (await res.json()) as { values: Scalar[]; truncated: boolean };
  } catch {
    return null;
  }
}

let uid = 0;

function labelled(tag: 'label' | 'span', text: string, className: string, htmlFor?: string): HTMLElement {
  const el = document.createElement(tag);
  el.className = className;
  el.textContent = text;
  if (htmlFor && el instanceof HTMLLabelElement) el.htmlFor = htmlFor;
  return el;
}

function filterForm(control: ViewerControl): HTMLElement {
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
    const answer = await offeredValues(control.widgetId, search.value.trim());
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
    setFilters([
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

function grainForm(control: ViewerControl): HTMLElement {
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
  select.addEventListener('change', () => setGrain(control.member, select.value));
  form.append(labelled('label', control.label, 'eb-sr', select.id), select);
  return form;
}

/**
 * Replaces each control widget's read-only value with its form control. A control that can change
 * no chart (a dashboard of static snapshots) keeps its label: a list that does nothing would mislead.
 */
function makeControls(): void {
  for (const control of controls.widgets) {
    if (control.targets.length === 0 && !control.locked) continue;
    const body = section(control.widgetId)?.querySelector('.eb-widget-body');
    if (!body) continue;
    body.replaceChildren(control.kind === 'filter' ? filterForm(control) : grainForm(control));
  }
}

/** The filter lists show the values as they now stand (a host page's set, a renewal's answer). */
function syncControls(): void {
  for (const control of controls.widgets) {
    if (control.kind !== 'filter') continue;
    const select = section(control.widgetId)?.querySelector<HTMLSelectElement>('select[data-eb-filter]');
    if (!select) continue;
    const offered = [...select.options].slice(1).map((o) => JSON.parse(o.value) as unknown);
    const values = offered.filter((v) => !Array.isArray(v)) as Scalar[];
    fillFilter(select, filters.get(control.member) ?? [], values);
  }
}

/** A `filters` message's list, checked: members with lists of scalar values. */
function filtersOf(value: unknown): { member: string; values: Scalar[] }[] | null {
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

/**
 * The rendered height of the dashboard (or its notice), not of the body: the body is at least the
 * frame's height, so it could never tell a host to shrink the frame. Posted only when it changes.
 */
function reportHeight(): void {
  if (!framed || typeof ResizeObserver === 'undefined') return;
  let last = -1;
  new ResizeObserver(() => {
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    post('edgeboard:resize', { height });
  }).observe(root);
}

window.addEventListener('message', (event: MessageEvent) => {
  if (!framed || event.source !== window.parent || !allowed(event.origin)) return;
  const data: unknown = event.data;
  if (!data || typeof data !== 'object') return;
  const { type, sessionId } = data as { type?: unknown; sessionId?: unknown };
  if (type === 'edgeboard:set-filters') {
    const next = filtersOf((data as { filters?: unknown }).filters);
    if (next) setFilters(next);
    return;
  }
  if (type !== 'edgeboard:set-session' || typeof sessionId !== 'string' || !sessionId) return;
  void renew(sessionId);
});

reportHeight();
avatars();
chat();
/** `#session=<id>&filters=<json>&timeGrains=<json>`: the fragment a host page (the SDK) opens the page with. */
function fromFragment(): string | null {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const json = (name: string): unknown => {
    try {
      return JSON.parse(fragment.get(name) ?? 'null');
    } catch {
      return null;
    }
  };
  for (const f of filtersOf(json('filters')) ?? []) filters.set(f.member, f.values);
  const asked = json('timeGrains');
  for (const g of Array.isArray(asked) ? asked.slice(0, 50) : []) {
    const { member, grain } = (g ?? {}) as { member?: unknown; grain?: unknown };
    if (typeof member === 'string' && typeof grain === 'string') grains.set(member, grain);
  }
  return fragment.get('session');
}

const fragmentSession = fromFragment();
if (fragmentSession) {
  history.replaceState(null, '', location.pathname + location.search);
  notice.hidden = true;
  void renew(fragmentSession, 'edgeboard:ready');
} else if (boot.state === 'ready') {
  takeControls(boot.controls);
  schedule(boot.expiresInMs);
  post('edgeboard:ready');
  announceFilters();
} else if (boot.state === 'expired') {
  post('edgeboard:session-expired');
} else if (boot.state !== 'ready') {
  // The page of an address without a session leaves its notice hidden for this moment.
  show(boot.state);
  fail(boot.code ?? UNREACHABLE);
}
