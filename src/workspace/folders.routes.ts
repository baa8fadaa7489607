import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import {
  createFolderBody,
  deploymentParams,
  folderSchema,
  itemParams,
  updateFolderBody,
} from './workspace.schemas';
import { createFolder, deleteFolder, presentFolder, updateFolder, viewItem } from './workspace.service';

const tags = ['Workspace: folders'];

/** Folders, E5 and E6. Mounted at /api/v1/deployments/:deploymentId/folders. */
export const foldersRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/',
    auth: 'user',
    summary: 'Create a folder',
    description:
      '`parentId` null or omitted: the root. Without `position` the folder goes after its siblings.',
    tags,
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
    description: 'Send `name` (1–255 characters), `position` (≥ 0) or both.',
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
      'A folder holding sub-folders is a 409. Its workbooks and reports move to its parent (the root for a root-level folder).',
    tags,
    operationId: 'deleteFolder',
    params: itemParams,
    responses: { 200: deletedSchema },
    errors: [404, 409],
    handler: async (c, { params }) => deleteFolder(c.get('db'), scopeOf(c, params.deploymentId), params.id),
  }),
);
