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

/** Keys are account-wide: a key scoped to deployments cannot mint or list keys (403 KEY_SCOPE). */
function accountOf(c: Context<AppEnv>): number {
  return accountWidePrincipal(c).account.id;
}

const route = routeGroup({ auth: 'admin', tags: ['API keys'], errors: [403], docs: markdown });

/** Account API keys, managed by admins (or an unscoped key). Mounted at /api/v1/api-keys. */
export const apiKeysRoutes = routes(
  route.post('/', 'createApiKey', {
    input: { body: createApiKeyBody },
    responses: { 200: apiKeyCreatedSchema },
    errors: [404],
    handler: async (c, { body }) => createApiKey(c.get('db'), accountOf(c), body, nowOf(c)),
  }),
  route.get('/', 'listApiKeys', {
    input: { query: pageQuery },
    responses: { 200: pageSchema(apiKeySchema) },
    handler: async (c, { query }) => listApiKeys(c.get('db'), accountOf(c), query),
  }),
  route.delete('/:id', 'deleteApiKey', {
    input: { params: idParams },
    responses: { 200: deletedSchema },
    errors: [404],
    handler: async (c, { params }) => deleteApiKey(c.get('db'), accountOf(c), params.id),
  }),
);
