import * as v from 'valibot';
import { inDeployment } from '../auth/deployment-scope';
import { deletedSchema } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import markdown from './folders.routes.md';
import { itemRoutes } from './item-routes';
import {
  createFolderBody,
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
} from './workspace.service';

const route = routeGroup({ auth: 'user', tags: ['Workspace: folders'], errors: [404], docs: markdown });

/** Folders, E5 and E6. Mounted at /api/v1/deployments/:deploymentId/folders. */
export const foldersRoutes = routes(
  ...itemRoutes(route, 'FOLDER', folderSchema, presentFolder, {
    list: { query: foldersQuery, run: listFolders },
    create: { body: createFolderBody, run: createFolder },
    update: { body: updateFolderBody, run: updateFolder },
  }),
  route.delete('/:id', 'deleteFolder', {
    input: { params: itemParams },
    responses: { 200: deletedSchema },
    errors: [409],
    handler: async (c, { params }) => deleteFolder(...inDeployment(c, params), params.id),
  }),
  route.get('/:id/ancestors', 'getFolderAncestors', {
    input: { params: itemParams },
    responses: { 200: v.array(folderSchema) },
    handler: async (c, { params }) => folderAncestors(...inDeployment(c, params), params.id),
  }),
);
