import type { Context } from 'hono';
import * as v from 'valibot';
import { requireAccountWide, requireAdmin, userPrincipal } from '../auth/auth.middleware';
import type { AppEnv } from '../core/env';
import { pageQuery, pageSchema } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import { deletedSchema, idParams, idString } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import { accessTokenCreatedSchema, accessTokenSchema, createUserBody, userSchema } from './accounts.schemas';
import {
  createAccessToken,
  createUser,
  getUser,
  listAccessTokens,
  listUsers,
  revokeAccessToken,
} from './accounts.service';
import markdown from './users.routes.md';

const tokenParams = v.object({ id: idString, tokenId: idString });

/**
 * The caller's account scope, for an action on user `userId` (or on users in general): admins
 * act on everyone, a member only on themselves. Users are account-wide, so a key scoped to
 * deployments gets 403 KEY_SCOPE.
 */
function actorFor(c: Context<AppEnv>, scope: AccountScope, userId?: number): AccountScope {
  requireAccountWide(scope.principal);
  const actor = userPrincipal(c);
  if (userId === undefined || userId !== actor.userId) requireAdmin(actor);
  return scope;
}

/**
 * Users and their access tokens. Admins (and unscoped API keys) manage everyone; a member may
 * manage only their own tokens (so they can rotate a leaked one without an admin).
 * Mounted at /api/v1/users.
 */
const route = routeGroup({
  auth: 'user',
  scope: 'account',
  tags: ['Users and access tokens'],
  errors: [403],
  docs: markdown,
});

export const usersRoutes = routes(
  route.post('/', 'createUser', userSchema, {
    input: { body: createUserBody },
    errors: [409],
    handler: async (c, { body }, scope) => createUser(actorFor(c, scope), body),
  }),
  route.get('/', 'listUsers', pageSchema(userSchema), {
    input: { query: pageQuery },
    handler: async (c, { query }, scope) => listUsers(actorFor(c, scope), query),
  }),
  route.get('/:id', 'getUser', userSchema, {
    input: { params: idParams },
    errors: [404],
    handler: async (c, { params }, scope) => getUser(actorFor(c, scope, params.id), params.id),
  }),
  route.post('/:id/access-tokens', 'createAccessToken', accessTokenCreatedSchema, {
    input: { params: idParams },
    errors: [404],
    handler: async (c, { params }, scope) => createAccessToken(actorFor(c, scope, params.id), params.id),
  }),
  route.get('/:id/access-tokens', 'listAccessTokens', pageSchema(accessTokenSchema), {
    input: { params: idParams, query: pageQuery },
    errors: [404],
    handler: async (c, { params, query }, scope) =>
      listAccessTokens(actorFor(c, scope, params.id), params.id, query),
  }),
  route.delete('/:id/access-tokens/:tokenId', 'deleteAccessToken', deletedSchema, {
    input: { params: tokenParams },
    errors: [404],
    handler: async (c, { params }, scope) =>
      revokeAccessToken(actorFor(c, scope, params.id), params.id, params.tokenId),
  }),
);
