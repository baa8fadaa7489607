import type { Context } from 'hono';
import { accountWidePrincipal } from '../auth/auth.middleware';
import { nowOf } from '../auth/deployment-scope';
import type { AppEnv } from '../core/env';
import { pageQuery, pageSchema } from '../core/pagination';
import { deletedSchema, idParams } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import { apiKeyCreatedSchema, apiKeySchema, createApiKeyBody } from './accounts.schemas';
import { createApiKey, deleteApiKey, listApiKeys } from './accounts.service';
import markdown from './api-keys.routes.md';

/**
 * The leading arguments of the key services: the database and the caller's account. Keys are
 * account-wide: a key scoped to deployments cannot mint, list or delete keys (403 KEY_SCOPE).
 */
const inAccount = (c: Context<AppEnv>) => [c.get('db'), accountWidePrincipal(c).account.id] as const;

const route = routeGroup({ auth: 'admin', tags: ['API keys'], errors: [403], docs: markdown });

/** Account API keys, managed by admins (or an unscoped key). Mounted at /api/v1/api-keys. */
export const apiKeysRoutes = routes(
  route.post('/', 'createApiKey', apiKeyCreatedSchema, {
    input: { body: createApiKeyBody },
    errors: [404],
    handler: async (c, { body }) => createApiKey(...inAccount(c), body, nowOf(c)),
  }),
  route.get('/', 'listApiKeys', pageSchema(apiKeySchema), {
    input: { query: pageQuery },
    handler: async (c, { query }) => listApiKeys(...inAccount(c), query),
  }),
  route.delete('/:id', 'deleteApiKey', deletedSchema, {
    input: { params: idParams },
    errors: [404],
    handler: async (c, { params }) => deleteApiKey(...inAccount(c), params.id),
  }),
);
