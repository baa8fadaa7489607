import { pageQuery, pageSchema } from '../core/pagination';
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

const route = routeGroup({
  auth: 'admin',
  scope: 'account',
  // Every route is account-wide: a key scoped to deployments gets 403 KEY_SCOPE.
  accountWide: true,
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
    handler: async (_c, { query }, scope) => listRoles(scope, query),
  }),
  route.post('/', 'createRole', roleSchema, {
    input: { body: createRoleBody },
    errors: [409],
    handler: async (_c, { body }, scope) => createRole(scope, body),
  }),
  route.get('/:roleId', 'getRole', roleSchema, {
    input: { params: roleParams },
    errors: [404],
    handler: async (_c, { params }, scope) => getRole(scope, params.roleId),
  }),
  route.put('/:roleId', 'updateRole', roleSchema, {
    input: { params: roleParams, body: updateRoleBody },
    errors: [404, 409],
    handler: async (_c, { params, body }, scope) => updateRole(scope, params.roleId, body ?? {}),
  }),
  route.delete('/:roleId', 'deleteRole', deletedSchema, {
    input: { params: roleParams },
    errors: [404],
    handler: async (_c, { params }, scope) => deleteRole(scope, params.roleId),
  }),
  route.put('/:roleId/users/:userId', 'assignRoleToUser', roleAssignmentSchema, {
    input: { params: roleUserParams },
    errors: [404, 409],
    handler: async (_c, { params }, scope) => assignRole(scope, params.roleId, params.userId),
  }),
  route.delete('/:roleId/users/:userId', 'removeRoleFromUser', roleAssignmentSchema, {
    input: { params: roleUserParams },
    errors: [404],
    handler: async (_c, { params }, scope) => removeRole(scope, params.roleId, params.userId),
  }),
);
