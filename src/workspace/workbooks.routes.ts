import { inDeployment, nowOf } from '../auth/deployment-scope';
import { routeGroup, routes } from '../http/route';
import { deleteRoute, favoriteRoutes, itemRoutes } from './item-routes';
import markdown from './workbooks.routes.md';
import {
  createWorkbookBody,
  duplicateWorkbookBody,
  itemParams,
  slugParams,
  updateWorkbookBody,
  upsertWorkbookBody,
  workbooksQuery,
  workspaceItemSchema,
} from './workspace.schemas';
import {
  createWorkbook,
  duplicateWorkbook,
  listWorkbooks,
  presentItem,
  updateWorkbook,
  upsertWorkbookBySlug,
} from './workspace.service';

const route = routeGroup({ auth: 'user', tags: ['Workspace: workbooks'], errors: [404], docs: markdown });

/** Workbooks and favourites (E3). Mounted at /api/v1/deployments/:deploymentId/workbooks. */
export const workbooksRoutes = routes(
  ...itemRoutes(route, 'WORKBOOK', workspaceItemSchema, presentItem, {
    list: { query: workbooksQuery, run: listWorkbooks },
    create: { body: createWorkbookBody, run: createWorkbook, errors: [409, 429] },
    update: { body: updateWorkbookBody, run: updateWorkbook, errors: [409, 429] },
  }),
  route.put('/by-slug/:slug', 'upsertWorkbookBySlug', {
    input: { params: slugParams, body: upsertWorkbookBody },
    responses: { 200: workspaceItemSchema },
    errors: [409, 429],
    handler: async (c, { params, body }) =>
      presentItem(await upsertWorkbookBySlug(...inDeployment(c, params), params.slug, body, nowOf(c))),
  }),
  deleteRoute(route, 'WORKBOOK'),
  ...favoriteRoutes(route),
  route.post('/:id/duplicate', 'duplicateWorkbook', {
    input: { params: itemParams, body: duplicateWorkbookBody },
    responses: { 200: workspaceItemSchema },
    errors: [403, 429],
    handler: async (c, { params, body }) =>
      presentItem(await duplicateWorkbook(...inDeployment(c, params), params.id, body, nowOf(c))),
  }),
);
