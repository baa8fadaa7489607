import { escapeMarkup } from '../core/text';
import { type Rgba, toCss } from './color';
import { computeLayout, gridPositions, gridSpec, maxRows, sortedBreakpoints, widgetContents } from './layout';
import type {
  Border,
  Breakpoint,
  LaidOutWidget,
  RenderInput,
  ResolvedTheme,
  TitleStyle,
} from './render.types';
import { chartNodes, widgetBoxes } from './scene';
import { nodesToSvg } from './svg';

/** JSON inside a <script> element: `<` escaped so no value can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const px = (n: number) => `${Math.round(n * 100) / 100}px`;
const borderCss = (b: Border) =>
  b.style === 'none' || b.width === 0 ? 'none' : `${px(b.width)} ${b.style} ${toCss(b.color)}`;
const titleCss = (t: TitleStyle) =>
  `color:${toCss(t.color)};font-family:${t.fontFamily};font-size:${px(t.fontSize)};font-weight:${t.fontWeight}`;

/** Up to two initials from a display name, for viewers the embedding gave none. */
export function initialsFrom(name: string | null | undefined): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : words.slice(0, 1);
  return (
    letters
      .map((w) => Array.from(w as string)[0] ?? '')
      .join('')
      .toUpperCase() || '?'
  );
}

function themeCss(theme: ResolvedTheme): string {
  const w = theme.widget;
  const c = theme.control;
  const bg = (color: Rgba) => toCss(color);
  return [
    `body{background:${bg(theme.background)};font-family:${theme.fontFamily};color:${toCss(w.text.color)}}`,
    `.eb-title{${titleCss({ ...w.title, fontSize: 20, fontWeight: 700 })}}`,
    `.eb-description,.eb-viewer-name{color:${toCss(w.text.secondary)}}`,
    `.eb-widget{background:${bg(w.background)};border:${borderCss(w.border)};border-radius:${px(w.border.radius)};padding:${px(w.padding)}}`,
    `.eb-widget-title{${titleCss(w.title)}}`,
    `.eb-widget--control{background:${bg(c.background)};border:${borderCss(c.border)};border-radius:${px(c.border.radius)};padding:${px(c.padding)}}`,
    `.eb-widget--control .eb-widget-title{${titleCss(c.title)}}`,
    `.eb-text{color:${toCss(w.text.color)};font-family:${w.text.fontFamily}}`,
    `.eb-caption{color:${toCss(w.text.secondary)}}`,
    `.eb-control-value{border-color:${toCss(c.border.color)};color:${toCss(w.text.color)}}`,
    `.eb-tab--active{color:${toCss(theme.primary)};border-color:${toCss(theme.primary)}}`,
    `.eb-chat{background:${toCss(theme.primary)}}`,
    `.eb-avatar{background:${toCss(theme.primary)}}`,
  ].join('\n');
}

/**
 * The grid for every breakpoint as CSS: the narrowest breakpoint unconditionally, each wider one
 * under `min-width: <breakpoint + 1>px` (react-grid-layout switches when the width exceeds the
 * value). The iframe's own width picks the layout; no script is needed for it.
 */
function gridCss(input: RenderInput): string {
  const grid = gridSpec(input);
  const widgets = Array.isArray(input.config?.widgets) ? (input.config?.widgets as unknown[]) : [];
  const limit = maxRows(grid);
  const ascending = sortedBreakpoints(grid).reverse();
  const blocks = ascending.map((bp: Breakpoint, i) => {
    const positions = gridPositions(widgets, bp, grid);
    const rules = [
      `.eb-grid{grid-template-columns:repeat(${grid.cols[bp]},minmax(0,1fr))}`,
      ...positions.map((p, index) =>
        !p || p.y >= limit
          ? `#eb-w${index}{display:none}`
          : `#eb-w${index}{display:flex;grid-column:${p.x + 1}/span ${p.w};grid-row:${p.y + 1}/span ${Math.min(p.h, limit - p.y)}}`,
      ),
    ].join('');
    return i === 0 ? rules : `@media (min-width:${grid.breakpoints[bp] + 1}px){${rules}}`;
  });
  const base = `.eb-grid{display:grid;grid-auto-rows:${px(grid.rowHeight)};gap:${px(grid.margin[1])} ${px(grid.margin[0])};padding:${px(grid.padding[1])} ${px(grid.padding[0])}}`;
  return [base, ...blocks].join('\n');
}

function chartSvg(widget: LaidOutWidget, theme: ResolvedTheme): string {
  if (widget.content.kind !== 'chart') return '';
  // Drawn at the widget's size in a desktop layout, then scaled to the box it gets.
  const { body } = widgetBoxes(widget, theme);
  const w = Math.max(40, Math.round(body.w));
  const h = Math.max(30, Math.round(body.h));
  const nodes = chartNodes(widget.content.chart, { x: 0, y: 0, w, h }, theme);
  const label = escapeMarkup(widget.title ?? 'Chart');
  return `<svg class="eb-chart" viewBox="0 0 ${w} ${h}" preserveAspectRatio="xMidYMid meet" role="img" aria-label="${label}">${nodesToSvg(nodes, theme.widget.text.fontFamily)}</svg>`;
}

function widgetBody(widget: LaidOutWidget, theme: ResolvedTheme): string {
  const content = widget.content;
  switch (content.kind) {
    case 'text':
      return `<div class="eb-text">${escapeMarkup(content.text)}</div>`;
    case 'control':
      return `<div class="eb-control" data-control="${content.control}"><div class="eb-control-value" role="status" aria-label="${escapeMarkup(content.label)}"><span>${escapeMarkup(content.value)}</span><span class="eb-chevron" aria-hidden="true"></span></div></div>`;
    case 'chart':
      return chartSvg(widget, theme);
    case 'frame': {
      const tabs = content.tabs.length
        ? `<div class="eb-tabs" role="tablist">${content.tabs
            .map(
              (t, i) =>
                `<span class="eb-tab${i === 0 ? ' eb-tab--active' : ''}" role="tab" aria-selected="${i === 0}">${escapeMarkup(t)}</span>`,
            )
            .join('')}</div>`
        : '';
      const caption = content.caption ? `<div class="eb-caption">${escapeMarkup(content.caption)}</div>` : '';
      return `${tabs}${caption}`;
    }
  }
}

function avatarHtml(input: RenderInput): string {
  const viewer = input.viewer;
  if (!viewer) return '';
  const name = viewer.displayName?.trim() || '';
  const initials = escapeMarkup(viewer.initials?.trim() || initialsFrom(name));
  const picture = viewer.picture && /^https?:\/\//i.test(viewer.picture) ? viewer.picture : null;
  // The initials are always there underneath; a picture that loads covers them, one that fails is
  // removed by the page script (no error is shown: the initials simply remain).
  const img = picture
    ? `<img class="eb-avatar-img" data-eb-avatar src="${escapeMarkup(picture)}" alt="" referrerpolicy="no-referrer" decoding="async">`
    : '';
  return `<div class="eb-viewer" data-eb-viewer><span class="eb-avatar${picture ? '' : ' eb-avatar--initials'}" title="${escapeMarkup(name)}"><span class="eb-initials" aria-hidden="true">${initials}</span>${img}</span>${name ? `<span class="eb-viewer-name">${escapeMarkup(name)}</span>` : ''}</div>`;
}

/** The dashboard's markup and its stylesheet: the page embeds both, renewal swaps both. */
export function dashboardFragment(input: RenderInput): { title: string; html: string; css: string } {
  const layout = computeLayout(input);
  const theme = layout.theme;
  const laidOut = new Map(layout.widgets.map((w) => [w.index, w]));
  const widgets = widgetContents(input)
    .map((c) => {
      // Widgets without a box at the desktop width still get one for their own breakpoints.
      const widget: LaidOutWidget = laidOut.get(c.index) ?? {
        ...c,
        grid: { x: 0, y: 0, w: 1, h: 1 },
        rect: { x: 0, y: 0, w: 300, h: 150 },
      };
      const kind = widget.content.kind === 'control' ? ' eb-widget--control' : '';
      const title = widget.title ? `<h2 class="eb-widget-title">${escapeMarkup(widget.title)}</h2>` : '';
      return `<section class="eb-widget eb-widget--${widget.content.kind}${kind}" id="eb-w${widget.index}" data-widget-id="${escapeMarkup(widget.id)}" data-widget-type="${escapeMarkup(widget.type)}">${title}<div class="eb-widget-body">${widgetBody(widget, theme)}</div></section>`;
    })
    .join('');
  const header = layout.header;
  const title = header?.title || 'Dashboard';
  const heading = `<div class="eb-heading">${header?.title ? `<h1 class="eb-title">${escapeMarkup(header.title)}</h1>` : ''}${header?.description ? `<p class="eb-description">${escapeMarkup(header.description)}</p>` : ''}</div>`;
  const chat = input.settings?.showDashboardChat
    ? `<button class="eb-chat" type="button" data-eb-chat aria-label="Ask about this dashboard">Ask about this dashboard</button>`
    : '';
  const empty = widgets ? '' : '<p class="eb-empty">This dashboard has no widgets yet.</p>';
  const html = `<header class="eb-header">${heading}${avatarHtml(input)}</header><main class="eb-grid">${widgets}</main>${empty}${chat}`;
  return { title, html, css: `${themeCss(theme)}\n${gridCss(input)}` };
}

const BASE_CSS = `*,*::before,*::after{box-sizing:border-box}
html,body{margin:0;padding:0}
body{min-height:100vh;-webkit-font-smoothing:antialiased}
[hidden]{display:none!important}
.eb-header{display:flex;align-items:center;justify-content:space-between;gap:16px;padding:16px 16px 0}
.eb-heading{min-width:0}
.eb-title{margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.eb-description{margin:4px 0 0;font-size:13px}
.eb-viewer{display:flex;align-items:center;gap:8px;flex:none}
.eb-viewer-name{font-size:13px}
.eb-avatar{position:relative;width:32px;height:32px;border-radius:50%;overflow:hidden;display:inline-flex;align-items:center;justify-content:center;color:#fff;font-size:13px;font-weight:600;flex:none}
.eb-avatar-img{position:absolute;inset:0;width:100%;height:100%;object-fit:cover;background:inherit}
.eb-widget{flex-direction:column;min-width:0;min-height:0;overflow:hidden}
.eb-widget-title{margin:0 0 6px;line-height:1.3;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;flex:none}
.eb-widget-body{flex:1;min-height:0;position:relative;display:flex;flex-direction:column}
.eb-text{white-space:pre-wrap;overflow:auto;font-size:13px;line-height:1.4;overflow-wrap:anywhere}
.eb-chart{display:block;width:100%;height:100%;flex:1;min-height:0}
.eb-control-value{display:flex;align-items:center;justify-content:space-between;gap:8px;border:1px solid;border-radius:6px;padding:6px 10px;font-size:13px;background:rgba(255,255,255,.6)}
.eb-control-value span:first-child{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.eb-chevron{width:7px;height:7px;border-right:1.5px solid currentColor;border-bottom:1.5px solid currentColor;transform:rotate(45deg) translateY(-2px);opacity:.6;flex:none}
.eb-caption{margin:auto;font-size:12px;text-align:center}
.eb-tabs{display:flex;gap:18px;border-bottom:1px solid rgba(0,0,0,.1);font-size:12px;margin-bottom:6px}
.eb-tab{padding-bottom:4px;border-bottom:2px solid transparent;opacity:.8}
.eb-tab--active{font-weight:700;opacity:1}
.eb-empty{text-align:center;padding:48px 16px;opacity:.7}
.eb-chat{position:fixed;right:16px;bottom:16px;border:0;border-radius:999px;color:#fff;padding:10px 16px;font:inherit;font-size:14px;font-weight:600;cursor:pointer;box-shadow:0 2px 8px rgba(0,0,0,.2)}
.eb-notice{max-width:520px;margin:12vh auto;padding:24px;text-align:center;font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2430}
.eb-notice h1{font-size:20px;margin:0 0 8px}
.eb-notice p{margin:0;color:#4b5563;line-height:1.5}`;

/** What a person reads when the dashboard cannot be shown. */
export const NOTICES = {
  expired: {
    status: 401,
    title: 'This session has expired',
    message:
      'For your security the dashboard closed when its session ended. The page you came from can open it again.',
  },
  revoked: {
    status: 401,
    title: 'Access to this dashboard was withdrawn',
    message: 'The session of this page was revoked. Sign in again on the site you came from.',
  },
  invalid: {
    status: 401,
    title: 'This dashboard link is not valid',
    message:
      'The link is incomplete or was not issued for this dashboard. Open the dashboard again from the site you came from.',
  },
  disabled: {
    status: 403,
    title: 'Embedding is turned off for this dashboard',
    message: 'Its owner has not allowed it to be shown inside other sites. Ask them to enable embedding.',
  },
  not_found: {
    status: 404,
    title: 'Dashboard not found',
    message: 'There is no published dashboard at this address, or it is not available to your session.',
  },
  unavailable: {
    status: 500,
    title: 'The dashboard could not be shown',
    message: 'Something went wrong on our side. Please try again in a moment.',
  },
} as const;

export type NoticeKind = keyof typeof NOTICES;

/** Error codes of the API and the notice each one shows (the page script maps renewals with it). */
export const NOTICE_OF_CODE: Record<string, NoticeKind> = {
  SESSION_EXPIRED: 'expired',
  SESSION_REVOKED: 'revoked',
  SESSION_INVALID: 'invalid',
  UNAUTHORIZED: 'invalid',
  EMBED_DISABLED: 'disabled',
  FORBIDDEN: 'disabled',
  NOT_FOUND: 'not_found',
};

// The renewal protocol (docs/rendering.md): near expiry the page posts
// {type: "edgeboard:session-expiring"}, at expiry it hides the dashboard and posts
// {type: "edgeboard:session-expired"}; the parent answers {type: "edgeboard:set-session", sessionId}
// and the page loads the dashboard with it, without a reload. The session id only travels in the
// Authorization header of that fetch and is never written anywhere. A page opened with
// `#session=<id>` (a fragment never reaches a server, so no request log can hold it) loads the
// same way, and drops the fragment from its address.
const CLIENT_SCRIPT = `(function(){'use strict';
var boot=JSON.parse(document.getElementById('eb-boot').textContent);
var root=document.getElementById('eb-root'),content=document.getElementById('eb-content'),notice=document.getElementById('eb-notice'),sheet=document.getElementById('eb-dashboard-style');
var framed=window.parent&&window.parent!==window,timers=[],generation=0;
function post(type){if(framed)window.parent.postMessage({type:type},'*');}
function clearTimers(){timers.forEach(clearTimeout);timers=[];}
function show(kind){var n=boot.notices[kind]||boot.notices.unavailable;notice.querySelector('h1').textContent=n.title;notice.querySelector('p').textContent=n.message;notice.hidden=false;content.hidden=true;content.innerHTML='';root.setAttribute('data-state',kind);document.title=n.title;}
function expire(){clearTimers();show('expired');post('edgeboard:session-expired');}
function schedule(ms){clearTimers();if(typeof ms!=='number')return;var lead=Math.min(60000,ms/2);
timers.push(setTimeout(function(){post('edgeboard:session-expiring');},Math.max(0,ms-lead)));
timers.push(setTimeout(expire,Math.max(0,ms)));}
function avatars(){content.querySelectorAll('img[data-eb-avatar]').forEach(function(img){
var done=false;function fallback(){if(done)return;done=true;if(img.parentNode)img.parentNode.classList.add('eb-avatar--initials');img.remove();}
img.addEventListener('error',fallback);if(img.complete){img.decode().catch(fallback);}});}
function chat(){var b=content.querySelector('[data-eb-chat]');if(b)b.addEventListener('click',function(){post('edgeboard:open-chat');});}
function allowed(origin){if(!boot.allowedOrigins)return true;return boot.allowedOrigins.some(function(p){if(p===origin)return true;
var m=/^(https?:\\/\\/)\\*\\.(.+)$/.exec(p);return !!m&&origin.indexOf(m[1])===0&&origin.length>m[1].length+m[2].length+1&&origin.slice(-(m[2].length+1))==='.'+m[2];});}
function renew(sessionId,done){var mine=++generation;
fetch(boot.contentUrl,{headers:{Authorization:'Session '+sessionId},cache:'no-store',credentials:'omit'})
.then(function(res){return res.json().then(function(body){return{ok:res.ok,body:body};});})
.then(function(r){if(mine!==generation)return;
if(!r.ok){clearTimers();var kind=boot.codes[r.body&&r.body.code]||'unavailable';show(kind);if(kind==='expired')post('edgeboard:session-expired');return;}
sheet.textContent=r.body.css;content.innerHTML=r.body.html;document.title=r.body.title;notice.hidden=true;content.hidden=false;root.setAttribute('data-state','ready');
avatars();chat();schedule(r.body.expiresInMs);post(done||'edgeboard:session-renewed');})
.catch(function(){if(mine===generation){clearTimers();show('unavailable');}});}
window.addEventListener('message',function(event){if(!framed||event.source!==window.parent||!allowed(event.origin))return;
var d=event.data;if(!d||d.type!=='edgeboard:set-session'||typeof d.sessionId!=='string'||!d.sessionId)return;renew(d.sessionId);});
avatars();chat();
var hash=/^#(?:.*&)?session=([^&]+)/.exec(location.hash);
if(hash){history.replaceState(null,'',location.pathname+location.search);notice.hidden=true;renew(decodeURIComponent(hash[1]),'edgeboard:ready');}
else if(boot.state==='ready'){schedule(boot.expiresInMs);post('edgeboard:ready');}
else if(boot.state==='expired'){post('edgeboard:session-expired');}
})();`;

export interface PageOptions {
  publicId: string;
  nonce: string;
  /** Origins allowed to frame the page (null: any); the page only takes messages from them. */
  allowedOrigins: string[] | null;
}

function documentHtml(
  options: PageOptions,
  parts: {
    title: string;
    css: string;
    content: string;
    notice: NoticeKind | null;
    expiresInMs: number | null;
  },
): string {
  const nonce = escapeMarkup(options.nonce);
  const boot = {
    state: parts.notice ?? 'ready',
    expiresInMs: parts.expiresInMs,
    contentUrl: `/embed/dashboard/${encodeURIComponent(options.publicId)}/content`,
    allowedOrigins: options.allowedOrigins,
    notices: Object.fromEntries(
      Object.entries(NOTICES).map(([k, n]) => [k, { title: n.title, message: n.message }]),
    ),
    codes: NOTICE_OF_CODE,
  };
  const notice = parts.notice ? NOTICES[parts.notice] : null;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeMarkup(parts.title)}</title>
<style nonce="${nonce}">${BASE_CSS}</style>
<style nonce="${nonce}" id="eb-dashboard-style">${parts.css}</style>
</head>
<body>
<div id="eb-root" data-state="${parts.notice ?? 'ready'}">
<div id="eb-content"${notice ? ' hidden' : ''}>${parts.content}</div>
<div id="eb-notice" class="eb-notice" role="alert"${notice ? '' : ' hidden'}><h1>${escapeMarkup(notice?.title ?? '')}</h1><p>${escapeMarkup(notice?.message ?? '')}</p></div>
</div>
<script type="application/json" id="eb-boot" nonce="${nonce}">${scriptJson(boot)}</script>
<script nonce="${nonce}">${CLIENT_SCRIPT}</script>
</body>
</html>`;
}

/** The viewer page of a dashboard the session may see. */
export function viewerDocument(
  input: RenderInput,
  options: PageOptions & { expiresInMs: number | null },
): string {
  const fragment = dashboardFragment(input);
  return documentHtml(options, {
    title: fragment.title,
    css: fragment.css,
    content: fragment.html,
    notice: null,
    expiresInMs: options.expiresInMs,
  });
}

/** The page shown instead of the dashboard (expired, revoked, …); it still takes set-session. */
export function noticeDocument(kind: NoticeKind, options: PageOptions): string {
  return documentHtml(options, {
    title: NOTICES[kind].title,
    css: '',
    content: '',
    notice: kind,
    expiresInMs: null,
  });
}
