import { nowOf, scopeOf } from '../auth/deployment-scope';
import { pageSchema } from '../core/pagination';
import { defineRoute, routes } from '../http/route';
import {
  bulkDeleteBody,
  bulkDeleteResponse,
  bulkMoveBody,
  bulkMoveResponse,
  deploymentParams,
  listQuery,
  MAX_BULK_ITEMS,
  moveBody,
  workspaceItemSchema,
} from './workspace.schemas';
import { bulkDelete, bulkMove, listWorkspace, moveItem, presentItem } from './workspace.service';

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
      '`folderId` lists that folder’s direct children (omitted or 0: the root level); `search` matches a ' +
      'case-insensitive substring of the name across all folders (with `folderId`: among its children). ' +
      '`search` of 3 characters or more is served by a trigram full-text index; 1–2 characters match ' +
      'names that START with them (a prefix walk of the name index). ' +
      'Keyset pagination: pass `pageInfo.endCursor` as `after` with the same filters and order.',
    tags,
    operationId: 'workspaceObjects',
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
    operationId: 'moveWorkspaceObject',
    params: deploymentParams,
    body: moveBody,
    responses: { 200: workspaceItemSchema },
    errors: [404],
    handler: async (c, { params, body }) =>
      presentItem(await moveItem(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c))),
  }),
  defineRoute({
    method: 'post',
    path: '/bulk-move',
    auth: 'user',
    summary: 'Move several folders, workbooks and reports into a folder or the root',
    description:
      `1–${MAX_BULK_ITEMS} items \`{type, id}\`; duplicates count once. \`folderId\` null or omitted: the root. ` +
      'Every item that can move moves, in one transaction; each other item is listed in `failed` with the ' +
      'status a single move would answer (404: no such item of that type, or no such target folder; 400: a ' +
      'folder into itself or a descendant, or deeper than 10 levels). Always 200 for a well-formed body.',
    tags,
    operationId: 'bulkMoveWorkspaceObjects',
    params: deploymentParams,
    body: bulkMoveBody,
    responses: { 200: bulkMoveResponse },
    errors: [404],
    handler: async (c, { params, body }) =>
      bulkMove(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c)),
  }),
  defineRoute({
    method: 'post',
    path: '/bulk-delete',
    auth: 'user',
    summary: 'Delete several folders, workbooks and reports',
    description:
      `1–${MAX_BULK_ITEMS} items \`{type, id}\`; duplicates count once. Every item that can go is deleted, in ` +
      'one transaction; each other is listed in `failed` (404: no such item of that type; 400: a folder with ' +
      'a sub-folder that is not deleted in the same call). Workbooks and reports of a deleted folder that ' +
      'are not deleted themselves move to the root (as Cube does; the single folder delete moves them to ' +
      'the parent). Always 200 for a well-formed body.',
    tags,
    operationId: 'bulkDeleteWorkspaceObjects',
    params: deploymentParams,
    body: bulkDeleteBody,
    responses: { 200: bulkDeleteResponse },
    errors: [404],
    handler: async (c, { params, body }) => bulkDelete(c.get('db'), scopeOf(c, params.deploymentId), body),
  }),
);
