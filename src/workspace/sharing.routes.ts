import type { Context } from 'hono';
import { parseAuthorization } from '../auth/auth.middleware';
import type { AppEnv } from '../core/env';
import { ApiError } from '../core/errors';
import type { TokenUse } from '../embedding/session-token';
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

/**
 * The embed credential of a shared-workspace request, as an embedded dashboard load takes it:
 * `Authorization: Session <id>`, `Authorization: Bearer <embed token>` (Cube's way), or `?session=`.
 */
function embedCredential(c: Context<AppEnv>, session: string | undefined): { id: string; use: TokenUse } {
  if (c.req.header('authorization') !== undefined) {
    const { scheme, credential } = parseAuthorization(c);
    const kind = scheme.toLowerCase();
    if (kind === 'session') return { id: credential, use: 'session' };
    // An access token or API key is no embed token: say which credential this endpoint takes.
    if (kind === 'bearer' && credential.split('.').length === 3) return { id: credential, use: 'token' };
    throw new ApiError(
      'UNAUTHORIZED',
      'This endpoint takes Authorization: Session <sessionId>, Bearer <embed token> or ?session=',
    );
  }
  if (!session) {
    throw new ApiError('UNAUTHORIZED', 'Missing embed session (Authorization: Session <id> or ?session=)');
  }
  return { id: session, use: 'session' };
}

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
        await sharedWorkspaceScope(scope, embedCredential(c, query.session), params.deploymentId),
        query,
      ),
  }),
  adminRoute.get('/embed-tenants/:embedTenantName/workbooks', 'listEmbedTenantWorkbooks', sharedItemsSchema, {
    input: { params: tenantWorkbooksParams, query: tenantWorkbooksQuery },
    handler: async (_c, { params, query }, scope) =>
      listEmbedTenantWorkbooks(scope, params.embedTenantName, query),
  }),
);
