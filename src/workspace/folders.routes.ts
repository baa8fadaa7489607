import * as v from 'valibot';
import { nowOf, scopeOf } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import markdown from './folders.routes.md';

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

const route = routeGroup({ auth: 'user', tags: ['Workspace: folders'], errors: [404], docs: markdown });

/** Folders, E5 and E6. Mounted at /api/v1/deployments/:deploymentId/folders. */
export const foldersRoutes = routes(
  route.get('/', 'getFolders', {
    input: { params: deploymentParams, query: foldersQuery },
    responses: { 200: cubeListSchema(folderSchema) },
    handler: async (c, { params, query }) => listFolders(c.get('db'), scopeOf(c, params.deploymentId), query),
  }),
  route.post('/', 'createFolder', {
    input: { params: deploymentParams, body: createFolderBody },
    responses: { 200: folderSchema },
    handler: async (c, { params, body }) => {
      const rec = await createFolder(c.get('db'), scopeOf(c, params.deploymentId), body, nowOf(c));
      return presentFolder(rec);
    },
  }),
  route.get('/:id', 'getFolder', {
    input: { params: itemParams },
    responses: { 200: folderSchema },
    handler: async (c, { params }) => {
      const rec = await viewItem(c.get('db'), scopeOf(c, params.deploymentId), params.id, 'FOLDER', nowOf(c));
      return presentFolder(rec);
    },
  }),
  route.put('/:id', 'updateFolder', {
    input: { params: itemParams, body: updateFolderBody },
    responses: { 200: folderSchema },
    handler: async (c, { params, body }) => {
      const rec = await updateFolder(c.get('db'), scopeOf(c, params.deploymentId), params.id, body, nowOf(c));
      return presentFolder(rec);
    },
  }),
  route.delete('/:id', 'deleteFolder', {
    input: { params: itemParams },
    responses: { 200: deletedSchema },
    errors: [409],
    handler: async (c, { params }) => deleteFolder(c.get('db'), scopeOf(c, params.deploymentId), params.id),
  }),
  route.get('/:id/ancestors', 'getFolderAncestors', {
    input: { params: itemParams },
    responses: { 200: v.array(folderSchema) },
    handler: async (c, { params }) =>
      folderAncestors(c.get('db'), scopeOf(c, params.deploymentId), params.id),
  }),
);
