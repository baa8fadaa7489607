import { createDb } from '../core/db';
import { ApiError } from '../core/errors';
import { displayedControls } from '../dashboards/controls';
import type { RenderInput } from '../render/render.types';
import { type LoadOptions, loadEmbedDashboardFor } from './embed-dashboards.service';
import type { EmbedContext } from './embed-sessions.service';
import { verifySession } from './session-token';
import { NOTICE_OF_CODE, type NoticeKind } from './viewer.page';
import { findEmbedOrigins } from './viewer.repository';

/** publicIds are URL-safe random strings; anything else cannot name a dashboard. */
const PUBLIC_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_SESSION_LENGTH = 4096;

// An origin as CSP's frame-ancestors takes it: scheme, host (optionally *.), port. Anything else
// stored in allowedEmbedOrigins is left out rather than let into the header.
const ORIGIN =
  /^https?:\/\/(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+(:\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](:\d{1,5})?$/i;

export function frameAncestors(origins: readonly string[] | null): string {
  if (origins === null) return '*';
  const valid = origins.filter((o) => ORIGIN.test(o));
  return valid.length > 0 ? valid.join(' ') : "'none'";
}

/** The Content-Security-Policy of a viewer page: nothing but its own nonce'd code, framed by the account's origins. */
export function viewerCsp(nonce: string, origins: readonly string[] | null): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    // Viewer pictures are any http(s) URL the customer gave (userProfile.picture).
    'img-src https: http: data:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors(origins)}`,
  ].join('; ');
}

export type ViewerResult =
  | { kind: 'dashboard'; input: RenderInput; expiresInMs: number; allowedOrigins: string[] | null }
  | { kind: 'notice'; notice: NoticeKind; allowedOrigins: string[] | null }
  /** No session in the URL: the page's script takes it from the fragment (or shows the notice). */
  | { kind: 'shell'; allowedOrigins: string[] | null };

export function noticeOf(error: unknown): NoticeKind | null {
  return error instanceof ApiError ? (NOTICE_OF_CODE[error.code] ?? null) : null;
}

/**
 * A dashboard as the session's viewer may see it, for the page and its renewals: the embedding
 * domain's load (session verification, revocation, allowEmbed, deployment) does every check.
 * Throws its ApiErrors (SESSION_EXPIRED, EMBED_DISABLED, NOT_FOUND, …).
 */
export async function viewerDashboard(
  ctx: EmbedContext,
  publicId: string,
  sessionId: string,
  options: LoadOptions = {},
): Promise<{ input: RenderInput; expiresInMs: number }> {
  if (!PUBLIC_ID.test(publicId)) throw new ApiError('NOT_FOUND', 'Dashboard not found');
  if (!sessionId || sessionId.length > MAX_SESSION_LENGTH) {
    throw new ApiError('SESSION_INVALID', 'Invalid embed session');
  }
  const now = ctx.clock.now();
  const claims = await verifySession(ctx.env, sessionId, now);
  const view = await loadEmbedDashboardFor(ctx, claims, publicId, options);
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
    },
    expiresInMs: Math.max(0, claims.expiresAt * 1000 - now.getTime()),
  };
}

/**
 * The viewer page's data: the dashboard, or which notice to show, plus the framing origins of
 * the dashboard's account. Both are read side by side. Without a session (the embed SDK puts it
 * in the fragment, which never reaches a server) the page is a shell that loads the dashboard
 * from its script: a refusal would log an error for every view that is about to succeed.
 */
export async function viewerPage(
  ctx: EmbedContext,
  publicId: string,
  sessionId: string | undefined,
): Promise<ViewerResult> {
  const validId = PUBLIC_ID.test(publicId);
  const replica = createDb(ctx.d1.withSession('first-unconstrained'));
  if (validId && !sessionId) {
    const { allowedEmbedOrigins } = await findEmbedOrigins(replica, publicId);
    return { kind: 'shell', allowedOrigins: allowedEmbedOrigins };
  }
  const [origins, dashboard] = await Promise.allSettled([
    validId
      ? findEmbedOrigins(replica, publicId)
      : Promise.resolve({ found: false, allowedEmbedOrigins: null }),
    viewerDashboard(ctx, publicId, sessionId ?? ''),
  ]);
  if (origins.status === 'rejected') throw origins.reason;
  const allowedOrigins = origins.value.allowedEmbedOrigins;
  if (dashboard.status === 'fulfilled') return { kind: 'dashboard', ...dashboard.value, allowedOrigins };
  const notice = noticeOf(dashboard.reason);
  if (!notice) throw dashboard.reason;
  return { kind: 'notice', notice, allowedOrigins };
}
