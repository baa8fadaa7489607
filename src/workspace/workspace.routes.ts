import { nowOf, scopeOf } from '../auth/deployment-scope';
import { pageSchema } from '../core/pagination';
import { defineRoute, routes } from '../http/route';
import { deploymentParams, listQuery, moveBody, workspaceItemSchema } from './workspace.schemas';
import { listWorkspace, moveItem, presentItem } from './workspace.service';

const tags = ['Workspace'];

/** E7 and E2. Mounted at /api/v1/deployments/:deploymentId/workspace. */
export const workspaceRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/',
    auth: 'user',
    summary: 'List workspace items (E7)',
    description:
      'Folders first, then workbooks and reports, each group in the requested order (ties by id). ' +
      '`folderId` lists that folder’s direct children (omitted: the root level); `search` matches a ' +
      'case-insensitive substring of the name across all folders (with `folderId`: among its children). ' +
      '`search` of 3 characters or more is served by a trigram full-text index; 1–2 characters match ' +
      'names that START with them (a prefix walk of the name index). ' +
      'Keyset pagination: pass `pageInfo.endCursor` as `after` with the same filters and order.',
    tags,
    operationId: 'listWorkspaceItems',
    params: deploymentParams,
    query: listQuery,
    responses: { 200: pageSchema(workspaceItemSchema) },
    errors: [404],
    handler: async (c, { params, query }) =>
      listWorkspace(c.get('db'), scopeOf(c, params.deploymentId), query),
  }),
  defineRoute({
    method: 'post',
    path: '/move',
    auth: 'user',
    summary: 'Move a folder, workbook or report into a folder or the root (E2)',
    description:
      '`folderId` null or omitted moves to the root. `type`, when sent, must match the item. Moving a ' +
      'folder into itself or a descendant, or deeper than 10 levels, is a 400.',
    tags,
    operationId: 'moveWorkspaceItem',
    params: deploymentParams,
    body: moveBody,
    responses: { 200: workspaceItemSchema },
    errors: [404],
    handler: async (c, { params, body }) =>
      presentItem(await moveItem(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c))),
  }),
);
