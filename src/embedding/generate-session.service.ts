import type { WriteGuard } from '../../schema/embedding';
import { randomId, sha256Hex } from '../core/crypto';
import { createDb } from '../core/db';
import { ApiError, QUOTA_RETRY_AFTER_SECONDS, tooManyRequests } from '../core/errors';
import type { AccountContext } from '../core/principal';
import type { RequestScope } from '../core/scope';
import { catalogueFull } from './catalogues.service';
import { asControlFilters, type GenerateSessionInput } from './embed-sessions.schemas';
import { putSessionQuietly, toPayload } from './embed-sessions.service';
import { DEFAULT_TENANT } from './embedding.schemas';
import * as repo from './generate-session.repository';
import { authorize, checkRequest, type MintPlan, planMint, unique } from './mint-plan';
import { learnRateLimit, RATE_LIMIT_RETRY_AFTER_SECONDS, rateLimitKey } from './session-rate-limit';
import type { SessionPayload, SessionUser, WriteBookmark } from './session-store';
import { type SessionClaims, type SessionSettings, signSession } from './session-token';

export { RATE_LIMIT_RETRY_AFTER_SECONDS } from './session-rate-limit';

const quotaExceeded = (limit: number) =>
  tooManyRequests(
    'QUOTA_EXCEEDED',
    `The account has reached its limit of ${limit} external users`,
    QUOTA_RETRY_AFTER_SECONDS,
  );

/** The mint's read on a replica or the primary, and the verdict on it: the account and the plan. */
async function judge(
  scope: RequestScope,
  source: 'replica' | 'primary',
  query: repo.MintQuery,
  keyHash: string,
  input: GenerateSessionInput,
): Promise<{ read: repo.MintRead; account: AccountContext; plan: MintPlan }> {
  const db = createDb(scope.d1.withSession(source === 'replica' ? 'first-unconstrained' : 'first-primary'));
  const fresh = await repo.readMintState(db, query);
  const replicaView = scope.ports.replicaView;
  const read = source === 'replica' && replicaView ? replicaView(fresh) : fresh;
  const account = authorize(read, keyHash, input);
  if (input.internalId !== undefined && !read.internalUser) {
    throw new ApiError('BAD_REQUEST', 'internalId names no user of this account', [
      { path: 'internalId', message: 'Unknown username' },
    ]);
  }
  const plan = planMint(read, input, account.id);
  if (input.externalId !== undefined && !read.externalUser && input.isEphemeral !== true) {
    if ((read.head?.externalUserCount ?? 0) >= account.externalUserLimit)
      throw quotaExceeded(account.externalUserLimit);
  }
  return { read, account, plan };
}

/** A BCP 47 tag in canonical form, or undefined when it does not parse (Cube: falls back, never fails). */
export function canonicalLocale(tag: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(tag)[0];
  } catch {
    return undefined;
  }
}

/** An IANA time zone the runtime knows, or undefined (Cube: a bad value falls back, never fails). */
export function knownTimeZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The settings a session carries: what the request set, locale and time zone only when valid. */
function sessionSettings(given: GenerateSessionInput['settings']): SessionSettings {
  if (!given) return {};
  const { locale, timezone, ...flags } = given;
  const settings: SessionSettings = { ...flags };
  const tag = locale === undefined ? undefined : canonicalLocale(locale);
  if (tag) settings.locale = tag;
  const zone = timezone === undefined ? undefined : knownTimeZone(timezone);
  if (zone) settings.timezone = zone;
  return settings;
}

/** The answer for a write batch one of the SQL guards aborted. */
function refusedBy(guard: WriteGuard, account: AccountContext, tenantName: string): ApiError {
  switch (guard) {
    case 'quota_exceeded':
      return quotaExceeded(account.externalUserLimit);
    case 'type_conflict':
      return new ApiError('CONFLICT', 'cannot change type');
    case 'catalogue_full':
      return catalogueFull(tenantName);
    case 'stale_read':
      return new ApiError('CONFLICT', 'The user changed while this session was minted; retry');
  }
}

/**
 * Mints an embed session. Reads everything in one D1 batch (authenticating the key inside it),
 * decides in code, writes what changed in at most one more batch, signs the token and puts the
 * payload in KV.
 */
export async function generateSession(
  scope: RequestScope,
  apiKey: string,
  input: GenerateSessionInput,
): Promise<{ sessionId: string; expiresAt: string }> {
  checkRequest(input);
  const keyHash = await sha256Hex(apiKey);
  const now = scope.now;
  const limiter = scope.ports.sessionRateLimiter;
  if (!(await limiter.limit({ key: rateLimitKey(keyHash, now.getTime()) })).success) {
    throw tooManyRequests(
      'RATE_LIMITED',
      'Too many sessions minted with this API key; retry in a few seconds',
      RATE_LIMIT_RETRY_AFTER_SECONDS,
    );
  }

  const tenantName = input.embedTenantName ?? DEFAULT_TENANT;
  const creatorMode = input.creatorMode === true;
  const query: repo.MintQuery = {
    keyHash,
    deploymentId: input.deploymentId,
    tenantName,
    creatorMode,
    // An ephemeral user is never read nor stored: the session starts from this request alone.
    externalId: input.isEphemeral === true ? undefined : input.externalId,
    internalId: input.internalId,
    groupNames: unique([...(input.groups ?? []), ...(input.groupDefinitions ?? []).map((d) => d.name)]),
    attributeNames: unique([
      ...(input.userAttributes ?? []).map((a) => a.name),
      ...(input.userAttributeDefinitions ?? []).map((d) => d.name),
    ]),
  };
  // Writes go through a primary session, whose bookmark after them the load resumes at.
  const writer = scope.d1.withSession('first-primary');
  const primary = createDb(writer);
  let written: WriteBookmark | undefined;
  const judgeOn = (source: 'replica' | 'primary') => judge(scope, source, query, keyHash, input);

  // A replica answers a returning user whose state is unchanged with no primary round trip.
  // A refusal is never based on a replica (a key, group or user it has not seen yet): the
  // primary re-judges. Writes go to the primary in one guarded batch; when its guard finds the
  // replica was stale, the primary re-reads and re-plans once.
  let verdict = await judgeOn('replica').catch((error) => {
    if (error instanceof ApiError) return judgeOn('primary');
    throw error;
  });
  if (verdict.read.head) learnRateLimit(keyHash, verdict.read.head.sessionRateLimit, now.getTime());
  let tenantId = verdict.read.head?.tenantId ?? null;
  let userId = verdict.read.externalUser?.id ?? verdict.read.internalUser?.id ?? null;
  for (let attempt = 0; verdict.plan.writes; attempt++) {
    const outcome = await repo.writeMintState(primary, { ...verdict.plan.writes, keyHash }, now);
    if (outcome.ok) {
      written = { shard: scope.shard, bookmark: writer.getBookmark() };
      tenantId = outcome.tenantId;
      if (input.externalId !== undefined && input.isEphemeral !== true) userId = outcome.userId;
      break;
    }
    if (outcome.reason !== 'stale_read' || attempt > 0) {
      throw refusedBy(outcome.reason, verdict.account, tenantName);
    }
    verdict = await judgeOn('primary');
    tenantId = verdict.read.head?.tenantId ?? null;
    userId = verdict.read.externalUser?.id ?? verdict.read.internalUser?.id ?? null;
  }
  const { account, plan } = verdict;

  const issuedAt = Math.floor(now.getTime() / 1000);
  const ephemeral = input.isEphemeral === true;
  if (ephemeral) userId = 0;
  const settings = sessionSettings(input.settings);
  const claims: SessionClaims = {
    sessionId: randomId(16),
    // The session names the shard it was minted on (the key's): its loads read there.
    shard: scope.shard,
    accountId: account.id,
    deploymentId: input.deploymentId,
    user: { kind: input.externalId !== undefined ? 'external' : 'internal', id: userId as number },
    tenant: { id: tenantId as number, name: tenantName },
    creatorMode,
    settings,
    ...(input.publicDashboardId !== undefined && { publicDashboardId: input.publicDashboardId }),
    ...(ephemeral && { ephemeral }),
    ...(input.lockedFilters?.length && { locked: asControlFilters(input.lockedFilters) }),
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
  const payload: SessionPayload = {
    ...toPayload(claims, user, plan.groups, plan.attributes, plan.securityContext),
    ...(written && { written }),
  };
  // Signing needs only the claims and the put only the payload: side by side.
  const [sessionId] = await Promise.all([signSession(scope.env, claims), putSessionQuietly(scope, payload)]);
  return { sessionId, expiresAt: payload.expiresAt };
}
