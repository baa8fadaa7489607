import * as v from 'valibot';
import { levelOf, PERMISSION_NAMES, type Permission } from '../core/permissions';
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

/** Cube's action covering every permission the policy's resource type can grant. */
export const ALL_ACTIONS = 'All';
export const POLICY_ACTIONS = [...PERMISSION_NAMES, ALL_ACTIONS] as const;
export type PolicyAction = Permission | typeof ALL_ACTIONS;

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
 * Cube's Policy, within what edgeboard grants: a `Global` policy grants its actions account-wide
 * (its `resources` are `["All"]`); a `Deployment` policy grants deployment permissions on the
 * deployments it names (ids as strings, or `"All"`). Cube's per-object resource types are a 400.
 */
const policyBody = v.pipe(
  obj({
    resourceType: v.picklist(['Global', 'Deployment']),
    actions: v.pipe(
      v.array(v.picklist(POLICY_ACTIONS)),
      v.minLength(1, 'A policy grants at least one action'),
      v.maxLength(POLICY_ACTIONS.length * 2),
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
  v.forward(
    v.check(
      (p) =>
        p.resourceType !== 'Deployment' ||
        p.actions.every((a) => a === ALL_ACTIONS || levelOf(a) === 'deployment'),
      `Account-wide permissions (${PERMISSION_NAMES.filter((p) => levelOf(p) === 'account').join(', ')}) are granted in a Global policy`,
    ),
    ['actions'],
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

export const policySchema = v.object({
  resourceType: v.picklist(['Global', 'Deployment']),
  actions: v.array(v.picklist(POLICY_ACTIONS)),
  resources: v.array(v.string()),
});

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
