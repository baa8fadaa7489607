import type { Context } from 'hono';
import { userPrincipal } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import type { AppEnv } from '../env';
import type { Scope } from './workspace.repository';

/**
 * Who acts where: the caller's account and user, and the deployment of the path. Every
 * repository query filters by the account through the deployment, so another account's
 * deployment (or an item in it) is a 404.
 */
export function scopeOf(c: Context<AppEnv>, deploymentId: number): Scope {
  const principal = userPrincipal(c);
  return { deploymentId, accountId: principal.account.id, userId: principal.userId };
}

export const nowOf = (c: Context<AppEnv>): string => isoNow(c.get('clock'));
