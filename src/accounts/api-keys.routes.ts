import { authenticate, userPrincipal } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import { notFound } from '../core/errors';
import { doc } from '../core/openapi';
import { afterId, pageQuery, pageRequest, pageSchema, toPage } from '../core/pagination';
import { createRouter } from '../core/router';
import { deletedSchema, idParams, validate } from '../core/validation';
import * as repo from './accounts.repository';
import { apiKeyCreatedSchema, apiKeySchema, createApiKeyBody } from './accounts.schemas';
import { createApiKey } from './accounts.service';

const tags = ['API keys'];

/** Account API keys, managed by admins with their Bearer token. */
export const apiKeysRoutes = createRouter()
  .use('*', authenticate(['Bearer'], { role: 'admin' }))
  .post(
    '/',
    doc({
      summary: 'Create an API key, optionally scoped to deployments (the key is shown once)',
      tags,
      auth: 'bearer',
      responses: { 201: apiKeyCreatedSchema },
      errors: [403, 404],
    }),
    validate('json', createApiKeyBody),
    async (c) => {
      const principal = userPrincipal(c);
      const key = await createApiKey(
        c.get('db'),
        principal.account.id,
        c.req.valid('json'),
        isoNow(c.get('clock')),
      );
      return c.json(key, 201);
    },
  )
  .get(
    '/',
    doc({
      summary: 'List API keys (no secrets)',
      tags,
      auth: 'bearer',
      responses: { 200: pageSchema(apiKeySchema) },
      errors: [403],
    }),
    validate('query', pageQuery),
    async (c) => {
      const principal = userPrincipal(c);
      const request = pageRequest(c.req.valid('query'), 'api-keys', 1);
      const rows = await repo.listApiKeys(c.get('db'), principal.account.id, afterId(request), request.limit);
      return c.json(
        toPage(
          rows,
          request,
          'api-keys',
          (k) => [k.id],
          (k) => k,
        ),
      );
    },
  )
  .delete(
    '/:id',
    doc({
      summary: 'Delete an API key (it stops working at once)',
      tags,
      auth: 'bearer',
      responses: { 200: deletedSchema },
      errors: [403, 404],
    }),
    validate('param', idParams),
    async (c) => {
      const principal = userPrincipal(c);
      const { id } = c.req.valid('param');
      if (!(await repo.deleteApiKey(c.get('db'), principal.account.id, id))) throw notFound('API key');
      return c.json({ id, deleted: true as const });
    },
  );
