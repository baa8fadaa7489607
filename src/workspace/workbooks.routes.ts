import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import markdown from './workbooks.routes.md';

import {
  createWorkbookBody,
  cubeListSchema,
  deploymentParams,
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
  deleteItem,
  duplicateWorkbook,
  listWorkbooks,
  presentItem,
  setFavorite,
  updateWorkbook,
  upsertWorkbookBySlug,
  viewItem,
} from './workspace.service';

const route = routeGroup({ auth: 'user', tags: ['Workspace: workbooks'], errors: [404], docs: markdown });

/** Workbooks and favourites (E3). Mounted at /api/v1/deployments/:deploymentId/workbooks. */
export const workbooksRoutes = routes(
  route.get('/', 'getWorkbooks', {
    input: { params: deploymentParams, query: workbooksQuery },
    responses: { 200: cubeListSchema(workspaceItemSchema) },
    handler: async (c, { params, query }) =>
      listWorkbooks(c.get('db'), scopeOf(c, params.deploymentId), query),
  }),
  route.put('/by-slug/:slug', 'upsertWorkbookBySlug', {
    input: { params: slugParams, body: upsertWorkbookBody },
    responses: { 200: workspaceItemSchema },
    errors: [409, 429],
    handler: async (c, { params, body }) =>
      presentItem(
        await upsertWorkbookBySlug(c.get('db'), scopeOf(c, params.deploymentId), params.slug, body, nowOf(c)),
      ),
  }),
  route.post('/', 'createWorkbook', {
    input: { params: deploymentParams, body: createWorkbookBody },
    responses: { 200: workspaceItemSchema },
    errors: [409, 429],
    handler: async (c, { params, body }) => {
      const rec = await createWorkbook(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c));
      return presentItem(rec);
    },
  }),
  route.get('/:id', 'getWorkbook', {
    input: { params: itemParams },
    responses: { 200: workspaceItemSchema },
    handler: async (c, { params }) => {
      const rec = await viewItem(
        c.get('db'),
        scopeOf(c, params.deploymentId),
        params.id,
        'WORKBOOK',
        nowOf(c),
      );
      return presentItem(rec);
    },
  }),
  route.put('/:id', 'updateWorkbook', {
    input: { params: itemParams, body: updateWorkbookBody },
    responses: { 200: workspaceItemSchema },
    errors: [409, 429],
    handler: async (c, { params, body }) => {
      const rec = await updateWorkbook(
        c.get('db'),
        scopeOf(c, params.deploymentId),
        params.id,
        body,
        nowOf(c),
      );
      return presentItem(rec);
    },
  }),
  route.delete('/:id', 'deleteWorkbook', {
    input: { params: itemParams },
    responses: { 200: deletedSchema },
    handler: async (c, { params }) =>
      deleteItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'WORKBOOK'),
  }),
  route.put('/:id/favorite', 'favoriteWorkbook', {
    input: { params: itemParams },
    responses: { 200: workspaceItemSchema },
    handler: async (c, { params }) =>
      presentItem(await setFavorite(c.get('db'), scopeOf(c, params.deploymentId), params.id, true, nowOf(c))),
  }),
  route.delete('/:id/favorite', 'unfavoriteWorkbook', {
    input: { params: itemParams },
    responses: { 200: workspaceItemSchema },
    handler: async (c, { params }) =>
      presentItem(
        await setFavorite(c.get('db'), scopeOf(c, params.deploymentId), params.id, false, nowOf(c)),
      ),
  }),
  route.post('/:id/duplicate', 'duplicateWorkbook', {
    input: { params: itemParams, body: duplicateWorkbookBody },
    responses: { 200: workspaceItemSchema },
    errors: [403, 429],
    handler: async (c, { params, body }) =>
      presentItem(
        await duplicateWorkbook(c.get('db'), scopeOf(c, params.deploymentId), params.id, body, nowOf(c)),
      ),
  }),
);
