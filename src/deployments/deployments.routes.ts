import type { Context } from 'hono';
import {
  accountPrincipal,
  requireAccountWide,
  requireDeploymentScope,
  userPrincipal,
} from '../auth/auth.middleware';
import { nowOf } from '../auth/deployment-scope';
import { pageQuery, pageSchema } from '../core/pagination';
import { idParams } from '../core/validation';
import type { AppEnv } from '../env';
import { defineRoute, routes } from '../http/route';
import {
  buildStatusSchema,
  createDeploymentBody,
  deploymentCreatedSchema,
  deploymentSchema,
  regionsQuery,
  regionsSchema,
} from './deployments.schemas';
import {
  createDeployment,
  getBuildStatus,
  getDeployment,
  listDeployments,
  listRegions,
  presentDeployment,
} from './deployments.service';

const tags = ['Deployments'];

/** The account of a request about deployment `id`: a scoped key outside it gets 403 KEY_SCOPE. */
function accountFor(c: Context<AppEnv>, id: number): number {
  const principal = accountPrincipal(c);
  requireDeploymentScope(principal, id);
  return principal.account.id;
}

/** Reading deployments: every user of the account, and API keys within their scope. Mounted at /api/v1. */
export const deploymentsRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/regions',
    auth: 'user',
    summary: 'List the regions of each cloud provider',
    tags,
    query: regionsQuery,
    responses: { 200: regionsSchema },
    handler: async (_c, { query }) => listRegions(query.cloudProvider),
  }),
  defineRoute({
    method: 'get',
    path: '/deployments',
    auth: 'user',
    summary: 'List deployments',
    description: 'A key scoped to deployments lists only those.',
    tags,
    query: pageQuery,
    responses: { 200: pageSchema(deploymentSchema) },
    handler: async (c, { query }) => {
      const principal = accountPrincipal(c);
      const scope = principal.kind === 'apiKey' ? principal.deploymentIds : null;
      return listDeployments(c.get('db'), principal.account.id, scope, query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/deployments/:id',
    auth: 'user',
    summary: 'Get a deployment',
    tags,
    params: idParams,
    responses: { 200: deploymentSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      presentDeployment(await getDeployment(c.get('db'), accountFor(c, params.id), params.id)),
  }),
  defineRoute({
    method: 'get',
    path: '/deployments/:id/build-status',
    auth: 'user',
    summary: "The status of a deployment's latest build",
    tags,
    params: idParams,
    responses: { 200: buildStatusSchema },
    errors: [403, 404],
    handler: async (c, { params }) => getBuildStatus(c.get('db'), accountFor(c, params.id), params.id),
  }),
);

/** E4, on the build side: mounted at /build/api/v1. */
export const buildDeploymentsRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/deployments',
    auth: 'admin',
    summary: 'Create a deployment with an empty starter project and trigger its first build (E4)',
    description:
      '`name` 1–255 characters, `region` ≤ 64, `targetPlatform` 1–64. A key scoped to deployments gets ' +
      '403 KEY_SCOPE; a key records the account’s first admin as `createdBy`.',
    tags,
    operationId: 'createDeployment',
    body: createDeploymentBody,
    responses: { 200: deploymentCreatedSchema },
    errors: [403],
    handler: async (c, { body }) => {
      requireAccountWide(accountPrincipal(c));
      const actor = userPrincipal(c);
      return createDeployment(
        { db: c.get('db'), queue: c.env.BUILDS_QUEUE, domain: c.env.DEPLOYMENTS_DOMAIN, now: nowOf(c) },
        actor.account.id,
        actor.userId,
        body,
      );
    },
  }),
);
