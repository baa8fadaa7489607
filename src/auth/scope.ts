import type { Context } from 'hono';
import type { AppEnv } from '../core/env';
import type { AccountScope, DeploymentScope, RequestScope } from '../core/scope';
import { accountPrincipal, requireDeploymentScope, userPrincipal } from './auth.middleware';

/** The request's scope as the app's first middleware resolved it (no principal yet). */
export const requestScope = (c: Context<AppEnv>): RequestScope => c.get('scope');

/** The scope of an account's user or API key (the operator token gets 403). */
export function accountScope(c: Context<AppEnv>): AccountScope {
  const principal = accountPrincipal(c);
  return { ...requestScope(c), accountId: principal.account.id, account: principal.account, principal };
}

/**
 * The scope of a deployment-scoped request. An API key must be scoped to the deployment (403
 * KEY_SCOPE otherwise) and acts as the account's first admin (see `userPrincipal`).
 */
export function deploymentScope(c: Context<AppEnv>, deploymentId: number): DeploymentScope {
  const scope = accountScope(c);
  requireDeploymentScope(scope.principal, deploymentId);
  return { ...scope, deploymentId, userId: userPrincipal(c).userId };
}

/** What a route group resolves for each of its handlers. */
export type ScopeKind = 'request' | 'account' | 'deployment';
export type ScopeOf<K extends ScopeKind> = K extends 'deployment'
  ? DeploymentScope
  : K extends 'account'
    ? AccountScope
    : RequestScope;

/** Resolves a route's scope once, after auth and validation (`deployment` reads the path's deploymentId). */
export function resolveScope(kind: ScopeKind, c: Context<AppEnv>, params: unknown): RequestScope {
  if (kind === 'request') return requestScope(c);
  if (kind === 'account') return accountScope(c);
  const deploymentId = (params as { deploymentId?: unknown } | undefined)?.deploymentId;
  if (typeof deploymentId !== 'number')
    throw new Error(`a deployment-scoped route needs a numeric :deploymentId`);
  return deploymentScope(c, deploymentId);
}
