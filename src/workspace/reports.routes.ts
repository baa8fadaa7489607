import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { defineRoute, routes } from '../http/route';
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

const ADDIN_NOTE =
  'The spreadsheet add-in fields (`externalWorkbookId`, `pivotItems`, `host`, `sheetId`, `workbookName`, ' +
  '`resultLocation`, `endResultCell`, `resultChecksum`, `placementId`) and `jsonQuery` and `source` are ' +
  'stored and returned (the Report shape carries `externalWorkbookId`, `pivotItems`, `resultLocation`, ' +
  '`endResultCell`, `jsonQuery`, `source`); edgeboard has no spreadsheet add-in and runs no query, so ' +
  'they have no other effect. Null means not sent (`folderId`/`workbookId` null: the root / no workbook; ' +
  '`fillMissingRows` null: cleared).';

const tags = ['Workspace: reports'];

/** Reports. Mounted at /api/v1/deployments/:deploymentId/reports. */
export const reportsRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/',
    auth: 'user',
    summary: 'List reports',
    description:
      'Filters: `workbookId`, `folderId` (0: the root level; omitted: every folder), `externalWorkbookId`, ' +
      '`search` (a case-insensitive substring of the name, as in the workspace list). Order: `sortBy` ' +
      '(`name`, `createdAt`, `updatedAt` (default), `lastViewedAt`: the caller’s views) and `sortDirection` ' +
      '(`ASC`, `DESC` (default)). Keyset-paginated: `first` 1–100 (default 20), `after` = `pageInfo.endCursor`, ' +
      'also with `lastViewedAt`. Cube’s legacy `limit` is `first`; legacy `page` is accepted only as 1. ' +
      '`data` repeats `items` (Cube’s deprecated field).',
    tags,
    operationId: 'getReports',
    params: deploymentParams,
    query: reportsQuery,
    responses: { 200: cubeListSchema(reportSchema) },
    errors: [404],
    handler: async (c, { params, query }) => listReports(c.get('db'), scopeOf(c, params.deploymentId), query),
  }),
  defineRoute({
    method: 'put',
    path: '/by-public-id/:publicId',
    auth: 'user',
    summary: 'Create or update the report with a public id',
    description:
      '`publicId`: 12 characters of 0-9, A-Z, a-z. The report of this deployment with it gets the fields sent ' +
      '(`source` is create-only, ignored here), or a report is created with it. A public id held by a report ' +
      'of another deployment is a 409; so is a report created or deleted with it between the lookup and the ' +
      `write (message starting with \`upsert_branch_changed\`: retry). ${ADDIN_NOTE}`,
    tags,
    operationId: 'upsertReportByPublicId',
    params: publicIdParams,
    body: createReportBody,
    responses: { 200: reportSchema },
    errors: [404, 409, 429],
    handler: async (c, { params, body }) => {
      const scope = scopeOf(c, params.deploymentId);
      return presentReport(await upsertReportByPublicId(c.get('db'), scope, params.publicId, body, nowOf(c)));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/',
    auth: 'user',
    summary: 'Create a report',
    description:
      'A report with a `workbookId` is snapshotted into that workbook’s dashboard each time it is published. ' +
      '`name` defaults to "Untitled report"; `publicId` is generated when not sent (a taken one is a 409). ' +
      ADDIN_NOTE,
    tags,
    operationId: 'createReport',
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
    operationId: 'getReport',
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
      'Every field is optional; the ones sent replace the stored values. An update that sends something bumps ' +
      '`versionNumber` (= `version`); an empty body answers the report unchanged. `publicId` is write-once: ' +
      `a different one is a 400. ${ADDIN_NOTE}`,
    tags,
    operationId: 'updateReport',
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
    operationId: 'deleteReport',
    params: itemParams,
    responses: { 200: deletedSchema },
    errors: [404],
    handler: async (c, { params }) =>
      deleteItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'REPORT'),
  }),
  defineRoute({
    method: 'put',
    path: '/:id/connect-workbook',
    auth: 'user',
    summary: 'Record the spreadsheet placement of a report',
    description:
      'Stores `externalWorkbookId` and the placement fields (answered as the report’s `externalWorkbookId`, ' +
      '`resultLocation`, `endResultCell`); the report’s content, version and `updatedAt` stay. edgeboard has ' +
      'no spreadsheet add-in: this has no other effect.',
    tags,
    operationId: 'connectReportToWorkbook',
    params: itemParams,
    body: connectReportBody,
    responses: { 200: reportSchema },
    errors: [404, 429],
    handler: async (c, { params, body }) =>
      presentReport(await storePlacement(c.get('db'), scopeOf(c, params.deploymentId), params.id, body)),
  }),
  defineRoute({
    method: 'delete',
    path: '/:id/connect-workbook',
    auth: 'user',
    summary: 'Forget the spreadsheet placement of a report',
    description:
      'Clears `externalWorkbookId` and the placement fields; with `externalWorkbookId`, only when the report ' +
      'is placed there (a target matching nothing succeeds and changes nothing). No other effect.',
    tags,
    operationId: 'disconnectReportFromWorkbook',
    params: itemParams,
    body: placementBody,
    responses: { 200: reportSchema },
    errors: [404],
    handler: async (c, { params, body }) =>
      presentReport(await disconnectReport(c.get('db'), scopeOf(c, params.deploymentId), params.id, body)),
  }),
  defineRoute({
    method: 'put',
    path: '/:id/refresh',
    auth: 'user',
    summary: 'Record a spreadsheet refresh of a report',
    description:
      'edgeboard runs no query engine: the placement fields sent (e.g. `resultChecksum`) are stored and the ' +
      'report is answered unchanged otherwise.',
    tags,
    operationId: 'refreshReport',
    params: itemParams,
    body: placementBody,
    responses: { 200: reportSchema },
    errors: [404, 429],
    handler: async (c, { params, body }) =>
      presentReport(await storePlacement(c.get('db'), scopeOf(c, params.deploymentId), params.id, body)),
  }),
);
