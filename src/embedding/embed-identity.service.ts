import { createDb } from '../core/db';
import type { RequestScope } from '../core/scope';
import type { ControlFilter } from '../semantic/query/controls';
import * as repo from './embed-sessions.repository';
import { rebuildSession, sessionRevoked, withSession } from './embed-sessions.service';
import { getSession } from './session-store';
import { verifySession } from './session-token';

/** Who an embed token speaks for: what the data API evaluates data access policies against. */
export interface EmbedIdentity {
  accountId: number;
  deploymentId: number;
  groups: string[];
  userAttributes: Record<string, unknown>;
  securityContext: Record<string, unknown>;
  /** The session's locked filters: every query of the token is narrowed by them. */
  locked: ControlFilter[];
}

/**
 * The viewer behind an embed token (the session/token exchange's answer): verified without
 * storage first, then the session's state from KV (rebuilt from D1 on a miss) and its
 * revocation, side by side, from a replica.
 */
export async function embedIdentity(scope: RequestScope, token: string): Promise<EmbedIdentity> {
  const claims = await verifySession(scope.env, token, scope.now, 'token');
  const replica = createDb(scope.d1.withSession('first-unconstrained'));
  const [cached, revocations] = await Promise.all([
    getSession(scope.env.SESSIONS, claims.sessionId),
    repo.revocationStatement(replica, claims.sessionId, claims.tenant.id),
  ]);
  if (revocations.length > 0) throw sessionRevoked();
  const payload = cached ?? (await rebuildSession(withSession(scope, claims)));
  return {
    accountId: claims.accountId,
    deploymentId: claims.deploymentId,
    groups: payload.groups,
    userAttributes: payload.attributes,
    securityContext: payload.securityContext ?? {},
    locked: claims.locked ?? [],
  };
}
