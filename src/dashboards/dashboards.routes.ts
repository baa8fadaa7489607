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
      'theme tree and `app` (`entry` ≤ 255 characters). Unknown fields are a 400. `dashboardDraft: null` ' +
      'clears the draft; a body without `dashboardDraft` changes nothing.',
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
    summary: 'Publish the workbook’s dashboard draft as a new version',
    description:
      'The publicId is created by the first publish and stays the same afterwards; every publish adds ' +
      'a version (versionNumber + 1) and freezes the workbook’s reports into `reportSnapshots`. ' +
      '`allowEmbed` and `allEmbedUsers` start false and survive republishing. Omitted `title`, ' +
      '`description` and `restrictDataDownload` keep their values (first publish: the draft’s title, ' +
      'else the workbook name; the draft’s description; false). No draft is a 400. Report contents ' +
      'unchanged since an earlier publish are not stored again. A publish that would pass the account’s ' +
      'stored-bytes quota is a 429 `QUOTA_EXCEEDED` and stores nothing.',
    tags,
    operationId: 'publishWorkbookDashboard',
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
      'Summaries only (versionNumber, publishedAt, publishedBy, publicId, ids, isCurrent), `first` ≤ 100 ' +
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
);
