import type { Context } from 'hono';
import { parseAuthorization } from '../auth/auth.middleware';
import { randomId } from '../core/crypto';
import type { AppEnv } from '../core/env';
import { ApiError } from '../core/errors';
import { defineRoute, routes } from '../http/route';
import { dashboardFragment } from '../render/html';
import { embedContext } from './embed-sessions.routes';
import type { ViewerContent } from './viewer.boot';
import { NOTICES, noticeDocument, viewerDocument } from './viewer.page';
import { viewerCsp, viewerDashboard, viewerPage } from './viewer.service';

const tags = ['Signed embedding'];

/** Headers every viewer response carries: the session must not leak through a Referer or a cache. */
function privateHeaders(c: Context<AppEnv>) {
  c.header('referrer-policy', 'no-referrer');
  c.header('cache-control', 'no-store');
  c.header('x-content-type-options', 'nosniff');
}

/** `Authorization: Session <id>` only: renewals never put the session in a URL. */
function headerSession(c: Context<AppEnv>): string {
  const { scheme, credential } = parseAuthorization(c);
  if (scheme.toLowerCase() !== 'session') {
    throw new ApiError('UNAUTHORIZED', 'This endpoint takes Authorization: Session <sessionId>');
  }
  return credential;
}

/** The embed viewer; mounted at /embed (a prefix only this router uses). */
export const viewerRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/dashboard/:publicId',
    // The session is read by the handler (query or fragment), so every failure is a page.
    auth: 'session',
    summary: 'The embed viewer page of a published dashboard',
    description:
      'An HTML page for an iframe: the dashboard as the session’s viewer may see it, laid out for the ' +
      'iframe’s width through the dashboard’s breakpoints, the viewer’s avatar and the chat button ' +
      '(settings.showDashboardChat). Expired, revoked, invalid sessions (401), embedding disabled (403) ' +
      'and unknown dashboards (404) are pages a person can read. Content-Security-Policy frame-ancestors ' +
      'come from the account’s allowedEmbedOrigins (none: any origin); Referrer-Policy: no-referrer. ' +
      'Renewal without reload: see the postMessage protocol in docs/rendering.md.',
    tags,
    operationId: 'embedViewerPage',
    responses: { 200: { description: 'The viewer page', contentType: 'text/html' } },
    errors: [403, 404],
    handler: async (c) => {
      const publicId = c.req.param('publicId') ?? '';
      const nonce = randomId(16);
      privateHeaders(c);
      let status: 200 | 401 | 403 | 404 | 500 = 200;
      let body: ReturnType<typeof noticeDocument>;
      let origins: string[] | null = null;
      try {
        const page = await viewerPage(embedContext(c), publicId, c.req.query('session'));
        origins = page.allowedOrigins;
        const options = { publicId, nonce, allowedOrigins: origins };
        if (page.kind === 'dashboard') {
          body = viewerDocument(page.input, { ...options, expiresInMs: page.expiresInMs });
        } else {
          status = NOTICES[page.notice].status;
          body = noticeDocument(page.notice, options);
        }
      } catch (error) {
        // Like the app's error handler, but a page; the session id is never part of the log line.
        console.error(
          JSON.stringify({
            requestId: c.get('requestId'),
            error: String(error),
            stack: (error as Error)?.stack,
          }),
        );
        status = 500;
        body = noticeDocument('unavailable', { publicId, nonce, allowedOrigins: origins });
      }
      c.header('content-security-policy', viewerCsp(nonce, origins));
      return c.html(await body, status);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/dashboard/:publicId/content',
    auth: 'session',
    summary: 'The viewer page’s dashboard markup for a new session (renewal without reload)',
    description:
      'Used by the viewer page after `edgeboard:set-session`: `Authorization: Session <sessionId>` → ' +
      '`{title, html, css, expiresInMs}`. Errors are the API’s envelope (401 SESSION_EXPIRED, ' +
      'SESSION_REVOKED, SESSION_INVALID; 403 EMBED_DISABLED; 404).',
    tags,
    operationId: 'embedViewerContent',
    responses: { 200: { description: '{title, html, css, expiresInMs}', contentType: 'application/json' } },
    errors: [403, 404],
    handler: async (c) => {
      privateHeaders(c);
      const sessionId = headerSession(c);
      const { input, expiresInMs } = await viewerDashboard(
        embedContext(c),
        c.req.param('publicId') ?? '',
        sessionId,
      );
      const content: ViewerContent = { ...dashboardFragment(input), expiresInMs };
      return c.json(content);
    },
  }),
);
