import { routeGroup, routes } from '../http/route';
import { favoriteRoutes, keyedItemRoutes } from './item-routes';
import markdown from './workbooks.routes.md';
import { duplicateWorkbook } from './workbooks.service';
import { presentItem } from './workspace.present';
import { duplicateWorkbookBody, itemParams, workspaceItemSchema } from './workspace.schemas';

const tags = ['Workspace: workbooks'];
const route = routeGroup({ auth: 'user', scope: 'deployment', tags, errors: [403, 404], docs: markdown });

/** Workbooks, their favourites and duplicates. Mounted at /api/v1/deployments/:deploymentId/workbooks. */
export const workbooksRoutes = routes(
  ...keyedItemRoutes(route, 'WORKBOOK', {
    upsert: 'upsertWorkbookBySlug',
    list: 'getWorkbooks',
    create: 'createWorkbook',
    get: 'getWorkbook',
    update: 'updateWorkbook',
    delete: 'deleteWorkbook',
  }),
  ...favoriteRoutes(route),
  route.post('/:id/duplicate', 'duplicateWorkbook', workspaceItemSchema, {
    permission: 'WorkspaceEdit',
    input: { params: itemParams, body: duplicateWorkbookBody },
    errors: [403, 429],
    handler: async (_c, { params, body }, scope) =>
      presentItem(await duplicateWorkbook(scope, params.id, body)),
  }),
);
