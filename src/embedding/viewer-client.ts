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
import type { ViewerBoot, ViewerContent } from './viewer.boot';

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

async function renew(sessionId: string, done = 'edgeboard:session-renewed'): Promise<void> {
  const mine = ++generation;
  try {
    const res = await fetch(boot.contentUrl, {
      headers: { Authorization: `Session ${sessionId}` },
      cache: 'no-store',
      credentials: 'omit',
    });
    const body = (await res.json()) as ViewerContent & { code?: string };
    if (mine !== generation) return;
    if (!res.ok) {
      clearTimers();
      const kind = (body.code && boot.codes[body.code]) || 'unavailable';
      show(kind);
      if (kind === 'expired') post('edgeboard:session-expired');
      else fail(body.code ?? UNREACHABLE);
      return;
    }
    sheet.textContent = body.css;
    content.innerHTML = body.html;
    document.title = body.title;
    notice.hidden = true;
    content.hidden = false;
    root.setAttribute('data-state', 'ready');
    avatars();
    chat();
    schedule(body.expiresInMs);
    post(done);
  } catch {
    // No answer, or one that is not the API's JSON: nothing says which code, so the page's own.
    if (mine === generation) {
      clearTimers();
      show('unavailable');
      fail(UNREACHABLE);
    }
  }
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
  if (type !== 'edgeboard:set-session' || typeof sessionId !== 'string' || !sessionId) return;
  void renew(sessionId);
});

reportHeight();
avatars();
chat();
const hash = /^#(?:.*&)?session=([^&]+)/.exec(location.hash);
if (hash?.[1]) {
  history.replaceState(null, '', location.pathname + location.search);
  notice.hidden = true;
  void renew(decodeURIComponent(hash[1]), 'edgeboard:ready');
} else if (boot.state === 'ready') {
  schedule(boot.expiresInMs);
  post('edgeboard:ready');
} else if (boot.state === 'expired') {
  post('edgeboard:session-expired');
} else if (boot.state !== 'ready') {
  // The page of an address without a session leaves its notice hidden for this moment.
  show(boot.state);
  fail(boot.code ?? UNREACHABLE);
}
