import { type SQL, sql } from 'drizzle-orm';
import type { WorkspaceItemType } from '../../schema/workspace';
import type { DeploymentScope } from '../auth/deployment-scope';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';
import { deploymentOwned } from '../core/tenancy';
import { nameGrams } from './name-search';
import {
  folderDepth,
  isAncestorOrSelf,
  isFolderOf,
  itemsQuery,
  MAX_FOLDER_DEPTH,
  subtreeHeight,
} from './workspace.queries';
import {
  type ItemRecord,
  isItemType,
  itemOf,
  type Raw,
  type ReportFields,
  readItems,
  singleFrom,
} from './workspace.rows';

export type { ItemRecord, ReportFields };

// ---- Reading one item ----

/**
 * One round trip: records the caller's view (E7's viewer_last_viewed_at) and reads the item.
 * The view is only written for an item of this deployment of the caller's account.
 */
export async function viewItem(
  db: Db,
  scope: DeploymentScope,
  id: number,
  type: WorkspaceItemType,
  now: string,
): Promise<ItemRecord | null> {
  const [, read] = await runBatch<Raw>(db, [
    sql`INSERT INTO workspace_views (user_id, item_id, deployment_id, viewed_at)
      SELECT ${scope.userId}, i.id, i.deployment_id, ${now} FROM workspace_items i
      WHERE i.id = ${id} AND i.deployment_id = ${scope.deploymentId} AND i.type = ${type}
        AND ${deploymentOwned(scope.deploymentId, scope.accountId)}
      ON CONFLICT (user_id, item_id) DO UPDATE SET viewed_at = excluded.viewed_at`,
    itemOf(scope, id, type),
  ]);
  return singleFrom(read);
}

/** One item of the deployment, without recording a view; null when not found. */
export async function readItem(
  db: Db,
  scope: DeploymentScope,
  id: number,
  type?: WorkspaceItemType,
): Promise<ItemRecord | null> {
  const rows = await db.all<Raw>(itemOf(scope, id, type));
  return readItems(rows)?.items[0] ?? null;
}

/** A workbook's name and folder, what a duplicate needs of it; null when the deployment has none. */
export async function readWorkbookPlace(
  db: Db,
  scope: DeploymentScope,
  id: number,
): Promise<{ name: string; folderId: number | null } | null> {
  const [row] = await db.all<{ name: string; folder_id: number | null }>(sql`
    SELECT i.name, i.folder_id FROM workspace_items i JOIN deployments d ON d.id = i.deployment_id
    WHERE i.id = ${id} AND i.deployment_id = ${scope.deploymentId} AND d.account_id = ${scope.accountId}
      AND i.type = 'WORKBOOK'`);
  return row ? { name: row.name, folderId: row.folder_id } : null;
}

// ---- Guarded writes ----
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
function toCheck(row: Raw | undefined): WriteCheck {
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
const guard = (check: SQL): SQL => sql`(SELECT ok FROM (${check})) = 1`;

export interface WriteResult {
  check: WriteCheck;
  item: ItemRecord | null;
}

async function guardedWrite(db: Db, check: SQL, writes: SQL[], read: SQL): Promise<WriteResult> {
  const results = await runBatch<Raw>(db, [check, ...writes, read]);
  const found = toCheck(results[0]?.results[0]);
  return { check: found, item: found.ok ? singleFrom(results[results.length - 1]) : null };
}

export interface NewItem {
  type: WorkspaceItemType;
  name: string;
  folderId: number | null;
  now: string;
}

function insertItem(scope: DeploymentScope, item: NewItem, check: SQL, position: SQL = sql`0`): SQL {
  const nameKey = item.name.toLowerCase();
  return sql`INSERT INTO workspace_items (deployment_id, type, name, name_key, name_grams, folder_id, position,
      created_by, updated_by, created_at, updated_at)
    SELECT ${scope.deploymentId}, ${item.type}, ${item.name}, ${nameKey}, ${nameGrams(nameKey)}, ${item.folderId}, ${position},
      ${scope.userId}, ${scope.userId}, ${item.now}, ${item.now}
    FROM (${check}) c WHERE c.ok = 1`;
}

/** The SET of a rename: the name, its sort/search key and its search grams. */
function nameSet(name: string): SQL {
  const nameKey = name.toLowerCase();
  return sql`name = ${name}, name_key = ${nameKey}, name_grams = ${nameGrams(nameKey)},`;
}

const flagsOf = (columns: SQL, ok: string): SQL =>
  sql`SELECT *, (${sql.raw(ok)}) AS ok FROM (SELECT ${columns})`;

// Folders

export function createFolder(db: Db, scope: DeploymentScope, item: NewItem, position: number | null) {
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      ${isFolderOf(item.folderId, scope.deploymentId)} AS parent_ok,
      ${folderDepth(item.folderId)} AS parent_depth`,
    `deployment_ok AND parent_ok AND parent_depth + 1 <= ${MAX_FOLDER_DEPTH}`,
  );
  // Without a position, a folder goes after its sibling folders.
  const nextPosition =
    position !== null
      ? sql`${position}`
      : sql`(SELECT coalesce(max(position) + 1, 0) FROM workspace_items
          WHERE deployment_id = ${scope.deploymentId} AND folder_id IS ${item.folderId} AND type = 'FOLDER')`;
  return guardedWrite(
    db,
    check,
    [insertItem(scope, item, check, nextPosition)],
    itemOf(scope, sql`last_insert_rowid()`, 'FOLDER'),
  );
}

export interface ItemPatch {
  name?: string;
  position?: number;
  now: string;
}

/** E5: two statements, one round trip; null when the folder is not found. */
export async function updateFolder(db: Db, scope: DeploymentScope, id: number, patch: ItemPatch) {
  // Nothing sent (Cube: every field optional): answer the folder unchanged.
  if (patch.name === undefined && patch.position === undefined) return readItem(db, scope, id, 'FOLDER');
  const [, read] = await runBatch<Raw>(db, [
    sql`UPDATE workspace_items SET
        ${patch.name === undefined ? sql`` : nameSet(patch.name)}
        ${patch.position === undefined ? sql`` : sql`position = ${patch.position},`}
        updated_at = ${patch.now}, updated_by = ${scope.userId}
      WHERE id = ${id} AND deployment_id = ${scope.deploymentId} AND type = 'FOLDER'
        AND ${deploymentOwned(scope.deploymentId, scope.accountId)}`,
    itemOf(scope, id, 'FOLDER'),
  ]);
  return singleFrom(read);
}

/**
 * E6: a folder holding sub-folders stays (409); otherwise its workbooks and reports move to its
 * parent and it is deleted, in one transaction.
 */
export async function deleteFolder(db: Db, scope: DeploymentScope, id: number) {
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      EXISTS (SELECT 1 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId}
        AND type = 'FOLDER') AS found,
      EXISTS (SELECT 1 FROM workspace_items WHERE folder_id = ${id} AND type = 'FOLDER') AS has_subfolders`,
    'deployment_ok AND found AND NOT has_subfolders',
  );
  const results = await runBatch<Raw>(db, [
    check,
    sql`UPDATE workspace_items SET folder_id = (SELECT folder_id FROM workspace_items WHERE id = ${id})
      WHERE folder_id = ${id} AND ${guard(check)}`,
    sql`DELETE FROM workspace_items WHERE id = ${id} AND ${guard(check)}`,
  ]);
  return toCheck(results[0]?.results[0]);
}

// Workbooks

export interface NewWorkbook extends NewItem {
  slug: string;
  meta: Record<string, unknown>;
  calculatedFields: Record<string, unknown>;
}

const slugHolder = (deploymentId: number, slug: string | undefined, except: number | null) =>
  slug === undefined
    ? sql`NULL`
    : sql`(SELECT item_id FROM workbooks WHERE deployment_id = ${deploymentId} AND slug = ${slug}
        ${except === null ? sql`` : sql`AND item_id <> ${except}`})`;

export function createWorkbook(db: Db, scope: DeploymentScope, item: NewWorkbook) {
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      ${isFolderOf(item.folderId, scope.deploymentId)} AS folder_ok,
      ${slugHolder(scope.deploymentId, item.slug, null)} AS slug_holder`,
    'deployment_ok AND folder_ok AND slug_holder IS NULL',
  );
  return guardedWrite(
    db,
    check,
    [
      insertItem(scope, item, check),
      sql`INSERT INTO workbooks (item_id, deployment_id, slug, meta, calculated_fields)
        SELECT last_insert_rowid(), ${scope.deploymentId}, ${item.slug}, ${JSON.stringify(item.meta)},
          ${JSON.stringify(item.calculatedFields)}
        FROM (${check}) c WHERE c.ok = 1`,
    ],
    itemOf(scope, sql`last_insert_rowid()`, 'WORKBOOK'),
  );
}

export interface WorkbookPatch {
  name?: string;
  folderId?: number | null;
  meta?: Record<string, unknown>;
  /** Merged into the stored `meta` (upsert by slug) rather than replacing it. */
  metaMerge?: Record<string, unknown>;
  slug?: string;
  /** Set when the caller takes the slug over: the new slug of the workbook that held it. */
  displacedSlug?: string;
  now: string;
}

/** E3. With a takeover the holder of the slug is renamed first, in the same transaction. */
export function updateWorkbook(db: Db, scope: DeploymentScope, id: number, patch: WorkbookPatch) {
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
  const writes: SQL[] = [];
  if (takeover && patch.slug !== undefined) {
    writes.push(sql`UPDATE workbooks SET slug = ${patch.displacedSlug}
      WHERE deployment_id = ${scope.deploymentId} AND slug = ${patch.slug} AND item_id <> ${id} AND ${guard(check)}`);
  }
  const changes = [patch.name, patch.folderId, patch.slug, patch.meta, patch.metaMerge];
  // An empty update (Cube: every field optional) leaves even `updatedAt` alone.
  if (changes.some((x) => x !== undefined)) {
    writes.push(sql`UPDATE workspace_items SET
        ${patch.name === undefined ? sql`` : nameSet(patch.name)}
        ${patch.folderId === undefined ? sql`` : sql`folder_id = ${patch.folderId},`}
        updated_at = ${patch.now}, updated_by = ${scope.userId}
      WHERE id = ${id} AND ${guard(check)}`);
  }
  if (patch.slug !== undefined || patch.meta !== undefined || patch.metaMerge !== undefined) {
    const sets: SQL[] = [];
    if (patch.slug !== undefined) sets.push(sql`slug = ${patch.slug}`);
    if (patch.meta !== undefined) sets.push(sql`meta = ${JSON.stringify(patch.meta)}`);
    // Upsert-by-slug merges: an RFC 7396 merge patch of the stored object.
    if (patch.metaMerge !== undefined)
      sets.push(sql`meta = json_patch(meta, ${JSON.stringify(patch.metaMerge)})`);
    writes.push(
      sql`UPDATE workbooks SET ${sql.join(sets, sql`, `)} WHERE item_id = ${id} AND ${guard(check)}`,
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
export function duplicateWorkbook(db: Db, scope: DeploymentScope, sourceId: number, item: NewWorkbook) {
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
  const copied = sql`EXISTS (SELECT 1 FROM workspace_items WHERE id = ${copyId} AND created_at = ${item.now}
    AND created_by = ${scope.userId} AND name = ${item.name})`;
  return guardedWrite(
    db,
    check,
    [
      insertItem(scope, item, check),
      sql`INSERT INTO workbooks (item_id, deployment_id, slug, meta, calculated_fields, dashboard_draft)
        SELECT last_insert_rowid(), ${scope.deploymentId}, ${item.slug}, w.meta, w.calculated_fields, w.dashboard_draft
        FROM workbooks w WHERE w.item_id = ${sourceId} AND ${guard(check)}`,
      sql`INSERT INTO workspace_items (deployment_id, type, name, name_key, name_grams, folder_id, position,
          created_by, updated_by, created_at, updated_at)
        SELECT i.deployment_id, 'REPORT', i.name, i.name_key, i.name_grams, i.folder_id, 0,
          ${scope.userId}, ${scope.userId}, ${item.now}, ${item.now}
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

/** Deletes an item of `type`; its detail, favourites, views and published dashboard cascade. */
export async function deleteItem(
  db: Db,
  scope: DeploymentScope,
  id: number,
  type: WorkspaceItemType,
): Promise<boolean> {
  const rows = await db.all<{ id: number }>(sql`DELETE FROM workspace_items
    WHERE id = ${id} AND deployment_id = ${scope.deploymentId} AND type = ${type}
      AND ${deploymentOwned(scope.deploymentId, scope.accountId)}
    RETURNING id`);
  return rows.length > 0;
}

/** Sets or clears the caller's favourite, then reads the item: one round trip. */
export async function setFavorite(db: Db, scope: DeploymentScope, id: number, on: boolean, now: string) {
  const write = on
    ? sql`INSERT INTO workspace_favorites (user_id, item_id, created_at)
        SELECT ${scope.userId}, i.id, ${now} FROM workspace_items i
        WHERE i.id = ${id} AND i.deployment_id = ${scope.deploymentId} AND i.type = 'WORKBOOK'
          AND ${deploymentOwned(scope.deploymentId, scope.accountId)}
        ON CONFLICT (user_id, item_id) DO NOTHING`
    : sql`DELETE FROM workspace_favorites WHERE user_id = ${scope.userId} AND item_id = ${id}
        AND EXISTS (SELECT 1 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId}
          AND type = 'WORKBOOK')
        AND ${deploymentOwned(scope.deploymentId, scope.accountId)}`;
  const [, read] = await runBatch<Raw>(db, [write, itemOf(scope, id, 'WORKBOOK')]);
  return singleFrom(read);
}

// Reports

export interface ReportValues {
  workbookId?: number | null;
  title?: string;
  description?: string;
  spec?: string;
  sqlQuery?: string;
  meta?: Record<string, unknown>;
  fillMissingRows?: ReportFields['fillMissingRows'];
  periodComparisons?: unknown[];
  preferences?: ReportFields['preferences'];
  publicId?: string;
  jsonQuery?: string;
  source?: string;
  externalWorkbookId?: string;
  /** Spreadsheet add-in fields sent: merged into the stored ones. */
  addin?: Record<string, unknown>;
}

/** The report fields a published snapshot freezes (with the item's name): they move the version. */
const SNAPSHOT_FIELDS = [
  'title',
  'description',
  'spec',
  'sqlQuery',
  'jsonQuery',
  'meta',
  'fillMissingRows',
  'periodComparisons',
  'preferences',
] as const satisfies readonly (keyof ReportValues)[];

/** Who holds a public id, anywhere (ids are unique across accounts). */
const publicIdTaken = (publicId: string | undefined, except: number | null): SQL =>
  publicId === undefined
    ? sql`0`
    : sql`EXISTS (SELECT 1 FROM reports WHERE public_id = ${publicId}
        ${except === null ? sql`` : sql`AND item_id <> ${except}`})`;

const isWorkbookOf = (workbookId: number | null | undefined, deploymentId: number): SQL =>
  workbookId == null
    ? sql`1`
    : sql`EXISTS (SELECT 1 FROM workspace_items WHERE id = ${workbookId} AND deployment_id = ${deploymentId} AND type = 'WORKBOOK')`;

const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value));

export function createReport(
  db: Db,
  scope: DeploymentScope,
  item: NewItem,
  values: ReportValues & { publicId: string },
) {
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      ${isFolderOf(item.folderId, scope.deploymentId)} AS folder_ok,
      ${isWorkbookOf(values.workbookId, scope.deploymentId)} AS workbook_ok,
      ${publicIdTaken(values.publicId, null)} AS public_id_taken`,
    'deployment_ok AND folder_ok AND workbook_ok AND NOT public_id_taken',
  );
  return guardedWrite(
    db,
    check,
    [
      insertItem(scope, item, check),
      sql`INSERT INTO reports (item_id, workbook_id, version_number, title, description, spec, sql_query, meta,
          fill_missing_rows, period_comparisons, preferences, public_id, json_query, source,
          external_workbook_id, addin)
        SELECT last_insert_rowid(), ${values.workbookId ?? null}, 1, ${values.title ?? ''},
          ${values.description ?? ''}, ${values.spec ?? ''}, ${values.sqlQuery ?? ''},
          ${JSON.stringify(values.meta ?? {})}, ${jsonOrNull(values.fillMissingRows ?? null)},
          ${JSON.stringify(values.periodComparisons ?? [])},
          ${JSON.stringify(values.preferences ?? { columnFormats: {} })}, ${values.publicId},
          ${values.jsonQuery ?? null}, ${values.source ?? null}, ${values.externalWorkbookId ?? null},
          ${values.addin ? JSON.stringify(values.addin) : null}
        FROM (${check}) c WHERE c.ok = 1`,
    ],
    itemOf(scope, sql`last_insert_rowid()`, 'REPORT'),
  );
}

export function updateReport(
  db: Db,
  scope: DeploymentScope,
  id: number,
  patch: { name?: string; folderId?: number | null; now: string },
  values: ReportValues,
) {
  const folderId = patch.folderId === undefined ? null : patch.folderId;
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      EXISTS (SELECT 1 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId}
        AND type = 'REPORT') AS found,
      ${isFolderOf(folderId, scope.deploymentId)} AS folder_ok,
      ${isWorkbookOf(values.workbookId, scope.deploymentId)} AS workbook_ok,
      ${values.publicId === undefined ? sql`1` : sql`coalesce((SELECT public_id FROM reports WHERE item_id = ${id}), ${values.publicId}) = ${values.publicId}`} AS public_id_kept,
      ${publicIdTaken(values.publicId, id)} AS public_id_taken`,
    'deployment_ok AND found AND folder_ok AND workbook_ok AND public_id_kept AND NOT public_id_taken',
  );
  // The version moves with what a publish freezes (name, content and query), and only then:
  // publishes store one copy of each version, so a move of the placement must not add one.
  const contentSent =
    patch.name !== undefined || SNAPSHOT_FIELDS.some((field) => values[field] !== undefined);
  const sets: SQL[] = contentSent ? [sql`version_number = version_number + 1`] : [];
  if (values.publicId !== undefined) sets.push(sql`public_id = ${values.publicId}`);
  if (values.jsonQuery !== undefined) sets.push(sql`json_query = ${values.jsonQuery}`);
  if (values.externalWorkbookId !== undefined)
    sets.push(sql`external_workbook_id = ${values.externalWorkbookId}`);
  if (values.addin !== undefined)
    sets.push(sql`addin = json_patch(coalesce(addin, '{}'), ${JSON.stringify(values.addin)})`);
  if (values.workbookId !== undefined) sets.push(sql`workbook_id = ${values.workbookId}`);
  if (values.title !== undefined) sets.push(sql`title = ${values.title}`);
  if (values.description !== undefined) sets.push(sql`description = ${values.description}`);
  if (values.spec !== undefined) sets.push(sql`spec = ${values.spec}`);
  if (values.sqlQuery !== undefined) sets.push(sql`sql_query = ${values.sqlQuery}`);
  if (values.meta !== undefined) sets.push(sql`meta = ${JSON.stringify(values.meta)}`);
  if (values.fillMissingRows !== undefined)
    sets.push(sql`fill_missing_rows = ${jsonOrNull(values.fillMissingRows)}`);
  if (values.periodComparisons !== undefined)
    sets.push(sql`period_comparisons = ${JSON.stringify(values.periodComparisons)}`);
  if (values.preferences !== undefined) sets.push(sql`preferences = ${JSON.stringify(values.preferences)}`);
  // An empty update (Cube: every field optional) changes nothing, not even the version.
  const sent =
    patch.name !== undefined ||
    patch.folderId !== undefined ||
    Object.values(values).some((x) => x !== undefined);
  const writes = sent
    ? [
        sql`UPDATE workspace_items SET
          ${patch.name === undefined ? sql`` : nameSet(patch.name)}
          ${patch.folderId === undefined ? sql`` : sql`folder_id = ${patch.folderId},`}
          updated_at = ${patch.now}, updated_by = ${scope.userId}
        WHERE id = ${id} AND ${guard(check)}`,
        ...(sets.length > 0
          ? [sql`UPDATE reports SET ${sql.join(sets, sql`, `)} WHERE item_id = ${id} AND ${guard(check)}`]
          : []),
      ]
    : [];
  return guardedWrite(db, check, writes, itemOf(scope, id, 'REPORT'));
}

/**
 * The spreadsheet add-in's placement of a report (Cube's connect/disconnect/refresh): sets
 * `externalWorkbookId` (undefined: unchanged) and merges `addin` (a key set to null is removed),
 * without touching the report's content, version or `updatedAt`. With `onlyFor`, only when the
 * report is placed in that spreadsheet. Null when the report is not the deployment's.
 */
export async function placeReport(
  db: Db,
  scope: DeploymentScope,
  id: number,
  placement: { externalWorkbookId?: string | null; addin: Record<string, unknown>; onlyFor?: string },
) {
  const sets: SQL[] = [sql`addin = json_patch(coalesce(addin, '{}'), ${JSON.stringify(placement.addin)})`];
  if (placement.externalWorkbookId !== undefined) {
    sets.push(sql`external_workbook_id = ${placement.externalWorkbookId}`);
  }
  const [, read] = await runBatch<Raw>(db, [
    sql`UPDATE reports SET ${sql.join(sets, sql`, `)}
      WHERE item_id = ${id}
        AND EXISTS (SELECT 1 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId} AND type = 'REPORT')
        AND ${deploymentOwned(scope.deploymentId, scope.accountId)}
        ${placement.onlyFor === undefined ? sql`` : sql`AND external_workbook_id = ${placement.onlyFor}`}`,
    itemOf(scope, id, 'REPORT'),
  ]);
  return singleFrom(read);
}

// ---- E2: move ----

export function moveItem(
  db: Db,
  scope: DeploymentScope,
  id: number,
  folderId: number | null,
  type: WorkspaceItemType | null,
  now: string,
) {
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
      sql`UPDATE workspace_items SET folder_id = ${folderId}, updated_at = ${now}, updated_by = ${scope.userId}
        WHERE id = ${id} AND ${guard(check)}`,
    ],
    itemOf(scope, id),
  );
}

/**
 * A folder and its ancestors, root first, as full items; empty when the folder is not one of
 * the deployment's; null when the deployment is not the caller's.
 */
export async function folderAncestors(db: Db, scope: DeploymentScope, id: number) {
  const rows = await db.all<Raw>(
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

/** Which report of the deployment holds `publicId`, and whether another deployment's does. */
export async function reportByPublicId(db: Db, scope: DeploymentScope, publicId: string) {
  const [row] = await db.all<Raw>(sql`SELECT d.id AS deployment_ok,
      (SELECT r.item_id FROM reports r JOIN workspace_items i ON i.id = r.item_id
        WHERE r.public_id = ${publicId} AND i.deployment_id = d.id) AS id,
      EXISTS (SELECT 1 FROM reports r JOIN workspace_items i ON i.id = r.item_id
        WHERE r.public_id = ${publicId} AND i.deployment_id <> d.id) AS other
    FROM deployments d WHERE d.id = ${scope.deploymentId} AND d.account_id = ${scope.accountId}`);
  return {
    deploymentFound: row !== undefined,
    id: row?.id == null ? null : Number(row.id),
    otherDeployment: row?.other === 1,
  };
}

/** The workbook of the deployment with `slug`; null when none. */
export async function workbookBySlug(db: Db, scope: DeploymentScope, slug: string) {
  const [row] = await db.all<Raw>(sql`SELECT d.id AS deployment_ok,
      (SELECT item_id FROM workbooks WHERE deployment_id = d.id AND slug = ${slug}) AS id
    FROM deployments d WHERE d.id = ${scope.deploymentId} AND d.account_id = ${scope.accountId}`);
  return { deploymentFound: row !== undefined, id: row?.id == null ? null : Number(row.id) };
}

export { MAX_FOLDER_DEPTH };
