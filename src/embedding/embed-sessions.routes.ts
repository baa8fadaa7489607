import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import * as v from 'valibot';
import { apiKeyCredential, parseAuthorization } from '../auth/auth.middleware';
import { requestScope } from '../auth/scope';
import { followingMoves, shardOfSignedToken } from '../auth/shard-routing';
import type { AppEnv } from '../core/env';
import { ApiError } from '../core/errors';
import { controlParams, dashboardControlsSchema } from '../dashboards/controls.schemas';
import { publishedDashboardSchema } from '../dashboards/dashboards.schemas';
import { apiDocs, routeGroup, routes } from '../http/route';
import { loadEmbedDashboard, updateEmbedFlags } from './embed-dashboards.service';
import markdown from './embed-sessions.routes.md';
import {
  effectiveSettingsSchema,
  embedSwitchSchema,
  embedTokenSchema,
  exchangeSessionBody,
  generateSessionBody,
  publicIdParams,
  revokedSchema,
  revokeSessionBody,
  sessionCreatedSchema,
  sessionQuery,
  settleSessionInput,
  updateEmbedBody,
  viewerSchema,
} from './embed-sessions.schemas';
import { EMBED_TOKEN_TTL_SECONDS, exchangeSession, revokeSession } from './embed-sessions.service';
import { MINT_LIMITS_TEXT } from './embedding.schemas';
import { generateSession } from './generate-session.service';
import type { TokenUse } from './session-token';

/**
 * generate-session authenticates its key inside its own read batch (one round trip for a
 * returning user, key lookup included), so it only checks the header's shape up front:
 * `Api-Key <key>` or, as Cube clients send it, `Bearer <key>`.
 */
const apiKeyHeader = createMiddleware<AppEnv>(async (c, next) => {
  apiKeyCredential(c);
  await next();
});

/**
 * The credential of a browser load: `Authorization: Session <id>`, `?session=<id>`, or (Cube's
 * way) `Authorization: Bearer <embed token>` from the session/token exchange.
 */
export function credentialOf(c: Context<AppEnv>, query: { session?: string }): { id: string; use: TokenUse } {
  if (c.req.header('authorization') !== undefined) {
    const { scheme, credential } = parseAuthorization(c);
    const kind = scheme.toLowerCase();
    if (kind === 'session') return { id: credential, use: 'session' };
    // An access token or API key is no embed token: say which credential this endpoint takes.
    if (kind === 'bearer' && credential.split('.').length === 3) return { id: credential, use: 'token' };
    throw new ApiError(
      'UNAUTHORIZED',
      'This endpoint takes Authorization: Session <sessionId>, Bearer <embed token> or ?session=',
    );
  }
  if (!query.session)
    throw new ApiError('UNAUTHORIZED', 'Missing embed session (Authorization: Session <id> or ?session=)');
  return { id: query.session, use: 'session' };
}

const embedDashboardSchema = v.object({
  ...publishedDashboardSchema.entries,
  viewer: viewerSchema,
  settings: effectiveSettingsSchema,
  controls: dashboardControlsSchema,
  dataTime: v.nullable(v.string()),
});

/** A load's credential (`?session=`) and the controls' values it shows the dashboard with. */
const embedLoadQuery = v.object({ ...sessionQuery.entries, ...controlParams });

const docs = apiDocs(markdown, { MINT_LIMITS_TEXT, EMBED_TOKEN_MINUTES: EMBED_TOKEN_TTL_SECONDS / 60 });
const tags = ['Signed embedding'];
const route = routeGroup({
  auth: 'user',
  permission: 'EmbeddingManage',
  scope: 'account',
  tags,
  errors: [403, 404],
  docs,
});
const noneRoute = routeGroup({ auth: 'none', tags, docs });
const sessionRoute = noneRoute.with({ auth: 'session', errors: [403, 404] });
const mintRoute = noneRoute.with({
  auth: { kind: 'apiKey', middleware: apiKeyHeader },
  errors: [403, 404, 409, 429],
});

/**
 * Minting, revoking and loading embed sessions, and a dashboard's embedding switches; mounted at
 * /api/v1/embed. The session routes authenticate inside their services (a session is a signed
 * token), so their groups declare the request scope.
 */
export const embedRoutes = routes(
  mintRoute.post('/generate-session', 'generateSession', sessionCreatedSchema, {
    input: { body: generateSessionBody },
    handler: async (c, { body }, scope) =>
      generateSession(scope, apiKeyCredential(c), settleSessionInput(body)),
  }),
  noneRoute.post('/session/token', 'postTokenBySessionId', embedTokenSchema, {
    input: { body: exchangeSessionBody },
    // The credential is the session id in the body: an expired, revoked or unknown one is a 401.
    errors: [401],
    handler: async (c, { body }) => {
      // The credential is in the body, so the request goes to its shard here rather than before
      // auth, and on to where its account moved.
      return followingMoves(c, shardOfSignedToken(body.sessionId), () =>
        exchangeSession(requestScope(c), body.sessionId),
      );
    },
  }),
  route.post('/session/revoke', 'revokeSession', revokedSchema, {
    input: { body: revokeSessionBody },
    handler: async (_c, { body }, scope) => revokeSession(scope, body.sessionId),
  }),
  route.patch('/dashboard/:publicId', 'updateDashboardEmbedding', embedSwitchSchema, {
    input: { params: publicIdParams, body: updateEmbedBody },
    handler: async (_c, { params, body }, scope) => updateEmbedFlags(scope, params.publicId, body),
  }),
  sessionRoute.get('/dashboard/:publicId', 'getDashboard', embedDashboardSchema, {
    input: { params: publicIdParams, query: embedLoadQuery },
    handler: async (c, { params, query }, scope) =>
      loadEmbedDashboard(scope, credentialOf(c, query), params.publicId, {
        controls: { filters: query.filters, timeGrains: query.timeGrains },
      }),
  }),
);
