import { accountForwardKey } from '../../schema/moves';
import { requireDeploymentScope } from '../auth/auth.middleware';
import { followForward } from '../auth/forwards';
import { createDb, runBatch } from '../core/db';
import type { Db } from '../core/env';
import { ApiError } from '../core/errors';
import type { AccountScope, RequestScope } from '../core/scope';
import * as repo from './embed-sessions.repository';
import type { InternalUser, StoredUserState } from './embedding.rows';
import {
  deleteSession,
  getSession,
  putSession,
  type SessionPayload,
  type SessionUser,
} from './session-store';
import { type SessionClaims, signSession, verifySession } from './session-token';

/**
 * A request made with an embed session whose token verified: the request's scope plus the
 * session's claims. Embed routes authenticate inside their services (the session is a signed
 * token, checked before any storage is read), so this scope is built there, not by a route group.
 */
export interface EmbedSessionScope extends RequestScope {
  session: SessionClaims;
}

/** The scope of a request acting with the session `claims` name. */
export const withSession = (scope: RequestScope, claims: SessionClaims): EmbedSessionScope => ({
  ...scope,
  session: claims,
});

/**
 * How long after a session (or token) was signed its loads read the KV payload before D1, to
 * resume at the bookmark of the mint's writes. A replica trails its primary by far less
 * (typically under a second); past this, a load reads KV and D1 side by side, unconstrained.
 */
export const BOOKMARK_WINDOW_SECONDS = 60;

/**
 * The replica session of a load: resumed at the mint's write bookmark when the payload carries
 * one of the request's shard (a bookmark of another database is ignored), else unconstrained.
 */
function loadSession(scope: RequestScope, payload: SessionPayload | null): D1DatabaseSession {
  const written = payload?.written;
  const resume = written?.bookmark && written.shard === scope.shard ? written.bookmark : null;
  return scope.d1.withSession(resume ?? 'first-unconstrained');
}

/**
 * A load's KV payload (null on a miss) and its replica session with `read` run on it. Within
 * BOOKMARK_WINDOW_SECONDS of the claims' signing, the payload comes first and the session resumes
 * at its bookmark (no added round trip; the D1 read waits for KV); later, both run side by side.
 */
export async function readWithPayload<T>(
  scope: EmbedSessionScope,
  read: (replica: Db) => Promise<T>,
): Promise<{ cached: SessionPayload | null; replica: Db; result: T }> {
  const claims = scope.session;
  if (scope.now.getTime() / 1000 - claims.issuedAt < BOOKMARK_WINDOW_SECONDS) {
    const cached = await getSession(scope.env.SESSIONS, claims.sessionId);
    const replica = createDb(loadSession(scope, cached));
    return { cached, replica, result: await read(replica) };
  }
  const replica = createDb(loadSession(scope, null));
  const [cached, result] = await Promise.all([
    getSession(scope.env.SESSIONS, claims.sessionId),
    read(replica),
  ]);
  return { cached, replica, result };
}

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
export async function putSessionQuietly(scope: RequestScope, payload: SessionPayload): Promise<void> {
  try {
    await putSession(scope.env.SESSIONS, payload, scope.now);
  } catch (error) {
    console.error(
      JSON.stringify({ event: 'session_kv_put_failed', sessionId: payload.sessionId, error: String(error) }),
    );
  }
}

/** An internal user as a session shows it: firstName and picture, empty ones as null. */
export const internalViewer = (u: InternalUser): SessionUser => ({
  kind: 'internal',
  id: u.id,
  username: u.username,
  email: u.email,
  displayName: u.firstName || null,
  picture: u.picture || null,
});

const pickProfile = (s: StoredUserState) => ({
  id: s.id,
  email: s.email,
  displayName: s.displayName,
  picture: s.picture,
});

/** Rebuilds a session KV does not have (not yet propagated, or evicted) from D1 and its claims. */
export async function rebuildSession(scope: EmbedSessionScope): Promise<SessionPayload> {
  const claims = scope.session;
  // An ephemeral user's state lives only in KV (its user was never stored): nothing to rebuild from.
  if (claims.ephemeral) {
    throw new ApiError('SESSION_INVALID', 'This ephemeral embed session is not available here yet; retry');
  }
  // The primary: a user minted seconds ago in another region may not have reached a replica.
  const db = createDb(scope.d1.withSession('first-primary'));
  const [userResult, revocation] = await runBatch(db, [
    repo.sessionUserStatement(db, {
      sessionId: claims.sessionId,
      accountId: claims.accountId,
      tenantId: claims.tenant.id,
      creatorMode: claims.creatorMode,
      user: claims.user,
    }),
    repo.revocationStatement(db, claims.sessionId, claims.tenant.id),
  ]);
  if ((revocation?.results.length ?? 0) > 0) throw sessionRevoked();
  const rebuilt = repo.toRebuiltUser(claims.user.kind, userResult?.results[0]);
  if (!rebuilt) throw new ApiError('SESSION_INVALID', 'The user of this embed session no longer exists');
  const payload =
    rebuilt.kind === 'internal'
      ? toPayload(claims, internalViewer(rebuilt.user), [], rebuilt.user.attributes, null)
      : toPayload(
          claims,
          { kind: 'external', ...pickProfile(rebuilt.state), externalId: rebuilt.state.externalId },
          rebuilt.state.groups.map((g) => g.name).sort(),
          Object.fromEntries(rebuilt.state.attributes.map((a) => [a.name, a.value])),
          rebuilt.state.securityContext === null ? null : JSON.parse(rebuilt.state.securityContext),
        );
  await putSessionQuietly(scope, payload);
  return payload;
}

export const sessionRevoked = () => new ApiError('SESSION_REVOKED', 'Embed session revoked');

/**
 * Revocation: a D1 record (checked by every load, in the same statement as the dashboard,
 * and by the rebuild) plus a KV delete. `revoked` is false when there was nothing left to
 * revoke: already revoked, or already expired.
 */
export async function revokeSession(scope: AccountScope, sessionId: string): Promise<{ revoked: boolean }> {
  let claims: SessionClaims;
  try {
    claims = await verifySession(scope.env, sessionId, scope.now);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'SESSION_EXPIRED') return { revoked: false };
    throw new ApiError('NOT_FOUND', 'Embed session not found', [
      { path: 'sessionId', message: 'Not a session of this account' },
    ]);
  }
  if (claims.accountId !== scope.accountId) {
    throw new ApiError('NOT_FOUND', 'Embed session not found', [
      { path: 'sessionId', message: 'Not a session of this account' },
    ]);
  }
  requireDeploymentScope(scope.principal, claims.deploymentId);
  const revoked = await repo.insertRevocation(scope, {
    sessionId: claims.sessionId,
    expiresAt: new Date(claims.expiresAt * 1000),
  });
  // Deleted even when already recorded: a retry after a failed delete must still clear KV.
  await deleteSession(scope.env.SESSIONS, claims.sessionId);
  return { revoked };
}

/** How long an exchanged embed token lives (never past its session's expiry). */
export const EMBED_TOKEN_TTL_SECONDS = 300;

/**
 * Cube's session/token exchange: the session id (the credential; no other auth) for a short-lived
 * embed token that loads dashboards as `Authorization: Bearer <token>`. The token is the session's
 * own claims signed as a token: same session id, so revoking the session revokes every token
 * (each load checks the revocation as for the session). Reusable, unlike Cube's single-use
 * exchange: the session id itself loads dashboards until it expires, so consuming it here
 * would add a D1 write per exchange and no protection.
 */
export async function exchangeSession(scope: RequestScope, sessionId: string): Promise<{ token: string }> {
  const now = scope.now;
  const claims = await verifySession(scope.env, sessionId, now);
  // The replica, like every load: a revocation reaches it within its replication lag.
  const db = createDb(scope.d1.withSession('first-unconstrained'));
  const [revoked, here] = await runBatch(db, [
    repo.revocationStatement(db, claims.sessionId, claims.tenant.id),
    repo.accountHereStatement(db, claims.accountId),
  ]);
  // An account moved away keeps its revocations on its new shard: the exchange runs there.
  const home = here?.results[0] as { moved_to: number | null } | undefined;
  if (!home || home.moved_to !== null) {
    await followForward(db, { kind: 'account', key: accountForwardKey(claims.accountId) });
  }
  if ((revoked?.results.length ?? 0) > 0) throw sessionRevoked();
  const issuedAt = Math.floor(now.getTime() / 1000);
  const token = await signSession(
    scope.env,
    { ...claims, issuedAt, expiresAt: Math.min(claims.expiresAt, issuedAt + EMBED_TOKEN_TTL_SECONDS) },
    'token',
  );
  return { token };
}

/**
 * The cron's purge: revocation records (of sessions and of deleted tenants) outlive nothing
 * once the sessions they name have expired. Answers how many it dropped.
 */
export function purgeExpiredRevocations(scope: RequestScope): Promise<number> {
  return repo.purgeExpiredRevocations(scope);
}
