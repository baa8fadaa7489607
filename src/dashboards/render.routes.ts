import { scopeOf } from '../auth/deployment-scope';
import { defineRoute, routes } from '../http/route';
import { workbookParams } from './dashboards.schemas';
import { renderQuery } from './render.schemas';
import { renderWorkbookDashboard } from './render.service';

/** Mounted at /api/v1/deployments/:deploymentId/workbooks, beside the workbook and dashboard routes. */
export const renderRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/:id/dashboard/render',
    auth: 'user',
    summary: 'Render a workbook’s dashboard as a PNG or PDF',
    description:
      'The image a notification would send (`version=published`, the default: the current published ' +
      'version with its report snapshots) or a preview of the draft (`version=draft`, with the ' +
      'workbook’s reports as they are now). `format` png (default) or pdf; `width` in CSS pixels ' +
      '(320–2560, default 1280) picks the layout breakpoint. A PDF has A4-landscape pages that break ' +
      'between widgets. 404 when the workbook has no such version.',
    tags: ['Dashboards'],
    operationId: 'renderWorkbookDashboard',
    params: workbookParams,
    query: renderQuery,
    responses: {
      200: { description: 'The image (image/png or application/pdf)', contentType: 'image/png' },
    },
    errors: [404],
    handler: async (c, { params, query }) => {
      const rendered = await renderWorkbookDashboard(
        c.get('db'),
        scopeOf(c, params.deploymentId),
        params.id,
        query,
      );
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
