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
import { defineRoute, routes } from '../http/route';
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

const tags = ['Deployments'];

/** The account of a request about deployment `id`: a scoped key outside it gets 403 KEY_SCOPE. */
function accountFor(c: Context<AppEnv>, id: number): number {
  const principal = accountPrincipal(c);
  requireDeploymentScope(principal, id);
  return principal.account.id;
}

/** Deployments: reading needs any user of the account or a key within its scope; changing needs an admin. Mounted at /api/v1. */
export const deploymentsRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/regions',
    auth: 'user',
    summary: 'List regions',
    description:
      "One item per region and provider (Cube's `RegionResponse`); `name` is what `region` takes when " +
      'creating a deployment of that `provider`, and `isDefault` marks the provider’s default. ' +
      '`cloudProvider` (edgeboard’s filter) narrows to one provider (`cubecloud` or `hosted` for edgeboard’s own).',
    tags,
    operationId: 'listRegions',
    query: regionsQuery,
    responses: { 200: regionsSchema },
    handler: async (_c, { query }) => listRegions(query),
  }),
  defineRoute({
    method: 'get',
    path: '/deployments',
    auth: 'user',
    summary: 'List deployments',
    description:
      'A key scoped to deployments lists only those. `creationStep` (repeatable) filters by step. ' +
      "Cube's legacy `offset` (≤ 1000) and `limit` (= `first`) page too, and the answer repeats `items` " +
      'as `data` with `pagination {total, offset, limit}` (`total` counts up to 1000).',
    tags,
    operationId: 'getDeployments',
    query: listDeploymentsQuery,
    responses: { 200: deploymentsListSchema },
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
    operationId: 'getDeployment',
    params: idParams,
    responses: { 200: deploymentSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      presentDeployment(await getDeployment(c.get('db'), accountFor(c, params.id), params.id)),
  }),
  defineRoute({
    method: 'put',
    path: '/deployments/:id',
    auth: 'admin',
    summary: 'Update a deployment',
    description:
      "Cube's `UpdateDeploymentInput`; null or absent fields stay as they are. `name`, `cloudProvider`, " +
      '`region` (one `GET /api/v1/regions` lists for the provider; a new provider without a region takes ' +
      'its default when the current one is not offered), `creationMethod` and `deployMode` change the ' +
      'deployment. The other fields are stored and answered by `GET …/settings` but have no effect: ' +
      'edgeboard runs no Cube runtime. `templateVariables` (4 levels, 16 KiB) merges key by key; ' +
      '`releaseChannelVersion` must be one `GET …/versions` lists. Answers the settings.',
    tags,
    operationId: 'updateDeployment',
    params: idParams,
    body: updateDeploymentBody,
    responses: { 200: deploymentSettingsSchema },
    errors: [403, 404],
    handler: async (c, { params, body }) =>
      updateDeployment(c.get('db'), accountFor(c, params.id), params.id, body ?? {}, nowOf(c)),
  }),
  defineRoute({
    method: 'delete',
    path: '/deployments/:id',
    auth: 'admin',
    summary: 'Delete a deployment',
    description:
      'Deletes the deployment with its project, builds, folders, workbooks, reports, dashboards and ' +
      'notifications, in one statement; the account’s stored bytes go down by what it stored. Answers ' +
      "Cube's `{success: true}` with the contract's `{id, deleted: true}`. A key scoped to deployments " +
      'gets 403 KEY_SCOPE (deleting a deployment is account-wide, like creating one).',
    tags,
    operationId: 'deleteDeployment',
    params: idParams,
    responses: { 200: deploymentDeletedSchema },
    errors: [403, 404],
    handler: async (c, { params }) => {
      return deleteDeployment(c.get('db'), accountWidePrincipal(c).account.id, params.id);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/deployments/:id/settings',
    auth: 'user',
    summary: "A deployment's settings",
    description:
      "Cube's `DeploymentSettings`. `cloudProvider` and `creationMethod` say `cubecloud` for edgeboard’s " +
      'own hosting (Cube’s enumerations have no `hosted`). Fields of a Cube runtime edgeboard does not ' +
      'have are fixed: `isCubeSqlEnabled` and `isSupportPreAggregations` false, `deployBranchName` ' +
      '`main`, `template` `single`, `releaseChannel` `latest`, unless set by `PUT`.',
    tags,
    operationId: 'getDeploymentSettings',
    params: idParams,
    responses: { 200: deploymentSettingsSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      presentSettings(await getDeployment(c.get('db'), accountFor(c, params.id), params.id)),
  }),
  defineRoute({
    method: 'post',
    path: '/deployments/:id/creation-step/advance',
    auth: 'admin',
    summary: 'Advance the creation wizard',
    description: 'Sets `creationStep` to the one given (any step).',
    tags,
    operationId: 'advanceCreationStep',
    params: idParams,
    body: advanceCreationStepBody,
    responses: { 200: deploymentCreatedSchema },
    errors: [403, 404],
    handler: async (c, { params, body }) =>
      setCreationStep(c.get('db'), accountFor(c, params.id), params.id, body.creationStep, nowOf(c)),
  }),
  defineRoute({
    method: 'post',
    path: '/deployments/:id/creation-step/reset',
    auth: 'admin',
    summary: 'Reset the creation wizard',
    description: 'Sets `creationStep` back to `project`, the first step.',
    tags,
    operationId: 'resetCreationStep',
    params: idParams,
    responses: { 200: deploymentCreatedSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      setCreationStep(c.get('db'), accountFor(c, params.id), params.id, 'project', nowOf(c)),
  }),
  defineRoute({
    method: 'get',
    path: '/deployments/:id/build-status',
    auth: 'user',
    summary: "The status of a deployment's latest build",
    description:
      "Cube's `BuildStatusResponse` with `buildJobId` (edgeboard also answers it as `buildId`). " +
      'edgeboard deployments have one branch, `main`; another `branchName` is a 404. `mode` is `production`.',
    tags,
    operationId: 'buildStatus',
    params: idParams,
    query: buildStatusQuery,
    responses: { 200: buildStatusSchema },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      getBuildStatus(c.get('db'), accountFor(c, params.id), params.id, query.branchName),
  }),
  defineRoute({
    method: 'get',
    path: '/deployments/:id/versions',
    auth: 'user',
    summary: 'Runtime versions a deployment can run',
    description:
      'edgeboard runs one runtime version for every deployment: it is listed in both channels, current ' +
      'in the channel the settings name.',
    tags,
    operationId: 'listDeploymentVersions',
    params: idParams,
    query: pageQuery,
    responses: { 200: versionsSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      listVersions(await getDeployment(c.get('db'), accountFor(c, params.id), params.id)),
  }),
  defineRoute({
    method: 'get',
    path: '/deployments/:id/pods',
    auth: 'user',
    summary: "A deployment's pods",
    description: 'Always empty: edgeboard serves deployments from its own Worker, with no pods.',
    tags,
    operationId: 'pods',
    params: idParams,
    query: pageQuery,
    responses: { 200: podsSchema },
    errors: [403, 404],
    handler: async (c, { params }) => {
      await getDeployment(c.get('db'), accountFor(c, params.id), params.id);
      return emptyRuntimeList();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/deployments/:id/logs',
    auth: 'user',
    summary: "A deployment's runtime logs",
    description:
      'Always empty: edgeboard runs no Cube runtime whose pods log. A build’s error is in `GET …/build-status`.',
    tags,
    operationId: 'logs',
    params: idParams,
    query: logsQuery,
    responses: { 200: logsSchema },
    errors: [403, 404],
    handler: async (c, { params }) => {
      await getDeployment(c.get('db'), accountFor(c, params.id), params.id);
      return emptyRuntimeList();
    },
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
      '`name` 1–255 characters, `region` ≤ 64, `targetPlatform` 1–64. `cloudProvider` and ' +
      '`creationMethod` take `cubecloud` (Cube’s name) for `hosted`; `creationMethod` and `deployMode` ' +
      'may be null (the default). A key scoped to deployments gets 403 KEY_SCOPE; a key records the ' +
      'account’s first admin as `createdBy`.',
    tags,
    operationId: 'createDeployment',
    body: createDeploymentBody,
    responses: { 200: deploymentCreatedSchema },
    errors: [403],
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
