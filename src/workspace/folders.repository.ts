import { and, eq, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { workspaceItems } from '../../schema/workspace';
import { runBatch } from '../core/db';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';
import { folderDepth, isFolderOf, itemsQuery, MAX_FOLDER_DEPTH } from './workspace.queries';
import { readItem } from './workspace.repository';
import { itemOf, type Raw, readItems, singleFrom } from './workspace.rows';
import {
  editedBy,
  flagsOf,
  guard,
  guardedWrite,
  insertItem,
  itemIs,
  type NewItem,
  nameSet,
  toCheck,
} from './workspace.writes';

/** Folders (create, update, delete, Cube's ancestors): guarded writes of the FOLDER items. */

/** A guarded write: its check walks the folder tree (a recursive CTE), hand-written. */
export function createFolder(scope: DeploymentScope, item: NewItem, position: number | null) {
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      ${isFolderOf(item.folderId, scope.deploymentId)} AS parent_ok,
      ${folderDepth(item.folderId)} AS parent_depth`,
    `deployment_ok AND parent_ok AND parent_depth + 1 <= ${MAX_FOLDER_DEPTH}`,
  );
  // Without a position, a folder goes after its sibling folders (a subquery inside the guarded insert).
  const nextPosition =
    position !== null
      ? sql`${position}`
      : sql`(SELECT coalesce(max(position) + 1, 0) FROM workspace_items
          WHERE deployment_id = ${scope.deploymentId} AND folder_id IS ${item.folderId} AND type = 'FOLDER')`;
  return guardedWrite(
    scope.db,
    check,
    [insertItem(scope, item, check, nextPosition)],
    itemOf(scope, sql`last_insert_rowid()`, 'FOLDER'),
  );
}

export interface ItemPatch {
  name?: string;
  position?: number;
}

/** A rename or reposition: two statements, one round trip; null when the folder is not found. */
export async function updateFolder(scope: DeploymentScope, id: number, patch: ItemPatch) {
  // Nothing sent (Cube: every field optional): answer the folder unchanged.
  if (patch.name === undefined && patch.position === undefined) return readItem(scope, id, 'FOLDER');
  const { db } = scope;
  const [, read] = await runBatch<Raw>(db, [
    db
      .update(workspaceItems)
      .set({ ...nameSet(patch.name), position: patch.position, ...editedBy(scope) })
      .where(and(itemIs(scope, id, 'FOLDER'), deploymentOwned(scope.deploymentId, scope.accountId))),
    itemOf(scope, id, 'FOLDER'),
  ]);
  return singleFrom(read);
}

const parent = alias(workspaceItems, 'parent');

/**
 * A folder holding sub-folders stays (409); otherwise its workbooks and reports move to its
 * parent and it is deleted, in one transaction.
 */
export async function deleteFolder(scope: DeploymentScope, id: number) {
  const { db } = scope;
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      EXISTS (SELECT 1 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId}
        AND type = 'FOLDER') AS found,
      EXISTS (SELECT 1 FROM workspace_items WHERE folder_id = ${id} AND type = 'FOLDER') AS has_subfolders`,
    'deployment_ok AND found AND NOT has_subfolders',
  );
  const results = await runBatch<Raw>(db, [
    check,
    db
      .update(workspaceItems)
      .set({ folderId: sql`(${db.select({ id: parent.folderId }).from(parent).where(eq(parent.id, id))})` })
      .where(and(eq(workspaceItems.folderId, id), guard(check))),
    db.delete(workspaceItems).where(and(eq(workspaceItems.id, id), guard(check))),
  ]);
  return toCheck(results[0]?.results[0]);
}

/**
 * A folder and its ancestors, root first, as full items; empty when the folder is not one of
 * the deployment's; null when the deployment is not the caller's.
 */
export async function folderAncestors(scope: DeploymentScope, id: number) {
  // A recursive walk up the tree: hand-written.
  const rows = await scope.db.all<Raw>(
    itemsQuery({
      ...scope,
      viewerId: scope.userId,
      selection: sql`WITH RECURSIVE up(id, n) AS (
          SELECT id, 0 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId} AND type = 'FOLDER'
          UNION ALL
          SELECT w.folder_id, up.n + 1 FROM workspace_items w JOIN up ON w.id = up.id
          WHERE w.folder_id IS NOT NULL AND up.n < ${MAX_FOLDER_DEPTH * 2})
        SELECT id, n AS rank, '' AS sort_key FROM up`,
      order: sql`s.rank DESC`,
    }),
  );
  return readItems(rows)?.items ?? null;
}
