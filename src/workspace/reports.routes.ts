import { routeGroup, routes } from '../http/route';
import { keyedItemRoutes } from './item-routes';
import markdown from './reports.routes.md';
import { connectReportBody, placementBody, reportSchema } from './reports.schemas';
import { disconnectReport, storePlacement } from './reports.service';
import { presentReport } from './workspace.present';
import { itemParams } from './workspace.schemas';

const tags = ['Workspace: reports'];
const route = routeGroup({ auth: 'user', scope: 'deployment', tags, errors: [403, 404], docs: markdown });

/** Reports. Mounted at /api/v1/deployments/:deploymentId/reports. */
export const reportsRoutes = routes(
  ...keyedItemRoutes(route, 'REPORT', {
    upsert: 'upsertReportByPublicId',
    list: 'getReports',
    create: 'createReport',
    get: 'getReport',
    update: 'updateReport',
    delete: 'deleteReport',
  }),
  route.put('/:id/connect-workbook', 'connectReportToWorkbook', reportSchema, {
    permission: 'WorkspaceEdit',
    input: { params: itemParams, body: connectReportBody },
    errors: [429],
    handler: async (_c, { params, body }, scope) =>
      presentReport(await storePlacement(scope, params.id, body)),
  }),
  route.delete('/:id/connect-workbook', 'disconnectReportFromWorkbook', reportSchema, {
    permission: 'WorkspaceEdit',
    input: { params: itemParams, body: placementBody },
    handler: async (_c, { params, body }, scope) =>
      presentReport(await disconnectReport(scope, params.id, body)),
  }),
  route.put('/:id/refresh', 'refreshReport', reportSchema, {
    permission: 'WorkspaceEdit',
    input: { params: itemParams, body: placementBody },
    errors: [429],
    handler: async (_c, { params, body }, scope) =>
      presentReport(await storePlacement(scope, params.id, body)),
  }),
);
