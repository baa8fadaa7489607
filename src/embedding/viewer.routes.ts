import type { Context } from 'hono';
import type { ThemeFont } from '../accounts/app-config.policy';
import { parseAuthorization } from '../auth/auth.middleware';
import { ShardForward } from '../auth/forwards';
import { randomId } from '../core/crypto';
import type { AppEnv } from '../core/env';
import { ApiError } from '../core/errors';
import { apiDocs, routeGroup, routes } from '../http/route';
import { dashboardFragment } from '../render/html';
import type { ViewerContent } from './viewer.boot';
import { NOTICES, noticeDocument, shellDocument, viewerDocument } from './viewer.page';
import markdown from './viewer.routes.md';
import {
  filterValuesQuery,
  filterValuesSchema,
  viewerContentQuery,
  viewerContentSchema,
} from './viewer.schemas';
import { fontFaces, viewerCsp, viewerDashboard, viewerFilterValues, viewerPage } from './viewer.service';

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

const docs = apiDocs(markdown);
/** The page takes its session in `?session=` or none at all; every answer, a failure too, is a page. */
const pageRoute = routeGroup({ auth: 'sessionPage', tags: ['Signed embedding'], docs });
/** What the page's script calls: the session in the Authorization header only, errors as the API's envelope. */
const route = routeGroup({ auth: 'sessionHeader', tags: ['Signed embedding'], errors: [403, 404], docs });

const page = (description: string) => ({ description, contentType: 'text/html' });

/** The embed viewer; mounted at /embed (a prefix only this router uses). */
export const viewerRoutes = routes(
  pageRoute.get('/dashboard/:publicId', 'embedViewerPage', {
    // The session is read by the handler (query) or the page's script (fragment), so every
    // failure is a page.
    responses: {
      200: page('The viewer page: the dashboard, or without `?session=` the page that loads it'),
      401: page('The session has expired, was revoked or is not valid'),
      403: page('Embedding is disabled for this dashboard'),
      404: page('No such published dashboard'),
      500: page('The dashboard could not be loaded'),
    },
    handler: async (c, _input, scope) => {
      const publicId = c.req.param('publicId') ?? '';
      const nonce = randomId(16);
      privateHeaders(c);
      let status: 200 | 401 | 403 | 404 | 500 = 200;
      let body: ReturnType<typeof noticeDocument>;
      let origins: string[] | null = null;
      let fonts: ThemeFont[] = [];
      try {
        const page = await viewerPage(scope, publicId, c.req.query('session'));
        origins = page.allowedOrigins;
        fonts = page.fonts;
        const options = {
          publicId,
          nonce,
          allowedOrigins: origins,
          fontCss: fontFaces(fonts),
          commentsOffered: page.commentsOffered,
        };
        if (page.kind === 'dashboard') {
          body = viewerDocument(page.input, {
            ...options,
            controls: page.controls,
            expiresInMs: page.expiresInMs,
            canComment: page.canComment,
          });
        } else if (page.kind === 'shell') {
          body = shellDocument(options);
        } else {
          status = NOTICES[page.notice].status;
          body = noticeDocument(page.notice, options);
        }
      } catch (error) {
        // The dashboard's account moved to another shard: the page is answered there.
        if (error instanceof ShardForward) throw error;
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
      c.header('content-security-policy', viewerCsp(nonce, origins, fonts));
      return c.html(await body, status);
    },
  }),
  route.get('/dashboard/:publicId/content', 'embedViewerContent', viewerContentSchema, {
    input: { query: viewerContentQuery },
    handler: async (c, { query }, scope) => {
      privateHeaders(c);
      const sessionId = headerSession(c);
      const { input, controls, expiresInMs, canComment } = await viewerDashboard(
        scope,
        c.req.param('publicId') ?? '',
        sessionId,
        {
          controls: { filters: query.filters, timeGrains: query.timeGrains },
          widgetIds: query.widgets,
        },
      );
      const content: ViewerContent = {
        ...dashboardFragment(input),
        expiresInMs,
        controls,
        widgets: query.widgets ?? null,
        canComment,
      };
      return content;
    },
  }),
  route.get('/dashboard/:publicId/filter-values', 'embedViewerFilterValues', filterValuesSchema, {
    input: { query: filterValuesQuery },
    handler: async (c, { query }, scope) => {
      privateHeaders(c);
      return viewerFilterValues(scope, c.req.param('publicId') ?? '', headerSession(c), query);
    },
  }),
);
