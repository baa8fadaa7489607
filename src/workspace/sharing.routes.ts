import { credentialOf } from '../embedding/embed-sessions.routes';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './sharing.routes.md';
import {
  sharedItemsSchema,
  sharedWorkspaceQuery,
  tenantWorkbooksParams,
  tenantWorkbooksQuery,
} from './sharing.schemas';
import { listEmbedTenantWorkbooks, listSharedWorkspace, sharedWorkspaceScope } from './sharing.service';
import { deploymentParams } from './workspace.schemas';

const docs = apiDocs(markdown);
const sessionRoute = routeGroup({ auth: 'session', tags: ['Workspace'], errors: [403, 404], docs });
const adminRoute = routeGroup({
  auth: 'admin',
  scope: 'deployment',
  tags: ['Dashboards'],
  errors: [403, 404],
  docs,
});

/** What is shared with embed users: the shared workspace and an embed tenant's workbooks. Mounted at /api/v1/deployments/:deploymentId. */
export const sharingRoutes = routes(
  sessionRoute.get('/shared-workspace', 'sharedWorkspaceObjects', sharedItemsSchema, {
    input: { params: deploymentParams, query: sharedWorkspaceQuery },
    handler: async (c, { params, query }, scope) =>
      listSharedWorkspace(
        await sharedWorkspaceScope(scope, credentialOf(c, { session: query.session }), params.deploymentId),
        query,
      ),
  }),
  adminRoute.get('/embed-tenants/:embedTenantName/workbooks', 'listEmbedTenantWorkbooks', sharedItemsSchema, {
    input: { params: tenantWorkbooksParams, query: tenantWorkbooksQuery },
    handler: async (_c, { params, query }, scope) =>
      listEmbedTenantWorkbooks(scope, params.embedTenantName, query),
  }),
);
