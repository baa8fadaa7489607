import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { UserRole } from '../../schema/accounts';
import { refuseWritesWhileMoving } from '../core/account-moving';
import { digestsEqual, secretsEqual, sha256Hex } from '../core/crypto';
import type { AppEnv } from '../core/env';
import { ApiError } from '../core/errors';
import {
  adminOnly,
  allows,
  type Grants,
  grantedBy,
  MEMBER_GRANTS,
  mergeGrants,
  type Permission,
} from '../core/permissions';
import type { AccountPrincipal, ActingUser, Principal, UserPrincipal } from '../core/principal';
import { findAccessToken, findApiKey } from './auth.repository';
import { API_KEY_PREFIX } from './credentials';

export type Scheme = 'Bearer' | 'Api-Key';

const unauthorized = (message: string) => new ApiError('UNAUTHORIZED', message);

export function parseAuthorization(c: Context): { scheme: string; credential: string } {
  const header = c.req.header('authorization');
  if (!header) throw unauthorized('Missing Authorization header');
  const match = /^([A-Za-z-]+) +(\S+)\s*$/.exec(header);
  if (!match) throw unauthorized('Malformed Authorization header');
  return { scheme: match[1] as string, credential: match[2] as string };
}

/**
 * Which credential a header carries, from its scheme and the secret's prefix alone (no round
 * trip): `Api-Key <key>`, or `Bearer <key>` as Cube's clients send keys; any other Bearer
 * secret is an access token.
 */
function kindOf(scheme: string, credential: string): 'accessToken' | 'apiKey' | null {
  const name = scheme.toLowerCase();
  if (name === 'api-key') return 'apiKey';
  if (name !== 'bearer') return null;
  return credential.startsWith(API_KEY_PREFIX) ? 'apiKey' : 'accessToken';
}

/**
 * `Bearer` routes (what an access token may call) take API keys too: a key acts as the
 * account's admin there, within its deployment scope. `Api-Key`-only routes refuse access tokens.
 */
function accepts(schemes: Scheme[], kind: 'accessToken' | 'apiKey'): boolean {
  return kind === 'apiKey' || schemes.includes('Bearer');
}

async function resolve(c: Context<AppEnv>, schemes: Scheme[]): Promise<AccountPrincipal> {
  const { scheme, credential } = parseAuthorization(c);
  const kind = kindOf(scheme, credential);
  if (!kind || !accepts(schemes, kind))
    throw unauthorized(`This endpoint takes ${schemes.map((s) => `Authorization: ${s} <…>`).join(' or ')}`);
  const hash = await sha256Hex(credential);
  const d1 = c.get('d1');
  if (kind === 'accessToken') {
    const token = await findAccessToken(d1, hash);
    // The row was found by its hash; the constant-time check keeps the comparison itself silent.
    if (!token || !digestsEqual(token.tokenHash, hash)) throw unauthorized('Unknown or revoked access token');
    if (token.deactivated) throw unauthorized('This user is deactivated');
    return {
      kind: 'user',
      account: token.account,
      userId: token.userId,
      role: token.role,
      tokenId: token.tokenId,
      permissions: permissionsOf(token.role, token.roleGrants),
    };
  }
  const key = await findApiKey(d1, hash);
  if (!key || !digestsEqual(key.keyHash, hash)) throw unauthorized('Unknown or revoked API key');
  return {
    kind: 'apiKey',
    account: key.account,
    keyId: key.keyId,
    deploymentIds: key.deploymentIds,
    actingUserId: key.actingUserId,
  };
}

/**
 * Resolves the principal from `Authorization` with one of `schemes`; `role: 'admin'` also
 * demands an admin user (an API key counts as the account's admin where keys are accepted).
 */
export const authenticate = (schemes: Scheme[], options: { role?: 'admin' } = {}) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const principal = await resolve(c, schemes);
    refuseWritesWhileMoving(principal.account, c.req.method);
    if (options.role === 'admin') requireAdmin(principal);
    c.set('principal', principal);
    await next();
  });

/**
 * The API key of a request whose route checks the key inside its own query (generate-session):
 * `Api-Key <key>` or `Bearer <key>`, told apart from an access token by the key's prefix.
 */
export function apiKeyCredential(c: Context): string {
  const { scheme, credential } = parseAuthorization(c);
  if (kindOf(scheme, credential) !== 'apiKey')
    throw unauthorized('This endpoint takes Authorization: Api-Key <…> or Bearer <API key>');
  return credential;
}

/** The operator's provisioning API: `Authorization: Bearer <ADMIN_TOKEN>`. */
export const authenticateOperator = createMiddleware<AppEnv>(async (c, next) => {
  const { scheme, credential } = parseAuthorization(c);
  const expected = c.env.ADMIN_TOKEN;
  if (scheme.toLowerCase() !== 'bearer' || !expected || !(await secretsEqual(credential, expected))) {
    throw unauthorized('Unknown operator token');
  }
  c.set('principal', { kind: 'operator' });
  await next();
});

// ---- The one place that decides what a principal may do ----

/**
 * A user's permissions: every one for an admin; else the union of their custom roles' grants,
 * or, while they hold no custom role, what members could always do.
 */
function permissionsOf(role: UserRole, roleGrants: Grants[]): UserPrincipal['permissions'] {
  if (role === 'admin') return 'all';
  return roleGrants.length > 0 ? mergeGrants(roleGrants) : MEMBER_GRANTS;
}

export function requireAdmin(principal: Principal | ActingUser): void {
  if (principal.kind === 'user' && principal.role !== 'admin') {
    throw new ApiError('FORBIDDEN', 'This action needs the admin role');
  }
}

/**
 * What a user lacking `permission` is told: the permission and the Cube actions a custom role
 * grants it with, or the admin role for a permission no action grants.
 */
export function permissionNeed(permission: Permission): string {
  if (adminOnly(permission))
    return `This action needs the ${permission} permission, which only the admin role holds`;
  const actions = grantedBy(permission).join(' + ');
  return `This action needs the ${permission} permission (a custom role grants it with Cube's actions ${actions})`;
}

/**
 * A user must hold `permission` on `deploymentId` (null: on no particular deployment, which
 * only an account-wide grant covers). API keys act as the account's admin and hold every one.
 */
export function requirePermission(
  principal: Principal,
  permission: Permission,
  deploymentId: number | null,
): void {
  if (principal.kind !== 'user' || principal.permissions === 'all') return;
  if (!allows(principal.permissions, permission, deploymentId)) {
    throw new ApiError('FORBIDDEN', permissionNeed(permission));
  }
}

/** What a route needs beyond a credential: a permission, or the built-in admin role. */
export type Requirement = Permission | 'admin';

/** Where a route's `authorize` finds the deployment it acts on, and the user who may act on themselves. */
export interface AuthorizeAt {
  /** The path parameter holding the deployment id; null for routes of no deployment. */
  deploymentParam: string | null;
  /** The path parameter naming a user: a user acting on themselves needs nothing more. */
  selfParam?: string;
}

/** A path parameter as an id, or null when it is not one (the route's validation answers that 400). */
function idParam(c: Context<AppEnv>, name: string | null | undefined): number | null {
  const raw = name ? c.req.param(name) : undefined;
  return raw !== undefined && /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
}

/**
 * Checks a route's requirement right after its credential, before its input is read, so a
 * caller without the right learns nothing from validation (403 first, as the admin role always
 * answered).
 */
export const authorize = (requirement: Requirement, at: AuthorizeAt) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const principal = c.get('principal');
    const self = principal.kind === 'user' && idParam(c, at.selfParam) === principal.userId;
    if (!self) {
      if (requirement === 'admin') requireAdmin(principal);
      else requirePermission(principal, requirement, idParam(c, at.deploymentParam));
    }
    await next();
  });

export function accountPrincipal(c: Context<AppEnv>): AccountPrincipal {
  const principal = c.get('principal');
  if (principal.kind === 'operator') throw new ApiError('FORBIDDEN', 'Not available to the operator token');
  return principal;
}

/**
 * The user a route records as the actor. For an API key: the account's first admin (keys act
 * as the account's admin); a key of an account without any admin cannot author anything.
 */
export function userPrincipal(c: Context<AppEnv>): ActingUser {
  const principal = accountPrincipal(c);
  if (principal.kind === 'user') return principal;
  if (principal.actingUserId == null)
    throw new ApiError('FORBIDDEN', 'This account has no admin user for the API key to act as');
  return { kind: 'apiKey', account: principal.account, userId: principal.actingUserId, role: 'admin' };
}

/** Account-wide actions (users, keys, new deployments): a key scoped to deployments gets 403 KEY_SCOPE. */
export function requireAccountWide(principal: Principal): void {
  if (principal.kind === 'apiKey' && principal.deploymentIds !== null) {
    throw new ApiError(
      'KEY_SCOPE',
      'This API key is scoped to deployments; account-wide actions need an unscoped key',
    );
  }
}

/** The caller's principal for an account-wide action: a key scoped to deployments gets 403 KEY_SCOPE. */
export function accountWidePrincipal(c: Context<AppEnv>): AccountPrincipal {
  const principal = accountPrincipal(c);
  requireAccountWide(principal);
  return principal;
}

/** A scoped key acting outside its deployments is a 403 (the id is the caller's own, so no probing). */
export function requireDeploymentScope(principal: AccountPrincipal, deploymentId: number): void {
  if (
    principal.kind === 'apiKey' &&
    principal.deploymentIds !== null &&
    !principal.deploymentIds.includes(deploymentId)
  ) {
    throw new ApiError('KEY_SCOPE', `This API key is not scoped to deployment ${deploymentId}`);
  }
}

export function requirePlan(principal: AccountPrincipal, plans: readonly string[], feature: string): void {
  if (!plans.includes(principal.account.plan)) {
    throw new ApiError('PLAN_NOT_ALLOWED', `${feature} need the ${plans.join(' or ')} plan`);
  }
}
