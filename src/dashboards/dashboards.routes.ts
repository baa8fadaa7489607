import { authenticate } from '../auth/auth.middleware';
import { nowOf, scopeOf } from '../auth/deployment-scope';
import { doc } from '../core/openapi';
import { pageQuery, pageSchema } from '../core/pagination';
import { createRouter } from '../core/router';
import { validate } from '../core/validation';
import { itemParams } from '../workspace/workspace.schemas';
import {
  dashboardBody,
  dashboardStateSchema,
  dashboardVersionSchema,
  publishBody,
  publishedDashboardSchema,
} from './dashboards.schemas';
import { getDashboard, listVersions, publishDashboard, updateDashboard } from './dashboards.service';

const tags = ['Dashboards'];
const user = authenticate(['Bearer']);

/** E1 and publishing. Mounted at /api/v1/deployments/:deploymentId/workbooks, beside the workbook routes. */
export const dashboardsRoutes = createRouter()
  .get(
    '/:id/dashboard',
    doc({
      summary: 'Get a workbook’s dashboard draft and published configuration',
      tags,
      auth: 'bearer',
      responses: { 200: dashboardStateSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(await getDashboard(c.get('db'), scopeOf(c, deploymentId), id));
    },
  )
  .put(
    '/:id/dashboard',
    doc({
      summary: 'Update a workbook’s dashboard draft (E1)',
      description:
        'The whole DashboardConfigInput is validated: `kind`, every widget’s `id` (unique within the ' +
        'dashboard), `type` and integer `position` {x, y ≥ 0; w, h ≥ 1}, `responsiveLayouts`, `layout`, the ' +
        'theme tree and `app` (`entry` ≤ 255 characters). Unknown fields are a 400. `dashboardDraft: null` ' +
        'clears the draft; a body without `dashboardDraft` changes nothing.',
      tags,
      auth: 'bearer',
      operationId: 'updateWorkbookDashboard',
      responses: { 200: dashboardStateSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    validate('json', dashboardBody),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(
        await updateDashboard(c.get('db'), scopeOf(c, deploymentId), id, c.req.valid('json'), nowOf(c)),
      );
    },
  )
  .post(
    '/:id/publish',
    doc({
      summary: 'Publish the workbook’s dashboard draft as a new version',
      description:
        'The publicId is created by the first publish and stays the same afterwards; every publish adds ' +
        'a version (versionNumber + 1) and freezes the workbook’s reports into `reportSnapshots`. ' +
        '`allowEmbed` and `allEmbedUsers` start false and survive republishing. Omitted `title`, ' +
        '`description` and `restrictDataDownload` keep their values (first publish: the draft’s title, ' +
        'else the workbook name; the draft’s description; false). No draft is a 400.',
      tags,
      auth: 'bearer',
      operationId: 'publishWorkbookDashboard',
      responses: { 200: publishedDashboardSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    validate('json', publishBody),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const input = c.req.valid('json') ?? {};
      return c.json(await publishDashboard(c.get('db'), scopeOf(c, deploymentId), id, input, nowOf(c)));
    },
  )
  .get(
    '/:id/dashboard/versions',
    doc({
      summary: 'List the published versions of a workbook’s dashboard, newest first',
      description:
        'Empty when the workbook was never published. Each version carries its config and report snapshots.',
      tags,
      auth: 'bearer',
      responses: { 200: pageSchema(dashboardVersionSchema) },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    validate('query', pageQuery),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(await listVersions(c.get('db'), scopeOf(c, deploymentId), id, c.req.valid('query')));
    },
  );
