import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import * as v from 'valibot';
import {
  accountPrincipal,
  apiKeyCredential,
  parseAuthorization,
  userPrincipal,
} from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import type { AppEnv } from '../core/env';
import { ApiError } from '../core/errors';
import { publishedDashboardSchema } from '../dashboards/dashboards.schemas';
import { defineRoute, routes } from '../http/route';
import { loadEmbedDashboard, updateEmbedFlags } from './embed-dashboards.service';
import {
  EMBED_TOKEN_TTL_SECONDS,
  type EmbedContext,
  exchangeSession,
  revokeSession,
} from './embed-sessions.service';
import {
  effectiveSettingsSchema,
  embedSwitchSchema,
  embedTokenSchema,
  exchangeSessionBody,
  generateSessionBody,
  MINT_LIMITS_TEXT,
  publicIdParams,
  revokedSchema,
  revokeSessionBody,
  sessionCreatedSchema,
  sessionQuery,
  settleSessionInput,
  updateEmbedBody,
  viewerSchema,
} from './embedding.schemas';
import { generateSession } from './generate-session.service';
import type { TokenUse } from './session-token';

const tags = ['Signed embedding'];

export const embedContext = <E extends AppEnv>(c: Context<E>): EmbedContext => ({
  d1: c.get('d1'),
  env: c.env,
  clock: c.get('clock'),
});

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
function credentialOf(c: Context<AppEnv>, query: { session?: string }): { id: string; use: TokenUse } {
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
});

/** Minting, revoking and loading embed sessions, and E8; mounted at /api/v1/embed. */
export const embedRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/generate-session',
    auth: { kind: 'apiKey', middleware: apiKeyHeader },
    summary: 'E9 Generate an embed session',
    description:
      'Mints a signed session for an external user (externalId) or an internal one (internalId). ' +
      'Needs the premium or enterprise plan. The answer carries the sessionId and its expiry. ' +
      `Limits: ${MINT_LIMITS_TEXT} Every 429 carries Retry-After.`,
    tags,
    operationId: 'generateSession',
    body: generateSessionBody,
    responses: { 200: sessionCreatedSchema },
    errors: [403, 404, 409, 429],
    handler: async (c, { body }) =>
      generateSession(embedContext(c), apiKeyCredential(c), settleSessionInput(body)),
  }),
  defineRoute({
    method: 'post',
    path: '/session/token',
    auth: 'none',
    summary: 'Exchange an embed session for an embed token',
    description:
      'The sessionId is the credential. Answers a token that loads GET /api/v1/embed/dashboard/{publicId} as ' +
      `Authorization: Bearer <token> for ${EMBED_TOKEN_TTL_SECONDS / 60} minutes (never past the session's expiry). ` +
      'Revoking the session revokes its tokens (every load checks). Unlike Cube the exchange is reusable: a ' +
      'session may be exchanged again until it expires or is revoked. 401 SESSION_INVALID / SESSION_EXPIRED / ' +
      'SESSION_REVOKED.',
    tags,
    operationId: 'postTokenBySessionId',
    body: exchangeSessionBody,
    responses: { 200: embedTokenSchema },
    handler: async (c, { body }) => exchangeSession(embedContext(c), body.sessionId),
  }),
  defineRoute({
    method: 'post',
    path: '/session/revoke',
    auth: 'admin',
    summary: 'Revoke an embed session',
    description:
      'Records the revocation in D1 (checked by every load and token exchange) and deletes the KV entry; ' +
      "the session's exchanged tokens stop working with it. `revoked` is false when the session was already " +
      'revoked or has expired. An API key (Api-Key or Bearer) or an admin access token.',
    tags,
    operationId: 'revokeSession',
    body: revokeSessionBody,
    responses: { 200: revokedSchema },
    errors: [403, 404],
    handler: async (c, { body }) => revokeSession(embedContext(c), accountPrincipal(c), body.sessionId),
  }),
  defineRoute({
    method: 'patch',
    path: '/dashboard/:publicId',
    auth: 'admin',
    summary: 'E8 Enable or disable signed embedding for a published dashboard',
    description:
      'Sets `allowEmbed` and/or `allEmbedUsers` (shared with all embed users). While allowEmbed is false, ' +
      'embed sessions get 403 on the dashboard, except creator-mode sessions and dashboards shared with all ' +
      'embed users.',
    tags,
    operationId: 'updateDashboardEmbedding',
    params: publicIdParams,
    body: updateEmbedBody,
    responses: { 200: embedSwitchSchema },
    errors: [403, 404],
    handler: async (c, { params, body }) =>
      updateEmbedFlags(
        c.get('db'),
        userPrincipal(c).account.id,
        params.publicId,
        body,
        isoNow(c.get('clock')),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/dashboard/:publicId',
    auth: 'session',
    summary: 'Load a published dashboard with an embed session',
    description:
      "The published dashboard as the session's viewer may see it, with `viewer` " +
      '{displayName, picture, initials} and the effective `settings`. Never the security context. ' +
      '401 SESSION_INVALID / SESSION_EXPIRED / SESSION_REVOKED; 403 EMBED_DISABLED; 404 outside the ' +
      "session's deployment.",
    tags,
    operationId: 'getDashboard',
    params: publicIdParams,
    query: sessionQuery,
    responses: { 200: embedDashboardSchema },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      loadEmbedDashboard(embedContext(c), credentialOf(c, query), params.publicId),
  }),
);
