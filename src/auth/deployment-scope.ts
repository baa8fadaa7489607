import type { Context } from 'hono';
import { isoNow } from '../core/clock';
import type { AppEnv } from '../core/env';
import { accountPrincipal, requireDeploymentScope, userPrincipal } from './auth.middleware';

/**
 * Who acts where: the caller's account and user, and the deployment of the path. Every
 * repository query filters by the account through the deployment, so another account's
 * deployment (or anything in it) is a 404.
 */
export interface DeploymentScope {
  deploymentId: number;
  accountId: number;
  userId: number;
}

/**
 * The scope of a deployment-scoped route. An API key must be scoped to the deployment (403
 * KEY_SCOPE otherwise) and acts as the account's first admin (see `userPrincipal`).
 */
export function scopeOf(c: Context<AppEnv>, deploymentId: number): DeploymentScope {
  requireDeploymentScope(accountPrincipal(c), deploymentId);
  const principal = userPrincipal(c);
  return { deploymentId, accountId: principal.account.id, userId: principal.userId };
}

export const nowOf = (c: Context<AppEnv>): string => isoNow(c.get('clock'));

/**
 * The leading arguments of a deployment-scoped service call: the database and the scope of the
 * path's `deploymentId` (`listFolders(...inDeployment(c, params), query)`).
 */
export const inDeployment = (c: Context<AppEnv>, params: { deploymentId: number }) =>
  [c.get('db'), scopeOf(c, params.deploymentId)] as const;
