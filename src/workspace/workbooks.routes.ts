import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import {
  createWorkbookBody,
  deploymentParams,
  itemParams,
  updateWorkbookBody,
  workspaceItemSchema,
} from './workspace.schemas';
import {
  createWorkbook,
  deleteItem,
  presentItem,
  setFavorite,
  updateWorkbook,
  viewItem,
} from './workspace.service';

const tags = ['Workspace: workbooks'];

/** Workbooks and favourites (E3). Mounted at /api/v1/deployments/:deploymentId/workbooks. */
export const workbooksRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/',
    auth: 'user',
    summary: 'Create a workbook',
    description:
      '`name` defaults to "Untitled workbook"; without `slug` one is derived from the name plus a random suffix.',
    tags,
    params: deploymentParams,
    body: createWorkbookBody,
    responses: { 200: workspaceItemSchema },
    errors: [404, 409, 429],
    handler: async (c, { params, body }) => {
      const rec = await createWorkbook(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c));
      return presentItem(rec);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/:id',
    auth: 'user',
    summary: 'Get a workbook (records the caller’s view)',
    tags,
    params: itemParams,
    responses: { 200: workspaceItemSchema },
    errors: [404],
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
  defineRoute({
    method: 'put',
    path: '/:id',
    auth: 'user',
    summary: 'Update a workbook (E3)',
    description:
      'Send any of `name`, `folderId` (null: the root), `meta` (replaces the stored object) and `slug`. ' +
      'A slug another workbook of the deployment holds is a 409 unless `slugTakeover` is true: then that ' +
      'workbook gets a new slug (its old one plus a random suffix) in the same transaction.',
    tags,
    operationId: 'updateWorkbook',
    params: itemParams,
    body: updateWorkbookBody,
    responses: { 200: workspaceItemSchema },
    errors: [404, 409, 429],
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
  defineRoute({
    method: 'delete',
    path: '/:id',
    auth: 'user',
    summary: 'Delete a workbook',
    description:
      'Also deletes its draft, its published dashboard and every version; the publicId then answers 404 everywhere. Its reports stay, detached (workbookId null).',
    tags,
    params: itemParams,
    responses: { 200: deletedSchema },
    errors: [404],
    handler: async (c, { params }) =>
      deleteItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'WORKBOOK'),
  }),
  defineRoute({
    method: 'put',
    path: '/:id/favorite',
    auth: 'user',
    summary: 'Mark a workbook as a favourite of the caller',
    description: 'Idempotent. Answers the workbook with `isFavorite: true`.',
    tags,
    params: itemParams,
    responses: { 200: workspaceItemSchema },
    errors: [404],
    handler: async (c, { params }) =>
      presentItem(await setFavorite(c.get('db'), scopeOf(c, params.deploymentId), params.id, true, nowOf(c))),
  }),
  defineRoute({
    method: 'delete',
    path: '/:id/favorite',
    auth: 'user',
    summary: 'Remove a workbook from the caller’s favourites',
    description: 'Idempotent. Answers the workbook with `isFavorite: false`.',
    tags,
    params: itemParams,
    responses: { 200: workspaceItemSchema },
    errors: [404],
    handler: async (c, { params }) =>
      presentItem(
        await setFavorite(c.get('db'), scopeOf(c, params.deploymentId), params.id, false, nowOf(c)),
      ),
  }),
);
