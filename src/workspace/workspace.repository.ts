import { and, eq, sql } from 'drizzle-orm';
import { type WorkspaceItemType, workspaceItems, workspaceViews } from '../../schema/workspace';
import { runBatch } from '../core/db';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';
import {
  folderDepth,
  isAncestorOrSelf,
  isFolderOf,
  MAX_FOLDER_DEPTH,
  subtreeHeight,
} from './workspace.queries';
import { type ItemRecord, itemOf, type Raw, readItems, singleFrom } from './workspace.rows';
import { editedBy, flagsOf, guard, guardedWrite, itemIs } from './workspace.writes';

/** What every kind of item shares: the read of one item, its delete, and its move. */

// ---- Reading one item ----

/**
 * One round trip: records the caller's view (the lists' viewer_last_viewed_at) and reads the
 * item. The view is only written for an item of this deployment of the caller's account.
 */
export async function viewItem(
  scope: DeploymentScope,
  id: number,
  type: WorkspaceItemType,
): Promise<ItemRecord | null> {
  const { db } = scope;
  const view = db
    .insert(workspaceViews)
    .select(
      db
        .select({
          userId: sql<number>`${scope.userId}`.as('user_id'),
          itemId: workspaceItems.id,
          deploymentId: workspaceItems.deploymentId,
          viewedAt: sql<string>`${scope.now.toISOString()}`.as('viewed_at'),
        })
        .from(workspaceItems)
        .where(and(itemIs(scope, id, type), deploymentOwned(scope.deploymentId, scope.accountId))),
    )
    .onConflictDoUpdate({
      target: [workspaceViews.userId, workspaceViews.itemId],
      // drizzle has no name for the row ON CONFLICT proposed.
      set: { viewedAt: sql`excluded.viewed_at` },
    });
  const [, read] = await runBatch<Raw>(db, [view, itemOf(scope, id, type)]);
  return singleFrom(read);
}

/** One item of the deployment, without recording a view; null when not found. */
export async function readItem(
  scope: DeploymentScope,
  id: number,
  type?: WorkspaceItemType,
): Promise<ItemRecord | null> {
  const rows = await scope.db.all<Raw>(itemOf(scope, id, type));
  return readItems(rows)?.items[0] ?? null;
}

/** Deletes an item of `type`; its detail, favourites, views and published dashboard cascade. */
export async function deleteItem(
  scope: DeploymentScope,
  id: number,
  type: WorkspaceItemType,
): Promise<boolean> {
  const rows = await scope.db
    .delete(workspaceItems)
    .where(and(itemIs(scope, id, type), deploymentOwned(scope.deploymentId, scope.accountId)))
    .returning({ id: workspaceItems.id });
  return rows.length > 0;
}

// ---- Move ----

/** Moves an item into a folder (null: the root). The check reads the folder tree (recursive CTEs): hand-written SQL. */
export function moveItem(
  scope: DeploymentScope,
  id: number,
  folderId: number | null,
  type: WorkspaceItemType | null,
) {
  const { db } = scope;
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      (SELECT type FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId}) AS item_type,
      ${isFolderOf(folderId, scope.deploymentId)} AS folder_ok,
      ${isAncestorOrSelf(id, folderId)} AS cycle,
      ${folderDepth(folderId)} AS target_depth,
      ${subtreeHeight(id)} AS subtree_height`,
    `deployment_ok AND item_type IS NOT NULL AND folder_ok AND NOT cycle
      AND target_depth + subtree_height <= ${MAX_FOLDER_DEPTH}
      ${type === null ? '' : `AND item_type = '${type}'`}`,
  );
  return guardedWrite(
    db,
    check,
    [
      db
        .update(workspaceItems)
        .set({ folderId, ...editedBy(scope) })
        .where(and(eq(workspaceItems.id, id), guard(check))),
    ],
    itemOf(scope, id),
  );
}
