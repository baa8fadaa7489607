import { pageQuery, pageSchema } from '../core/pagination';
import { deletedSchema, idParams } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import { apiKeyCreatedSchema, apiKeySchema, createApiKeyBody } from './accounts.schemas';
import { createApiKey, deleteApiKey, listApiKeys } from './accounts.service';
import markdown from './api-keys.routes.md';

/** A key scoped to deployments cannot mint, list or delete keys (403 KEY_SCOPE). */
const route = routeGroup({
  auth: 'admin',
  scope: 'account',
  accountWide: true,
  tags: ['API keys'],
  errors: [403],
  docs: markdown,
});

/** Account API keys, managed by admins (or an unscoped key). Mounted at /api/v1/api-keys. */
export const apiKeysRoutes = routes(
  route.post('/', 'createApiKey', apiKeyCreatedSchema, {
    input: { body: createApiKeyBody },
    errors: [404],
    handler: async (_c, { body }, scope) => createApiKey(scope, body),
  }),
  route.get('/', 'listApiKeys', pageSchema(apiKeySchema), {
    input: { query: pageQuery },
    handler: async (_c, { query }, scope) => listApiKeys(scope, query),
  }),
  route.delete('/:id', 'deleteApiKey', deletedSchema, {
    input: { params: idParams },
    errors: [404],
    handler: async (_c, { params }, scope) => deleteApiKey(scope, params.id),
  }),
);
