import * as v from 'valibot';
import type { RolePolicy } from '../../schema/roles';
import { CUBE_ACTIONS, type CubeAction, PERMISSIONS, type Permission } from '../core/permissions';
import { idString, obj } from '../core/validation';

/** The bounds of roles: per account, per user, per role. */
export const ROLE_LIMITS = {
  rolesPerAccount: 100,
  rolesPerUser: 10,
  policiesPerRole: 50,
  resourcesPerPolicy: 100,
  /** Distinct deployment ids the policies of one role name. */
  deploymentsPerRole: 100,
} as const;

/**
 * Names a custom role may not take, whatever their case: edgeboard's built-in roles, and Cube's
 * (which Cube refuses with a 400 too).
 */
export const RESERVED_ROLE_NAMES = [
  'Admin',
  'Member',
  'Developer',
  'AIBIDeveloper',
  'D3User',
  'AIBIUser',
  'AIBIViewer',
  'Guest',
  'EmbedUser',
] as const;

const RESERVED = new Set(RESERVED_ROLE_NAMES.map((name) => name.toLowerCase()));

/**
 * Why an action is refused: not one of Cube's, and for a permission name edgeboard's roles took
 * before they spoke Cube's actions, the actions that grant it now.
 */
function actionMessage(input: unknown): string {
  const former =
    typeof input === 'string' && Object.hasOwn(PERMISSIONS, input) ? (input as Permission) : null;
  if (!former) return "Not one of Cube's policy actions";
  const actions = PERMISSIONS[former].grantedBy;
  return actions.length === 0
    ? `Not one of Cube's policy actions: ${former} is the admin role's (isAdmin)`
    : `Not one of Cube's policy actions: ${former} is granted by ${actions.join(' + ')}`;
}

const DEPLOYMENT_ID = /^[1-9]\d{0,14}$/;

const roleName = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'Must not be empty'),
  v.maxLength(255),
  v.check(
    (name) => !RESERVED.has(name.toLowerCase()),
    `Reserved for a built-in role: ${RESERVED_ROLE_NAMES.join(', ')}`,
  ),
);

const description = v.pipe(v.string(), v.maxLength(255));

/**
 * Cube's Policy, within the resource types edgeboard grants on: a `Global` policy grants its
 * actions account-wide (its `resources` are `["All"]`); a `Deployment` policy on the deployments
 * it names (ids as strings, or `"All"`). Every action of Cube's enum is taken; those no edgeboard
 * permission needs are stored and answered without effect. Cube's per-object resource types are a 400.
 */
const policyBody = v.pipe(
  obj({
    resourceType: v.picklist(['Global', 'Deployment']),
    actions: v.pipe(
      v.array(v.picklist(CUBE_ACTIONS, (issue) => actionMessage(issue.input))),
      v.minLength(1, 'A policy grants at least one action'),
      v.maxLength(CUBE_ACTIONS.length * 2),
    ),
    resources: v.pipe(
      v.array(v.pipe(v.string(), v.maxLength(16))),
      v.minLength(1, 'A policy names at least one resource'),
      v.maxLength(ROLE_LIMITS.resourcesPerPolicy, `At most ${ROLE_LIMITS.resourcesPerPolicy} resources`),
    ),
  }),
  v.forward(
    v.check(
      (p) => p.resourceType !== 'Global' || (p.resources.length === 1 && p.resources[0] === 'All'),
      'A Global policy names ["All"]',
    ),
    ['resources'],
  ),
  v.forward(
    v.check(
      (p) =>
        p.resourceType !== 'Deployment' || p.resources.every((r) => r === 'All' || DEPLOYMENT_ID.test(r)),
      'Deployment resources are deployment ids as strings (e.g. "12"), or "All"',
    ),
    ['resources'],
  ),
);

/** The distinct deployment ids a role's policies name. */
export const deploymentIdsOf = (policies: readonly { resourceType: string; resources: string[] }[]) =>
  new Set(
    policies.flatMap((p) => (p.resourceType === 'Deployment' ? p.resources.filter((r) => r !== 'All') : [])),
  );

const policies = v.pipe(
  v.array(policyBody),
  v.maxLength(ROLE_LIMITS.policiesPerRole, `At most ${ROLE_LIMITS.policiesPerRole} policies`),
  v.check(
    (list) => deploymentIdsOf(list).size <= ROLE_LIMITS.deploymentsPerRole,
    `A role names at most ${ROLE_LIMITS.deploymentsPerRole} distinct deployments`,
  ),
);

/** Cube's RoleCreateBody. */
export const createRoleBody = obj({
  name: roleName,
  description: v.optional(v.nullable(description)),
  policies,
});

/** Cube's RoleUpdateBody: an omitted field stays; `description: null` clears it; `name` and `policies` are never null. */
export const updateRoleBody = v.optional(
  obj({
    name: v.optional(roleName),
    description: v.optional(v.nullable(description)),
    policies: v.optional(policies),
  }),
);

/** Cube's Policy as answered: `actions` are always Cube's. */
export const policySchema = v.object({
  resourceType: v.picklist(['Global', 'Deployment']),
  actions: v.array(v.picklist(CUBE_ACTIONS)),
  resources: v.array(v.string()),
});

const isCubeAction = (action: string): action is CubeAction =>
  (CUBE_ACTIONS as readonly string[]).includes(action);

/**
 * Stored policies as answered, in Cube's actions only: a role written before roles spoke Cube's
 * actions lists edgeboard's permission names, each answered as the Cube actions that grant it (a
 * permission of the admin role alone as none, and a policy left without actions not at all).
 * What such a role grants is unchanged: its stored grants compile to the same permissions.
 */
export function cubePolicies(stored: readonly RolePolicy[]): v.InferOutput<typeof policySchema>[] {
  return stored.flatMap((policy) => {
    const actions = [
      ...new Set(
        policy.actions.flatMap((action): readonly CubeAction[] => {
          if (isCubeAction(action)) return [action];
          return Object.hasOwn(PERMISSIONS, action) ? PERMISSIONS[action as Permission].grantedBy : [];
        }),
      ),
    ];
    return actions.length === 0
      ? []
      : [{ resourceType: policy.resourceType, actions, resources: policy.resources }];
  });
}

/** Cube's Role, and when it was created and last changed. */
export const roleSchema = v.object({
  id: v.number(),
  name: v.string(),
  description: v.nullable(v.string()),
  policies: v.array(policySchema),
  createdAt: v.string(),
  updatedAt: v.string(),
});

export const roleParams = v.object({ roleId: idString });
export const roleUserParams = v.object({ roleId: idString, userId: idString });

/** The answer of assign and remove: whether the user holds the role now. */
export const roleAssignmentSchema = v.object({
  roleId: v.number(),
  userId: v.number(),
  assigned: v.boolean(),
});

export type CreateRoleInput = v.InferOutput<typeof createRoleBody>;
export type UpdateRoleInput = NonNullable<v.InferOutput<typeof updateRoleBody>>;
export type PolicyInput = v.InferOutput<typeof policyBody>;
export type Role = v.InferOutput<typeof roleSchema>;
