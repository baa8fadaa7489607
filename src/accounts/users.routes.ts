import * as v from 'valibot';
import { authenticate, requireAdmin, userPrincipal } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import { ApiError, notFound } from '../core/errors';
import { doc } from '../core/openapi';
import { afterId, pageQuery, pageRequest, pageSchema, toPage } from '../core/pagination';
import { createRouter } from '../core/router';
import { deletedSchema, idParams, idString, validate } from '../core/validation';
import * as repo from './accounts.repository';
import { accessTokenCreatedSchema, accessTokenSchema, createUserBody, userSchema } from './accounts.schemas';
import { createAccessToken, createUser } from './accounts.service';

const tags = ['Users and access tokens'];
const tokenParams = v.object({ id: idString, tokenId: idString });

/**
 * Users and their access tokens. Admins manage everyone; a member may manage only their
 * own tokens (so they can rotate a leaked one without an admin).
 */
export const usersRoutes = createRouter()
  .use('*', authenticate(['Bearer']))
  .post(
    '/',
    doc({
      summary: 'Create a user',
      tags,
      auth: 'bearer',
      responses: { 201: userSchema },
      errors: [403, 409],
    }),
    validate('json', createUserBody),
    async (c) => {
      const principal = userPrincipal(c);
      requireAdmin(principal);
      const user = await createUser(
        c.get('db'),
        principal.account.id,
        c.req.valid('json'),
        isoNow(c.get('clock')),
      );
      return c.json(user, 201);
    },
  )
  .get(
    '/',
    doc({
      summary: 'List users',
      tags,
      auth: 'bearer',
      responses: { 200: pageSchema(userSchema) },
      errors: [403],
    }),
    validate('query', pageQuery),
    async (c) => {
      const principal = userPrincipal(c);
      requireAdmin(principal);
      const request = pageRequest(c.req.valid('query'), 'users', 1);
      const rows = await repo.listUsers(c.get('db'), principal.account.id, afterId(request), request.limit);
      return c.json(
        toPage(
          rows,
          request,
          'users',
          (u) => [u.id],
          (u) => u,
        ),
      );
    },
  )
  .get(
    '/:id',
    doc({ summary: 'Get a user', tags, auth: 'bearer', responses: { 200: userSchema }, errors: [403, 404] }),
    validate('param', idParams),
    async (c) => {
      const principal = userPrincipal(c);
      const { id } = c.req.valid('param');
      if (id !== principal.userId) requireAdmin(principal);
      const user = await repo.findUser(c.get('db'), principal.account.id, id);
      if (!user) throw notFound('User');
      return c.json(user);
    },
  )
  .post(
    '/:id/access-tokens',
    doc({
      summary: 'Issue an access token for a user (the token is shown once)',
      tags,
      auth: 'bearer',
      responses: { 201: accessTokenCreatedSchema },
      errors: [403, 404],
    }),
    validate('param', idParams),
    async (c) => {
      const principal = userPrincipal(c);
      const { id } = c.req.valid('param');
      if (id !== principal.userId) requireAdmin(principal);
      const token = await createAccessToken(c.get('db'), principal.account.id, id, isoNow(c.get('clock')));
      return c.json(token, 201);
    },
  )
  .get(
    '/:id/access-tokens',
    doc({
      summary: "List a user's access tokens (no secrets)",
      tags,
      auth: 'bearer',
      responses: { 200: pageSchema(accessTokenSchema) },
      errors: [403, 404],
    }),
    validate('param', idParams),
    validate('query', pageQuery),
    async (c) => {
      const principal = userPrincipal(c);
      const { id } = c.req.valid('param');
      if (id !== principal.userId) requireAdmin(principal);
      const request = pageRequest(c.req.valid('query'), 'tokens', 1);
      const db = c.get('db');
      const [user, rows] = await Promise.all([
        repo.findUser(db, principal.account.id, id),
        repo.listAccessTokens(db, principal.account.id, id, afterId(request), request.limit),
      ]);
      if (!user) throw notFound('User');
      return c.json(
        toPage(
          rows,
          request,
          'tokens',
          (t) => [t.id],
          (t) => t,
        ),
      );
    },
  )
  .delete(
    '/:id/access-tokens/:tokenId',
    doc({
      summary: 'Revoke an access token (it stops working at once)',
      tags,
      auth: 'bearer',
      responses: { 200: deletedSchema },
      errors: [403, 404],
    }),
    validate('param', tokenParams),
    async (c) => {
      const principal = userPrincipal(c);
      const { id, tokenId } = c.req.valid('param');
      if (id !== principal.userId) requireAdmin(principal);
      const deleted = await repo.deleteAccessToken(c.get('db'), principal.account.id, id, tokenId);
      if (!deleted) throw new ApiError('NOT_FOUND', 'Access token not found');
      return c.json({ id: tokenId, deleted: true as const });
    },
  );
