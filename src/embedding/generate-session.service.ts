import type { WriteGuard } from '../../schema/embedding';
import { randomId, sha256Hex } from '../core/crypto';
import { createDb } from '../core/db';
import { ApiError } from '../core/errors';
import { catalogueFull } from './catalogues.service';
import * as repo from './embed-sessions.repository';
import { type EmbedContext, putSessionQuietly, toPayload } from './embed-sessions.service';
import { DEFAULT_TENANT, type GenerateSessionInput } from './embedding.schemas';
import { authorize, checkRequest, planMint, unique } from './mint-plan';
import { retryLater } from './retry-after';
import type { SessionUser } from './session-store';
import { type SessionClaims, type SessionSettings, signSession } from './session-token';

// The Rate Limiting binding is a platform boundary: tests swap it to make it refuse.
let limiterOverride: RateLimit | undefined;

/** Tests only: replace SESSION_RATE_LIMITER; `undefined` restores the binding. */
export function setSessionRateLimiterForTests(limiter: RateLimit | undefined): void {
  limiterOverride = limiter;
}

/** The period of SESSION_RATE_LIMITER (wrangler.toml): a refused mint may retry after it. */
export const RATE_LIMIT_RETRY_AFTER_SECONDS = 10;

/**
 * A full quota does not free itself with time (users are never removed; the operator raises
 * the limit), so its Retry-After says "not soon" rather than inviting a retry loop.
 */
export const QUOTA_RETRY_AFTER_SECONDS = 3600;

const quotaExceeded = (limit: number) =>
  retryLater(
    'QUOTA_EXCEEDED',
    `The account has reached its limit of ${limit} external users`,
    QUOTA_RETRY_AFTER_SECONDS,
  );

/** The answer for a write batch one of the SQL guards aborted. */
function refusedBy(guard: WriteGuard, externalUserLimit: number, tenantName: string): ApiError {
  switch (guard) {
    case 'quota_exceeded':
      return quotaExceeded(externalUserLimit);
    case 'type_conflict':
      return new ApiError('CONFLICT', 'cannot change type');
    case 'catalogue_full':
      return catalogueFull({ accountId: 0, tenant: tenantName });
  }
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
    throw retryLater(
      'RATE_LIMITED',
      'Too many sessions minted with this API key; retry in a few seconds',
      RATE_LIMIT_RETRY_AFTER_SECONDS,
    );
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
    if ((read.head?.externalUserCount ?? 0) >= account.externalUserLimit)
      throw quotaExceeded(account.externalUserLimit);
  }

  const now = ctx.clock.now();
  let tenantId = read.head?.tenantId ?? null;
  let userId = read.externalUser?.id ?? read.internalUser?.id ?? null;
  if (plan.writes) {
    const outcome = await repo.writeMintState(db, plan.writes, now.toISOString());
    if (!outcome.ok) throw refusedBy(outcome.reason, account.externalUserLimit, tenantName);
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
