import { inDeployment } from '../auth/deployment-scope';
import { routeGroup, routes } from '../http/route';
import { waitUntilOf } from '../http/wait-until';
import { workbookParams } from './dashboards.schemas';
import markdown from './render.routes.md';
import { renderQuery } from './render.schemas';
import { renderWorkbookDashboard } from './render.service';

const route = routeGroup({ auth: 'user', tags: ['Dashboards'], errors: [403, 404], docs: markdown });

/** Mounted at /api/v1/deployments/:deploymentId/workbooks, beside the workbook and dashboard routes. */
export const renderRoutes = routes(
  route.get('/:id/dashboard/render', 'renderWorkbookDashboard', {
    input: { params: workbookParams, query: renderQuery },
    responses: {
      200: {
        description: 'The dashboard as a PNG image or a PDF document (`format`)',
        contentType: ['image/png', 'application/pdf'],
      },
    },
    handler: async (c, { params, query }) => {
      const rendered = await renderWorkbookDashboard(...inDeployment(c, params), params.id, query, {
        env: c.env,
        now: c.get('clock').now(),
        waitUntil: waitUntilOf(c),
      });
      return new Response(rendered.bytes as Uint8Array<ArrayBuffer>, {
        status: 200,
        headers: {
          'content-type': rendered.contentType,
          'content-disposition': `inline; filename="${rendered.filename}"`,
          'cache-control': 'private, no-store',
          'x-content-type-options': 'nosniff',
        },
      });
    },
  }),
);
