// The viewer page's elements and its messages to the parent frame (see viewer-client.ts).
import type { ViewerBoot } from '../viewer.boot';

function element<T extends HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (!found) throw new Error(`viewer page without #${id}`);
  return found as T;
}

/** What the page hands its script (`ViewerBoot`). */
export const boot = JSON.parse(element('eb-boot').textContent ?? '{}') as ViewerBoot;
export const root = element('eb-root');
export const content = element('eb-content');
const notice = element('eb-notice');
const sheet = element<HTMLStyleElement>('eb-dashboard-style');
const framed = window.parent !== null && window.parent !== window;

/** The code of a renewal that got no answer from the API (network down, a proxy's page). */
export const UNREACHABLE = 'UNAVAILABLE';

/** Where a screen reader hears what a control change did. */
export const status = document.createElement('div');
status.className = 'eb-sr';
status.setAttribute('role', 'status');
status.setAttribute('aria-live', 'polite');
root.appendChild(status);

/** Posts a message to the parent frame (none when the page is not framed). */
export function post(type: string, fields: Record<string, unknown> = {}): void {
  if (framed) window.parent.postMessage({ ...fields, type }, '*');
}

/** Expiry has its own message and a renewal answers it; every other refusal is an error. */
export function fail(code: string): void {
  post('edgeboard:error', { code });
}

/** Shows the notice `kind` in place of the dashboard. */
export function show(kind: string): void {
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

/** Shows a dashboard's markup and styles in place of the notice. */
export function showDashboard(dashboard: { title: string; html: string; css: string }): void {
  sheet.textContent = dashboard.css;
  content.innerHTML = dashboard.html;
  document.title = dashboard.title;
  notice.hidden = true;
  content.hidden = false;
  root.setAttribute('data-state', 'ready');
  avatars();
  chat();
}

/** Hides the notice while the dashboard of a fragment's session loads. */
export function hideNotice(): void {
  notice.hidden = true;
}

/** The section of one widget in the dashboard shown. */
export function section(widgetId: string): HTMLElement | null {
  return content.querySelector<HTMLElement>(`section[data-widget-id="${CSS.escape(widgetId)}"]`);
}

/** A picture that fails to load is removed: the initials underneath remain. */
export function avatars(): void {
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

export function chat(): void {
  content.querySelector('[data-eb-chat]')?.addEventListener('click', () => post('edgeboard:open-chat'));
}

/** Whether a message comes from the parent frame, from an origin the account allows. */
export function fromParent(event: MessageEvent): boolean {
  return framed && event.source === window.parent && allowed(event.origin);
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

/**
 * The rendered height of the dashboard (or its notice), not of the body: the body is at least the
 * frame's height, so it could never tell a host to shrink the frame. Posted only when it changes.
 */
export function reportHeight(): void {
  if (!framed || typeof ResizeObserver === 'undefined') return;
  let last = -1;
  new ResizeObserver(() => {
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    post('edgeboard:resize', { height });
  }).observe(root);
}
