import type { Context } from 'hono';
import {
  accountPrincipal,
  accountWidePrincipal,
  requireDeploymentScope,
  userPrincipal,
} from '../auth/auth.middleware';
import { nowOf } from '../auth/deployment-scope';
import type { AppEnv } from '../core/env';
import { pageQuery } from '../core/pagination';
import { idParams } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './deployments.routes.md';
import {
  advanceCreationStepBody,
  buildStatusQuery,
  buildStatusSchema,
  createDeploymentBody,
  deploymentCreatedSchema,
  deploymentDeletedSchema,
  deploymentSchema,
  deploymentSettingsSchema,
  deploymentsListSchema,
  listDeploymentsQuery,
  logsQuery,
  logsSchema,
  podsSchema,
  regionsQuery,
  regionsSchema,
  updateDeploymentBody,
  versionsSchema,
} from './deployments.schemas';
import {
  createDeployment,
  getBuildStatus,
  getDeployment,
  listDeployments,
  presentDeployment,
} from './deployments.service';
import { listRegions } from './regions';
import {
  deleteDeployment,
  emptyRuntimeList,
  listVersions,
  presentSettings,
  setCreationStep,
  updateDeployment,
} from './settings.service';

/**
 * The leading arguments of a service call about the path's deployment `id`: the database, the
 * caller's account and the id. A key scoped to other deployments gets 403 KEY_SCOPE.
 */
function theDeployment(c: Context<AppEnv>, params: { id: number }) {
  const principal = accountPrincipal(c);
  requireDeploymentScope(principal, params.id);
  return [c.get('db'), principal.account.id, params.id] as const;
}

/** edgeboard runs no pods and keeps no runtime logs: both lists are empty for a deployment the caller may read. */
const noRuntime = async (c: Context<AppEnv>, { params }: { params: { id: number } }) => {
  await getDeployment(...theDeployment(c, params));
  return emptyRuntimeList();
};

const docs = apiDocs(markdown);
const route = routeGroup({ auth: 'user', tags: ['Deployments'], docs });
const adminRoute = routeGroup({ auth: 'admin', tags: ['Deployments'], errors: [403], docs });

/** Deployments: reading needs any user of the account or a key within its scope; changing needs an admin. Mounted at /api/v1. */
export const deploymentsRoutes = routes(
  route.get('/regions', 'listRegions', {
    input: { query: regionsQuery },
    responses: { 200: regionsSchema },
    handler: async (_c, { query }) => listRegions(query),
  }),
  route.get('/deployments', 'getDeployments', {
    input: { query: listDeploymentsQuery },
    responses: { 200: deploymentsListSchema },
    handler: async (c, { query }) => {
      const principal = accountPrincipal(c);
      const scope = principal.kind === 'apiKey' ? principal.deploymentIds : null;
      return listDeployments(c.get('db'), principal.account.id, scope, query);
    },
  }),
  route.get('/deployments/:id', 'getDeployment', {
    input: { params: idParams },
    responses: { 200: deploymentSchema },
    errors: [403, 404],
    handler: async (c, { params }) => presentDeployment(await getDeployment(...theDeployment(c, params))),
  }),
  adminRoute.put('/deployments/:id', 'updateDeployment', {
    input: { params: idParams, body: updateDeploymentBody },
    responses: { 200: deploymentSettingsSchema },
    errors: [404],
    handler: async (c, { params, body }) =>
      updateDeployment(...theDeployment(c, params), body ?? {}, nowOf(c)),
  }),
  adminRoute.delete('/deployments/:id', 'deleteDeployment', {
    input: { params: idParams },
    responses: { 200: deploymentDeletedSchema },
    errors: [404],
    handler: async (c, { params }) =>
      deleteDeployment(c.get('db'), accountWidePrincipal(c).account.id, params.id),
  }),
  route.get('/deployments/:id/settings', 'getDeploymentSettings', {
    input: { params: idParams },
    responses: { 200: deploymentSettingsSchema },
    errors: [403, 404],
    handler: async (c, { params }) => presentSettings(await getDeployment(...theDeployment(c, params))),
  }),
  adminRoute.post('/deployments/:id/creation-step/advance', 'advanceCreationStep', {
    input: { params: idParams, body: advanceCreationStepBody },
    responses: { 200: deploymentCreatedSchema },
    errors: [404],
    handler: async (c, { params, body }) =>
      setCreationStep(...theDeployment(c, params), body.creationStep, nowOf(c)),
  }),
  adminRoute.post('/deployments/:id/creation-step/reset', 'resetCreationStep', {
    input: { params: idParams },
    responses: { 200: deploymentCreatedSchema },
    errors: [404],
    handler: async (c, { params }) => setCreationStep(...theDeployment(c, params), 'project', nowOf(c)),
  }),
  route.get('/deployments/:id/build-status', 'buildStatus', {
    input: { params: idParams, query: buildStatusQuery },
    responses: { 200: buildStatusSchema },
    errors: [403, 404],
    handler: async (c, { params, query }) => getBuildStatus(...theDeployment(c, params), query.branchName),
  }),
  route.get('/deployments/:id/versions', 'listDeploymentVersions', {
    input: { params: idParams, query: pageQuery },
    responses: { 200: versionsSchema },
    errors: [403, 404],
    handler: async (c, { params }) => listVersions(await getDeployment(...theDeployment(c, params))),
  }),
  route.get('/deployments/:id/pods', 'pods', {
    input: { params: idParams, query: pageQuery },
    responses: { 200: podsSchema },
    errors: [403, 404],
    handler: noRuntime,
  }),
  route.get('/deployments/:id/logs', 'logs', {
    input: { params: idParams, query: logsQuery },
    responses: { 200: logsSchema },
    errors: [403, 404],
    handler: noRuntime,
  }),
);

/** E4, on the build side: mounted at /build/api/v1. */
export const buildDeploymentsRoutes = routes(
  adminRoute.post('/deployments', 'createDeployment', {
    input: { body: createDeploymentBody },
    responses: { 200: deploymentCreatedSchema },
    handler: async (c, { body }) => {
      accountWidePrincipal(c);
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
