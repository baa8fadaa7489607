import * as v from 'valibot';
import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import {
  createFolderBody,
  cubeListSchema,
  deploymentParams,
  folderSchema,
  foldersQuery,
  itemParams,
  updateFolderBody,
} from './workspace.schemas';
import {
  createFolder,
  deleteFolder,
  folderAncestors,
  listFolders,
  presentFolder,
  updateFolder,
  viewItem,
} from './workspace.service';

const tags = ['Workspace: folders'];

/** Folders, E5 and E6. Mounted at /api/v1/deployments/:deploymentId/folders. */
export const foldersRoutes = routes(
  defineRoute({
    method: 'get',
    path: '/',
    auth: 'user',
    summary: 'List one level of folders',
    description:
      'The direct sub-folders of `parentId` (omitted or 0: the root level), by name (case-insensitive), ' +
      'keyset-paginated: `first` 1–100 (default 20), `after` = `pageInfo.endCursor`. `data` repeats `items` ' +
      '(Cube’s deprecated field).',
    tags,
    operationId: 'getFolders',
    params: deploymentParams,
    query: foldersQuery,
    responses: { 200: cubeListSchema(folderSchema) },
    errors: [404],
    handler: async (c, { params, query }) => listFolders(c.get('db'), scopeOf(c, params.deploymentId), query),
  }),
  defineRoute({
    method: 'post',
    path: '/',
    auth: 'user',
    summary: 'Create a folder',
    description:
      '`parentId` null or omitted: the root. Without `position` (or with null) the folder goes after its siblings.',
    tags,
    operationId: 'createFolder',
    params: deploymentParams,
    body: createFolderBody,
    responses: { 200: folderSchema },
    errors: [404],
    handler: async (c, { params, body }) => {
      const rec = await createFolder(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c));
      return presentFolder(rec);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/:id',
    auth: 'user',
    summary: 'Get a folder (records the caller’s view)',
    tags,
    operationId: 'getFolder',
    params: itemParams,
    responses: { 200: folderSchema },
    errors: [404],
    handler: async (c, { params }) => {
      const rec = await viewItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'FOLDER', nowOf(c));
      return presentFolder(rec);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/:id',
    auth: 'user',
    summary: 'Rename or reposition a folder (E5)',
    description:
      'Send `name` (1–255 characters), `position` (≥ 0), both or neither; null or omitted leaves a field ' +
      'unchanged. An empty body answers the folder unchanged.',
    tags,
    operationId: 'updateFolder',
    params: itemParams,
    body: updateFolderBody,
    responses: { 200: folderSchema },
    errors: [404],
    handler: async (c, { params, body }) => {
      const rec = await updateFolder(c.get('db'), scopeOf(c, params.deploymentId), params.id, body, nowOf(c));
      return presentFolder(rec);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/:id',
    auth: 'user',
    summary: 'Delete a folder (E6)',
    description:
      'A folder holding sub-folders is a 409 (contract §4; Cube answers 400). Its workbooks and reports move ' +
      'to its parent (the root for a root-level folder; Cube moves them to the root).',
    tags,
    operationId: 'deleteFolder',
    params: itemParams,
    responses: { 200: deletedSchema },
    errors: [404, 409],
    handler: async (c, { params }) => deleteFolder(c.get('db'), scopeOf(c, params.deploymentId), params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/ancestors',
    auth: 'user',
    summary: 'A folder and its ancestors',
    description: 'Root first, down to and including the folder itself (at most 10 folders).',
    tags,
    operationId: 'getFolderAncestors',
    params: itemParams,
    responses: { 200: v.array(folderSchema) },
    errors: [404],
    handler: async (c, { params }) =>
      folderAncestors(c.get('db'), scopeOf(c, params.deploymentId), params.id),
  }),
);
