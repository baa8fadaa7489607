import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { nameHolder } from '../control/claims.repository';
import type { AppEnv } from '../core/env';
import { ApiError } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { timed } from '../core/timings';
import { looksLikeApiToken, verifyApiToken } from '../data-api/api-token';
import { findDeploymentBySlug } from '../data-api/data.repository';
import { type DataScope, dataScope } from '../data-api/data-scope';
import { embedIdentity } from '../embedding/embed-identity.service';
import type { ControlFilter } from '../semantic/query/controls';
import type { Identity } from '../semantic/query/policies';

const MISSING =
  'Authorization header is required: a Cube API token (POST /api/v1/deployments/{id}/token) or an embed token';

/** `Authorization: <token>` (Cube's clients) or `Authorization: Bearer <token>`. */
function tokenOf(c: Context<AppEnv>): string {
  const header = c.req.header('authorization')?.trim();
  if (!header) throw new ApiError('UNAUTHORIZED', MISSING);
  const space = header.indexOf(' ');
  if (space < 0) return header;
  if (header.slice(0, space).toLowerCase() !== 'bearer') {
    throw new ApiError('UNAUTHORIZED', 'Authorization must be <token> or Bearer <token>');
  }
  return header.slice(space + 1).trim();
}

/** Whether the caller sent a deployment's Cube API token (not an embed viewer's token); unverified. */
export const sentApiToken = (c: Context<AppEnv>): boolean => looksLikeApiToken(tokenOf(c));

/** Only the header's presence is checked up front; the handler verifies it (it needs D1/KV). */
export const cubeApiCredential = createMiddleware<AppEnv>(async (c, next) => {
  tokenOf(c);
  await next();
});

const stringList = (x: unknown): string[] =>
  Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : [];

const record = (x: unknown): Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : {};

/**
 * A deployment token's caller: its security context, with groups and user attributes where
 * Cube Cloud's tokens carry them (`cubeCloud.groups`, `cubeCloud.userAttributes`).
 */
function tokenIdentity(securityContext: Record<string, unknown>): Identity {
  const cubeCloud = record(securityContext.cubeCloud);
  return {
    groups: stringList(cubeCloud.groups),
    userAttributes: record(cubeCloud.userAttributes),
    securityContext,
  };
}

/**
 * The slug of a deployment URL's host (`<slug>.<DEPLOYMENTS_DOMAIN>`), or null on any other
 * host (the API's own base URL, where the token names its deployment).
 */
function slugOfHost(c: Context<AppEnv>): string | null {
  const host = (c.req.header('host') ?? new URL(c.req.url).host).toLowerCase().replace(/:\d+$/, '');
  const suffix = `.${c.env.DEPLOYMENTS_DOMAIN.toLowerCase()}`;
  if (!host.endsWith(suffix)) return null;
  const slug = host.slice(0, -suffix.length);
  return /^[a-z0-9-]{1,100}$/.test(slug) ? slug : null;
}

/**
 * Who asks about which deployment, in the request's scope: the token says, and a deployment
 * URL's host must agree.
 */
export async function dataScopeOf(c: Context<AppEnv>, scope: RequestScope): Promise<DataScope> {
  const token = tokenOf(c);
  const { now } = scope;
  let caller: { accountId: number; deploymentId: number; identity: Identity; locked?: ControlFilter[] };
  if (looksLikeApiToken(token)) {
    const claims = await timed(scope.timings, 'token', () => verifyApiToken(scope.env, token, now));
    caller = { ...claims, identity: tokenIdentity(claims.securityContext) };
  } else {
    const viewer = await embedIdentity(scope, token);
    caller = {
      accountId: viewer.accountId,
      deploymentId: viewer.deploymentId,
      identity: {
        groups: viewer.groups,
        userAttributes: viewer.userAttributes,
        securityContext: viewer.securityContext,
      },
      locked: viewer.locked,
    };
  }
  const slug = slugOfHost(c);
  if (slug !== null) {
    const deployment = await findDeploymentBySlug(scope.db, slug);
    // Not on the token's shard: another account's (claimed in the control database) or nobody's.
    if (!deployment && (await nameHolder(scope.control, 'deployment-slug', slug)) === null) {
      throw new ApiError('NOT_FOUND', 'Deployment not found');
    }
    if (deployment?.id !== caller.deploymentId) {
      throw new ApiError('FORBIDDEN', 'This token is for another deployment');
    }
  }
  return dataScope(
    { ...scope, accountId: caller.accountId, deploymentId: caller.deploymentId },
    caller.identity,
    { locked: caller.locked },
  );
}
