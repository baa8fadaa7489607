import { requireDeploymentScope, userPrincipal } from '../auth/auth.middleware';
import { pageQuery } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import { idParams } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './deployments.routes.md';
import {
  buildStatusQuery,
  buildStatusSchema,
  createDeploymentBody,
  deploymentCreatedSchema,
  deploymentSchema,
  deploymentsListSchema,
  listDeploymentsQuery,
  regionsQuery,
  regionsSchema,
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
  advanceCreationStepBody,
  deploymentDeletedSchema,
  deploymentSettingsSchema,
  logsQuery,
  logsSchema,
  podsSchema,
  updateDeploymentBody,
  versionsSchema,
} from './settings.schemas';
import {
  deleteDeployment,
  emptyRuntimeList,
  listVersions,
  presentSettings,
  setCreationStep,
  updateDeployment,
} from './settings.service';

/**
 * The path's deployment `id`, once the caller may act in it: a key scoped to other deployments
 * gets 403 KEY_SCOPE (another account's deployment is the service's 404). These paths name the
 * deployment `:id`, so their groups take the account's scope and pass the id on.
 */
export function deploymentIdOf(scope: AccountScope, params: { id: number }): number {
  requireDeploymentScope(scope.principal, params.id);
  return params.id;
}

/** The deployment of the path, one the caller may read (a key scoped to others: 403). */
const pathDeployment = (scope: AccountScope, params: { id: number }) =>
  getDeployment(scope, deploymentIdOf(scope, params));

/** edgeboard runs no pods and keeps no runtime logs: both lists are empty for a deployment the caller may read. */
const noRuntime = async (_c: unknown, { params }: { params: { id: number } }, scope: AccountScope) => {
  await pathDeployment(scope, params);
  return emptyRuntimeList();
};

const docs = apiDocs(markdown);
const tags = ['Deployments'];
const route = routeGroup({ auth: 'user', scope: 'account', tags, docs });
/** Reads and changes of one deployment: a key scoped to other deployments is a 403, an unknown id a 404. */
const oneRoute = routeGroup({ auth: 'user', scope: 'account', tags, errors: [403, 404], docs });
const manageRoute = oneRoute.with({ permission: 'DeploymentsManage' });
/** Creating a deployment: DeploymentsManage granted account-wide (there is no deployment yet). */
const buildRoute = route.with({ permission: 'DeploymentsManage', errors: [403] });

/** Deployments: reading needs any user of the account or a key within its scope; changing needs DeploymentsManage. Mounted at /api/v1. */
export const deploymentsRoutes = routes(
  route.get('/regions', 'listRegions', regionsSchema, {
    input: { query: regionsQuery },
    handler: async (_c, { query }) => listRegions(query),
  }),
  route.get('/deployments', 'getDeployments', deploymentsListSchema, {
    input: { query: listDeploymentsQuery },
    handler: async (_c, { query }, scope) => {
      const { principal } = scope;
      return listDeployments(scope, principal.kind === 'apiKey' ? principal.deploymentIds : null, query);
    },
  }),
  oneRoute.get('/deployments/:id', 'getDeployment', deploymentSchema, {
    input: { params: idParams },
    handler: async (_c, { params }, scope) => presentDeployment(await pathDeployment(scope, params)),
  }),
  manageRoute.put('/deployments/:id', 'updateDeployment', deploymentSettingsSchema, {
    input: { params: idParams, body: updateDeploymentBody },
    errors: [409],
    handler: async (_c, { params, body }, scope) =>
      updateDeployment(scope, deploymentIdOf(scope, params), body),
  }),
  manageRoute.delete('/deployments/:id', 'deleteDeployment', deploymentDeletedSchema, {
    input: { params: idParams },
    accountWide: true,
    handler: async (_c, { params }, scope) => deleteDeployment(scope, params.id),
  }),
  oneRoute.get('/deployments/:id/settings', 'getDeploymentSettings', deploymentSettingsSchema, {
    input: { params: idParams },
    handler: async (_c, { params }, scope) => presentSettings(await pathDeployment(scope, params)),
  }),
  manageRoute.post('/deployments/:id/creation-step/advance', 'advanceCreationStep', deploymentCreatedSchema, {
    input: { params: idParams, body: advanceCreationStepBody },
    handler: async (_c, { params, body }, scope) =>
      setCreationStep(scope, deploymentIdOf(scope, params), body.creationStep),
  }),
  manageRoute.post('/deployments/:id/creation-step/reset', 'resetCreationStep', deploymentCreatedSchema, {
    input: { params: idParams },
    handler: async (_c, { params }, scope) =>
      setCreationStep(scope, deploymentIdOf(scope, params), 'project'),
  }),
  oneRoute.get('/deployments/:id/build-status', 'buildStatus', buildStatusSchema, {
    input: { params: idParams, query: buildStatusQuery },
    handler: async (_c, { params, query }, scope) =>
      getBuildStatus(scope, deploymentIdOf(scope, params), query.branchName),
  }),
  oneRoute.get('/deployments/:id/versions', 'listDeploymentVersions', versionsSchema, {
    input: { params: idParams, query: pageQuery },
    handler: async (_c, { params }, scope) => listVersions(await pathDeployment(scope, params)),
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

/** Creating a deployment, on the build side (Cube's path): mounted at /build/api/v1. */
export const buildDeploymentsRoutes = routes(
  buildRoute.post('/deployments', 'createDeployment', deploymentCreatedSchema, {
    input: { body: createDeploymentBody },
    accountWide: true,
    handler: async (c, { body }, scope) => createDeployment(scope, userPrincipal(c).userId, body),
  }),
);
