import type * as v from 'valibot';
import { WORKSPACE_ITEM_TYPES } from '../../schema/workspace';
import { ApiError, notFound } from '../core/errors';
import { invalidCursor, pageRequest, toPage } from '../core/pagination';
import type { DeploymentScope, RequestScope } from '../core/scope';
import { sessionRevoked } from '../embedding/embed-sessions.service';
import { type TokenUse, verifySession } from '../embedding/session-token';
import { folderNotFound } from './item-writes';
import * as repo from './sharing.repository';
import { ACCESS_SOURCES, type sharedWorkspaceQuery, type tenantWorkbooksQuery } from './sharing.schemas';
import { presentItem } from './workspace.present';
import type { ItemRecord } from './workspace.rows';
import type { WorkspaceItem } from './workspace.schemas';
import { cursorOf, fingerprint, folderOf, listCursor } from './workspace-list.service';

/**
 * Cube's shared workspace (what the shares let an embed tenant see) and the workbooks an embed
 * tenant can see. What is shared: a workbook's published dashboard, with all embed users (its
 * `allEmbedUsers`) or with one embed tenant (updateEmbedAccess with `embedTenantName`).
 */

/**
 * The scope of a shared-workspace request: its embed session verified (signature and expiry,
 * no storage read) and of the path's deployment. A session of another deployment answers 404,
 * as another account's id does; one limited to one dashboard (`publicDashboardId`) lists nothing.
 */
export async function sharedWorkspaceScope(
  scope: RequestScope,
  credential: { id: string; use: TokenUse },
  deploymentId: number,
): Promise<repo.SharedWorkspaceScope> {
  const claims = await verifySession(scope.env, credential.id, scope.now, credential.use);
  if (claims.deploymentId !== deploymentId) throw notFound('Deployment');
  if (claims.publicDashboardId !== undefined) {
    throw new ApiError('FORBIDDEN', 'This session is limited to one dashboard: it has no shared workspace');
  }
  return {
    ...scope,
    accountId: claims.accountId,
    deploymentId,
    tenantId: claims.tenant.id,
    sessionId: claims.sessionId,
  };
}

/**
 * An item as an embed user sees it: no owner identity (Cube blanks them), no unpublished draft,
 * and the published dashboard without its report snapshots, whose frozen rows row-level security
 * restricts per viewer: the dashboard's data is loaded through `GET /api/v1/embed/dashboard/{publicId}`.
 */
function presentShared(rec: ItemRecord): WorkspaceItem {
  // No owner identity: `createdBy` is left out, as for a deleted creator (Cube types it an integer).
  const { createdBy: _owner, ...item } = presentItem(rec);
  const published = item.publishedDashboard;
  return {
    ...item,
    updatedBy: null,
    userId: null,
    user: null,
    isFavorite: false,
    viewerLastViewedAt: null,
    dashboardDraft: null,
    publishedDashboard: published && {
      ...published,
      createdBy: null,
      reportSnapshots: [],
      fromSharedWorkspace: true,
    },
  };
}

/** Cube's sharedWorkspaceObjects: the workspace list's parameters and order, over what the caller's tenant sees. */
export async function listSharedWorkspace(
  scope: repo.SharedWorkspaceScope,
  query: v.InferOutput<typeof sharedWorkspaceQuery>,
) {
  const search = query.search ? query.search.toLowerCase() : null;
  // Without a folder, a search spans every folder; a listing shows the root level.
  const folder = folderOf(query.folderId, search ? 'any' : 'root');
  const types = [...new Set(query.types ?? WORKSPACE_ITEM_TYPES)].sort();
  const field = query.orderByField ?? 'updated_at';
  const direction = query.orderByDirection ?? 'DESC';
  const tag = `shared:${field}:${direction}:${fingerprint(JSON.stringify([folder, search, types]))}`;
  const request = pageRequest(query, tag, 3);
  const result = await repo.listShared(scope, {
    folder,
    search,
    types,
    field,
    direction,
    limit: request.limit,
    after: listCursor(request.after),
  });
  if (!result) throw notFound('Deployment');
  if (result.revoked) throw sessionRevoked();
  if (!result.folderFound) throw folderNotFound('folderId');
  return toPage(result.items, request, tag, cursorOf, presentShared);
}

/** Cube's listEmbedTenantWorkbooks: the workbooks shared with the tenant or with all embed users, by id. */
export async function listEmbedTenantWorkbooks(
  scope: DeploymentScope,
  tenantName: string,
  query: v.InferOutput<typeof tenantWorkbooksQuery>,
) {
  const tag = `tenant-workbooks:${query.accessSource ?? 'all'}`;
  const request = pageRequest(query, tag, 1);
  const after = request.after ? request.after[0] : null;
  if (after !== null && (typeof after !== 'number' || !Number.isSafeInteger(after))) throw invalidCursor();
  const sources = query.accessSource ? [query.accessSource] : [...ACCESS_SOURCES];
  const result = await repo.listTenantWorkbooks(scope, tenantName, sources, request.limit, after);
  if (!result) throw notFound('Deployment');
  if (!result.tenantFound) throw notFound('Embed tenant');
  return toPage(result.items, request, tag, (r) => [r.id], presentItem);
}
