import type { RolePolicy } from '../../schema/roles';
import { conflict, notFound } from '../core/errors';
import { pageRequest, toPage } from '../core/pagination';
import {
  type CubeAction,
  type Grant,
  type Grants,
  grantedBy,
  heldActions,
  PERMISSION_NAMES,
  uniteGrants,
} from '../core/permissions';
import type { AccountScope } from '../core/scope';
import * as repo from './roles.repository';
import { type CreateRoleInput, type PolicyInput, ROLE_LIMITS, type UpdateRoleInput } from './roles.schemas';

/** A policy as stored and answered: actions and resources without repeats, in the order sent. */
const normalized = (policy: PolicyInput): RolePolicy => ({
  resourceType: policy.resourceType,
  actions: [...new Set(policy.actions)],
  resources: [...new Set(policy.resources)],
});

/** Where both grants hold: everywhere and ids is the ids; two lists, the ids in both. */
function intersect(a: Grant, b: Grant): Grant {
  if (a === true) return b;
  if (b === true) return a;
  return a.filter((id) => b.includes(id));
}

/**
 * What a role's policies grant, per permission (the form the credential lookup reads). First
 * each Cube action the policies hold, where: a Global policy or a Deployment policy on "All"
 * everywhere, one on ids on those (policies add up). Then a permission is held where every Cube
 * action it needs is held; one the admin role keeps (no action grants it) never is.
 */
export function compileGrants(policies: readonly PolicyInput[]): Grants {
  const actions = new Map<CubeAction, Grant>();
  for (const policy of policies) {
    const everywhere = policy.resourceType === 'Global' || policy.resources.includes('All');
    const ids = policy.resources.filter((r) => r !== 'All').map(Number);
    for (const action of heldActions(policy.actions)) {
      actions.set(action, uniteGrants(actions.get(action), everywhere ? true : ids));
    }
  }
  const grants: Grants = {};
  for (const permission of PERMISSION_NAMES) {
    const needed = grantedBy(permission);
    if (needed.length === 0) continue;
    let grant: Grant | undefined = true;
    for (const action of needed) {
      const held = actions.get(action);
      grant = held === undefined ? undefined : intersect(grant, held);
      if (grant === undefined || (grant !== true && grant.length === 0)) break;
    }
    if (grant !== undefined && (grant === true || grant.length > 0)) grants[permission] = grant;
  }
  return grants;
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
  if (input.name === undefined) throw notFound('Role');
  const state = await repo.renameState(scope, id, input.name);
  throw state.roleFound && state.nameTaken ? nameTaken() : notFound('Role');
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
