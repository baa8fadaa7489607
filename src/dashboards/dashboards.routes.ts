import { pageQuery, pageSchema } from '../core/pagination';
import { apiDocs, routeGroup, routes } from '../http/route';
import { MAX_TENANT_SHARES } from './dashboards.limits';
import markdown from './dashboards.routes.md';
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

const docs = apiDocs(markdown, { MAX_TENANT_SHARES });
const tags = ['Dashboards'];
const route = routeGroup({ auth: 'user', scope: 'deployment', tags, errors: [403, 404], docs });
/** A dashboard's embed access (what embed tenants may open): embedding is managed with EmbeddingManage. */
const embeddingRoute = route.with({ permission: 'EmbeddingManage' });

/** A workbook's dashboard: its draft, publishing, its versions and its embed access. Mounted at /api/v1/deployments/:deploymentId/workbooks, beside the workbook routes. */
export const dashboardsRoutes = routes(
  route.get('/:id/dashboard', 'getWorkbookDashboard', dashboardStateSchema, {
    input: { params: workbookParams },
    handler: async (_c, { params }, scope) => getDashboard(scope, params.id),
  }),
  route.put('/:id/dashboard', 'updateWorkbookDashboard', dashboardStateSchema, {
    permission: 'WorkspaceEdit',
    input: { params: workbookParams, body: dashboardBody },
    errors: [429],
    handler: async (_c, { params, body }, scope) => updateDashboard(scope, params.id, body),
  }),
  route.post('/:id/publish', 'publishDashboard', publishedDashboardSchema, {
    permission: 'DashboardsPublish',
    input: { params: workbookParams, body: publishBody },
    errors: [429],
    handler: async (_c, { params, body }, scope) => publishDashboard(scope, params.id, body ?? {}),
  }),
  route.get('/:id/dashboard/versions', 'getDashboardVersions', pageSchema(dashboardVersionSummarySchema), {
    input: { params: workbookParams, query: pageQuery },
    handler: async (_c, { params, query }, scope) => listVersions(scope, params.id, query),
  }),
  route.get('/:id/dashboard/versions/:versionNumber', 'getDashboardVersion', dashboardVersionSchema, {
    input: { params: versionParams },
    handler: async (_c, { params }, scope) => getVersion(scope, params.id, params.versionNumber),
  }),
  embeddingRoute.get('/:id/embed-access', 'getEmbedAccess', embedAccessSchema, {
    input: { params: workbookParams },
    handler: async (_c, { params }, scope) => getEmbedAccess(scope, params.id),
  }),
  embeddingRoute.put('/:id/embed-access', 'updateEmbedAccess', embedAccessSchema, {
    input: { params: workbookParams, body: updateEmbedAccessBody },
    errors: [409],
    handler: async (_c, { params, body }, scope) => updateEmbedAccess(scope, params.id, body),
  }),
);
