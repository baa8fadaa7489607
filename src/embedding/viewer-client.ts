// The viewer page's script, run in the browser. Type-checked with the DOM library by
// tsconfig.client.json and bundled by scripts/build-client.mjs into viewer-client.bundle.ts,
// which the page inlines under its CSP nonce. This file loads the dashboard and answers the
// parent frame; viewer-client/ holds the page's elements (page.ts), the controls' values
// (control-values.ts) and their form controls (control-forms.ts).
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
//
// Comments: unless the account turned them off, a "Comments" button under the dashboard opens the
// dashboard's conversation (viewer-client/comments-panel.ts), read and written with the session
// the page currently shows.
import type { ViewerContent, ViewerControls } from './viewer.boot';
import { commentsPanel } from './viewer-client/comments-panel';
import { type ControlActions, makeControls, syncControls } from './viewer-client/control-forms';
import {
  announceFilters,
  controlQuery,
  filters,
  filtersOf,
  grains,
  locked,
  pending,
  type Scalar,
  same,
  takeValues,
  targetsOf,
} from './viewer-client/control-values';
import {
  avatars,
  boot,
  chat,
  fail,
  fromParent,
  hideNotice,
  post,
  reportHeight,
  root,
  section,
  show,
  showDashboard,
  status,
  UNREACHABLE,
} from './viewer-client/page';

let timers: ReturnType<typeof setTimeout>[] = [];
let generation = 0;
/** The session the dashboard was loaded with (memory only): control changes and value lists use it. */
let session: string | null = new URLSearchParams(location.search).get('session');
let loading = false;

function clearTimers(): void {
  for (const timer of timers) clearTimeout(timer);
  timers = [];
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
  takeValues(next);
  makeControls(actions);
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
    comments?.tookSession(body.canComment);
    showDashboard(body);
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

/** The values a FILTER widget offers, from the filter-values endpoint; null when there is no answer. */
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

const actions: ControlActions = { setFilters, setGrain, offeredValues };

window.addEventListener('message', (event: MessageEvent) => {
  if (!fromParent(event)) return;
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
const comments = commentsPanel(() => session);
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
  hideNotice();
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
