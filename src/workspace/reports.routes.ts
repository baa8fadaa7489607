import { authenticate } from '../auth/auth.middleware';
import { nowOf, scopeOf } from '../auth/deployment-scope';
import { doc } from '../core/openapi';
import { createRouter } from '../core/router';
import { deletedSchema, validate } from '../core/validation';
import {
  createReportBody,
  deploymentParams,
  itemParams,
  reportSchema,
  updateReportBody,
} from './workspace.schemas';
import { createReport, deleteItem, presentReport, updateReport, viewItem } from './workspace.service';

const tags = ['Workspace: reports'];
const user = authenticate(['Bearer']);

/** Reports. Mounted at /api/v1/deployments/:deploymentId/reports. */
export const reportsRoutes = createRouter()
  .post(
    '/',
    doc({
      summary: 'Create a report',
      description:
        'A report with a `workbookId` is snapshotted into that workbook’s dashboard each time it is published.',
      tags,
      auth: 'bearer',
      responses: { 201: reportSchema },
      errors: [404],
    }),
    user,
    validate('param', deploymentParams),
    validate('json', createReportBody),
    async (c) => {
      const scope = scopeOf(c, c.req.valid('param').deploymentId);
      const rec = await createReport(c.get('db'), scope, c.req.valid('json'), nowOf(c));
      return c.json(presentReport(rec), 201);
    },
  )
  .get(
    '/:id',
    doc({
      summary: 'Get a report (records the caller’s view)',
      tags,
      auth: 'bearer',
      responses: { 200: reportSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const rec = await viewItem(c.get('db'), scopeOf(c, deploymentId), id, 'REPORT', nowOf(c));
      return c.json(presentReport(rec));
    },
  )
  .put(
    '/:id',
    doc({
      summary: 'Update a report',
      description:
        'Every field is optional; the ones sent replace the stored values (`fillMissingRows` and `workbookId` may be null). Each update bumps `versionNumber`.',
      tags,
      auth: 'bearer',
      responses: { 200: reportSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    validate('json', updateReportBody),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const rec = await updateReport(
        c.get('db'),
        scopeOf(c, deploymentId),
        id,
        c.req.valid('json'),
        nowOf(c),
      );
      return c.json(presentReport(rec));
    },
  )
  .delete(
    '/:id',
    doc({
      summary: 'Delete a report',
      description: 'Snapshots already published keep their copy.',
      tags,
      auth: 'bearer',
      responses: { 200: deletedSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(await deleteItem(c.get('db'), scopeOf(c, deploymentId), id, 'REPORT'));
    },
  );
