import { type SQL, sql } from 'drizzle-orm';
import { ALL_EMBED_USERS } from '../../schema/sharing';
import type { WorkspaceItemType } from '../../schema/workspace';
import type { DeploymentScope, RequestScope } from '../core/scope';
import { tenantRevocationKey } from '../embedding/embed-sessions.repository';
import { matchingIds } from './name-search';
import { itemsQuery } from './workspace.queries';
import { type ItemRecord, type Raw, readItems } from './workspace.rows';
import type { ListCursor, OrderDirection, OrderField } from './workspace-list.repository';

/**
 * Hand-written SQL: UNIONs of keyset index walks over shared_workspace_items (one per type and
 * audience), which drizzle cannot express cleanly. The rows of that table are what the shares
 * let an audience see, kept by triggers with the item's folder and sort keys, so every walk
 * reads at most one page whatever the size of the workspace.
 */

/** Folders first: the leading sort key, carried in every cursor (as in the workspace list). */
const TYPE_RANK: Record<WorkspaceItemType, number> = { FOLDER: 0, WORKBOOK: 1, REPORT: 1 };

const COLUMN: Record<Exclude<OrderField, 'viewer_last_viewed_at'>, string> = {
  updated_at: 's.updated_at',
  created_at: 's.created_at',
  name: 's.name_key',
};

/**
 * A request of the shared workspace: an embed session (verified) of one tenant, in the path's
 * deployment. No principal: the caller is no user of the account.
 */
export interface SharedWorkspaceScope extends RequestScope {
  accountId: number;
  deploymentId: number;
  tenantId: number;
  sessionId: string;
}

export interface SharedListParams {
  /** A folder's direct children, the root level, or items in any folder (a search). */
  folder: number | 'root' | 'any';
  search: string | null;
  types: WorkspaceItemType[];
  field: OrderField;
  direction: OrderDirection;
  limit: number;
  after: ListCursor | null;
}

/** The selection (`id, rank, sort_key`) of one page of what `audiences` see. */
function sharedSelection(deploymentId: number, audiences: number[], params: SharedListParams): SQL {
  const { direction, limit, after } = params;
  const dir = sql.raw(direction);
  const cmp = sql.raw(direction === 'DESC' ? '<' : '>');
  const take = limit + 1;
  // The caller never viewed anything (an embed user has no views): that order is by id alone.
  const column = params.field === 'viewer_last_viewed_at' ? null : sql.raw(COLUMN[params.field]);
  const sortKey = column ?? sql`''`;
  const order = column ? sql`${column} ${dir}, s.item_id ${dir}` : sql`s.item_id ${dir}`;

  const where: SQL[] = [sql`s.deployment_id = ${deploymentId}`];
  if (typeof params.folder === 'number') where.push(sql`s.folder_id = ${params.folder}`);
  else if (params.folder === 'root') where.push(sql`s.folder_id IS NULL`);
  if (params.search !== null) where.push(sql`instr(s.name_key, ${params.search}) > 0`);
  // With a search the index's matches drive, each looked up among the audience's rows.
  const source =
    params.search === null
      ? sql`shared_workspace_items s`
      : sql`(${matchingIds(params.search)}) m CROSS JOIN shared_workspace_items s ON s.item_id = m.id`;

  const perType: SQL[] = [];
  for (const type of [...new Set(params.types)]) {
    const rank = TYPE_RANK[type];
    if (after && rank < after.rank) continue;
    const cursor = after && rank === after.rank ? after : null;
    const keyset = !cursor
      ? sql``
      : column
        ? sql`AND (${column}, s.item_id) ${cmp} (${cursor.sortKey}, ${cursor.id})`
        : sql`AND s.item_id ${cmp} ${cursor.id}`;
    const parts = audiences.map(
      (audience) => sql`SELECT * FROM (SELECT s.item_id AS id, ${rank} AS rank, ${sortKey} AS sort_key
        FROM ${source} WHERE ${sql.join([...where, sql`s.audience_id = ${audience}`, sql`s.type = ${type}`], sql` AND `)}
          ${keyset}
        ORDER BY ${order} LIMIT ${take})`,
    );
    // UNION, not UNION ALL: an item both audiences see is one row (its keys are the same copies).
    perType.push(sql`SELECT * FROM (${sql.join(parts, sql` UNION `)})`);
  }
  if (perType.length === 0) return sql`SELECT NULL AS id, NULL AS rank, NULL AS sort_key WHERE 0`;
  return sql`SELECT id, rank, sort_key FROM (${sql.join(perType, sql` UNION ALL `)})
    ORDER BY rank ASC, sort_key ${dir}, id ${dir} LIMIT ${take}`;
}

export interface SharedListResult {
  items: ItemRecord[];
  folderFound: boolean;
  revoked: boolean;
}

/**
 * One page of the shared workspace of the caller's tenant, in ONE statement: the deployment of
 * the session's account, whether the session (or its tenant) was revoked, whether the folder
 * listed is one the tenant sees, and the page with everything each item carries. null: the
 * deployment is not the session's account's.
 */
export async function listShared(
  scope: SharedWorkspaceScope,
  params: SharedListParams,
): Promise<SharedListResult | null> {
  const audiences = [scope.tenantId, ALL_EMBED_USERS];
  const dir = sql.raw(params.direction);
  const folderOk =
    typeof params.folder === 'number'
      ? sql`EXISTS (SELECT 1 FROM shared_workspace_items WHERE audience_id IN (${scope.tenantId}, ${ALL_EMBED_USERS})
          AND item_id = ${params.folder} AND deployment_id = ${scope.deploymentId} AND type = 'FOLDER')`
      : sql`1`;
  const rows = await scope.db.all<Raw>(
    itemsQuery({
      deploymentId: scope.deploymentId,
      accountId: scope.accountId,
      // No user: user ids start at 1, so no favourite and no view is the caller's.
      viewerId: 0,
      selection: sharedSelection(scope.deploymentId, audiences, params),
      order: sql`s.rank ASC, s.sort_key ${dir}, s.id ${dir}`,
      extra: sql`${folderOk} AS folder_ok, EXISTS (SELECT 1 FROM embed_session_revocations
        WHERE session_id IN (${scope.sessionId}, ${tenantRevocationKey(scope.tenantId)})) AS revoked`,
    }),
  );
  const result = readItems(rows);
  if (!result) return null;
  return {
    items: result.items,
    folderFound: result.driver.folder_ok === 1,
    revoked: result.driver.revoked === 1,
  };
}

/** Where a workbook an embed tenant can see gets that access from (Cube's `accessSource`). */
export type AccessSource = 'tenant' | 'allEmbedUsers' | 'folder';

export interface TenantWorkbooksResult {
  items: ItemRecord[];
  tenantFound: boolean;
}

/**
 * One page of the workbooks an embed tenant can see, by id, in ONE statement: the deployment of
 * the caller's account, the tenant (by name, in the account) and the page. Folders are never
 * shared, so the `folder` source contributes nothing. null: the deployment is not the caller's.
 */
export async function listTenantWorkbooks(
  scope: DeploymentScope,
  tenantName: string,
  sources: AccessSource[],
  limit: number,
  afterId: number | null,
): Promise<TenantWorkbooksResult | null> {
  const tenant = sql`(SELECT id FROM embed_tenants WHERE account_id = ${scope.accountId} AND name = ${tenantName})`;
  const audiences: SQL[] = [];
  if (sources.includes('tenant')) audiences.push(tenant);
  if (sources.includes('allEmbedUsers')) audiences.push(sql`${ALL_EMBED_USERS}`);
  const take = limit + 1;
  const parts = audiences.map(
    (audience) => sql`SELECT * FROM (SELECT s.item_id AS id FROM shared_workspace_items s
      WHERE s.deployment_id = ${scope.deploymentId} AND s.audience_id = ${audience} AND s.type = 'WORKBOOK'
        ${afterId === null ? sql`` : sql`AND s.item_id > ${afterId}`}
      ORDER BY s.item_id LIMIT ${take})`,
  );
  const selection =
    parts.length === 0
      ? sql`SELECT NULL AS id, NULL AS rank, NULL AS sort_key WHERE 0`
      : sql`SELECT id, 1 AS rank, '' AS sort_key FROM (${sql.join(parts, sql` UNION `)}) ORDER BY id LIMIT ${take}`;
  const rows = await scope.db.all<Raw>(
    itemsQuery({
      deploymentId: scope.deploymentId,
      accountId: scope.accountId,
      viewerId: scope.userId,
      selection,
      order: sql`s.id ASC`,
      extra: sql`${tenant} AS tenant_id`,
    }),
  );
  const result = readItems(rows);
  if (!result) return null;
  return { items: result.items, tenantFound: result.driver.tenant_id != null };
}
