import type { RolePolicy } from '../../schema/roles';
import { conflict, notFound } from '../core/errors';
import { pageRequest, toPage } from '../core/pagination';
import { type Grants, levelOf, mergeGrants, PERMISSION_NAMES, type Permission } from '../core/permissions';
import type { AccountScope } from '../core/scope';
import * as repo from './roles.repository';
import {
  ALL_ACTIONS,
  type CreateRoleInput,
  type PolicyInput,
  ROLE_LIMITS,
  type UpdateRoleInput,
} from './roles.schemas';

/** The permissions a policy's actions stand for: `All` is every one its resource type can grant. */
function permissionsOf(policy: PolicyInput): Permission[] {
  if (!policy.actions.includes(ALL_ACTIONS)) return policy.actions as Permission[];
  return policy.resourceType === 'Global'
    ? PERMISSION_NAMES
    : PERMISSION_NAMES.filter((p) => levelOf(p) === 'deployment');
}

/** A policy as stored and answered: actions and resources without repeats, in the order sent. */
const normalized = (policy: PolicyInput): RolePolicy => ({
  resourceType: policy.resourceType,
  actions: [...new Set(policy.actions)],
  resources: [...new Set(policy.resources)],
});

/**
 * What a role's policies grant, per permission (the form the credential lookup reads): a Global
 * policy or a Deployment policy on "All" grants everywhere, one on ids grants on those.
 */
export function compileGrants(policies: readonly PolicyInput[]): Grants {
  return mergeGrants(
    policies.map((policy) => {
      const everywhere = policy.resourceType === 'Global' || policy.resources.includes('All');
      const ids = policy.resources.filter((r) => r !== 'All').map(Number);
      return Object.fromEntries(permissionsOf(policy).map((p) => [p, everywhere ? true : ids])) as Grants;
    }),
  );
}

const nameTaken = () => conflict('A role with this name already exists');

export async function createRole(scope: AccountScope, input: CreateRoleInput) {
  const role = await repo.insertRole(scope, {
    name: input.name,
    description: input.description ?? null,
    policies: input.policies.map(normalized),
    grants: compileGrants(input.policies),
  });
  if (role) return role;
  if (await repo.roleNameTaken(scope, input.name)) throw nameTaken();
  throw conflict(`An account has at most ${ROLE_LIMITS.rolesPerAccount} roles: delete one first`);
}

/** Cube's list of custom roles: newest first. */
export async function listRoles(scope: AccountScope, query: { first?: number; after?: string }) {
  const request = pageRequest(query, 'roles', 1);
  const before = request.after?.[0];
  const rows = await repo.listRoles(scope, typeof before === 'number' ? before : null, request.limit);
  return toPage(
    rows,
    request,
    'roles',
    (role) => [role.id],
    (role) => role,
  );
}

export async function getRole(scope: AccountScope, id: number) {
  const role = await repo.findRole(scope, id);
  if (!role) throw notFound('Role');
  return role;
}

/** Cube's updateRole: the fields present change; `policies` replaces the role's policies outright. */
export async function updateRole(scope: AccountScope, id: number, input: UpdateRoleInput) {
  const role = await repo.updateRole(scope, id, {
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.policies === undefined
      ? {}
      : { policies: input.policies.map(normalized), grants: compileGrants(input.policies) }),
  });
  if (role) return role;
  if (input.name !== undefined && (await repo.roleNameTaken(scope, input.name, id))) {
    if (await repo.findRole(scope, id)) throw nameTaken();
  }
  throw notFound('Role');
}

/** Deletes a role and every assignment of it: its holders fall back on their other roles. */
export async function deleteRole(scope: AccountScope, id: number) {
  if (!(await repo.deleteRole(scope, id))) throw notFound('Role');
  return { id, deleted: true as const };
}

/** Cube's assignRoleToUser: idempotent; a user holds at most `rolesPerUser` roles. */
export async function assignRole(scope: AccountScope, roleId: number, userId: number) {
  if (!(await repo.insertAssignment(scope, roleId, userId))) {
    const state = await repo.assignmentState(scope, roleId, userId);
    if (!state.userFound) throw notFound('User');
    if (!state.roleFound) throw notFound('Role');
    if (!state.held)
      throw conflict(`A user holds at most ${ROLE_LIMITS.rolesPerUser} roles: remove one first`);
  }
  return { roleId, userId, assigned: true };
}

/** Cube's removeRoleFromUser: idempotent; an unknown user or role is a 404. */
export async function removeRole(scope: AccountScope, roleId: number, userId: number) {
  const state = await repo.deleteAssignment(scope, roleId, userId);
  if (!state.userFound) throw notFound('User');
  if (!state.roleFound) throw notFound('Role');
  return { roleId, userId, assigned: false };
}
