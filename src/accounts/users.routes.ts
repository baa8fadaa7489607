import * as v from 'valibot';
import { requireAccountWide, userPrincipal } from '../auth/auth.middleware';
import { pageQuery, pageSchema } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import { deletedSchema, idParams, idString } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
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
import {
  bulkUserActionBody,
  bulkUserActionResultSchema,
  MAX_BULK_USERS,
  MAX_NOTIFICATION_KINDS,
  mySettingsBody,
  updateUserBody,
} from './users.schemas';
import { bulkUserAction, deleteUser, updateMySettings, updateUser } from './users.service';

const tokenParams = v.object({ id: idString, tokenId: idString });

/** Users are account-wide: a key scoped to deployments gets 403 KEY_SCOPE. */
const accountWide = (scope: AccountScope) => {
  requireAccountWide(scope.principal);
  return scope;
};

/**
 * Users and their access tokens. UsersManage (admins hold it, and unscoped API keys) manages
 * users; a user may read themselves, change their own settings and manage their own tokens (so
 * they can rotate a leaked one without an admin); other users' tokens need the admin role.
 * Mounted at /api/v1/users.
 */
const route = routeGroup({
  auth: 'user',
  scope: 'account',
  tags: ['Users and access tokens'],
  errors: [403],
  docs: apiDocs(markdown, { MAX_BULK_USERS, MAX_NOTIFICATION_KINDS }),
});

export const usersRoutes = routes(
  route.post('/', 'createUser', userSchema, {
    permission: 'UsersManage',
    input: { body: createUserBody },
    errors: [409],
    handler: async (_c, { body }, scope) => createUser(accountWide(scope), body),
  }),
  route.get('/', 'listUsers', pageSchema(userSchema), {
    permission: 'UsersManage',
    input: { query: pageQuery },
    handler: async (_c, { query }, scope) => listUsers(accountWide(scope), query),
  }),
  route.post('/bulk', 'bulkUserAction', bulkUserActionResultSchema, {
    permission: 'UsersManage',
    input: { body: bulkUserActionBody },
    handler: async (_c, { body }, scope) => bulkUserAction(accountWide(scope), body),
  }),
  route.patch('/me/settings', 'updateMySettings', userSchema, {
    input: { body: mySettingsBody },
    errors: [404],
    handler: async (c, { body }, scope) =>
      updateMySettings(accountWide(scope), userPrincipal(c).userId, body ?? {}),
  }),
  route.get('/:id', 'getUser', userSchema, {
    permission: 'UsersManage',
    selfParam: 'id',
    input: { params: idParams },
    errors: [404],
    handler: async (_c, { params }, scope) => getUser(accountWide(scope), params.id),
  }),
  route.put('/:id', 'updateUser', userSchema, {
    permission: 'UsersManage',
    input: { params: idParams, body: updateUserBody },
    errors: [404, 409],
    handler: async (_c, { params, body }, scope) => updateUser(accountWide(scope), params.id, body ?? {}),
  }),
  route.delete('/:id', 'deleteUser', deletedSchema, {
    permission: 'UsersManage',
    input: { params: idParams },
    errors: [404, 409],
    handler: async (_c, { params }, scope) => deleteUser(accountWide(scope), params.id),
  }),
  route.post('/:id/access-tokens', 'createAccessToken', accessTokenCreatedSchema, {
    permission: 'admin',
    selfParam: 'id',
    input: { params: idParams },
    errors: [404],
    handler: async (_c, { params }, scope) => createAccessToken(accountWide(scope), params.id),
  }),
  route.get('/:id/access-tokens', 'listAccessTokens', pageSchema(accessTokenSchema), {
    permission: 'admin',
    selfParam: 'id',
    input: { params: idParams, query: pageQuery },
    errors: [404],
    handler: async (_c, { params, query }, scope) => listAccessTokens(accountWide(scope), params.id, query),
  }),
  route.delete('/:id/access-tokens/:tokenId', 'deleteAccessToken', deletedSchema, {
    permission: 'admin',
    selfParam: 'id',
    input: { params: tokenParams },
    errors: [404],
    handler: async (_c, { params }, scope) =>
      revokeAccessToken(accountWide(scope), params.id, params.tokenId),
  }),
);
