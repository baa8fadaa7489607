import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import {
  createReportBody,
  deploymentParams,
  itemParams,
  reportSchema,
  updateReportBody,
} from './workspace.schemas';
import { createReport, deleteItem, presentReport, updateReport, viewItem } from './workspace.service';

const tags = ['Workspace: reports'];

/** Reports. Mounted at /api/v1/deployments/:deploymentId/reports. */
export const reportsRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/',
    auth: 'user',
    summary: 'Create a report',
    description:
      'A report with a `workbookId` is snapshotted into that workbook’s dashboard each time it is published.',
    tags,
    params: deploymentParams,
    body: createReportBody,
    responses: { 200: reportSchema },
    errors: [404, 429],
    handler: async (c, { params, body }) => {
      const rec = await createReport(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c));
      return presentReport(rec);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/:id',
    auth: 'user',
    summary: 'Get a report (records the caller’s view)',
    tags,
    params: itemParams,
    responses: { 200: reportSchema },
    errors: [404],
    handler: async (c, { params }) => {
      const rec = await viewItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'REPORT', nowOf(c));
      return presentReport(rec);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/:id',
    auth: 'user',
    summary: 'Update a report',
    description:
      'Every field is optional; the ones sent replace the stored values (`fillMissingRows` and `workbookId` may be null). Each update bumps `versionNumber`.',
    tags,
    params: itemParams,
    body: updateReportBody,
    responses: { 200: reportSchema },
    errors: [404, 429],
    handler: async (c, { params, body }) => {
      const rec = await updateReport(c.get('db'), scopeOf(c, params.deploymentId), params.id, body, nowOf(c));
      return presentReport(rec);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/:id',
    auth: 'user',
    summary: 'Delete a report',
    description: 'Snapshots already published keep their copy.',
    tags,
    params: itemParams,
    responses: { 200: deletedSchema },
    errors: [404],
    handler: async (c, { params }) =>
      deleteItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'REPORT'),
  }),
);
