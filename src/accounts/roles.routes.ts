import { requireAccountWide } from '../auth/auth.middleware';
import { pageQuery, pageSchema } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import { deletedSchema } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './roles.routes.md';
import {
  createRoleBody,
  ROLE_LIMITS,
  roleAssignmentSchema,
  roleParams,
  roleSchema,
  roleUserParams,
  updateRoleBody,
} from './roles.schemas';
import {
  assignRole,
  createRole,
  deleteRole,
  getRole,
  listRoles,
  removeRole,
  updateRole,
} from './roles.service';

/** Roles are account-wide: a key scoped to deployments gets 403 KEY_SCOPE. */
const accountWide = (scope: AccountScope) => {
  requireAccountWide(scope.principal);
  return scope;
};

const route = routeGroup({
  auth: 'admin',
  scope: 'account',
  tags: ['Roles'],
  errors: [403],
  docs: apiDocs(markdown, {
    ROLES_PER_ACCOUNT: ROLE_LIMITS.rolesPerAccount,
    ROLES_PER_USER: ROLE_LIMITS.rolesPerUser,
    POLICIES_PER_ROLE: ROLE_LIMITS.policiesPerRole,
    RESOURCES_PER_POLICY: ROLE_LIMITS.resourcesPerPolicy,
    DEPLOYMENTS_PER_ROLE: ROLE_LIMITS.deploymentsPerRole,
  }),
});

/** Custom roles and their assignment to users, managed by admins (or an unscoped key). Mounted at /api/v1/roles. */
export const rolesRoutes = routes(
  route.get('/', 'getRoles', pageSchema(roleSchema), {
    input: { query: pageQuery },
    handler: async (_c, { query }, scope) => listRoles(accountWide(scope), query),
  }),
  route.post('/', 'createRole', roleSchema, {
    input: { body: createRoleBody },
    errors: [409],
    handler: async (_c, { body }, scope) => createRole(accountWide(scope), body),
  }),
  route.get('/:roleId', 'getRole', roleSchema, {
    input: { params: roleParams },
    errors: [404],
    handler: async (_c, { params }, scope) => getRole(accountWide(scope), params.roleId),
  }),
  route.put('/:roleId', 'updateRole', roleSchema, {
    input: { params: roleParams, body: updateRoleBody },
    errors: [404, 409],
    handler: async (_c, { params, body }, scope) => updateRole(accountWide(scope), params.roleId, body ?? {}),
  }),
  route.delete('/:roleId', 'deleteRole', deletedSchema, {
    input: { params: roleParams },
    errors: [404],
    handler: async (_c, { params }, scope) => deleteRole(accountWide(scope), params.roleId),
  }),
  route.put('/:roleId/users/:userId', 'assignRoleToUser', roleAssignmentSchema, {
    input: { params: roleUserParams },
    errors: [404, 409],
    handler: async (_c, { params }, scope) => assignRole(accountWide(scope), params.roleId, params.userId),
  }),
  route.delete('/:roleId/users/:userId', 'removeRoleFromUser', roleAssignmentSchema, {
    input: { params: roleUserParams },
    errors: [404],
    handler: async (_c, { params }, scope) => removeRole(accountWide(scope), params.roleId, params.userId),
  }),
);
