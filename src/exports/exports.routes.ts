import { apiDocs, routeGroup, routes } from '../http/route';
import { EXPORT_LIFETIME_SECONDS, MAX_EXPORT_ATTEMPTS, MAX_EXPORTS_IN_FLIGHT } from './exports.limits';
import markdown from './exports.routes.md';
import {
  downloadQuery,
  exportJobSchema,
  exportParams,
  exportStatusSchema,
  exportsParams,
  startExportBody,
} from './exports.schemas';
import { downloadExport, exportStatus, startExport } from './exports.service';

const docs = apiDocs(markdown, {
  LIFETIME_MINUTES: EXPORT_LIFETIME_SECONDS / 60,
  MAX_IN_FLIGHT: MAX_EXPORTS_IN_FLIGHT,
  MAX_ATTEMPTS: MAX_EXPORT_ATTEMPTS,
});
const tags = ['Dashboard Exports'];
const route = routeGroup({ auth: 'user', scope: 'deployment', tags, errors: [403, 404], docs });

/** `filename*` (RFC 6266) carries the stem as given; `filename` an ASCII stand-in for old clients. */
function attachment(stem: string, extension: string): string {
  const ascii = stem.replace(/[^\x20-\x7e]/g, '_');
  return `attachment; filename="${ascii}.${extension}"; filename*=UTF-8''${encodeURIComponent(stem)}.${extension}`;
}

/** Mounted at /api/v1/deployments/:deploymentId/dashboard-exports. */
export const exportsRoutes = routes(
  route.post('/', 'startExport', exportJobSchema, {
    input: { params: exportsParams, body: startExportBody },
    errors: [409, 429],
    handler: async (_c, { body }, scope) => startExport(scope, body),
  }),
  route.get('/:jobId', 'getExportStatus', exportStatusSchema, {
    input: { params: exportParams },
    handler: async (_c, { params }, scope) => exportStatus(scope, params.jobId),
  }),
  route.get('/:jobId/download', 'downloadExport', {
    input: { params: exportParams, query: downloadQuery },
    errors: [409, 422],
    responses: {
      200: {
        description:
          'The rendered dashboard, as an attachment: a PNG image or a PDF document (the job’s `format`)',
        contentType: ['image/png', 'application/pdf'],
      },
    },
    handler: async (_c, { params, query }, scope) => {
      const file = await downloadExport(scope, params.jobId);
      return new Response(file.body, {
        status: 200,
        headers: {
          'content-type': file.contentType,
          'content-length': String(file.size),
          'content-disposition': attachment(query.filename ?? 'dashboard', file.extension),
          'cache-control': 'private, no-store',
          'x-content-type-options': 'nosniff',
        },
      });
    },
  }),
);
