import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import markdown from './reports.routes.md';

import {
  connectReportBody,
  createReportBody,
  cubeListSchema,
  deploymentParams,
  itemParams,
  placementBody,
  publicIdParams,
  reportSchema,
  reportsQuery,
  updateReportBody,
} from './workspace.schemas';
import {
  createReport,
  deleteItem,
  disconnectReport,
  listReports,
  presentReport,
  storePlacement,
  updateReport,
  upsertReportByPublicId,
  viewItem,
} from './workspace.service';

const route = routeGroup({ auth: 'user', tags: ['Workspace: reports'], errors: [404], docs: markdown });

/** Reports. Mounted at /api/v1/deployments/:deploymentId/reports. */
export const reportsRoutes = routes(
  route.get('/', 'getReports', {
    input: { params: deploymentParams, query: reportsQuery },
    responses: { 200: cubeListSchema(reportSchema) },
    handler: async (c, { params, query }) => listReports(c.get('db'), scopeOf(c, params.deploymentId), query),
  }),
  route.put('/by-public-id/:publicId', 'upsertReportByPublicId', {
    input: { params: publicIdParams, body: createReportBody },
    responses: { 200: reportSchema },
    errors: [409, 429],
    handler: async (c, { params, body }) => {
      const scope = scopeOf(c, params.deploymentId);
      return presentReport(await upsertReportByPublicId(c.get('db'), scope, params.publicId, body, nowOf(c)));
    },
  }),
  route.post('/', 'createReport', {
    input: { params: deploymentParams, body: createReportBody },
    responses: { 200: reportSchema },
    errors: [429],
    handler: async (c, { params, body }) => {
      const rec = await createReport(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c));
      return presentReport(rec);
    },
  }),
  route.get('/:id', 'getReport', {
    input: { params: itemParams },
    responses: { 200: reportSchema },
    handler: async (c, { params }) => {
      const rec = await viewItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'REPORT', nowOf(c));
      return presentReport(rec);
    },
  }),
  route.put('/:id', 'updateReport', {
    input: { params: itemParams, body: updateReportBody },
    responses: { 200: reportSchema },
    errors: [429],
    handler: async (c, { params, body }) => {
      const rec = await updateReport(c.get('db'), scopeOf(c, params.deploymentId), params.id, body, nowOf(c));
      return presentReport(rec);
    },
  }),
  route.delete('/:id', 'deleteReport', {
    input: { params: itemParams },
    responses: { 200: deletedSchema },
    handler: async (c, { params }) =>
      deleteItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'REPORT'),
  }),
  route.put('/:id/connect-workbook', 'connectReportToWorkbook', {
    input: { params: itemParams, body: connectReportBody },
    responses: { 200: reportSchema },
    errors: [429],
    handler: async (c, { params, body }) =>
      presentReport(await storePlacement(c.get('db'), scopeOf(c, params.deploymentId), params.id, body)),
  }),
  route.delete('/:id/connect-workbook', 'disconnectReportFromWorkbook', {
    input: { params: itemParams, body: placementBody },
    responses: { 200: reportSchema },
    handler: async (c, { params, body }) =>
      presentReport(await disconnectReport(c.get('db'), scopeOf(c, params.deploymentId), params.id, body)),
  }),
  route.put('/:id/refresh', 'refreshReport', {
    input: { params: itemParams, body: placementBody },
    responses: { 200: reportSchema },
    errors: [429],
    handler: async (c, { params, body }) =>
      presentReport(await storePlacement(c.get('db'), scopeOf(c, params.deploymentId), params.id, body)),
  }),
);
