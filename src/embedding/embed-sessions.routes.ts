import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import * as v from 'valibot';
import { authenticate, parseAuthorization, userPrincipal } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import { ApiError } from '../core/errors';
import { doc } from '../core/openapi';
import { createRouter } from '../core/router';
import { validate } from '../core/validation';
import { publishedDashboardSchema } from '../dashboards/dashboards.schemas';
import type { AppEnv } from '../env';
import { loadEmbedDashboard, updateEmbedFlags } from './embed-dashboards.service';
import { type EmbedContext, generateSession, revokeSession } from './embed-sessions.service';
import {
  effectiveSettingsSchema,
  embedSwitchSchema,
  generateSessionBody,
  publicIdParams,
  revokedSchema,
  revokeSessionBody,
  sessionCreatedSchema,
  sessionQuery,
  updateEmbedBody,
  viewerSchema,
} from './embedding.schemas';

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
const apiKeyHeader = createMiddleware<AppEnv & { Variables: { apiKey: string } }>(async (c, next) => {
  const { scheme, credential } = parseAuthorization(c);
  if (scheme.toLowerCase() !== 'api-key') {
    throw new ApiError('UNAUTHORIZED', 'This endpoint takes Authorization: Api-Key <…>');
  }
  c.set('apiKey', credential);
  await next();
});

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
export const embedRoutes = createRouter()
  .post(
    '/generate-session',
    doc({
      summary: 'E9 Generate an embed session',
      description:
        'Mints a signed session for an external user (externalId) or an internal one (internalId). ' +
        'Needs the premium or enterprise plan. The answer carries the sessionId and its expiry.',
      tags,
      auth: 'apiKey',
      operationId: 'generateSession',
      responses: { 200: sessionCreatedSchema },
      errors: [403, 404, 409, 429],
    }),
    apiKeyHeader,
    validate('json', generateSessionBody),
    async (c) => {
      const result = await generateSession(embedContext(c), c.get('apiKey'), c.req.valid('json'));
      return c.json(result);
    },
  )
  .post(
    '/session/revoke',
    doc({
      summary: 'Revoke an embed session',
      description:
        'Records the revocation in D1 (checked by every load) and deletes the KV entry. ' +
        '`revoked` is false when the session was already revoked or has expired.',
      tags,
      auth: 'apiKey',
      operationId: 'revokeSession',
      responses: { 200: revokedSchema },
      errors: [403, 404],
    }),
    authenticate(['Api-Key']),
    validate('json', revokeSessionBody),
    async (c) => {
      const principal = c.get('principal');
      if (principal.kind !== 'apiKey')
        throw new ApiError('UNAUTHORIZED', 'This endpoint takes Authorization: Api-Key <…>');
      return c.json(await revokeSession(embedContext(c), principal, c.req.valid('json').sessionId));
    },
  )
  .patch(
    '/dashboard/:publicId',
    doc({
      summary: 'E8 Enable or disable signed embedding for a published dashboard',
      description:
        'Sets `allowEmbed` and/or `allEmbedUsers` (shared with all embed users). While allowEmbed is false, ' +
        'embed sessions get 403 on the dashboard, except creator-mode sessions and dashboards shared with all ' +
        'embed users.',
      tags,
      auth: 'bearer',
      operationId: 'updateEmbedDashboard',
      responses: { 200: embedSwitchSchema },
      errors: [403, 404],
    }),
    authenticate(['Bearer'], { role: 'admin' }),
    validate('param', publicIdParams),
    validate('json', updateEmbedBody),
    async (c) => {
      const principal = userPrincipal(c);
      const result = await updateEmbedFlags(
        c.get('db'),
        principal.account.id,
        c.req.valid('param').publicId,
        c.req.valid('json'),
        isoNow(c.get('clock')),
      );
      return c.json(result);
    },
  )
  .get(
    '/dashboard/:publicId',
    doc({
      summary: 'Load a published dashboard with an embed session',
      description:
        "The published dashboard as the session's viewer may see it, with `viewer` " +
        '{displayName, picture, initials} and the effective `settings`. Never the security context. ' +
        '401 SESSION_INVALID / SESSION_EXPIRED / SESSION_REVOKED; 403 EMBED_DISABLED; 404 outside the ' +
        "session's deployment.",
      tags,
      auth: 'session',
      operationId: 'getEmbedDashboard',
      responses: { 200: embedDashboardSchema },
      errors: [403, 404],
    }),
    validate('param', publicIdParams),
    validate('query', sessionQuery),
    async (c) => {
      const sessionId = sessionOf(c, c.req.valid('query'));
      return c.json(await loadEmbedDashboard(embedContext(c), sessionId, c.req.valid('param').publicId));
    },
  );
