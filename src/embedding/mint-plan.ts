import type { AttributeType } from '../../schema/embedding';
import { requireDeploymentScope, requirePlan } from '../auth/auth.middleware';
import { refuseWriteWhileMoving } from '../core/account-moving';
import { digestsEqual } from '../core/crypto';
import { ApiError, type ErrorDetail, notFound } from '../core/errors';
import type { AccountContext, ApiKeyPrincipal } from '../core/principal';
import type { GenerateSessionInput } from './embed-sessions.schemas';
import { type AttributeValue, attributeTypeProblem, DEFAULT_TENANT } from './embedding.schemas';
import type { InternalUser, MintRead, MintWrites, StoredUserState } from './generate-session.repository';

/**
 * Mint planning for generate-session, free of storage: the request's own rules, the
 * key's authorization, and the plan that compares the request with what the read batch
 * returned and keeps only the writes that change something.
 */

/** The plans whose accounts may mint embed sessions. */
export const EMBED_PLANS = ['premium', 'enterprise'] as const;

const FORBIDDEN_WITH_INTERNAL_ID = [
  'email',
  'userProfile',
  'groups',
  'userAttributes',
  'groupDefinitions',
  'userAttributeDefinitions',
  'securityContext',
] as const;

function duplicates(names: string[], path: (i: number) => string): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  names.forEach((name, i) => {
    if (seen.has(name)) details.push({ path: path(i), message: `Duplicate name "${name}"` });
    seen.add(name);
  });
  return details;
}

/** The rules of generate-session that need no storage: field combinations and duplicates (400). */
export function checkRequest(input: GenerateSessionInput): void {
  const details: ErrorDetail[] = [];
  const hasExternal = input.externalId !== undefined;
  const hasInternal = input.internalId !== undefined;
  if (hasExternal === hasInternal) {
    details.push({
      path: hasExternal ? 'internalId' : 'externalId',
      message: 'Send exactly one of externalId or internalId',
    });
  }
  if (hasInternal) {
    for (const field of FORBIDDEN_WITH_INTERNAL_ID) {
      if (input[field] !== undefined) details.push({ path: field, message: 'Not allowed with internalId' });
    }
  }
  for (const field of ['groupDefinitions', 'userAttributeDefinitions'] as const) {
    if (input[field] === undefined) continue;
    if (input.creatorMode !== true) details.push({ path: field, message: 'Needs creatorMode: true' });
    if (input.embedTenantName === undefined)
      details.push({ path: field, message: 'Needs an embedTenantName' });
  }
  if (input.tenantFields) {
    const path = 'tenantGroups';
    if (input.creatorMode !== true) details.push({ path, message: 'Needs creatorMode: true' });
    if (input.embedTenantName === undefined) details.push({ path, message: 'Needs an embedTenantName' });
  }
  if (input.isEphemeral === true && !hasExternal) {
    details.push({ path: 'isEphemeral', message: 'An ephemeral session is for an externalId' });
  }
  details.push(
    ...duplicates(
      (input.userAttributes ?? []).map((a) => a.name),
      (i) => `userAttributes.${i}.name`,
    ),
    ...duplicates(
      (input.groupDefinitions ?? []).map((d) => d.name),
      (i) => `groupDefinitions.${i}.name`,
    ),
    ...duplicates(
      (input.userAttributeDefinitions ?? []).map((d) => d.name),
      (i) => `userAttributeDefinitions.${i}.name`,
    ),
  );
  if (details.length > 0) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `Invalid request body: ${details[0]?.path} ${details[0]?.message}`,
      details,
    );
  }
}

/**
 * The key found by the read batch, judged by the same rules as every other principal: plan,
 * deployment scope, the deployment itself and creator mode. Returns the key's account.
 */
export function authorize(read: MintRead, keyHash: string, input: GenerateSessionInput): AccountContext {
  const head = read.head;
  // The row was found by its hash; the constant-time check keeps the comparison itself silent.
  if (!head || !digestsEqual(head.key.hash, keyHash)) {
    throw new ApiError('UNAUTHORIZED', 'Unknown or revoked API key');
  }
  const account = head.account;
  // A mint writes (embed users, the session): refused while the operator moves the account.
  refuseWriteWhileMoving(account);
  const principal: ApiKeyPrincipal = {
    kind: 'apiKey',
    account,
    keyId: head.key.id,
    deploymentIds: head.key.deploymentIds,
  };
  requirePlan(principal, EMBED_PLANS, 'Embed sessions');
  requireDeploymentScope(principal, input.deploymentId);
  if (!head.deploymentFound) throw notFound('Deployment');
  if (input.creatorMode === true && !account.useCreatorMode) {
    throw new ApiError('FORBIDDEN', 'creatorMode needs the useCreatorMode flag of the account');
  }
  return account;
}

export const unique = (names: string[]) => [...new Set(names)];

type Value = Exclude<AttributeValue, null>;

/** What a mint writes (null: nothing changes) and the user state its session carries. */
export interface MintPlan {
  writes: MintWrites | null;
  groups: string[];
  attributes: Record<string, Value>;
  securityContext: Record<string, unknown> | null;
  profile: { email: string | null; displayName: string | null; picture: string | null };
}

/**
 * The definitions to upsert: new ones, and existing ones with a supplied, different label.
 * A stored definition of another type refuses the whole request (409) before anything else.
 */
function planDefinitions(read: MintRead, input: GenerateSessionInput) {
  const groupDefs = input.groupDefinitions ?? [];
  const attrDefs = input.userAttributeDefinitions ?? [];
  const storedAttrs = new Map(read.attributes.map((a) => [a.name, a]));
  const conflicts: ErrorDetail[] = [];
  attrDefs.forEach((def, i) => {
    const stored = storedAttrs.get(def.name);
    if (stored && stored.type !== def.type) {
      conflicts.push({
        path: `userAttributeDefinitions.${i}.type`,
        message: `"${def.name}" is a ${stored.type}`,
      });
    }
  });
  if (conflicts.length > 0) throw new ApiError('CONFLICT', 'cannot change type', conflicts);

  const storedGroups = new Map(read.groups.map((g) => [g.name, g]));
  const changed = (given: string | undefined, stored: string | null) =>
    given !== undefined && given !== stored;
  return {
    groupDefinitions: groupDefs
      .filter((d) => {
        const stored = storedGroups.get(d.name);
        // An empty description counts as not supplied: generate-session never clears one.
        return !stored || (d.description !== '' && changed(d.description, stored.description));
      })
      .map((d) => ({ name: d.name, description: d.description ?? '' })),
    attributeDefinitions: attrDefs.filter((d) => {
      const stored = storedAttrs.get(d.name);
      return (
        !stored ||
        changed(d.displayName, stored.displayName) ||
        changed(d.defaultValue, stored.defaultValue) ||
        changed(d.description, stored.description)
      );
    }),
    definitionTypes: attrDefs.map((d) => ({ name: d.name, type: d.type })),
  };
}

/** Every group and attribute name must resolve in the session's catalogue or this request's definitions. */
function checkNames(read: MintRead, input: GenerateSessionInput, requestedGroups: string[] | undefined) {
  const knownGroups = new Set([...read.groups, ...(input.groupDefinitions ?? [])].map((g) => g.name));
  const missingGroups = (requestedGroups ?? []).filter((name) => !knownGroups.has(name));
  if (missingGroups.length > 0) {
    const where = input.creatorMode
      ? `tenant "${input.embedTenantName ?? DEFAULT_TENANT}"`
      : 'the account-wide catalogue';
    throw new ApiError('BAD_REQUEST', `Groups with names ${missingGroups.join(', ')} not found`, [
      { path: 'groups', message: `Unknown in ${where}` },
    ]);
  }
  const types = new Map<string, AttributeType>(
    [...read.attributes, ...(input.userAttributeDefinitions ?? [])].map((a) => [a.name, a.type]),
  );
  const supplied = input.userAttributes ?? [];
  const unknown: ErrorDetail[] = supplied.flatMap((a, i) =>
    types.has(a.name) ? [] : [{ path: `userAttributes.${i}.name`, message: `Unknown attribute "${a.name}"` }],
  );
  if (unknown.length > 0) throw new ApiError('BAD_REQUEST', 'User attributes not found', unknown);
  const mistyped: ErrorDetail[] = supplied.flatMap((a, i) => {
    const problem = attributeTypeProblem(a.value, types.get(a.name) as AttributeType);
    return problem === null ? [] : [{ path: `userAttributes.${i}.value`, message: problem }];
  });
  if (mistyped.length > 0) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `Invalid request body: ${mistyped[0]?.path} ${mistyped[0]?.message}`,
      mistyped,
    );
  }
}

/** The external user's writes (only what differs from the stored state) and the resulting state. */
function planExternalUser(
  stored: StoredUserState | null,
  input: GenerateSessionInput & { externalId: string },
  requestedGroups: string[] | undefined,
) {
  const set: NonNullable<MintWrites['user']>['set'] = {};
  const profile = input.userProfile ?? {};
  if (input.email !== undefined && input.email !== stored?.email) set.email = input.email;
  if (profile.displayName !== undefined && profile.displayName !== (stored?.displayName ?? null)) {
    set.displayName = profile.displayName;
  }
  if (profile.picture !== undefined && profile.picture !== (stored?.picture ?? null))
    set.picture = profile.picture;
  // Stored as the exact text sent, so an unchanged context compares equal without parsing.
  const contextText =
    input.securityContext === undefined
      ? undefined
      : input.securityContext && JSON.stringify(input.securityContext);
  if (contextText !== undefined && contextText !== (stored?.securityContext ?? null))
    set.securityContext = contextText;

  const storedGroups = (stored?.groups ?? []).map((g) => g.name);
  const groupsChanged =
    requestedGroups !== undefined &&
    (requestedGroups.length !== storedGroups.length ||
      requestedGroups.some((n) => !storedGroups.includes(n)));

  const attributes: Record<string, Value> = Object.fromEntries(
    (stored?.attributes ?? []).map((a) => [a.name, a.value]),
  );
  const values: { name: string; value: Value }[] = [];
  const clear: string[] = [];
  for (const { name, value } of input.userAttributes ?? []) {
    if (value === null) {
      if (name in attributes) clear.push(name);
      delete attributes[name];
      continue;
    }
    if (!(name in attributes) || JSON.stringify(attributes[name]) !== JSON.stringify(value))
      values.push({ name, value });
    attributes[name] = value;
  }

  const isNew = stored === null;
  const changed =
    isNew || Object.keys(set).length > 0 || groupsChanged || values.length > 0 || clear.length > 0;
  const context = contextText === undefined ? (stored?.securityContext ?? null) : contextText;
  const pick = <T>(given: T | undefined, kept: T) => (given !== undefined ? given : kept);
  return {
    user: changed
      ? {
          externalId: input.externalId,
          isNew,
          set,
          groups: groupsChanged ? requestedGroups : undefined,
          values,
          clear,
          expectedFingerprint: stored?.fingerprint ?? null,
        }
      : undefined,
    groups: [...(requestedGroups ?? storedGroups)].sort(),
    attributes,
    securityContext: context === null ? null : (JSON.parse(context) as Record<string, unknown>),
    profile: {
      email: pick(set.email, stored?.email ?? null),
      displayName: pick(set.displayName, stored?.displayName ?? null),
      picture: pick(set.picture, stored?.picture ?? null),
    },
  };
}

/**
 * Compares what the request asks for with what the read returned and keeps only the writes
 * that change something: a returning user whose state is unchanged needs none at all.
 */
export function planMint(read: MintRead, input: GenerateSessionInput, accountId: number): MintPlan {
  const definitions = planDefinitions(read, input);
  const requestedGroups = input.groups === undefined ? undefined : unique(input.groups);
  checkNames(read, input, requestedGroups);
  const writes: MintWrites = {
    accountId,
    tenantName: input.embedTenantName ?? DEFAULT_TENANT,
    creatorMode: input.creatorMode === true,
    createTenant: (read.head?.tenantId ?? null) === null,
    ...definitions,
  };

  if (input.externalId === undefined) {
    const internal = read.internalUser as InternalUser;
    // An account user: no groups nor context, the attribute values stored for them.
    return {
      writes: writes.createTenant ? writes : null,
      groups: [],
      attributes: internal.attributes,
      securityContext: null,
      profile: {
        email: internal.email,
        displayName: internal.firstName || null,
        picture: internal.picture || null,
      },
    };
  }
  const { user, ...state } = planExternalUser(
    read.externalUser,
    { ...input, externalId: input.externalId },
    requestedGroups,
  );
  // An ephemeral user is never stored: the session carries the state this request gives.
  writes.user = input.isEphemeral === true ? undefined : user;
  const needsWrite =
    writes.user !== undefined ||
    writes.createTenant ||
    writes.groupDefinitions.length > 0 ||
    writes.attributeDefinitions.length > 0;
  return { writes: needsWrite ? writes : null, ...state };
}
