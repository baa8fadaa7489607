import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { escapeMarkup } from '../core/text';
import { DASHBOARD_BASE_CSS, dashboardFragment } from '../render/html';
import type { RenderInput } from '../render/render.types';
import type { ViewerBoot, ViewerControls } from './viewer.boot';
import { VIEWER_CLIENT_JS } from './viewer-client.bundle';
import { COMMENTS_PANEL_CSS } from './viewer-comments.styles';

/**
 * What a person reads when the dashboard cannot be shown, and the API error code the page posts to
 * its parent for it (`edgeboard:error`; the error the API answers for the same refusal).
 */
export const NOTICES = {
  expired: {
    code: 'SESSION_EXPIRED',
    status: 401,
    title: 'This session has expired',
    message:
      'For your security the dashboard closed when its session ended. The page you came from can open it again.',
  },
  revoked: {
    code: 'SESSION_REVOKED',
    status: 401,
    title: 'Access to this dashboard was withdrawn',
    message: 'The session of this page was revoked. Sign in again on the site you came from.',
  },
  invalid: {
    code: 'SESSION_INVALID',
    status: 401,
    title: 'This dashboard link is not valid',
    message:
      'The link is incomplete or was not issued for this dashboard. Open the dashboard again from the site you came from.',
  },
  disabled: {
    code: 'EMBED_DISABLED',
    status: 403,
    title: 'Embedding is turned off for this dashboard',
    message: 'Its owner has not allowed it to be shown inside other sites. Ask them to enable embedding.',
  },
  not_found: {
    code: 'NOT_FOUND',
    status: 404,
    title: 'Dashboard not found',
    message: 'There is no published dashboard at this address, or it is not available to your session.',
  },
  unavailable: {
    code: 'INTERNAL',
    status: 500,
    title: 'The dashboard could not be shown',
    message: 'Something went wrong on our side. Please try again in a moment.',
  },
} as const;

/**
 * The page's own rules. The host may size the frame to #eb-root's height (edgeboard:resize), so
 * the root contains its children's margins (flow-root), and the notice's margin is fixed rather
 * than a share of the frame's height, which would grow with every resize the host makes.
 */
const VIEWER_PAGE_CSS = `
#eb-root{display:flow-root}
.eb-notice{margin:48px auto}
.eb-sr{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
.eb-form{display:flex;flex-wrap:wrap;gap:6px;align-items:center;font-size:13px}
.eb-form input,.eb-form select{font:inherit;color:inherit;border:1px solid rgba(0,0,0,.3);border-radius:6px;padding:5px 8px;background:rgba(255,255,255,.85);min-width:0}
.eb-form input{flex:1 1 6em}
.eb-form select{flex:2 1 8em}
.eb-form :focus-visible{outline:2px solid #2563eb;outline-offset:1px}
.eb-form select:disabled{opacity:.75;cursor:not-allowed}
.eb-lock{font-size:12px;opacity:.8;white-space:nowrap}
.eb-widget[aria-busy=true] .eb-widget-body{opacity:.55;transition:opacity .2s}`;

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

/** JSON inside a <script> element: `<` escaped so no value can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export interface PageOptions {
  publicId: string;
  /** The dashboard's controls (none on a notice or a shell). */
  controls?: ViewerControls;
  nonce: string;
  /** Origins allowed to frame the page (null: any); the page only takes messages from them. */
  allowedOrigins: string[] | null;
  /** Whether the page offers its comments panel (the account did not turn comments off). */
  commentsOffered?: boolean;
  /** Whether the session's user may write comments (known only on a dashboard page). */
  canComment?: boolean;
  /** The `@font-face` rules of the account theme's web fonts (`fontFaces`), if any. */
  fontCss?: string;
}

type Page = HtmlEscapedString | Promise<HtmlEscapedString>;

// The page's own text is escaped by the same helper as the dashboard markup inside it, so both
// read alike; anything interpolated without it is still escaped by `html`.
const text = (value: string) => raw(escapeMarkup(value));

/**
 * The page. Every interpolation is escaped by `html`; the only `raw` parts are markup and CSS
 * the renderer built with its own escaping, the JSON boot data (escaped for a script element)
 * and the bundled client script.
 */
function documentHtml(
  options: PageOptions,
  parts: {
    title: string;
    css: string;
    content: string;
    notice: NoticeKind | null;
    expiresInMs: number | null;
    /** The notice is hidden until the script finds no session in the fragment either. */
    pending?: boolean;
  },
): Page {
  const boot: ViewerBoot = {
    state: parts.notice ?? 'ready',
    code: parts.notice ? NOTICES[parts.notice].code : null,
    expiresInMs: parts.expiresInMs,
    contentUrl: `/embed/dashboard/${encodeURIComponent(options.publicId)}/content`,
    filterValuesUrl: `/embed/dashboard/${encodeURIComponent(options.publicId)}/filter-values`,
    controls: options.controls ?? { widgets: [], filters: [], timeGrains: [] },
    allowedOrigins: options.allowedOrigins,
    commentsUrl: options.commentsOffered
      ? `/api/v1/embed/dashboard/${encodeURIComponent(options.publicId)}/comments`
      : null,
    canComment: options.canComment ?? false,
    notices: Object.fromEntries(
      Object.entries(NOTICES).map(([k, n]) => [k, { title: n.title, message: n.message }]),
    ),
    codes: NOTICE_OF_CODE,
  };
  const notice = parts.notice ? NOTICES[parts.notice] : null;
  const shown = notice && !parts.pending;
  const nonce = options.nonce;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${text(parts.title)}</title>
<style nonce="${nonce}">${raw(options.fontCss ?? '')}${raw(DASHBOARD_BASE_CSS)}${raw(VIEWER_PAGE_CSS)}${raw(options.commentsOffered ? COMMENTS_PANEL_CSS : '')}</style>
<style nonce="${nonce}" id="eb-dashboard-style">${raw(parts.css)}</style>
</head>
<body>
<div id="eb-root" data-state="${parts.pending ? 'loading' : (parts.notice ?? 'ready')}">
<div id="eb-content"${notice ? raw(' hidden') : ''}>${raw(parts.content)}</div>
<div id="eb-notice" class="eb-notice" role="alert"${shown ? '' : raw(' hidden')}><h1>${text(notice?.title ?? '')}</h1><p>${text(notice?.message ?? '')}</p></div>
</div>
<script type="application/json" id="eb-boot" nonce="${nonce}">${raw(scriptJson(boot))}</script>
<script nonce="${nonce}">${raw(VIEWER_CLIENT_JS)}</script>
</body>
</html>`;
}

/** The viewer page of a dashboard the session may see. */
export function viewerDocument(
  input: RenderInput,
  options: PageOptions & { expiresInMs: number | null },
): Page {
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
export function noticeDocument(kind: NoticeKind, options: PageOptions): Page {
  return documentHtml(options, {
    title: NOTICES[kind].title,
    css: '',
    content: '',
    notice: kind,
    expiresInMs: null,
  });
}

/**
 * The page for an address without a session: no dashboard data, only the script, which loads the
 * dashboard with the session of the fragment (`#session=<id>`) or, without one, shows the notice
 * of an invalid link and posts its code.
 */
export function shellDocument(options: PageOptions): Page {
  return documentHtml(options, {
    title: 'Dashboard',
    css: '',
    content: '',
    notice: 'invalid',
    expiresInMs: null,
    pending: true,
  });
}
