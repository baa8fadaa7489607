import type { Context } from 'hono';
import { accountWidePrincipal } from '../auth/auth.middleware';
import { nowOf } from '../auth/deployment-scope';
import type { AppEnv } from '../core/env';
import { pageQuery, pageSchema } from '../core/pagination';
import { deletedSchema, idParams } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import { apiKeyCreatedSchema, apiKeySchema, createApiKeyBody } from './accounts.schemas';
import { createApiKey, deleteApiKey, listApiKeys } from './accounts.service';

const tags = ['API keys'];

/** Keys are account-wide: a key scoped to deployments cannot mint or list keys (403 KEY_SCOPE). */
function accountOf(c: Context<AppEnv>): number {
  return accountWidePrincipal(c).account.id;
}

/** Account API keys, managed by admins (or an unscoped key). Mounted at /api/v1/api-keys. */
export const apiKeysRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/',
    operationId: 'createApiKey',
    auth: 'admin',
    summary: 'Create an API key, optionally scoped to deployments (the key is shown once)',
    description:
      '`name` 1–255 characters; `deploymentIds` 1–1000 ids of the account, or null for every deployment.',
    tags,
    body: createApiKeyBody,
    responses: { 200: apiKeyCreatedSchema },
    errors: [403, 404],
    handler: async (c, { body }) => createApiKey(c.get('db'), accountOf(c), body, nowOf(c)),
  }),
  defineRoute({
    method: 'get',
    path: '/',
    operationId: 'listApiKeys',
    auth: 'admin',
    summary: 'List API keys (no secrets)',
    tags,
    query: pageQuery,
    responses: { 200: pageSchema(apiKeySchema) },
    errors: [403],
    handler: async (c, { query }) => listApiKeys(c.get('db'), accountOf(c), query),
  }),
  defineRoute({
    method: 'delete',
    path: '/:id',
    operationId: 'deleteApiKey',
    auth: 'admin',
    summary: 'Delete an API key (it stops working at once)',
    tags,
    params: idParams,
    responses: { 200: deletedSchema },
    errors: [403, 404],
    handler: async (c, { params }) => deleteApiKey(c.get('db'), accountOf(c), params.id),
  }),
);
