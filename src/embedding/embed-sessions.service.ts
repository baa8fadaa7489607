import type { AttributeType } from '../../schema/embedding';
import { requireDeploymentScope, requirePlan } from '../auth/auth.middleware';
import type { AccountPrincipal, ApiKeyPrincipal } from '../auth/principal';
import type { Clock } from '../core/clock';
import { digestsEqual, randomId, sha256Hex } from '../core/crypto';
import { createDb, runBatch } from '../core/db';
import { ApiError, type ErrorDetail } from '../core/errors';
import type { Bindings } from '../env';
import * as repo from './embed-sessions.repository';
import { type AttributeValue, DEFAULT_TENANT, type GenerateSessionInput } from './embedding.schemas';
import { deleteSession, putSession, type SessionPayload, type SessionUser } from './session-store';
import { type SessionClaims, type SessionSettings, signSession, verifySession } from './session-token';

/** What the session services need from a request: the counted D1 binding, the bindings, the clock. */
export interface EmbedContext {
  d1: D1Database;
  env: Pick<
    Bindings,
    'SESSIONS' | 'SESSION_RATE_LIMITER' | 'SESSION_SIGNING_KEY' | 'SESSION_SIGNING_KEY_PREVIOUS'
  >;
  clock: Clock;
}

export const EMBED_PLANS = ['premium', 'enterprise'] as const;

// The Rate Limiting binding is a platform boundary: tests swap it to make it refuse.
let limiterOverride: RateLimit | undefined;

/** Tests only: replace SESSION_RATE_LIMITER; `undefined` restores the binding. */
export function setSessionRateLimiterForTests(limiter: RateLimit | undefined): void {
  limiterOverride = limiter;
}

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

/** The rules of E9 that need no storage: field combinations and duplicates (400). */
function checkRequest(input: GenerateSessionInput): void {
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

function authorize(read: repo.MintRead, keyHash: string, input: GenerateSessionInput) {
  // The row was found by its hash; the constant-time check keeps the comparison itself silent.
  if (!read.key || !read.account || !digestsEqual(read.key.hash, keyHash)) {
    throw new ApiError('UNAUTHORIZED', 'Unknown or revoked API key');
  }
  const account = read.account;
  // Authenticated inside the read batch, then judged by the same rules as every other principal.
  const principal: ApiKeyPrincipal = {
    kind: 'apiKey',
    account,
    keyId: read.key.id,
    deploymentIds: read.key.deploymentIds,
  };
  requirePlan(principal, EMBED_PLANS, 'Embed sessions');
  requireDeploymentScope(principal, input.deploymentId);
  if (!read.deploymentFound) throw new ApiError('NOT_FOUND', 'Deployment not found');
  if (input.creatorMode === true && !account.useCreatorMode) {
    throw new ApiError('FORBIDDEN', 'creatorMode needs the useCreatorMode flag of the account');
  }
  return account;
}

function matchesType(value: Exclude<AttributeValue, null>, type: AttributeType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'string_array':
      return Array.isArray(value) && value.every((x) => typeof x === 'string');
    case 'number_array':
      return Array.isArray(value) && value.every((x) => typeof x === 'number');
  }
}

const unique = (names: string[]) => [...new Set(names)];

type Value = Exclude<AttributeValue, null>;

/** What a mint writes (null: nothing changes) and the user state its session carries. */
interface MintPlan {
  writes: repo.MintWrites | null;
  groups: string[];
  attributes: Record<string, Value>;
  securityContext: Record<string, unknown> | null;
  profile: { email: string | null; displayName: string | null; picture: string | null };
}

/**
 * The definitions to upsert: new ones, and existing ones with a supplied, different label.
 * A stored definition of another type refuses the whole request (409) before anything else.
 */
function planDefinitions(read: repo.MintRead, input: GenerateSessionInput) {
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
        // An empty description counts as not supplied: E9 never clears one.
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
function checkNames(read: repo.MintRead, input: GenerateSessionInput, requestedGroups: string[] | undefined) {
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
    const type = types.get(a.name) as AttributeType;
    return a.value === null || matchesType(a.value, type)
      ? []
      : [{ path: `userAttributes.${i}.value`, message: `Expected a ${type} value` }];
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
  stored: repo.StoredUserState | null,
  input: GenerateSessionInput & { externalId: string },
  requestedGroups: string[] | undefined,
) {
  const set: NonNullable<repo.MintWrites['user']>['set'] = {};
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
function planMint(read: repo.MintRead, input: GenerateSessionInput, accountId: number): MintPlan {
  const definitions = planDefinitions(read, input);
  const requestedGroups = input.groups === undefined ? undefined : unique(input.groups);
  checkNames(read, input, requestedGroups);
  const writes: repo.MintWrites = {
    accountId,
    tenantName: input.embedTenantName ?? DEFAULT_TENANT,
    creatorMode: input.creatorMode === true,
    createTenant: read.tenantId === null,
    ...definitions,
  };

  if (input.externalId === undefined) {
    const internal = read.internalUser as repo.InternalUser;
    return {
      writes: writes.createTenant ? writes : null,
      groups: [],
      attributes: {},
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
  writes.user = user;
  const needsWrite =
    user !== undefined ||
    writes.createTenant ||
    writes.groupDefinitions.length > 0 ||
    writes.attributeDefinitions.length > 0;
  return { writes: needsWrite ? writes : null, ...state };
}

/**
 * E9. Reads everything in one D1 batch (authenticating the key inside it), decides in code,
 * writes what changed in at most one more batch, signs the token and puts the payload in KV.
 */
export async function generateSession(
  ctx: EmbedContext,
  apiKey: string,
  input: GenerateSessionInput,
): Promise<{ sessionId: string; expiresAt: string }> {
  checkRequest(input);
  const keyHash = await sha256Hex(apiKey);
  const limiter = limiterOverride ?? ctx.env.SESSION_RATE_LIMITER;
  if (!(await limiter.limit({ key: keyHash })).success) {
    throw new ApiError('RATE_LIMITED', 'Too many sessions minted with this API key; retry in a few seconds');
  }

  const tenantName = input.embedTenantName ?? DEFAULT_TENANT;
  const creatorMode = input.creatorMode === true;
  // The primary, not a replica: key revocation, the user limit and change detection need current rows.
  const db = createDb(ctx.d1);
  const read = await repo.readMintState(db, {
    keyHash,
    deploymentId: input.deploymentId,
    tenantName,
    creatorMode,
    externalId: input.externalId,
    internalId: input.internalId,
    groupNames: unique([...(input.groups ?? []), ...(input.groupDefinitions ?? []).map((d) => d.name)]),
    attributeNames: unique([
      ...(input.userAttributes ?? []).map((a) => a.name),
      ...(input.userAttributeDefinitions ?? []).map((d) => d.name),
    ]),
  });
  const account = authorize(read, keyHash, input);
  if (input.internalId !== undefined && !read.internalUser) {
    throw new ApiError('BAD_REQUEST', 'internalId names no user of this account', [
      { path: 'internalId', message: 'Unknown username' },
    ]);
  }
  const plan = planMint(read, input, account.id);
  if (input.externalId !== undefined && !read.externalUser) {
    if ((read.externalUserCount ?? 0) >= account.externalUserLimit)
      throw quotaExceeded(account.externalUserLimit);
  }

  const now = ctx.clock.now();
  let tenantId = read.tenantId;
  let userId = read.externalUser?.id ?? read.internalUser?.id ?? null;
  if (plan.writes) {
    const outcome = await repo.writeMintState(db, plan.writes, now.toISOString());
    if (!outcome.ok) {
      if (outcome.reason === 'quota_exceeded') throw quotaExceeded(account.externalUserLimit);
      throw new ApiError('CONFLICT', 'cannot change type');
    }
    tenantId = outcome.tenantId;
    if (input.externalId !== undefined) userId = outcome.userId;
  }

  const issuedAt = Math.floor(now.getTime() / 1000);
  const settings: SessionSettings =
    input.settings?.showDashboardChat === undefined
      ? {}
      : { showDashboardChat: input.settings.showDashboardChat };
  const claims: SessionClaims = {
    sessionId: randomId(16),
    accountId: account.id,
    deploymentId: input.deploymentId,
    user: { kind: input.externalId !== undefined ? 'external' : 'internal', id: userId as number },
    tenant: { id: tenantId as number, name: tenantName },
    creatorMode,
    settings,
    issuedAt,
    expiresAt: issuedAt + account.embedSessionTtlSeconds,
  };
  const user: SessionUser =
    input.externalId !== undefined
      ? { kind: 'external', id: userId as number, externalId: input.externalId, ...plan.profile }
      : {
          kind: 'internal',
          id: userId as number,
          username: input.internalId as string,
          email: plan.profile.email as string,
          displayName: plan.profile.displayName,
          picture: plan.profile.picture,
        };
  const payload = toPayload(claims, user, plan.groups, plan.attributes, plan.securityContext);
  const sessionId = await signSession(ctx.env, claims);
  await putSessionQuietly(ctx, payload, now);
  return { sessionId, expiresAt: payload.expiresAt };
}

const quotaExceeded = (limit: number) =>
  new ApiError('QUOTA_EXCEEDED', `The account has reached its limit of ${limit} external users`);

export function toPayload(
  claims: SessionClaims,
  user: SessionUser,
  groups: string[],
  attributes: SessionPayload['attributes'],
  securityContext: SessionPayload['securityContext'],
): SessionPayload {
  return {
    v: 1,
    sessionId: claims.sessionId,
    accountId: claims.accountId,
    deploymentId: claims.deploymentId,
    tenant: claims.tenant,
    creatorMode: claims.creatorMode,
    settings: claims.settings,
    expiresAt: new Date(claims.expiresAt * 1000).toISOString(),
    user,
    groups,
    attributes,
    securityContext,
  };
}

/**
 * A failed KV put does not fail the request: the user state is in D1 and a load that misses
 * KV rebuilds the session from it. Logged, since it costs a rebuild per load until it expires.
 */
export async function putSessionQuietly(
  ctx: EmbedContext,
  payload: SessionPayload,
  now: Date,
): Promise<void> {
  try {
    await putSession(ctx.env.SESSIONS, payload, now);
  } catch (error) {
    console.error(
      JSON.stringify({ event: 'session_kv_put_failed', sessionId: payload.sessionId, error: String(error) }),
    );
  }
}

/** Rebuilds a session KV does not have (not yet propagated, or evicted) from D1 and its claims. */
export async function rebuildSession(ctx: EmbedContext, claims: SessionClaims): Promise<SessionPayload> {
  // The primary: a user minted seconds ago in another region may not have reached a replica.
  const db = createDb(ctx.d1.withSession('first-primary'));
  const [userResult, revocation] = await runBatch(db, [
    repo.sessionUserStatement({
      sessionId: claims.sessionId,
      accountId: claims.accountId,
      tenantId: claims.tenant.id,
      creatorMode: claims.creatorMode,
      user: claims.user,
    }),
    repo.revocationStatement(claims.sessionId),
  ]);
  if ((revocation?.results.length ?? 0) > 0) throw sessionRevoked();
  const rebuilt = repo.toRebuiltUser(claims.user.kind, userResult?.results[0]);
  if (!rebuilt) throw new ApiError('SESSION_INVALID', 'The user of this embed session no longer exists');
  let payload: SessionPayload;
  if (rebuilt.kind === 'internal') {
    const u = rebuilt.user;
    payload = toPayload(
      claims,
      {
        kind: 'internal',
        id: u.id,
        username: u.username,
        email: u.email,
        displayName: u.firstName || null,
        picture: u.picture || null,
      },
      [],
      {},
      null,
    );
  } else {
    const s = rebuilt.state;
    payload = toPayload(
      claims,
      {
        kind: 'external',
        id: s.id,
        externalId: s.externalId,
        email: s.email,
        displayName: s.displayName,
        picture: s.picture,
      },
      s.groups.map((g) => g.name).sort(),
      Object.fromEntries(s.attributes.map((a) => [a.name, a.value])),
      s.securityContext === null ? null : JSON.parse(s.securityContext),
    );
  }
  await putSessionQuietly(ctx, payload, ctx.clock.now());
  return payload;
}

export const sessionRevoked = () => new ApiError('SESSION_REVOKED', 'Embed session revoked');

/**
 * Revocation: a D1 record (checked by every load, in the same statement as the dashboard,
 * and by the rebuild) plus a KV delete. `revoked` is false when there was nothing left to
 * revoke: already revoked, or already expired.
 */
export async function revokeSession(
  ctx: EmbedContext,
  principal: AccountPrincipal,
  sessionId: string,
): Promise<{ revoked: boolean }> {
  let claims: SessionClaims;
  try {
    claims = await verifySession(ctx.env, sessionId, ctx.clock.now());
  } catch (error) {
    if (error instanceof ApiError && error.code === 'SESSION_EXPIRED') return { revoked: false };
    throw new ApiError('NOT_FOUND', 'Embed session not found', [
      { path: 'sessionId', message: 'Not a session of this account' },
    ]);
  }
  if (claims.accountId !== principal.account.id) {
    throw new ApiError('NOT_FOUND', 'Embed session not found', [
      { path: 'sessionId', message: 'Not a session of this account' },
    ]);
  }
  requireDeploymentScope(principal, claims.deploymentId);
  const revoked = await repo.insertRevocation(
    createDb(ctx.d1),
    {
      sessionId: claims.sessionId,
      accountId: claims.accountId,
      expiresAt: new Date(claims.expiresAt * 1000).toISOString(),
    },
    ctx.clock.now().toISOString(),
  );
  // Deleted even when already recorded: a retry after a failed delete must still clear KV.
  await deleteSession(ctx.env.SESSIONS, claims.sessionId);
  return { revoked };
}
