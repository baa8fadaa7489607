import { pageSchema } from '../core/pagination';
import { apiDocs, routeGroup, routes } from '../http/route';
import { presentItem } from './workspace.present';
import markdown from './workspace.routes.md';
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
import { moveItem } from './workspace.service';
import { bulkDelete, bulkMove } from './workspace-bulk.service';
import { listWorkspace } from './workspace-list.service';

const docs = apiDocs(markdown, { MAX_BULK_ITEMS });
const tags = ['Workspace'];
const route = routeGroup({ auth: 'user', scope: 'deployment', tags, errors: [403, 404], docs });

/** The workspace list, the move and the bulk move and delete. Mounted at /api/v1/deployments/:deploymentId/workspace. */
export const workspaceRoutes = routes(
  route.get('/', 'workspaceObjects', pageSchema(workspaceItemSchema), {
    input: { params: deploymentParams, query: listQuery },
    handler: async (_c, { query }, scope) => listWorkspace(scope, query),
  }),
  route.post('/move', 'moveWorkspaceObject', workspaceItemSchema, {
    permission: 'WorkspaceEdit',
    input: { params: deploymentParams, body: moveBody },
    handler: async (_c, { body }, scope) => presentItem(await moveItem(scope, body)),
  }),
  route.post('/bulk-move', 'bulkMoveWorkspaceObjects', bulkMoveResponse, {
    permission: 'WorkspaceEdit',
    input: { params: deploymentParams, body: bulkMoveBody },
    handler: async (_c, { body }, scope) => bulkMove(scope, body),
  }),
  route.post('/bulk-delete', 'bulkDeleteWorkspaceObjects', bulkDeleteResponse, {
    permission: 'WorkspaceEdit',
    input: { params: deploymentParams, body: bulkDeleteBody },
    handler: async (_c, { body }, scope) => bulkDelete(scope, body),
  }),
);
