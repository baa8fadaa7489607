import { inDeployment, nowOf } from '../auth/deployment-scope';
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

const route = routeGroup({
  auth: 'user',
  tags: ['Workspace'],
  errors: [403, 404],
  docs: apiDocs(markdown, { MAX_BULK_ITEMS }),
});

/** E7 and E2. Mounted at /api/v1/deployments/:deploymentId/workspace. */
export const workspaceRoutes = routes(
  route.get('/', 'workspaceObjects', pageSchema(workspaceItemSchema), {
    input: { params: deploymentParams, query: listQuery },
    handler: async (c, { params, query }) => listWorkspace(...inDeployment(c, params), query),
  }),
  route.post('/move', 'moveWorkspaceObject', workspaceItemSchema, {
    input: { params: deploymentParams, body: moveBody },
    handler: async (c, { params, body }) =>
      presentItem(await moveItem(...inDeployment(c, params), body, nowOf(c))),
  }),
  route.post('/bulk-move', 'bulkMoveWorkspaceObjects', bulkMoveResponse, {
    input: { params: deploymentParams, body: bulkMoveBody },
    handler: async (c, { params, body }) => bulkMove(...inDeployment(c, params), body, nowOf(c)),
  }),
  route.post('/bulk-delete', 'bulkDeleteWorkspaceObjects', bulkDeleteResponse, {
    input: { params: deploymentParams, body: bulkDeleteBody },
    handler: async (c, { params, body }) => bulkDelete(...inDeployment(c, params), body),
  }),
);
