import type { ThemeFont } from '../accounts/app-config.policy';
import { followForward } from '../auth/forwards';
import { createDb } from '../core/db';
import { ApiError } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { type DashboardControls, displayedControls } from '../dashboards/controls';
import { widgetLabel, widgetsOf } from '../dashboards/dashboard-widgets';
import type { RenderInput } from '../render/render.types';
import { embedFilterValues, type LoadOptions, loadEmbedDashboardFor } from './embed-dashboards.service';
import { type EmbedSessionScope, withSession } from './embed-sessions.service';
import { MAX_SESSION_ID_LENGTH } from './embedding.schemas';
import { isStoredEmbedUser, verifySession } from './session-token';
import type { ViewerControl, ViewerControls } from './viewer.boot';
import { NOTICE_OF_CODE, type NoticeKind } from './viewer.page';
import { type EmbedFrame, findEmbedOrigins, NO_EMBED_FRAME } from './viewer.repository';

/** publicIds are URL-safe random strings; anything else cannot name a dashboard. */
const PUBLIC_ID = /^[A-Za-z0-9_-]{1,64}$/;

// An origin as CSP's frame-ancestors takes it: scheme, host (optionally *.), port. Anything else
// stored in allowedEmbedOrigins is left out rather than let into the header.
const ORIGIN =
  /^https?:\/\/(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+(:\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](:\d{1,5})?$/i;

export function frameAncestors(origins: readonly string[] | null): string {
  if (origins === null) return '*';
  const valid = origins.filter((o) => ORIGIN.test(o));
  return valid.length > 0 ? valid.join(' ') : "'none'";
}

/**
 * The Content-Security-Policy of a viewer page: nothing but its own nonce'd code, framed by the
 * account's origins, loading no font but its theme's (each by its exact URL).
 */
export function viewerCsp(
  nonce: string,
  origins: readonly string[] | null,
  fonts: readonly ThemeFont[] = [],
): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    ...(fonts.length > 0 ? [`font-src ${[...new Set(fonts.map((f) => f.url))].join(' ')}`] : []),
    // Viewer pictures are any http(s) URL the customer gave (userProfile.picture).
    'img-src https: http: data:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors(origins)}`,
  ].join('; ');
}

/**
 * The `@font-face` rules of the theme's web fonts (their URLs and families are checked by
 * `accountThemeFonts`: nothing in them can leave the rule).
 */
export function fontFaces(fonts: readonly ThemeFont[]): string {
  return fonts
    .map(
      (f) =>
        `@font-face{font-family:"${f.family}";src:url("${f.url}") format("${f.format}");font-display:swap}`,
    )
    .join('\n');
}

/** What every viewer page of the account carries, whatever the session. */
interface PageFrame {
  allowedOrigins: string[] | null;
  fonts: ThemeFont[];
  /** Whether the page offers its comments panel (the account's app config did not turn it off). */
  commentsOffered: boolean;
}

export type ViewerResult = PageFrame &
  (
    | {
        kind: 'dashboard';
        input: RenderInput;
        controls: ViewerControls;
        expiresInMs: number;
        canComment: boolean;
      }
    | { kind: 'notice'; notice: NoticeKind }
    /** No session in the URL: the page's script takes it from the fragment (or shows the notice). */
    | { kind: 'shell' }
  );

export function noticeOf(error: unknown): NoticeKind | null {
  return error instanceof ApiError ? (NOTICE_OF_CODE[error.code] ?? null) : null;
}

/** The label a control widget shows: its config's `label`, else its title, else its member. */
function labelsOf(config: unknown): Map<string, string> {
  const labels = new Map<string, string>();
  for (const widget of widgetsOf(config)) {
    const label = widgetLabel(widget);
    if (label) labels.set(widget.widgetId, label);
  }
  return labels;
}

/** The controls of a load as the page's script makes them form controls. */
export function viewerControls(
  config: unknown,
  controls: DashboardControls,
  targets: Record<string, string[]> = {},
): ViewerControls {
  const labels = labelsOf(config);
  const widgets: ViewerControl[] = [];
  /** A control shown by a widget as a form control: a value no widget shows has none. */
  const add = (
    { widgetId, member }: { widgetId?: string; member: string },
    kind: ViewerControl['kind'],
    shown: Pick<ViewerControl, 'values' | 'grain' | 'locked'>,
  ) => {
    if (widgetId === undefined) return;
    const label = labels.get(widgetId) ?? member;
    widgets.push({ widgetId, kind, member, label, ...shown, targets: targets[widgetId] ?? [] });
  };
  for (const f of controls.filters)
    add(f, 'filter', { values: f.values, grain: null, locked: f.locked === true });
  for (const g of controls.timeGrains) add(g, 'timeGrain', { values: [], grain: g.grain, locked: false });
  return {
    widgets,
    filters: controls.filters.map((f) => ({
      member: f.member,
      values: f.values,
      ...(f.locked && { locked: true }),
    })),
    timeGrains: controls.timeGrains.map((g) => ({ member: g.member, grain: g.grain })),
  };
}

/**
 * A dashboard as the session's viewer may see it, for the page, its renewals and its control
 * changes: the embedding domain's load (session verification, revocation, allowEmbed,
 * deployment) does every check, and applies the account's app config (the time zone policy's
 * zone, the app theme as the default of the dashboard's own). Without `widgetIds` (a whole load)
 * it also answers which charts each control can change. Throws its ApiErrors (SESSION_EXPIRED, EMBED_DISABLED, NOT_FOUND, …).
 */
export async function viewerDashboard(
  scope: RequestScope,
  publicId: string,
  sessionId: string,
  options: LoadOptions = {},
): Promise<{ input: RenderInput; controls: ViewerControls; expiresInMs: number; canComment: boolean }> {
  const viewer = await viewerSession(scope, publicId, sessionId);
  const view = await loadEmbedDashboardFor(viewer, publicId, {
    ...options,
    targets: options.widgetIds === undefined,
    // The page draws the account's app theme as renders do: the dashboard's own theme wins.
    accountTheme: true,
  });
  return {
    input: {
      config: view.config,
      reportSnapshots: view.reportSnapshots,
      title: view.title,
      description: view.description,
      viewer: view.viewer,
      settings: view.settings,
      ...displayedControls(view.controls),
      dataTime: view.dataTime,
      timeZone: view.settings.timezone,
    },
    controls: viewerControls(view.config, view.controls, view.controlTargets),
    expiresInMs: Math.max(0, viewer.session.expiresAt * 1000 - scope.now.getTime()),
    // The comments panel offers writing only to the users the comments API lets write.
    canComment: isStoredEmbedUser(viewer.session),
  };
}

/** The session of a viewer request, verified (no storage read) for a well-formed dashboard address. */
async function viewerSession(
  scope: RequestScope,
  publicId: string,
  sessionId: string,
): Promise<EmbedSessionScope> {
  if (!PUBLIC_ID.test(publicId)) throw new ApiError('NOT_FOUND', 'Dashboard not found');
  if (!sessionId || sessionId.length > MAX_SESSION_ID_LENGTH) {
    throw new ApiError('SESSION_INVALID', 'Invalid embed session');
  }
  return withSession(scope, await verifySession(scope.env, sessionId, scope.now));
}

/** The values a FILTER widget of the dashboard offers the session's viewer (see embedFilterValues). */
export async function viewerFilterValues(
  scope: RequestScope,
  publicId: string,
  sessionId: string,
  request: { widgetId: string; search?: string },
) {
  return embedFilterValues(await viewerSession(scope, publicId, sessionId), publicId, request);
}

/**
 * The viewer page's data: the dashboard, or which notice to show, plus the framing origins of
 * the dashboard's account. Both are read side by side. Without a session (the embed SDK puts it
 * in the fragment, which never reaches a server) the page is a shell that loads the dashboard
 * from its script: a refusal would log an error for every view that is about to succeed.
 */
export async function viewerPage(
  scope: RequestScope,
  publicId: string,
  sessionId: string | undefined,
): Promise<ViewerResult> {
  const validId = PUBLIC_ID.test(publicId);
  const replica = createDb(scope.d1.withSession('first-unconstrained'));
  /** The frame of the page; the page of a dashboard whose account moved to another shard answers there. */
  const frameOf = async (read: EmbedFrame): Promise<PageFrame> => {
    if (validId && !read.found) await followForward(scope.db, { kind: 'public-id', key: publicId });
    return {
      allowedOrigins: read.allowedEmbedOrigins,
      fonts: read.fonts,
      commentsOffered: read.commentsOffered,
    };
  };
  if (validId && !sessionId)
    return { kind: 'shell', ...(await frameOf(await findEmbedOrigins(replica, publicId))) };
  const [origins, dashboard] = await Promise.allSettled([
    validId ? findEmbedOrigins(replica, publicId) : Promise.resolve(NO_EMBED_FRAME),
    viewerDashboard(scope, publicId, sessionId ?? ''),
  ]);
  if (origins.status === 'rejected') throw origins.reason;
  const frame = await frameOf(origins.value);
  if (dashboard.status === 'fulfilled') return { kind: 'dashboard', ...dashboard.value, ...frame };
  const notice = noticeOf(dashboard.reason);
  if (!notice) throw dashboard.reason;
  return { kind: 'notice', notice, ...frame };
}
