import { ApiError } from '../core/errors';
import { strictUtf8 } from '../core/text';
import { idParams, refuseCompressed } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
import { STORE_LIMITS } from '../sources/deployment-store';
import markdown from './data-store.routes.md';
import {
  importQuery,
  importResultSchema,
  tableDeletedSchema,
  tableParams,
  tablesListSchema,
} from './data-store.schemas';
import { dropTable, importTable, listTables } from './data-store.service';
import { deploymentIdOf } from './deployments.routes';

const docs = apiDocs(markdown, {
  MAX_TABLES: STORE_LIMITS.maxTables,
  MAX_COLUMNS: STORE_LIMITS.maxColumns,
});
const tags = ['Embedded data'];
const readRoute = routeGroup({ auth: 'user', scope: 'account', tags, errors: [403, 404], docs });
const writeRoute = readRoute.with({ permission: 'DataStoreManage' });

const CSV = /^text\/csv\s*(;|$)/i;

/**
 * The embedded store of a deployment (edgeboard's own operations): import CSV into tables, list
 * and drop them. Mounted at /api/v1.
 */
export const dataStoreRoutes = routes(
  writeRoute.post('/deployments/:id/data/tables/:table/import', 'importDataTable', importResultSchema, {
    input: { params: tableParams, query: importQuery },
    errors: [409, 413, 415],
    handler: async (c, { params, query }, scope) => {
      if (!CSV.test(c.req.header('content-type') ?? '')) {
        throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the CSV as the body, with content-type text/csv');
      }
      refuseCompressed(c);
      const csv = strictUtf8(await c.req.arrayBuffer());
      if (csv === null) {
        throw new ApiError('BAD_REQUEST', 'The CSV is not valid UTF-8: save it as UTF-8 and send it again');
      }
      return importTable(scope, deploymentIdOf(scope, params), {
        table: params.table,
        csv,
        mode: query.mode,
        columns: query.types,
      });
    },
  }),
  readRoute.get('/deployments/:id/data/tables', 'listDataTables', tablesListSchema, {
    input: { params: idParams },
    handler: async (_c, { params }, scope) => listTables(scope, deploymentIdOf(scope, params)),
  }),
  writeRoute.delete('/deployments/:id/data/tables/:table', 'deleteDataTable', tableDeletedSchema, {
    input: { params: tableParams },
    handler: async (_c, { params }, scope) => dropTable(scope, deploymentIdOf(scope, params), params.table),
  }),
);
