import { inDeployment, nowOf } from '../auth/deployment-scope';
import { pageQuery, pageSchema } from '../core/pagination';
import { apiDocs, routeGroup, routes } from '../http/route';
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

const docs = apiDocs(markdown);
const route = routeGroup({ auth: 'user', tags: ['Dashboards'], errors: [403, 404], docs });
const adminRoute = routeGroup({ auth: 'admin', tags: ['Dashboards'], errors: [403, 404], docs });

/** E1 and publishing. Mounted at /api/v1/deployments/:deploymentId/workbooks, beside the workbook routes. */
export const dashboardsRoutes = routes(
  route.get('/:id/dashboard', 'getWorkbookDashboard', dashboardStateSchema, {
    input: { params: workbookParams },
    handler: async (c, { params }) => getDashboard(...inDeployment(c, params), params.id),
  }),
  route.put('/:id/dashboard', 'updateWorkbookDashboard', dashboardStateSchema, {
    input: { params: workbookParams, body: dashboardBody },
    errors: [429],
    handler: async (c, { params, body }) =>
      updateDashboard(...inDeployment(c, params), params.id, body, nowOf(c)),
  }),
  route.post('/:id/publish', 'publishDashboard', publishedDashboardSchema, {
    input: { params: workbookParams, body: publishBody },
    errors: [429],
    handler: async (c, { params, body }) =>
      publishDashboard(...inDeployment(c, params), params.id, body ?? {}, nowOf(c)),
  }),
  route.get('/:id/dashboard/versions', 'getDashboardVersions', pageSchema(dashboardVersionSummarySchema), {
    input: { params: workbookParams, query: pageQuery },
    handler: async (c, { params, query }) => listVersions(...inDeployment(c, params), params.id, query),
  }),
  route.get('/:id/dashboard/versions/:versionNumber', 'getDashboardVersion', dashboardVersionSchema, {
    input: { params: versionParams },
    handler: async (c, { params }) => getVersion(...inDeployment(c, params), params.id, params.versionNumber),
  }),
  adminRoute.get('/:id/embed-access', 'getEmbedAccess', embedAccessSchema, {
    input: { params: workbookParams },
    handler: async (c, { params }) => getEmbedAccess(...inDeployment(c, params), params.id),
  }),
  adminRoute.put('/:id/embed-access', 'updateEmbedAccess', embedAccessSchema, {
    input: { params: workbookParams, body: updateEmbedAccessBody },
    handler: async (c, { params, body }) =>
      updateEmbedAccess(...inDeployment(c, params), params.id, body, nowOf(c)),
  }),
);
