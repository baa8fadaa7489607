import { routeGroup, routes } from '../http/route';
import { workbookParams } from './dashboards.schemas';
import markdown from './render.routes.md';
import { renderQuery } from './render.schemas';
import { renderWorkbookDashboard } from './render.service';

const tags = ['Dashboards'];
const route = routeGroup({ auth: 'user', scope: 'deployment', tags, errors: [403, 404], docs: markdown });

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
    handler: async (_c, { params, query }, scope) => {
      const rendered = await renderWorkbookDashboard(scope, params.id, query);
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
