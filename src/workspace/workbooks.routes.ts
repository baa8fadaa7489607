import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { defineRoute, routes } from '../http/route';
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

const tags = ['Workspace: workbooks'];

/** Workbooks and favourites (E3). Mounted at /api/v1/deployments/:deploymentId/workbooks. */
export const workbooksRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/',
    auth: 'user',
    summary: 'List workbooks',
    description:
      'Every workbook of the deployment, or with `folderId` one folder’s (0: the root level’s), most recently ' +
      'updated first; keyset-paginated: `first` 1–100 (default 20), `after` = `pageInfo.endCursor`. `data` ' +
      'repeats `items` (Cube’s deprecated field).',
    tags,
    operationId: 'getWorkbooks',
    params: deploymentParams,
    query: workbooksQuery,
    responses: { 200: cubeListSchema(workspaceItemSchema) },
    errors: [404],
    handler: async (c, { params, query }) =>
      listWorkbooks(c.get('db'), scopeOf(c, params.deploymentId), query),
  }),
  defineRoute({
    method: 'put',
    path: '/by-slug/:slug',
    auth: 'user',
    summary: 'Create or update the workbook with a slug',
    description:
      'The path’s slug is trimmed and lower-cased, then must be 1–100 characters of a-z, 0-9 and "-". ' +
      'When a workbook of the deployment has it, the fields sent change (null or omitted: unchanged; ' +
      '`folderId: null` moves to the root) and `meta` is merged into the stored object as an RFC 7396 ' +
      'merge patch (a key set to null is removed); otherwise a workbook is created with this slug. ' +
      'Re-applying is a no-op. A workbook created or deleted with this slug between the lookup and the ' +
      'write is a 409 whose message starts with `upsert_branch_changed` (retry).',
    tags,
    operationId: 'upsertWorkbookBySlug',
    params: slugParams,
    body: upsertWorkbookBody,
    responses: { 200: workspaceItemSchema },
    errors: [404, 409, 429],
    handler: async (c, { params, body }) =>
      presentItem(
        await upsertWorkbookBySlug(c.get('db'), scopeOf(c, params.deploymentId), params.slug, body, nowOf(c)),
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/',
    auth: 'user',
    summary: 'Create a workbook',
    description:
      '`name` defaults to "Untitled workbook"; without `slug` one is derived from the name plus a random suffix. ' +
      'Null means not sent (`folderId: null`: the root).',
    tags,
    operationId: 'createWorkbook',
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
    operationId: 'getWorkbook',
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
      'Send any of `name`, `folderId` (null: the root), `meta` (replaces the stored object) and `slug`; null ' +
      'or omitted leaves a field unchanged, and an empty body answers the workbook unchanged. ' +
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
    operationId: 'deleteWorkbook',
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
    operationId: 'favoriteWorkbook',
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
    operationId: 'unfavoriteWorkbook',
    params: itemParams,
    responses: { 200: workspaceItemSchema },
    errors: [404],
    handler: async (c, { params }) =>
      presentItem(
        await setFavorite(c.get('db'), scopeOf(c, params.deploymentId), params.id, false, nowOf(c)),
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/:id/duplicate',
    auth: 'user',
    summary: 'Duplicate a workbook',
    description:
      '"Copy of {name}" in the same folder (the root for a root-level workbook), with the workbook’s `meta`, ' +
      '`calculatedFields`, dashboard draft and a copy of each of its reports (new ids and `publicId`s, ' +
      '`version` 1, no spreadsheet placement). No view history, no favourite. Unlike Cube, the published ' +
      'dashboard is not copied: the copy starts unpublished (publish it to embed it). `shared: true` is a 403.',
    tags,
    operationId: 'duplicateWorkbook',
    params: itemParams,
    body: duplicateWorkbookBody,
    responses: { 200: workspaceItemSchema },
    errors: [403, 404, 429],
    handler: async (c, { params, body }) =>
      presentItem(
        await duplicateWorkbook(c.get('db'), scopeOf(c, params.deploymentId), params.id, body, nowOf(c)),
      ),
  }),
);
