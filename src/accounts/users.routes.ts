import type { Context } from 'hono';
import * as v from 'valibot';
import { accountWidePrincipal, requireAdmin, userPrincipal } from '../auth/auth.middleware';
import { nowOf } from '../auth/deployment-scope';
import type { AppEnv } from '../core/env';
import { pageQuery, pageSchema } from '../core/pagination';
import { deletedSchema, idParams, idString } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import { accessTokenCreatedSchema, accessTokenSchema, createUserBody, userSchema } from './accounts.schemas';
import {
  createAccessToken,
  createUser,
  getUser,
  listAccessTokens,
  listUsers,
  revokeAccessToken,
} from './accounts.service';

const tags = ['Users and access tokens'];
const tokenParams = v.object({ id: idString, tokenId: idString });

/**
 * The caller's account, for an action on user `userId` (or on users in general): admins act on
 * everyone, a member only on themselves. Users are account-wide, so a key scoped to
 * deployments gets 403 KEY_SCOPE.
 */
function actorFor(c: Context<AppEnv>, userId?: number) {
  accountWidePrincipal(c);
  const actor = userPrincipal(c);
  if (userId === undefined || userId !== actor.userId) requireAdmin(actor);
  return actor.account.id;
}

/**
 * Users and their access tokens. Admins (and unscoped API keys) manage everyone; a member may
 * manage only their own tokens (so they can rotate a leaked one without an admin).
 * Mounted at /api/v1/users.
 */
export const usersRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/',
    operationId: 'createUser',
    auth: 'user',
    summary: 'Create a user',
    description:
      '`email` ≤ 254 characters, `username` ≤ 64, `firstName` ≤ 255, `picture` an http(s) URL ≤ 2048.',
    tags,
    body: createUserBody,
    responses: { 200: userSchema },
    errors: [403, 409],
    handler: async (c, { body }) => createUser(c.get('db'), actorFor(c), body, nowOf(c)),
  }),
  defineRoute({
    method: 'get',
    path: '/',
    operationId: 'listUsers',
    auth: 'user',
    summary: 'List users',
    tags,
    query: pageQuery,
    responses: { 200: pageSchema(userSchema) },
    errors: [403],
    handler: async (c, { query }) => listUsers(c.get('db'), actorFor(c), query),
  }),
  defineRoute({
    method: 'get',
    path: '/:id',
    operationId: 'getUser',
    auth: 'user',
    summary: 'Get a user',
    tags,
    params: idParams,
    responses: { 200: userSchema },
    errors: [403, 404],
    handler: async (c, { params }) => getUser(c.get('db'), actorFor(c, params.id), params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/:id/access-tokens',
    operationId: 'createAccessToken',
    auth: 'user',
    summary: 'Issue an access token for a user (the token is shown once)',
    tags,
    params: idParams,
    responses: { 200: accessTokenCreatedSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      createAccessToken(c.get('db'), actorFor(c, params.id), params.id, nowOf(c)),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/access-tokens',
    operationId: 'listAccessTokens',
    auth: 'user',
    summary: "List a user's access tokens (no secrets)",
    tags,
    params: idParams,
    query: pageQuery,
    responses: { 200: pageSchema(accessTokenSchema) },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      listAccessTokens(c.get('db'), actorFor(c, params.id), params.id, query),
  }),
  defineRoute({
    method: 'delete',
    path: '/:id/access-tokens/:tokenId',
    operationId: 'deleteAccessToken',
    auth: 'user',
    summary: 'Revoke an access token (it stops working at once)',
    tags,
    params: tokenParams,
    responses: { 200: deletedSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      revokeAccessToken(c.get('db'), actorFor(c, params.id), params.id, params.tokenId),
  }),
);
