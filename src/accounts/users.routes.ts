import * as v from 'valibot';
import { userPrincipal } from '../auth/auth.middleware';
import { pageQuery, pageSchema } from '../core/pagination';
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

/**
 * Users and their access tokens. UsersManage (admins hold it, and unscoped API keys) manages
 * users; a user may read themselves, change their own settings and manage their own tokens (so
 * they can rotate a leaked one without an admin); other users' tokens need the admin role.
 * Mounted at /api/v1/users.
 */
const route = routeGroup({
  auth: 'user',
  scope: 'account',
  // Every route is account-wide: a key scoped to deployments gets 403 KEY_SCOPE.
  accountWide: true,
  tags: ['Users and access tokens'],
  errors: [403],
  docs: apiDocs(markdown, { MAX_BULK_USERS, MAX_NOTIFICATION_KINDS }),
});
const manageRoute = route.with({ permission: 'UsersManage' });
/** A user's access tokens: the user themselves (`selfParam`) or an admin. */
const tokenRoute = route.with({ permission: 'admin', errors: [403, 404] });

export const usersRoutes = routes(
  manageRoute.post('/', 'createUser', userSchema, {
    input: { body: createUserBody },
    errors: [409],
    handler: async (_c, { body }, scope) => createUser(scope, body),
  }),
  manageRoute.get('/', 'listUsers', pageSchema(userSchema), {
    input: { query: pageQuery },
    handler: async (_c, { query }, scope) => listUsers(scope, query),
  }),
  manageRoute.post('/bulk', 'bulkUserAction', bulkUserActionResultSchema, {
    input: { body: bulkUserActionBody },
    handler: async (_c, { body }, scope) => bulkUserAction(scope, body),
  }),
  route.patch('/me/settings', 'updateMySettings', userSchema, {
    input: { body: mySettingsBody },
    errors: [404],
    handler: async (c, { body }, scope) => updateMySettings(scope, userPrincipal(c).userId, body ?? {}),
  }),
  manageRoute.get('/:id', 'getUser', userSchema, {
    selfParam: 'id',
    input: { params: idParams },
    errors: [404],
    handler: async (_c, { params }, scope) => getUser(scope, params.id),
  }),
  manageRoute.put('/:id', 'updateUser', userSchema, {
    input: { params: idParams, body: updateUserBody },
    errors: [404, 409],
    handler: async (_c, { params, body }, scope) => updateUser(scope, params.id, body ?? {}),
  }),
  manageRoute.delete('/:id', 'deleteUser', deletedSchema, {
    input: { params: idParams },
    errors: [404, 409],
    handler: async (_c, { params }, scope) => deleteUser(scope, params.id),
  }),
  tokenRoute.post('/:id/access-tokens', 'createAccessToken', accessTokenCreatedSchema, {
    selfParam: 'id',
    input: { params: idParams },
    handler: async (_c, { params }, scope) => createAccessToken(scope, params.id),
  }),
  tokenRoute.get('/:id/access-tokens', 'listAccessTokens', pageSchema(accessTokenSchema), {
    selfParam: 'id',
    input: { params: idParams, query: pageQuery },
    handler: async (_c, { params, query }, scope) => listAccessTokens(scope, params.id, query),
  }),
  tokenRoute.delete('/:id/access-tokens/:tokenId', 'deleteAccessToken', deletedSchema, {
    selfParam: 'id',
    input: { params: tokenParams },
    handler: async (_c, { params }, scope) => revokeAccessToken(scope, params.id, params.tokenId),
  }),
);
