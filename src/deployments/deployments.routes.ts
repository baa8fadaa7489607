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
export function theDeployment(c: Context<AppEnv>, params: { id: number }) {
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
const tags = ['Deployments'];
const route = routeGroup({ auth: 'user', tags, docs });
/** Reads and changes of one deployment: a key scoped to other deployments is a 403, an unknown id a 404. */
const oneRoute = routeGroup({ auth: 'user', tags, errors: [403, 404], docs });
const adminRoute = routeGroup({ auth: 'admin', tags, errors: [403, 404], docs });
const buildRoute = routeGroup({ auth: 'admin', tags, errors: [403], docs });

/** Deployments: reading needs any user of the account or a key within its scope; changing needs an admin. Mounted at /api/v1. */
export const deploymentsRoutes = routes(
  route.get('/regions', 'listRegions', regionsSchema, {
    input: { query: regionsQuery },
    handler: async (_c, { query }) => listRegions(query),
  }),
  route.get('/deployments', 'getDeployments', deploymentsListSchema, {
    input: { query: listDeploymentsQuery },
    handler: async (c, { query }) => {
      const principal = accountPrincipal(c);
      const scope = principal.kind === 'apiKey' ? principal.deploymentIds : null;
      return listDeployments(c.get('db'), principal.account.id, scope, query);
    },
  }),
  oneRoute.get('/deployments/:id', 'getDeployment', deploymentSchema, {
    input: { params: idParams },
    handler: async (c, { params }) => presentDeployment(await getDeployment(...theDeployment(c, params))),
  }),
  adminRoute.put('/deployments/:id', 'updateDeployment', deploymentSettingsSchema, {
    input: { params: idParams, body: updateDeploymentBody },
    errors: [409],
    handler: async (c, { params, body }) => updateDeployment(...theDeployment(c, params), body, nowOf(c)),
  }),
  adminRoute.delete('/deployments/:id', 'deleteDeployment', deploymentDeletedSchema, {
    input: { params: idParams },
    handler: async (c, { params }) =>
      deleteDeployment(c.get('db'), accountWidePrincipal(c).account.id, params.id),
  }),
  oneRoute.get('/deployments/:id/settings', 'getDeploymentSettings', deploymentSettingsSchema, {
    input: { params: idParams },
    handler: async (c, { params }) => presentSettings(await getDeployment(...theDeployment(c, params))),
  }),
  adminRoute.post('/deployments/:id/creation-step/advance', 'advanceCreationStep', deploymentCreatedSchema, {
    input: { params: idParams, body: advanceCreationStepBody },
    handler: async (c, { params, body }) =>
      setCreationStep(...theDeployment(c, params), body.creationStep, nowOf(c)),
  }),
  adminRoute.post('/deployments/:id/creation-step/reset', 'resetCreationStep', deploymentCreatedSchema, {
    input: { params: idParams },
    handler: async (c, { params }) => setCreationStep(...theDeployment(c, params), 'project', nowOf(c)),
  }),
  oneRoute.get('/deployments/:id/build-status', 'buildStatus', buildStatusSchema, {
    input: { params: idParams, query: buildStatusQuery },
    handler: async (c, { params, query }) => getBuildStatus(...theDeployment(c, params), query.branchName),
  }),
  oneRoute.get('/deployments/:id/versions', 'listDeploymentVersions', versionsSchema, {
    input: { params: idParams, query: pageQuery },
    handler: async (c, { params }) => listVersions(await getDeployment(...theDeployment(c, params))),
  }),
  oneRoute.get('/deployments/:id/pods', 'pods', podsSchema, {
    input: { params: idParams, query: pageQuery },
    handler: noRuntime,
  }),
  oneRoute.get('/deployments/:id/logs', 'logs', logsSchema, {
    input: { params: idParams, query: logsQuery },
    handler: noRuntime,
  }),
);

/** E4, on the build side: mounted at /build/api/v1. */
export const buildDeploymentsRoutes = routes(
  buildRoute.post('/deployments', 'createDeployment', deploymentCreatedSchema, {
    input: { body: createDeploymentBody },
    handler: async (c, { body }) => {
      accountWidePrincipal(c);
      const actor = userPrincipal(c);
      return createDeployment(
        {
          db: c.get('db'),
          control: c.get('scope').control,
          queue: c.env.BUILDS_QUEUE,
          domain: c.env.DEPLOYMENTS_DOMAIN,
          now: nowOf(c),
        },
        actor.account.id,
        actor.userId,
        body,
      );
    },
  }),
);
