/**
 * `@edgeboard/embed-sdk`: frames a published edgeboard dashboard in a host page and keeps it
 * running. It speaks the viewer's postMessage protocol (docs/rendering.md, "Renewal without
 * reload"), so the host only supplies a function that asks its own backend for a session.
 */

/** A session as the customer's backend gets it from `POST /api/v1/embed/generate-session`. */
export interface EmbedSession {
  sessionId: string;
  expiresAt: string;
}

/** A value a dashboard filter matches. */
export type FilterValue = string | number | boolean | null;

/**
 * A dashboard filter's values on a member (`cube.dimension`): the dashboard's FILTER widget on
 * that member, or any chart the member can narrow when no widget shows it. An empty `values`
 * clears the filter (all rows).
 */
export interface DashboardFilter {
  member: string;
  values: FilterValue[];
  /** Set by the session (generate-session's lockedFilters): the host page cannot change it. */
  locked?: boolean;
}

/** A time dimension's granularity, as a TIME_GRAIN widget sets it. */
export interface DashboardTimeGrain {
  member: string;
  grain: 'day' | 'week' | 'month' | 'quarter' | 'year';
}

/** What `onEvent` receives. */
export type EmbedEvent =
  | { type: 'loaded' }
  | { type: 'filters-changed'; filters: DashboardFilter[] }
  | { type: 'renewed' }
  | { type: 'resize'; height: number }
  | { type: 'session-expired' }
  | { type: 'open-chat' }
  | { type: 'error'; error: Error };

/** Styles of the iframe element itself (the dashboard's own theme lives in its config). */
export interface FrameTheme {
  border?: string;
  borderRadius?: string;
  background?: string;
  /** Height before the viewer reports the dashboard's (default 600px). */
  minHeight?: string;
}

export interface EmbedOptions {
  /** The element the iframe is appended to. */
  container: HTMLElement;
  /** Where edgeboard answers, e.g. `https://edgeboard.example.com`. */
  baseUrl: string;
  /** The published dashboard's `publicId`. */
  publicId: string;
  /** Asks the host's backend for a fresh session; called at start and before each expiry. */
  fetchSession: () => Promise<EmbedSession>;
  theme?: FrameTheme;
  onEvent?: (event: EmbedEvent) => void;
  /** How long to wait for the dashboard before reporting an error (default 30 s). */
  loadTimeoutMs?: number;
  /** Filter values of the first load (it is already filtered: they travel with the session). */
  filters?: DashboardFilter[];
  /** Time grains of the first load. */
  timeGrains?: DashboardTimeGrain[];
}

export interface EmbeddedDashboard {
  iframe: HTMLIFrameElement;
  /**
   * Sets the values of these members' filters (others keep theirs); the viewer re-runs only the
   * charts they narrow. A locked filter (the session's) is left as it is. `filters-changed`
   * follows once the viewer has applied them.
   */
  setFilters(filters: DashboardFilter[]): void;
  /** The filters' values as the viewer last reported them (before that: those set here). */
  getFilters(): DashboardFilter[];
  /** Removes the iframe, the message listener and every timer; renewals in flight are dropped. */
  destroy(): void;
}

const MESSAGE_PREFIX = 'edgeboard:';

/**
 * Embeds the dashboard. The session travels in the URL fragment, which browsers never send to a
 * server, so it appears in no request log; renewals go through `edgeboard:set-session`.
 */
export function embedDashboard(options: EmbedOptions): EmbeddedDashboard {
  const { container, publicId, fetchSession, theme = {}, onEvent, loadTimeoutMs = 30_000 } = options;
  const base = options.baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  const iframe = document.createElement('iframe');
  iframe.title = 'edgeboard dashboard';
  iframe.style.width = '100%';
  iframe.style.border = theme.border ?? '0';
  iframe.style.height = theme.minHeight ?? '600px';
  if (theme.borderRadius) iframe.style.borderRadius = theme.borderRadius;
  if (theme.background) iframe.style.background = theme.background;

  let destroyed = false;
  let loaded = false;
  let filters: DashboardFilter[] = cleanFilters(options.filters ?? []);
  /** Values set before the viewer was ready: sent once it is. */
  let queued: DashboardFilter[] = [];
  let renewing: Promise<void> | undefined;
  let loadTimer: ReturnType<typeof setTimeout> | undefined;

  const emit = (event: EmbedEvent) => {
    if (destroyed || !onEvent) return;
    try {
      onEvent(event);
    } catch (err) {
      // A failing host callback must not stop the embed; surface it asynchronously.
      setTimeout(() => {
        throw err;
      });
    }
  };
  const fail = (error: unknown) =>
    emit({ type: 'error', error: error instanceof Error ? error : new Error(String(error)) });

  const session = async (): Promise<EmbedSession> => {
    const result = await fetchSession();
    if (!result || typeof result.sessionId !== 'string' || result.sessionId === '') {
      throw new Error('fetchSession must resolve to {sessionId, expiresAt}');
    }
    return result;
  };

  /** One renewal at a time: the viewer may warn and then expire while a fetch is in flight. */
  const renew = (): Promise<void> => {
    renewing ??= session()
      .then(({ sessionId }) => {
        if (destroyed) return;
        iframe.contentWindow?.postMessage({ type: `${MESSAGE_PREFIX}set-session`, sessionId }, origin);
      })
      .catch(fail)
      .finally(() => {
        renewing = undefined;
      });
    return renewing;
  };

  const onMessage = (event: MessageEvent) => {
    if (destroyed || event.source !== iframe.contentWindow || event.origin !== origin) return;
    const data: unknown = event.data;
    if (!data || typeof data !== 'object') return;
    const { type, height } = data as { type?: unknown; height?: unknown };
    switch (type) {
      case 'edgeboard:ready':
        loaded = true;
        clearTimeout(loadTimer);
        emit({ type: 'loaded' });
        if (queued.length > 0) {
          postFilters(queued);
          queued = [];
        }
        break;
      case 'edgeboard:filters-changed': {
        const reported = (data as { filters?: unknown }).filters;
        if (!Array.isArray(reported)) break;
        filters = cleanFilters(reported as DashboardFilter[], true);
        emit({ type: 'filters-changed', filters: copyFilters(filters) });
        break;
      }
      case 'edgeboard:session-renewed':
        emit({ type: 'renewed' });
        break;
      case 'edgeboard:session-expiring':
        void renew();
        break;
      case 'edgeboard:session-expired':
        emit({ type: 'session-expired' });
        void renew();
        break;
      case 'edgeboard:resize':
        if (typeof height === 'number' && Number.isFinite(height) && height > 0) {
          iframe.style.height = `${Math.ceil(height)}px`;
          emit({ type: 'resize', height });
        }
        break;
      case 'edgeboard:open-chat':
        emit({ type: 'open-chat' });
        break;
      case 'edgeboard:error':
        fail(new Error(`The dashboard could not be shown: ${String((data as { code?: unknown }).code)}`));
        break;
    }
  };
  window.addEventListener('message', onMessage);

  const postFilters = (next: DashboardFilter[]) =>
    iframe.contentWindow?.postMessage(
      { type: `${MESSAGE_PREFIX}set-filters`, filters: copyFilters(next) },
      origin,
    );

  let framed = false;
  session()
    .then(({ sessionId }) => {
      if (destroyed) return;
      const fragment = new URLSearchParams({ session: sessionId });
      const initial = filters.filter((f) => !f.locked);
      if (initial.length > 0) fragment.set('filters', JSON.stringify(copyFilters(initial)));
      if (options.timeGrains?.length) fragment.set('timeGrains', JSON.stringify(options.timeGrains));
      framed = true;
      iframe.src = `${base}/embed/dashboard/${encodeURIComponent(publicId)}#${fragment}`;
      container.appendChild(iframe);
      loadTimer = setTimeout(() => {
        if (!loaded) fail(new Error(`The dashboard did not load within ${loadTimeoutMs} ms`));
      }, loadTimeoutMs);
    })
    .catch(fail);

  return {
    iframe,
    setFilters(next) {
      if (destroyed) return;
      const wanted = cleanFilters(next).filter(
        (f) => !filters.some((current) => current.member === f.member && current.locked),
      );
      if (wanted.length === 0) return;
      if (loaded) postFilters(wanted);
      else if (framed) queued = merge(queued, wanted);
      // Not framed yet: they go into the fragment of the first load.
      else filters = merge(filters, wanted);
    },
    getFilters() {
      return copyFilters(filters);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      clearTimeout(loadTimer);
      window.removeEventListener('message', onMessage);
      iframe.remove();
    },
  };
}

const isValue = (v: unknown): v is FilterValue =>
  v === null ||
  typeof v === 'string' ||
  typeof v === 'boolean' ||
  (typeof v === 'number' && Number.isFinite(v));

/** Filters as the protocol carries them: a member name and a list of plain values, nothing else. */
function cleanFilters(list: readonly DashboardFilter[], keepLocked = false): DashboardFilter[] {
  if (!Array.isArray(list)) throw new TypeError('filters must be a list of {member, values}');
  return list.flatMap((f) => {
    if (!f || typeof f.member !== 'string' || f.member === '' || !Array.isArray(f.values)) return [];
    const clean: DashboardFilter = { member: f.member, values: f.values.filter(isValue) };
    if (keepLocked && f.locked === true) clean.locked = true;
    return [clean];
  });
}

const copyFilters = (list: readonly DashboardFilter[]): DashboardFilter[] =>
  list.map((f) => ({ ...f, values: [...f.values] }));

/** `base` with `next`'s members replaced (or added). */
function merge(base: readonly DashboardFilter[], next: readonly DashboardFilter[]): DashboardFilter[] {
  const out = base.filter((f) => !next.some((n) => n.member === f.member));
  return [...out, ...next];
}
