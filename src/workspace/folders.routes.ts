import * as v from 'valibot';
import { deletedSchema } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import markdown from './folders.routes.md';
import { deleteFolder, folderAncestors } from './folders.service';
import { itemRoutes } from './item-routes';
import { folderSchema, itemParams } from './workspace.schemas';

const tags = ['Workspace: folders'];
const route = routeGroup({ auth: 'user', scope: 'deployment', tags, errors: [403, 404], docs: markdown });

/** Folders: the routes of every kind, a delete of their own and Cube's ancestors. Mounted at /api/v1/deployments/:deploymentId/folders. */
export const foldersRoutes = routes(
  ...itemRoutes(route, 'FOLDER', {
    list: 'getFolders',
    create: 'createFolder',
    get: 'getFolder',
    update: 'updateFolder',
  }),
  route.delete('/:id', 'deleteFolder', deletedSchema, {
    permission: 'WorkspaceEdit',
    input: { params: itemParams },
    errors: [409],
    handler: async (_c, { params }, scope) => deleteFolder(scope, params.id),
  }),
  route.get('/:id/ancestors', 'getFolderAncestors', v.array(folderSchema), {
    input: { params: itemParams },
    handler: async (_c, { params }, scope) => folderAncestors(scope, params.id),
  }),
);
