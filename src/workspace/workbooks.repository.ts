import { and, eq, exists, ne, sql } from 'drizzle-orm';
import { deployments } from '../../schema/deployments';
import { workbooks, workspaceFavorites, workspaceItems } from '../../schema/workspace';
import { runBatch, type Statement } from '../core/db';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';
import { isFolderOf } from './workspace.queries';
import { itemOf, type Raw, singleFrom } from './workspace.rows';
import {
  bound,
  flagsOf,
  guard,
  guardedItemUpdate,
  guardedWrite,
  insertItem,
  itemIs,
  type NewItem,
} from './workspace.writes';

/** Workbooks (create, update, duplicate, favourites, upsert by slug): the workbook detail beside its item. */

/** A workbook's name and folder, what a duplicate needs of it; null when the deployment has none. */
export async function readWorkbookPlace(
  scope: DeploymentScope,
  id: number,
): Promise<{ name: string; folderId: number | null } | null> {
  const [row] = await scope.db
    .select({ name: workspaceItems.name, folderId: workspaceItems.folderId })
    .from(workspaceItems)
    .innerJoin(deployments, eq(deployments.id, workspaceItems.deploymentId))
    .where(and(itemIs(scope, id, 'WORKBOOK'), eq(deployments.accountId, scope.accountId)));
  return row ?? null;
}

type WorkbookRow = typeof workbooks.$inferSelect;

export interface NewWorkbook extends NewItem, Pick<WorkbookRow, 'slug' | 'meta' | 'calculatedFields'> {}

const slugHolder = (deploymentId: number, slug: string | undefined, except: number | null) =>
  slug === undefined
    ? sql`NULL`
    : sql`(SELECT item_id FROM workbooks WHERE deployment_id = ${deploymentId} AND slug = ${slug}
        ${except === null ? sql`` : sql`AND item_id <> ${except}`})`;

/** A guarded write: INSERT … SELECT from its check (see insertItem), hand-written. */
export function createWorkbook(scope: DeploymentScope, item: NewWorkbook) {
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      ${isFolderOf(item.folderId, scope.deploymentId)} AS folder_ok,
      ${slugHolder(scope.deploymentId, item.slug, null)} AS slug_holder`,
    'deployment_ok AND folder_ok AND slug_holder IS NULL',
  );
  return guardedWrite(
    scope.db,
    check,
    [
      insertItem(scope, item, check),
      sql`INSERT INTO workbooks (item_id, deployment_id, slug, meta, calculated_fields)
        SELECT last_insert_rowid(), ${scope.deploymentId}, ${item.slug}, ${bound(workbooks.meta, item.meta)},
          ${bound(workbooks.calculatedFields, item.calculatedFields)}
        FROM (${check}) c WHERE c.ok = 1`,
    ],
    itemOf(scope, sql`last_insert_rowid()`, 'WORKBOOK'),
  );
}

export interface WorkbookPatch {
  name?: string;
  folderId?: number | null;
  meta?: WorkbookRow['meta'];
  /** Merged into the stored `meta` (upsert by slug) rather than replacing it. */
  metaMerge?: WorkbookRow['meta'];
  slug?: string;
  /** Set when the caller takes the slug over: the new slug of the workbook that held it. */
  displacedSlug?: string;
}

/** The fields sent of a workbook; with a takeover the holder of the slug is renamed first, in the same transaction. */
export function updateWorkbook(scope: DeploymentScope, id: number, patch: WorkbookPatch) {
  const { db } = scope;
  const takeover = patch.displacedSlug !== undefined;
  const folderId = patch.folderId === undefined ? null : patch.folderId;
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      EXISTS (SELECT 1 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId}
        AND type = 'WORKBOOK') AS found,
      ${isFolderOf(folderId, scope.deploymentId)} AS folder_ok,
      ${slugHolder(scope.deploymentId, patch.slug, id)} AS slug_holder`,
    `deployment_ok AND found AND folder_ok AND ${takeover ? '1' : 'slug_holder IS NULL'}`,
  );
  const writes: Statement[] = [];
  if (takeover && patch.slug !== undefined) {
    writes.push(
      db
        .update(workbooks)
        .set({ slug: patch.displacedSlug })
        .where(
          and(
            eq(workbooks.deploymentId, scope.deploymentId),
            eq(workbooks.slug, patch.slug),
            ne(workbooks.itemId, id),
            guard(check),
          ),
        ),
    );
  }
  const changes = [patch.name, patch.folderId, patch.slug, patch.meta, patch.metaMerge];
  // An empty update (Cube: every field optional) leaves even `updatedAt` alone.
  if (changes.some((x) => x !== undefined)) {
    writes.push(guardedItemUpdate(scope, id, check, patch));
  }
  if (patch.slug !== undefined || patch.meta !== undefined || patch.metaMerge !== undefined) {
    // Upsert-by-slug merges: an RFC 7396 merge patch of the stored object.
    const meta =
      patch.metaMerge === undefined
        ? patch.meta
        : sql`json_patch(${workbooks.meta}, ${bound(workbooks.meta, patch.metaMerge)})`;
    writes.push(
      db
        .update(workbooks)
        .set({ slug: patch.slug, meta })
        .where(and(eq(workbooks.itemId, id), guard(check))),
    );
  }
  return guardedWrite(db, check, writes, itemOf(scope, id, 'WORKBOOK'));
}

/**
 * Cube's duplicate: a new workbook in the same folder with the source's meta, calculated fields
 * and draft, and a copy of each of its reports (fresh public ids), in one transaction. The copies
 * of the reports are inserted in the order of the originals' ids, so within this one statement
 * their new ids are consecutive and the n-th copy's id is the first one's plus n.
 */
// Copies rows table to table in one batch (INSERT … SELECT, window functions): hand-written.
export function duplicateWorkbook(scope: DeploymentScope, sourceId: number, item: NewWorkbook) {
  const now = scope.now.toISOString();
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      EXISTS (SELECT 1 FROM workspace_items WHERE id = ${sourceId} AND deployment_id = ${scope.deploymentId}
        AND type = 'WORKBOOK') AS found,
      ${slugHolder(scope.deploymentId, item.slug, null)} AS slug_holder`,
    'deployment_ok AND found AND slug_holder IS NULL',
  );
  const copyId = sql`(SELECT id FROM workspace_items WHERE deployment_id = ${scope.deploymentId}
    AND type = 'WORKBOOK' AND id IN (SELECT item_id FROM workbooks WHERE deployment_id = ${scope.deploymentId} AND slug = ${item.slug}))`;
  const sourceReports = sql`SELECT r.item_id FROM reports r JOIN workspace_items i ON i.id = r.item_id
    WHERE r.workbook_id = ${sourceId} AND i.deployment_id = ${scope.deploymentId}`;
  // The check no longer holds once the copy holds its slug: the reports are copied only when the
  // copy was just written by this batch.
  const copied = sql`EXISTS (SELECT 1 FROM workspace_items WHERE id = ${copyId} AND created_at = ${now}
    AND created_by = ${scope.userId} AND name = ${item.name})`;
  return guardedWrite(
    scope.db,
    check,
    [
      insertItem(scope, item, check),
      sql`INSERT INTO workbooks (item_id, deployment_id, slug, meta, calculated_fields, dashboard_draft)
        SELECT last_insert_rowid(), ${scope.deploymentId}, ${item.slug}, w.meta, w.calculated_fields, w.dashboard_draft
        FROM workbooks w WHERE w.item_id = ${sourceId} AND ${guard(check)}`,
      sql`INSERT INTO workspace_items (deployment_id, type, name, name_key, name_grams, folder_id, position,
          created_by, updated_by, created_at, updated_at)
        SELECT i.deployment_id, 'REPORT', i.name, i.name_key, i.name_grams, i.folder_id, 0,
          ${scope.userId}, ${scope.userId}, ${now}, ${now}
        FROM workspace_items i WHERE i.id IN (${sourceReports}) AND ${copied} ORDER BY i.id`,
      sql`INSERT INTO reports (item_id, workbook_id, version_number, title, description, spec, sql_query, meta,
          fill_missing_rows, period_comparisons, preferences, public_id, json_query, source, external_workbook_id, addin)
        SELECT (SELECT max(id) FROM workspace_items) - (SELECT count(*) FROM (${sourceReports}))
            + row_number() OVER (ORDER BY r.item_id),
          ${copyId}, 1, r.title, r.description, r.spec, r.sql_query, r.meta, r.fill_missing_rows,
          r.period_comparisons, r.preferences, upper(hex(randomblob(6))), r.json_query, r.source, NULL, NULL
        FROM reports r WHERE r.item_id IN (${sourceReports}) AND ${copied}`,
    ],
    itemOf(scope, copyId, 'WORKBOOK'),
  );
}

/** Sets or clears the caller's favourite, then reads the item: one round trip. */
export async function setFavorite(scope: DeploymentScope, id: number, on: boolean) {
  const { db } = scope;
  const owned = deploymentOwned(scope.deploymentId, scope.accountId);
  const write = on
    ? db
        .insert(workspaceFavorites)
        .select(
          db
            .select({
              userId: sql<number>`${scope.userId}`.as('user_id'),
              itemId: workspaceItems.id,
              createdAt: sql<string>`${scope.now.toISOString()}`.as('created_at'),
            })
            .from(workspaceItems)
            .where(and(itemIs(scope, id, 'WORKBOOK'), owned)),
        )
        .onConflictDoNothing()
    : db.delete(workspaceFavorites).where(
        and(
          eq(workspaceFavorites.userId, scope.userId),
          eq(workspaceFavorites.itemId, id),
          exists(
            db
              .select({ id: workspaceItems.id })
              .from(workspaceItems)
              .where(itemIs(scope, id, 'WORKBOOK')),
          ),
          owned,
        ),
      );
  const [, read] = await runBatch<Raw>(db, [write, itemOf(scope, id, 'WORKBOOK')]);
  return singleFrom(read);
}

/** The workbook of the deployment with `slug`; null when none. */
export async function workbookBySlug(scope: DeploymentScope, slug: string) {
  // (deployment, slug) is unique: at most one workbook joins.
  const [row] = await scope.db
    .select({ id: workbooks.itemId })
    .from(deployments)
    .leftJoin(workbooks, and(eq(workbooks.deploymentId, deployments.id), eq(workbooks.slug, slug)))
    .where(and(eq(deployments.id, scope.deploymentId), eq(deployments.accountId, scope.accountId)));
  return { deploymentFound: row !== undefined, id: row?.id ?? null };
}
