import { inDeployment, nowOf } from '../auth/deployment-scope';
import { routeGroup, routes } from '../http/route';
import { deleteRoute, itemRoutes } from './item-routes';
import markdown from './reports.routes.md';
import {
  connectReportBody,
  createReportBody,
  itemParams,
  placementBody,
  publicIdParams,
  reportSchema,
  reportsQuery,
  updateReportBody,
} from './workspace.schemas';
import {
  createReport,
  disconnectReport,
  listReports,
  presentReport,
  storePlacement,
  updateReport,
  upsertReportByPublicId,
} from './workspace.service';

const route = routeGroup({ auth: 'user', tags: ['Workspace: reports'], errors: [404], docs: markdown });

/** Reports. Mounted at /api/v1/deployments/:deploymentId/reports. */
export const reportsRoutes = routes(
  ...itemRoutes(route, 'REPORT', reportSchema, presentReport, {
    list: { query: reportsQuery, run: listReports },
    create: { body: createReportBody, run: createReport, errors: [429] },
    update: { body: updateReportBody, run: updateReport, errors: [429] },
  }),
  route.put('/by-public-id/:publicId', 'upsertReportByPublicId', {
    input: { params: publicIdParams, body: createReportBody },
    responses: { 200: reportSchema },
    errors: [409, 429],
    handler: async (c, { params, body }) =>
      presentReport(
        await upsertReportByPublicId(...inDeployment(c, params), params.publicId, body, nowOf(c)),
      ),
  }),
  deleteRoute(route, 'REPORT'),
  route.put('/:id/connect-workbook', 'connectReportToWorkbook', {
    input: { params: itemParams, body: connectReportBody },
    responses: { 200: reportSchema },
    errors: [429],
    handler: async (c, { params, body }) =>
      presentReport(await storePlacement(...inDeployment(c, params), params.id, body)),
  }),
  route.delete('/:id/connect-workbook', 'disconnectReportFromWorkbook', {
    input: { params: itemParams, body: placementBody },
    responses: { 200: reportSchema },
    handler: async (c, { params, body }) =>
      presentReport(await disconnectReport(...inDeployment(c, params), params.id, body)),
  }),
  route.put('/:id/refresh', 'refreshReport', {
    input: { params: itemParams, body: placementBody },
    responses: { 200: reportSchema },
    errors: [429],
    handler: async (c, { params, body }) =>
      presentReport(await storePlacement(...inDeployment(c, params), params.id, body)),
  }),
);
