import { and, inArray, notInArray, type SQL, sql } from 'drizzle-orm';
import { type WorkspaceItemType, workspaceItems } from '../../schema/workspace';
import { runBatch } from '../core/db';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';
import { isFolderOf, itemsQuery, MAX_FOLDER_DEPTH, WALK_LIMIT } from './workspace.queries';
import { type ItemRecord, type Raw, readItems } from './workspace.rows';
import { editedBy } from './workspace.writes';

/**
 * Cube's bulk move and bulk delete, each ONE batch (one transaction): statement 0 decides per
 * item (found, cycle, depth, sub-folders), the writes repeat that decision as their condition,
 * and the last statement reads the result. Items are passed as one JSON parameter, so 100 of
 * them stay far below D1's 100 bound parameters per statement.
 */

export interface ItemRef {
  type: WorkspaceItemType;
  id: number;
}

/** What statement 0 found for one item. */
export interface BulkCheck {
  type: WorkspaceItemType;
  id: number;
  /** The item exists in the deployment with this type. */
  found: boolean;
  ok: boolean;
  /** Bulk move: the target folder exists (or is the root). */
  folderFound: boolean;
  /** Bulk move: the item is the target folder or one of its ancestors. */
  cycle: boolean;
  /** Bulk move: the folder would end up deeper than the limit. */
  tooDeep: boolean;
  /** Bulk delete: a sub-folder of this folder is not deleted in the same call. */
  hasSubfolders: boolean;
}

/** The requested items as rows `refs(id, type)`: one JSON parameter, not one per item (D1's 100-parameter cap). */
const refsCte = (refs: ItemRef[]): SQL =>
  sql`refs(id, type) AS (SELECT CAST(json_extract(value, '$.id') AS INTEGER), json_extract(value, '$.type')
    FROM json_each(${JSON.stringify(refs)}))`;

/** The requested items that exist in the deployment with the type asked for. */
const foundOf = (deploymentId: number): SQL =>
  sql`EXISTS (SELECT 1 FROM workspace_items i WHERE i.id = r.id AND i.deployment_id = ${deploymentId} AND i.type = r.type)`;

// The checks walk folder trees per requested item (recursive CTEs over json_each): hand-written.
function moveCheck(scope: DeploymentScope, refs: ItemRef[], folderId: number | null): SQL {
  const { deploymentId } = scope;
  return sql`WITH RECURSIVE ${refsCte(refs)},
    target_up(id, n) AS (
      SELECT id, 1 FROM workspace_items WHERE id = ${folderId}
      UNION ALL
      SELECT w.folder_id, t.n + 1 FROM workspace_items w JOIN target_up t ON w.id = t.id
      WHERE w.folder_id IS NOT NULL AND t.n < ${WALK_LIMIT}),
    down(root, id, n) AS (
      SELECT r.id, r.id, 1 FROM refs r JOIN workspace_items i ON i.id = r.id
      WHERE r.type = 'FOLDER' AND i.deployment_id = ${deploymentId} AND i.type = 'FOLDER'
      UNION ALL
      SELECT d.root, w.id, d.n + 1 FROM workspace_items w JOIN down d ON w.folder_id = d.id
      WHERE w.type = 'FOLDER' AND d.n < ${WALK_LIMIT}),
    flags AS (
      SELECT r.id, r.type, ${deploymentOwned(deploymentId, scope.accountId)} AS deployment_ok,
        ${foundOf(deploymentId)} AS found,
        ${isFolderOf(folderId, deploymentId)} AS folder_ok,
        r.id IN (SELECT id FROM target_up) AS cycle,
        (SELECT count(*) FROM target_up) + coalesce((SELECT max(n) FROM down WHERE down.root = r.id), 0)
          > ${MAX_FOLDER_DEPTH} AS too_deep
      FROM refs r)
    SELECT *, (deployment_ok AND found AND folder_ok AND NOT cycle AND NOT too_deep) AS ok FROM flags`;
}

function deleteCheck(scope: DeploymentScope, refs: ItemRef[]): SQL {
  const { deploymentId } = scope;
  // A folder can go only with its whole sub-folder tree: blocked are the requested folders with a
  // sub-folder that is not requested, and (walking up) every requested folder above a blocked one.
  return sql`WITH RECURSIVE ${refsCte(refs)},
    req(id) AS (SELECT r.id FROM refs r JOIN workspace_items i ON i.id = r.id
      WHERE r.type = 'FOLDER' AND i.deployment_id = ${deploymentId} AND i.type = 'FOLDER'),
    blocked(id) AS (
      SELECT w.folder_id FROM req JOIN workspace_items w ON w.folder_id = req.id
      WHERE w.type = 'FOLDER' AND w.id NOT IN (SELECT id FROM req)
      UNION
      SELECT w.folder_id FROM blocked b JOIN workspace_items w ON w.id = b.id
      WHERE w.folder_id IN (SELECT id FROM req)),
    flags AS (
      SELECT r.id, r.type, ${deploymentOwned(deploymentId, scope.accountId)} AS deployment_ok,
        ${foundOf(deploymentId)} AS found,
        r.type = 'FOLDER' AND r.id IN (SELECT id FROM blocked) AS has_subfolders
      FROM refs r)
    SELECT *, (deployment_ok AND found AND NOT has_subfolders) AS ok FROM flags`;
}

/** The ids whose check passed, as a parenthesized subquery (for `inArray`). */
const okIds = (check: SQL, type?: WorkspaceItemType): SQL =>
  sql`(SELECT id FROM (${check}) WHERE ok = 1 ${type ? sql`AND type = ${type}` : sql``})`;

function toChecks(rows: Raw[]): BulkCheck[] {
  return rows.map((r) => ({
    type: r.type as WorkspaceItemType,
    id: Number(r.id),
    found: r.found === 1,
    ok: r.ok === 1,
    folderFound: r.folder_ok !== 0,
    cycle: r.cycle === 1,
    tooDeep: r.too_deep === 1,
    hasSubfolders: r.has_subfolders === 1,
  }));
}

export interface BulkResult {
  /** Null when the deployment is not the caller's. */
  checks: BulkCheck[] | null;
  items: ItemRecord[];
}

/** Moves every movable item of `refs` into `folderId` (null: the root) in one transaction. */
export async function bulkMove(
  scope: DeploymentScope,
  refs: ItemRef[],
  folderId: number | null,
): Promise<BulkResult> {
  const { db } = scope;
  const check = moveCheck(scope, refs, folderId);
  const [checked, , read] = await runBatch<Raw>(db, [
    check,
    db
      .update(workspaceItems)
      .set({ folderId, ...editedBy(scope) })
      .where(inArray(workspaceItems.id, okIds(check))),
    itemsQuery({
      ...scope,
      viewerId: scope.userId,
      // The requested ids as one JSON parameter, as in refsCte.
      selection: sql`SELECT i.id, 0 AS rank, '' AS sort_key
        FROM json_each(${JSON.stringify(refs.map((r) => r.id))}) j JOIN workspace_items i ON i.id = j.value
        WHERE i.deployment_id = ${scope.deploymentId}`,
      order: sql`s.id`,
    }),
  ]);
  const rows = checked?.results ?? [];
  const owned = rows[0]?.deployment_ok === 1;
  return { checks: owned ? toChecks(rows) : null, items: readItems(read?.results ?? [])?.items ?? [] };
}

/**
 * Deletes every deletable item of `refs` in one transaction. The workbooks and reports of a
 * deleted folder that are not deleted themselves move to the root, as Cube does.
 */
export async function bulkDelete(scope: DeploymentScope, refs: ItemRef[]): Promise<BulkCheck[] | null> {
  const { db } = scope;
  const check = deleteCheck(scope, refs);
  const [checked] = await runBatch<Raw>(db, [
    check,
    db
      .update(workspaceItems)
      .set({ folderId: null })
      .where(
        and(
          inArray(workspaceItems.folderId, okIds(check, 'FOLDER')),
          notInArray(workspaceItems.id, okIds(check)),
        ),
      ),
    db.delete(workspaceItems).where(inArray(workspaceItems.id, okIds(check))),
  ]);
  const rows = checked?.results ?? [];
  return rows[0]?.deployment_ok === 1 ? toChecks(rows) : null;
}
