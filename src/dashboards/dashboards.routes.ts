import { nowOf, scopeOf } from '../auth/deployment-scope';
import { pageQuery, pageSchema } from '../core/pagination';
import { defineRoute, routes } from '../http/route';
import {
  dashboardBody,
  dashboardStateSchema,
  dashboardVersionSchema,
  dashboardVersionSummarySchema,
  publishBody,
  publishedDashboardSchema,
  versionParams,
  workbookParams,
} from './dashboards.schemas';
import {
  getDashboard,
  getVersion,
  listVersions,
  publishDashboard,
  updateDashboard,
} from './dashboards.service';
import { embedAccessSchema, updateEmbedAccessBody } from './embed-access.schemas';
import { getEmbedAccess, updateEmbedAccess } from './embed-access.service';

const tags = ['Dashboards'];

/** E1 and publishing. Mounted at /api/v1/deployments/:deploymentId/workbooks, beside the workbook routes. */
export const dashboardsRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/:id/dashboard',
    auth: 'user',
    summary: 'Get a workbook’s dashboard draft and published configuration',
    tags,
    params: workbookParams,
    responses: { 200: dashboardStateSchema },
    errors: [404],
    handler: async (c, { params }) => getDashboard(c.get('db'), scopeOf(c, params.deploymentId), params.id),
  }),
  defineRoute({
    method: 'put',
    path: '/:id/dashboard',
    auth: 'user',
    summary: 'Update a workbook’s dashboard draft (E1)',
    description:
      'The whole DashboardConfigInput is validated: `kind`, every widget’s `id` (unique within the ' +
      'dashboard), `type` and integer `position` {x, y ≥ 0; w, h ≥ 1}, `responsiveLayouts`, `layout`, the ' +
      'theme tree and `app` (`entry` ≤ 255 characters). Widget types are Cube’s (CHART, TEXT, FILTER, AI, ' +
      'TIME_GRAIN, FIELD, PARENT, SPACER, DIVIDER, CONTAINER) plus edgeboard’s TABS_CONTAINER. A widget ' +
      'without `id` (or with `id: null`) gets `<type>-<n>` on save (lower case, `_` as `-`, the smallest ' +
      'n not taken in the dashboard): the answer carries it. Unknown fields are a 400. ' +
      '`dashboardDraft: null` clears the draft; a body without `dashboardDraft` changes nothing.',
    tags,
    operationId: 'updateWorkbookDashboard',
    params: workbookParams,
    body: dashboardBody,
    responses: { 200: dashboardStateSchema },
    errors: [404, 429],
    handler: async (c, { params, body }) =>
      updateDashboard(c.get('db'), scopeOf(c, params.deploymentId), params.id, body, nowOf(c)),
  }),
  defineRoute({
    method: 'post',
    path: '/:id/publish',
    auth: 'user',
    summary: 'Publish the workbook’s dashboard as a new version',
    description:
      'Cube’s PublishDashboardInput. `config` (a DashboardConfigInput) is what gets published; without ' +
      'it the stored draft is (no `config` and no draft: 400). `workbookId` may be omitted (the path ' +
      'names the workbook); one naming another workbook is a 400. `dashboardId`, when sent, must be ' +
      'this workbook’s published dashboard (else 404). `allowEmbed` sets the customer-signed embedding ' +
      'flag; omitted or null keeps it (false on the first publish). The publicId is created by the ' +
      'first publish and stays the same afterwards; every publish adds a version (versionNumber + 1, ' +
      '`status` `published`) and freezes the workbook’s reports into `reportSnapshots`. ' +
      '`allEmbedUsers` survives republishing. Omitted `title`, `description` and ' +
      '`restrictDataDownload` keep their values (first publish: the published config’s title, else ' +
      'the workbook name; its description; false). A widget sent without `id` gets one (see E1). ' +
      'Report contents unchanged since an earlier publish are not stored again. A publish that would ' +
      'pass the account’s stored-bytes quota is a 429 `QUOTA_EXCEEDED` and stores nothing.',
    tags,
    operationId: 'publishDashboard',
    params: workbookParams,
    body: publishBody,
    responses: { 200: publishedDashboardSchema },
    errors: [404, 429],
    handler: async (c, { params, body }) =>
      publishDashboard(c.get('db'), scopeOf(c, params.deploymentId), params.id, body ?? {}, nowOf(c)),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/dashboard/versions',
    auth: 'user',
    summary: 'List the published versions of a workbook’s dashboard, newest first',
    description:
      'Summaries only (versionNumber, publishedAt, publishedBy, publicId, ids, isCurrent, `status`: ' +
      '`published` for the current version, `archived` for earlier ones), `first` ≤ 100 ' +
      '(default 20); empty when the workbook was never published. One version’s config and report ' +
      'snapshots: `GET …/dashboard/versions/{versionNumber}`.',
    tags,
    params: workbookParams,
    query: pageQuery,
    responses: { 200: pageSchema(dashboardVersionSummarySchema) },
    errors: [404],
    handler: async (c, { params, query }) =>
      listVersions(c.get('db'), scopeOf(c, params.deploymentId), params.id, query),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/dashboard/versions/:versionNumber',
    auth: 'user',
    summary: 'Get one published version of a workbook’s dashboard, with its config and report snapshots',
    description: 'A version number the dashboard never had is a 404.',
    tags,
    params: versionParams,
    responses: { 200: dashboardVersionSchema },
    errors: [404],
    handler: async (c, { params }) =>
      getVersion(c.get('db'), scopeOf(c, params.deploymentId), params.id, params.versionNumber),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/embed-access',
    auth: 'admin',
    summary: 'Get who may load the workbook’s published dashboard embedded',
    description:
      'Cube’s EmbedAccessResponse from edgeboard’s two flags: `allowEmbed`, and `allEmbedUsers` ' +
      '(`enabled`, `action` read|none, `groupId` always null). `tenants` is always empty: edgeboard ' +
      'has no per-tenant shares. A workbook never published answers both flags false.',
    tags,
    operationId: 'getEmbedAccess',
    params: workbookParams,
    responses: { 200: embedAccessSchema },
    errors: [403, 404],
    handler: async (c, { params }) => getEmbedAccess(c.get('db'), scopeOf(c, params.deploymentId), params.id),
  }),
  defineRoute({
    method: 'put',
    path: '/:id/embed-access',
    auth: 'admin',
    summary: 'Change who may load the workbook’s published dashboard embedded',
    description:
      'Cube’s UpdateEmbedAccessInput: `allEmbedUsers: true` with `action` `read` shares the dashboard ' +
      'with every embed user, `none` unshares it; `allowEmbed` sets the embedding flag (alone or with ' +
      'the former). Nothing to change is a 400, as is a workbook without a published dashboard. ' +
      '`embedTenantName` is a 400: edgeboard has no per-tenant shares (deliberate difference).',
    tags,
    operationId: 'updateEmbedAccess',
    params: workbookParams,
    body: updateEmbedAccessBody,
    responses: { 200: embedAccessSchema },
    errors: [403, 404],
    handler: async (c, { params, body }) =>
      updateEmbedAccess(c.get('db'), scopeOf(c, params.deploymentId), params.id, body, nowOf(c)),
  }),
);
