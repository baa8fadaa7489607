import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import * as v from 'valibot';
import { parseAuthorization, userPrincipal } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import { ApiError } from '../core/errors';
import { publishedDashboardSchema } from '../dashboards/dashboards.schemas';
import type { AppEnv } from '../env';
import { defineRoute, routes } from '../http/route';
import { loadEmbedDashboard, updateEmbedFlags } from './embed-dashboards.service';
import { type EmbedContext, revokeSession } from './embed-sessions.service';
import {
  effectiveSettingsSchema,
  embedSwitchSchema,
  generateSessionBody,
  MINT_LIMITS_TEXT,
  publicIdParams,
  revokedSchema,
  revokeSessionBody,
  sessionCreatedSchema,
  sessionQuery,
  updateEmbedBody,
  viewerSchema,
} from './embedding.schemas';
import { generateSession } from './generate-session.service';

const tags = ['Signed embedding'];

export const embedContext = <E extends AppEnv>(c: Context<E>): EmbedContext => ({
  d1: c.get('d1'),
  env: c.env,
  clock: c.get('clock'),
});

/**
 * generate-session authenticates its key inside its own read batch (one round trip for a
 * returning user, key lookup included), so it only checks the header's shape up front.
 */
const apiKeyHeader = createMiddleware<AppEnv>(async (c, next) => {
  apiKeyOf(c);
  await next();
});

/** The credential of `Authorization: Api-Key <key>`; any other scheme is a 401. */
function apiKeyOf(c: Context<AppEnv>): string {
  const { scheme, credential } = parseAuthorization(c);
  if (scheme.toLowerCase() !== 'api-key') {
    throw new ApiError('UNAUTHORIZED', 'This endpoint takes Authorization: Api-Key <…>');
  }
  return credential;
}

/** The session of a browser load: `Authorization: Session <id>` or `?session=<id>`. */
function sessionOf(c: Context<AppEnv>, query: { session?: string }): string {
  if (c.req.header('authorization') !== undefined) {
    const { scheme, credential } = parseAuthorization(c);
    if (scheme.toLowerCase() !== 'session') {
      throw new ApiError(
        'UNAUTHORIZED',
        'This endpoint takes Authorization: Session <sessionId> or ?session=',
      );
    }
    return credential;
  }
  if (!query.session)
    throw new ApiError('UNAUTHORIZED', 'Missing embed session (Authorization: Session <id> or ?session=)');
  return query.session;
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
    handler: async (c, { body }) => generateSession(embedContext(c), apiKeyOf(c), body),
  }),
  defineRoute({
    method: 'post',
    path: '/session/revoke',
    auth: 'apiKey',
    summary: 'Revoke an embed session',
    description:
      'Records the revocation in D1 (checked by every load) and deletes the KV entry. ' +
      '`revoked` is false when the session was already revoked or has expired.',
    tags,
    operationId: 'revokeSession',
    body: revokeSessionBody,
    responses: { 200: revokedSchema },
    errors: [403, 404],
    handler: async (c, { body }) => {
      const principal = c.get('principal');
      if (principal.kind !== 'apiKey')
        throw new ApiError('UNAUTHORIZED', 'This endpoint takes Authorization: Api-Key <…>');
      return revokeSession(embedContext(c), principal, body.sessionId);
    },
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
    operationId: 'updateEmbedDashboard',
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
    operationId: 'getEmbedDashboard',
    params: publicIdParams,
    query: sessionQuery,
    responses: { 200: embedDashboardSchema },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      loadEmbedDashboard(embedContext(c), sessionOf(c, query), params.publicId),
  }),
);
