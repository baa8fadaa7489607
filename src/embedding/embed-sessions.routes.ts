import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { authenticate, parseAuthorization } from '../auth/auth.middleware';
import { ApiError } from '../core/errors';
import { doc } from '../core/openapi';
import { createRouter } from '../core/router';
import { validate } from '../core/validation';
import type { AppEnv } from '../env';
import { type EmbedContext, generateSession, revokeSession } from './embed-sessions.service';
import {
  generateSessionBody,
  revokedSchema,
  revokeSessionBody,
  sessionCreatedSchema,
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

/** Minting, revoking and loading embed sessions; mounted at /api/v1/embed. */
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
  );
