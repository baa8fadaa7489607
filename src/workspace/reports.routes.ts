import type { DeploymentScope } from '../core/scope';
import { routeGroup, routes } from '../http/route';
import { keyedItemRoutes } from './item-routes';
import markdown from './reports.routes.md';
import { connectReportBody, placementBody, reportSchema } from './reports.schemas';
import { disconnectReport, storePlacement } from './reports.service';
import { presentReport } from './workspace.present';
import { itemParams } from './workspace.schemas';

const tags = ['Workspace: reports'];
const route = routeGroup({ auth: 'user', scope: 'deployment', tags, errors: [403, 404], docs: markdown });
const editRoute = route.with({ permission: 'WorkspaceEdit' });

/** Connecting a report to a workbook and refreshing it both store the add-in's placement sent. */
const placementStored = async (
  _c: unknown,
  { params, body }: { params: { id: number }; body: Parameters<typeof storePlacement>[2] },
  scope: DeploymentScope,
) => presentReport(await storePlacement(scope, params.id, body));

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
  editRoute.put('/:id/connect-workbook', 'connectReportToWorkbook', reportSchema, {
    input: { params: itemParams, body: connectReportBody },
    errors: [429],
    handler: placementStored,
  }),
  editRoute.delete('/:id/connect-workbook', 'disconnectReportFromWorkbook', reportSchema, {
    input: { params: itemParams, body: placementBody },
    handler: async (_c, { params, body }, scope) =>
      presentReport(await disconnectReport(scope, params.id, body)),
  }),
  editRoute.put('/:id/refresh', 'refreshReport', reportSchema, {
    input: { params: itemParams, body: placementBody },
    errors: [429],
    handler: placementStored,
  }),
);
