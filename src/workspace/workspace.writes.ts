import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { type WorkspaceItemType, workspaceItems } from '../../schema/workspace';
import { runBatch, type Statement } from '../core/db';
import type { Db } from '../core/env';
import type { DeploymentScope } from '../core/scope';
import { nameGrams } from './name-search';
import { type ItemRecord, isItemType, type Raw, singleFrom } from './workspace.rows';

// ---- Guarded writes ----
//
// Their checks are hand-written SQL (flag columns read by toCheck, repeated as each write's guard);
// the writes are drizzle builders where drizzle can take the guard.
//
// A write is one batch: statement 0 reads the flags that decide the answer (404, 409, 400), every
// write repeats the same check as its guard, and the last statement reads the item back. The
// batch is one transaction, so the flags and the guards see the same state: either every write
// applies or none does.

/**
 * What the check of a guarded write found, typed. The SQL aliases it is read from (`deployment_ok`,
 * `folder_ok`, …) are written by the checks in this file and read only by `toCheck`.
 */
export interface WriteCheck {
  /** Every condition held: the writes applied. */
  ok: boolean;
  deploymentFound: boolean;
  /** The item written exists in the deployment (always true for a create). */
  found: boolean;
  /** The target folder (`folderId`/`parentId`) is a folder of the deployment, or the root. */
  folderFound: boolean;
  /** The report's `workbookId` is a workbook of the deployment, or null. */
  workbookFound: boolean;
  /** Another workbook of the deployment holds the slug. */
  slugTaken: boolean;
  hasSubfolders: boolean;
  /** The moved item's type; null when there is no such item. */
  itemType: WorkspaceItemType | null;
  /** The move would put a folder inside itself or a descendant. */
  cycle: boolean;
  /** The report `publicId` sent is another report's. */
  publicIdTaken: boolean;
  /** The report `publicId` sent differs from the stored one (it is write-once). */
  publicIdChanged: boolean;
}

/** The one mapper of a check row; a column a check does not select reads as "holds". */
export function toCheck(row: Raw | undefined): WriteCheck {
  const r = row ?? {};
  const holds = (x: unknown) => x === undefined || x === 1;
  return {
    ok: r.ok === 1,
    deploymentFound: r.deployment_ok === 1,
    found: holds(r.found),
    folderFound: holds(r.folder_ok) && holds(r.parent_ok),
    workbookFound: holds(r.workbook_ok),
    slugTaken: r.slug_holder != null,
    hasSubfolders: r.has_subfolders === 1,
    itemType: isItemType(r.item_type) ? r.item_type : null,
    cycle: r.cycle === 1,
    publicIdTaken: r.public_id_taken === 1,
    publicIdChanged: r.public_id_kept === 0,
  };
}

/** `check` is a SELECT of flag columns including `ok`; the guard is its `ok`. */
export const guard = (check: SQL): SQL => sql`(SELECT ok FROM (${check})) = 1`;

export interface WriteResult {
  check: WriteCheck;
  item: ItemRecord | null;
}

export async function guardedWrite(db: Db, check: SQL, writes: Statement[], read: SQL): Promise<WriteResult> {
  const results = await runBatch<Raw>(db, [check, ...writes, read]);
  const found = toCheck(results[0]?.results[0]);
  return { check: found, item: found.ok ? singleFrom(results[results.length - 1]) : null };
}

export interface NewItem {
  type: WorkspaceItemType;
  name: string;
  folderId: number | null;
}

// Hand-written: an INSERT guarded by the batch's check must be INSERT … SELECT from it, which
// drizzle's insert-select only takes with every column of the table in order.
export function insertItem(scope: DeploymentScope, item: NewItem, check: SQL, position: SQL = sql`0`): SQL {
  const nameKey = item.name.toLowerCase();
  const now = scope.now.toISOString();
  return sql`INSERT INTO workspace_items (deployment_id, type, name, name_key, name_grams, folder_id, position,
      created_by, updated_by, created_at, updated_at)
    SELECT ${scope.deploymentId}, ${item.type}, ${item.name}, ${nameKey}, ${nameGrams(nameKey)}, ${item.folderId}, ${position},
      ${scope.userId}, ${scope.userId}, ${now}, ${now}
    FROM (${check}) c WHERE c.ok = 1`;
}

/** The item `id` of the scope's deployment (of `type`, when given), as a drizzle condition. */
export const itemIs = (scope: DeploymentScope, id: number, type?: WorkspaceItemType): SQL =>
  and(
    eq(workspaceItems.id, id),
    eq(workspaceItems.deploymentId, scope.deploymentId),
    type === undefined ? undefined : eq(workspaceItems.type, type),
  ) as SQL;

/** The columns a rename sets: the name, its sort/search key and its search grams. */
export function nameSet(name: string | undefined): Partial<typeof workspaceItems.$inferInsert> {
  if (name === undefined) return {};
  const nameKey = name.toLowerCase();
  return { name, nameKey, nameGrams: nameGrams(nameKey) };
}

/** The columns every edit of an item sets: who made it, and when. */
export const editedBy = (scope: DeploymentScope) => ({
  updatedAt: scope.now.toISOString(),
  updatedBy: scope.userId,
});

/**
 * The item row's part of a guarded update (name, folder, who and when), written only when the
 * batch's check passed: shared by the workbook and report updates.
 */
export function guardedItemUpdate(
  scope: DeploymentScope,
  id: number,
  check: Parameters<typeof guard>[0],
  patch: { name?: string; folderId?: number | null },
) {
  return scope.db
    .update(workspaceItems)
    .set({ ...nameSet(patch.name), folderId: patch.folderId, ...editedBy(scope) })
    .where(and(eq(workspaceItems.id, id), guard(check)));
}

/**
 * `value` bound the way `column` binds it (a JSON column's value as JSON text), for the
 * hand-written statements of a guarded batch: the value is type-checked against the column.
 */
export const bound = <C extends AnySQLiteColumn>(column: C, value: C['_']['data'] | null): SQL =>
  sql`${sql.param(value, column)}`;

export const flagsOf = (columns: SQL, ok: string): SQL =>
  sql`SELECT *, (${sql.raw(ok)}) AS ok FROM (SELECT ${columns})`;
