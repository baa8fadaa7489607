import type * as v from 'valibot';
import { WORKSPACE_ITEM_TYPES, type WorkspaceItemType } from '../../schema/workspace';
import type { DeploymentScope } from '../auth/deployment-scope';
import type { Db } from '../core/env';
import { ApiError, badRequest, conflict, isNotFound, notFound } from '../core/errors';
import { type CursorValue, invalidCursor, pageRequest, toPage } from '../core/pagination';
import { withStorageQuota } from '../core/storage-quota';
import { slugify } from '../core/text';
import type { ItemRecord, WriteResult } from './workspace.repository';
import * as repo from './workspace.repository';
import {
  addinEntries,
  type BulkFailure,
  type bulkDeleteBody,
  type bulkMoveBody,
  type connectReportBody,
  type createFolderBody,
  type createReportBody,
  type createWorkbookBody,
  cubeList,
  type duplicateWorkbookBody,
  type Folder,
  type foldersQuery,
  type listQuery,
  type moveBody,
  NAME_MAX,
  type placementBody,
  placementEntries,
  type REPORT_SORT_FIELDS,
  type Report,
  type reportsQuery,
  SLUG_MAX,
  type updateFolderBody,
  type updateReportBody,
  type updateWorkbookBody,
  type upsertWorkbookBody,
  type WorkspaceItem,
  type workbooksQuery,
} from './workspace.schemas';
import type { BulkCheck, ItemRef } from './workspace-bulk.repository';
import * as bulkRepo from './workspace-bulk.repository';
import {
  type ListCursor,
  type ListParams,
  listItems,
  type OrderDirection,
  type OrderField,
} from './workspace-list.repository';

const DEFAULT_WORKBOOK_NAME = 'Untitled workbook';

/** How each kind of item is named in messages and operationIds. */
export const LABEL: Record<WorkspaceItemType, string> = {
  FOLDER: 'Folder',
  WORKBOOK: 'Workbook',
  REPORT: 'Report',
};

// ---- Presenting ----

function common(rec: ItemRecord) {
  return {
    id: rec.id,
    type: rec.type,
    deploymentId: rec.deploymentId,
    name: rec.name,
    folderPath: rec.folderPath,
    createdAt: rec.createdAt,
    updatedAt: rec.updatedAt,
    createdBy: rec.createdBy,
    updatedBy: rec.updatedBy,
    userId: rec.createdBy,
    user: rec.owner,
    isFavorite: rec.isFavorite,
    viewerLastViewedAt: rec.viewerLastViewedAt,
  };
}

/** The spec's workspace item. Fields that do not apply to the item's type are null. */
export function presentItem(rec: ItemRecord): WorkspaceItem {
  const published = rec.published as WorkspaceItem['publishedDashboard'];
  return {
    ...common(rec),
    folderId: rec.folderId,
    position: rec.type === 'FOLDER' ? rec.position : null,
    slug: rec.workbook?.slug ?? null,
    meta: rec.workbook?.meta ?? rec.report?.meta ?? {},
    calculatedFields: rec.workbook?.calculatedFields ?? {},
    dashboardDraft: (rec.workbook?.dashboardDraft ?? null) as WorkspaceItem['dashboardDraft'],
    dashboardPublished: published?.config ?? null,
    // A `status` the dashboards' own shape carries wins.
    publishedDashboard: published ? { ...published, status: published.status ?? 'published' } : null,
    workbookId: rec.report?.workbookId ?? null,
  };
}

export function presentFolder(rec: ItemRecord): Folder {
  return { ...common(rec), meta: {}, calculatedFields: {}, parentId: rec.folderId, position: rec.position };
}

/** Cube requires a report's owner: a deleted creator reads as user 0. */
const NO_OWNER = { id: 0, email: '', firstName: '', picture: '' };

const addinText = (x: unknown): string | null => (typeof x === 'string' ? x : null);

export function presentReport(rec: ItemRecord): Report {
  const { publicId, jsonQuery, source, externalWorkbookId, addin, ...report } =
    rec.report as repo.ReportFields;
  const owner = rec.owner ?? NO_OWNER;
  return {
    ...common(rec),
    userId: rec.createdBy ?? 0,
    user: owner,
    // edgeboard runs no report refreshes: the creator stands for the last refresher.
    refreshedByUser: owner,
    refreshedBy: rec.createdBy,
    folderId: rec.folderId,
    ...report,
    calculatedFields: {},
    periodComparisons: report.periodComparisons as Report['periodComparisons'],
    version: report.versionNumber,
    publicId,
    jsonQuery,
    source: source as Report['source'],
    externalWorkbookId,
    pivotItems: (addin.pivotItems ?? null) as Report['pivotItems'],
    resultLocation: addinText(addin.resultLocation),
    endResultCell: addinText(addin.endResultCell),
  };
}

/**
 * Cube's `null` on an optional field means "not sent": drops the null values of `input`,
 * except `keep` (fields where edgeboard gives null a meaning: the root, detach, clear).
 */
function sent<T extends object>(
  input: T | undefined,
  keep: string[] = [],
): { [K in keyof T]?: Exclude<T[K], null> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input ?? {})) {
    if (value !== null || keep.includes(key)) out[key] = value;
  }
  return out as { [K in keyof T]?: Exclude<T[K], null> };
}

// ---- The check of a guarded write → the contract's errors ----

function requireDeployment(check: repo.WriteCheck): void {
  if (!check.deploymentFound) throw notFound('Deployment');
}

function folderNotFound(field: string): ApiError {
  return new ApiError('NOT_FOUND', 'Folder not found in this deployment', [
    { path: field, message: 'No folder with this id in the deployment' },
  ]);
}

function depthError(field: string): ApiError {
  return badRequest(`Folders nest at most ${repo.MAX_FOLDER_DEPTH} levels deep`, [
    { path: field, message: `The folder would be deeper than ${repo.MAX_FOLDER_DEPTH} levels` },
  ]);
}

/** The item a successful write read back; a guarded write that passed its check always has one. */
function written(result: WriteResult): ItemRecord {
  if (!result.item) throw new Error('guarded write passed its check but read no item');
  return result.item;
}

const randomSuffix = (length: number) =>
  [...crypto.getRandomValues(new Uint8Array(length))].map((b) => (b % 36).toString(36)).join('');

// ---- Reading ----

/** GET of one item: records the caller's view time and answers the item. */
export async function viewItem(
  db: Db,
  scope: DeploymentScope,
  id: number,
  type: WorkspaceItemType,
  now: string,
) {
  const rec = await repo.viewItem(db, scope, id, type, now);
  if (!rec) throw notFound(LABEL[type]);
  return rec;
}

// ---- Folders ----

export async function createFolder(
  db: Db,
  scope: DeploymentScope,
  input: v.InferOutput<typeof createFolderBody>,
  now: string,
) {
  const result = await repo.createFolder(
    db,
    scope,
    { type: 'FOLDER', name: input.name, folderId: input.parentId ?? null, now },
    input.position ?? null,
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.folderFound) throw folderNotFound('parentId');
  if (!check.ok) throw depthError('parentId');
  return written(result);
}

export async function updateFolder(
  db: Db,
  scope: DeploymentScope,
  id: number,
  input: v.InferOutput<typeof updateFolderBody>,
  now: string,
) {
  const rec = await repo.updateFolder(db, scope, id, { ...sent(input), now });
  if (!rec) throw notFound('Folder');
  return rec;
}

export async function deleteFolder(db: Db, scope: DeploymentScope, id: number) {
  const check = await repo.deleteFolder(db, scope, id);
  requireDeployment(check);
  if (!check.found) throw notFound('Folder');
  if (check.hasSubfolders) {
    throw conflict('The folder holds sub-folders: move or delete them first');
  }
  return { id, deleted: true as const };
}

// ---- Workbooks ----

export async function createWorkbook(
  db: Db,
  scope: DeploymentScope,
  input: v.InferOutput<typeof createWorkbookBody>,
  now: string,
) {
  const name = input?.name ?? DEFAULT_WORKBOOK_NAME;
  const slug = input?.slug ?? `${slugify(name) || 'workbook'}-${randomSuffix(8)}`;
  return createWorkbookWithSlug(db, scope, { ...input, name, slug }, now);
}

async function createWorkbookWithSlug(
  db: Db,
  scope: DeploymentScope,
  input: {
    name: string;
    slug: string;
    folderId?: number | null;
    meta?: Record<string, unknown> | null;
    calculatedFields?: Record<string, unknown> | null;
  },
  now: string,
) {
  const { name, slug } = input;
  const result = await withStorageQuota(
    repo.createWorkbook(db, scope, {
      type: 'WORKBOOK',
      name,
      folderId: input.folderId ?? null,
      slug,
      meta: input.meta ?? {},
      calculatedFields: input.calculatedFields ?? {},
      now,
    }),
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.folderFound) throw folderNotFound('folderId');
  if (check.slugTaken) throw slugConflict(slug);
  return written(result);
}

function slugConflict(slug: string): ApiError {
  return new ApiError(
    'CONFLICT',
    `Another workbook of this deployment has the slug "${slug}" (send slugTakeover: true to take it)`,
    [{ path: 'slug', message: 'Already used in this deployment' }],
  );
}

export async function updateWorkbook(
  db: Db,
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof updateWorkbookBody>,
  now: string,
) {
  const patch = sent(body, ['folderId']);
  return applyWorkbookPatch(db, scope, id, patch, now);
}

async function applyWorkbookPatch(
  db: Db,
  scope: DeploymentScope,
  id: number,
  input: Omit<repo.WorkbookPatch, 'displacedSlug' | 'now'> & { slugTakeover?: boolean },
  now: string,
) {
  const takeover = input.slug !== undefined && input.slugTakeover === true;
  const result = await withStorageQuota(
    repo.updateWorkbook(db, scope, id, {
      name: input.name,
      folderId: input.folderId,
      meta: input.meta,
      metaMerge: input.metaMerge,
      slug: input.slug,
      // The workbook that held the slug keeps a recognisable, still-unique one.
      displacedSlug: takeover ? `${input.slug?.slice(0, SLUG_MAX - 9)}-${randomSuffix(8)}` : undefined,
      now,
    }),
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.found) throw notFound('Workbook');
  if (!check.folderFound) throw folderNotFound('folderId');
  if (!check.ok) throw slugConflict(input.slug ?? '');
  return written(result);
}

/**
 * Cube's duplicateWorkbook: "Copy of {name}" in the same folder, with the source's meta,
 * calculated fields, draft and a copy of each of its reports. The published dashboard is not
 * copied (the copy starts unpublished, so not embeddable); `shared` (creator-mode embed sessions
 * of a shared workspace) is refused: edgeboard has no such sessions here.
 */
export async function duplicateWorkbook(
  db: Db,
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof duplicateWorkbookBody>,
  now: string,
) {
  if (body?.shared === true) {
    throw new ApiError(
      'FORBIDDEN',
      'Duplicating into the shared workspace is for creator-mode embed sessions',
    );
  }
  const source = await repo.readWorkbookPlace(db, scope, id);
  if (!source) throw notFound('Workbook');
  const name = `Copy of ${source.name}`.slice(0, NAME_MAX);
  const slug = `${slugify(name).slice(0, SLUG_MAX - 9) || 'workbook'}-${randomSuffix(8)}`;
  const result = await withStorageQuota(
    repo.duplicateWorkbook(db, scope, id, {
      type: 'WORKBOOK',
      name,
      folderId: source.folderId,
      slug,
      meta: {},
      calculatedFields: {},
      now,
    }),
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.found) throw notFound('Workbook');
  if (check.slugTaken) throw slugConflict(slug);
  return written(result);
}

export async function deleteItem(db: Db, scope: DeploymentScope, id: number, type: WorkspaceItemType) {
  if (!(await repo.deleteItem(db, scope, id, type))) throw notFound(LABEL[type]);
  return { id, deleted: true as const };
}

export async function setFavorite(db: Db, scope: DeploymentScope, id: number, on: boolean, now: string) {
  const rec = await repo.setFavorite(db, scope, id, on, now);
  if (!rec) throw notFound('Workbook');
  return rec;
}

// ---- Reports ----

/** The report fields stored in its `addin` object (the add-in's own, with no effect here). */
const ADDIN_FIELDS: readonly string[] = [...Object.keys(addinEntries), 'pivotItems', 'placementId'];

const PUBLIC_ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A fresh Cube report `publicId`: 12 random characters of [0-9A-Za-z]. */
function newPublicId(): string {
  return [...crypto.getRandomValues(new Uint8Array(12))]
    .map((b) => PUBLIC_ID_ALPHABET[b % PUBLIC_ID_ALPHABET.length])
    .join('');
}

type ReportInput = NonNullable<v.InferOutput<typeof updateReportBody>> & { source?: string | null };

/** A report body as stored values: nulls dropped (not sent), add-in fields gathered. */
function reportValues(body: ReportInput | undefined): {
  name?: string;
  folderId?: number | null;
  values: repo.ReportValues;
} {
  const input = sent(body, ['folderId', 'workbookId', 'fillMissingRows']);
  const addin: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'name' || key === 'folderId') continue;
    if (ADDIN_FIELDS.includes(key)) addin[key] = value;
    else values[key] = value;
  }
  if (Object.keys(addin).length > 0) values.addin = addin;
  return { name: input.name, folderId: input.folderId, values: values as repo.ReportValues };
}

function reportErrors(check: repo.WriteCheck) {
  requireDeployment(check);
  if (!check.found) throw notFound('Report');
  if (!check.folderFound) throw folderNotFound('folderId');
  if (!check.workbookFound) {
    throw new ApiError('NOT_FOUND', 'Workbook not found in this deployment', [
      { path: 'workbookId', message: 'No workbook with this id in the deployment' },
    ]);
  }
  if (check.publicIdChanged) {
    throw badRequest('A report’s publicId cannot change once set', [
      { path: 'publicId', message: 'Differs from the report’s publicId' },
    ]);
  }
  if (check.publicIdTaken) {
    throw new ApiError('CONFLICT', 'Another report has this publicId', [
      { path: 'publicId', message: 'Already used' },
    ]);
  }
}

const DEFAULT_REPORT_NAME = 'Untitled report';

export async function createReport(
  db: Db,
  scope: DeploymentScope,
  body: v.InferOutput<typeof createReportBody>,
  now: string,
) {
  const { name, folderId, values } = reportValues(body);
  const result = await withStorageQuota(
    repo.createReport(
      db,
      scope,
      { type: 'REPORT', name: name ?? DEFAULT_REPORT_NAME, folderId: folderId ?? null, now },
      { ...values, publicId: values.publicId ?? newPublicId() },
    ),
  );
  reportErrors(result.check);
  return written(result);
}

export async function updateReport(
  db: Db,
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof updateReportBody>,
  now: string,
) {
  const { name, folderId, values } = reportValues(body);
  const result = await withStorageQuota(repo.updateReport(db, scope, id, { name, folderId, now }, values));
  reportErrors(result.check);
  return written(result);
}

/**
 * Cube's upsert by public id: the report of this deployment with `publicId` is updated with the
 * fields sent (`source` is create-only: ignored on update), or created with it. A public id held
 * in another deployment is a 409; so is a create or delete racing between the lookup and the write.
 */
export async function upsertReportByPublicId(
  db: Db,
  scope: DeploymentScope,
  publicId: string,
  body: v.InferOutput<typeof createReportBody>,
  now: string,
) {
  const holder = await repo.reportByPublicId(db, scope, publicId);
  if (!holder.deploymentFound) throw notFound('Deployment');
  if (holder.otherDeployment) {
    throw new ApiError('CONFLICT', 'This publicId belongs to a report of another deployment', [
      { path: 'publicId', message: 'Already used' },
    ]);
  }
  const { source: _source, ...rest } = body ?? {};
  if (body?.publicId != null && body.publicId !== publicId) {
    throw badRequest('`publicId` in the body must equal the path’s', [
      { path: 'publicId', message: 'Differs from the path' },
    ]);
  }
  const holderId = holder.id;
  return upsertBranch('Report', holderId === null, () =>
    holderId === null
      ? createReport(db, scope, { ...body, publicId }, now)
      : // Found by its public id, which never changes once set: the update need not send it.
        updateReport(db, scope, holderId, rest, now),
  );
}

// ---- Spreadsheet add-in placement (stored, no effect) ----

/** The placement fields a disconnect removes. */
const PLACEMENT_FIELDS = ['addressOnly', ...Object.keys(placementEntries)];

async function placed(
  db: Db,
  scope: DeploymentScope,
  id: number,
  placement: Parameters<typeof repo.placeReport>[3],
) {
  const rec = await withStorageQuota(repo.placeReport(db, scope, id, placement));
  if (!rec) throw notFound('Report');
  return rec;
}

/**
 * Cube's connectReportToWorkbook and refreshReport: records where the add-in placed the report
 * (edgeboard runs no query on refresh; the placement fields sent are stored).
 */
export async function storePlacement(
  db: Db,
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof connectReportBody> | v.InferOutput<typeof placementBody>,
) {
  const { externalWorkbookId, ...addin } = sent(body);
  return placed(db, scope, id, { externalWorkbookId, addin });
}

/** Cube's disconnectReportFromWorkbook: forgets the placement; a target matching nothing is a no-op. */
export async function disconnectReport(
  db: Db,
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof placementBody>,
) {
  const clear = Object.fromEntries(PLACEMENT_FIELDS.map((f) => [f, null]));
  return placed(db, scope, id, {
    externalWorkbookId: null,
    addin: clear,
    onlyFor: sent(body).externalWorkbookId,
  });
}

// ---- E2 ----

export async function moveItem(
  db: Db,
  scope: DeploymentScope,
  input: v.InferOutput<typeof moveBody>,
  now: string,
) {
  const folderId = input.folderId ?? null;
  const result = await repo.moveItem(db, scope, input.id, folderId, input.type ?? null, now);
  const { check } = result;
  requireDeployment(check);
  if (check.itemType === null) {
    throw new ApiError('NOT_FOUND', 'No item with this id in the deployment', [
      { path: 'id', message: 'Unknown item' },
    ]);
  }
  if (input.type !== undefined && check.itemType !== input.type) {
    throw badRequest(`Item ${input.id} is a ${check.itemType}, not a ${input.type}`, [
      { path: 'type', message: `Does not match the item's type (${check.itemType})` },
    ]);
  }
  if (!check.folderFound) throw folderNotFound('folderId');
  if (check.cycle) {
    throw badRequest('A folder cannot be moved into itself or one of its sub-folders', [
      { path: 'folderId', message: 'Is the moved folder or one of its descendants' },
    ]);
  }
  if (!check.ok) throw depthError('folderId');
  return written(result);
}

// ---- E7 ----

/** FNV-1a: a short fingerprint of a list's filters, so a cursor only works for the list it came from. */
function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

interface ListRequest {
  first?: number;
  after?: string;
  folder: ListParams['folder'];
  search?: string;
  types: WorkspaceItemType[];
  field: OrderField;
  direction: OrderDirection;
  workbookId?: number;
  externalWorkbookId?: string;
}

/** One keyset page of items: the filters are fingerprinted into the cursor's tag. */
async function listPage(db: Db, scope: DeploymentScope, list: ListRequest) {
  const search = list.search ? list.search.toLowerCase() : null;
  const types = [...new Set(list.types)].sort();
  const filters = [list.folder, search, types, list.workbookId ?? null, list.externalWorkbookId ?? null];
  const tag = `ws:${list.field}:${list.direction}:${fingerprint(JSON.stringify(filters))}`;
  const request = pageRequest(list, tag, 3);
  let after: ListCursor | null = null;
  if (request.after) {
    const [rank, sortKey, id] = request.after;
    if (
      (rank !== 0 && rank !== 1) ||
      typeof sortKey !== 'string' ||
      typeof id !== 'number' ||
      !Number.isSafeInteger(id)
    ) {
      throw invalidCursor();
    }
    after = { rank, sortKey, id };
  }
  const result = await listItems(db, scope, {
    folder: list.folder,
    search,
    types,
    field: list.field,
    direction: list.direction,
    limit: request.limit,
    after,
    workbookId: list.workbookId,
    externalWorkbookId: list.externalWorkbookId,
  });
  if (!result) throw notFound('Deployment');
  if (!result.folderFound) throw folderNotFound('folderId');
  return { rows: result.items, request, tag };
}

const cursorOf = (r: ItemRecord): CursorValue[] => [r.sortRank, r.sortKey, r.id];

/** A folder id of a query string: 0 is the root (Cube); omitted is `missing`. */
const folderOf = (id: number | undefined, missing: 'root' | 'any'): ListParams['folder'] =>
  id === undefined ? missing : id === 0 ? 'root' : id;

/** E7 (Cube's workspaceObjects). */
export async function listWorkspace(db: Db, scope: DeploymentScope, query: v.InferOutput<typeof listQuery>) {
  const search = query.search || undefined;
  const { rows, request, tag } = await listPage(db, scope, {
    ...query,
    // Without a folder, a search spans every folder; a listing shows the root level.
    folder: folderOf(query.folderId, search ? 'any' : 'root'),
    search,
    types: query.types ?? [...WORKSPACE_ITEM_TYPES],
    field: query.orderByField ?? 'updated_at',
    direction: query.orderByDirection ?? 'DESC',
  });
  return toPage(rows, request, tag, cursorOf, presentItem);
}

/** Cube's getFolders: one level of folders (the root without `parentId`), by name. */
export async function listFolders(db: Db, scope: DeploymentScope, query: v.InferOutput<typeof foldersQuery>) {
  const { rows, request, tag } = await listPage(db, scope, {
    ...query,
    folder: folderOf(query.parentId, 'root'),
    types: ['FOLDER'],
    field: 'name',
    direction: 'ASC',
  });
  return cubeList(toPage(rows, request, tag, cursorOf, presentFolder));
}

/** Cube's getWorkbooks: every workbook, or one folder's (0: the root's), most recently updated first. */
export async function listWorkbooks(
  db: Db,
  scope: DeploymentScope,
  query: v.InferOutput<typeof workbooksQuery>,
) {
  const { rows, request, tag } = await listPage(db, scope, {
    ...query,
    folder: folderOf(query.folderId, 'any'),
    types: ['WORKBOOK'],
    field: 'updated_at',
    direction: 'DESC',
  });
  return cubeList(toPage(rows, request, tag, cursorOf, presentItem));
}

const REPORT_ORDER: Record<(typeof REPORT_SORT_FIELDS)[number], OrderField> = {
  name: 'name',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  lastViewedAt: 'viewer_last_viewed_at',
};

/** Cube's getReports. */
export async function listReports(db: Db, scope: DeploymentScope, query: v.InferOutput<typeof reportsQuery>) {
  if (query.first !== undefined && query.limit !== undefined && query.first !== query.limit) {
    throw badRequest('Send `first` or its legacy name `limit`, not both with different values', [
      { path: 'limit', message: 'Differs from first' },
    ]);
  }
  const { rows, request, tag } = await listPage(db, scope, {
    first: query.first ?? query.limit,
    after: query.after,
    folder: folderOf(query.folderId, 'any'),
    search: query.search || undefined,
    types: ['REPORT'],
    field: REPORT_ORDER[query.sortBy ?? 'updatedAt'],
    direction: query.sortDirection ?? 'DESC',
    workbookId: query.workbookId,
    externalWorkbookId: query.externalWorkbookId,
  });
  return cubeList(toPage(rows, request, tag, cursorOf, presentReport));
}

/** Cube's getFolderAncestors: root first, down to the folder itself. */
export async function folderAncestors(db: Db, scope: DeploymentScope, id: number) {
  const items = await repo.folderAncestors(db, scope, id);
  if (items === null) throw notFound('Deployment');
  if (items.length === 0) throw notFound('Folder');
  return items.map(presentFolder);
}

// ---- Upsert of a workbook by slug ----

/** Cube normalises the slug of upsert-by-slug (trimmed, lower-cased) before matching. */
function normalizeSlug(raw: string): string {
  const slug = raw.trim().toLowerCase();
  if (!/^[a-z0-9-]{1,100}$/.test(slug)) {
    throw badRequest('Invalid slug: 1–100 characters of a-z, 0-9 and "-" (after trimming and lower-casing)', [
      { path: 'slug', message: 'Only lowercase letters a-z, digits 0-9 and "-"' },
    ]);
  }
  return slug;
}

/**
 * Cube's upsertWorkbookBySlug: the workbook with this slug gets the fields sent (`meta` merged
 * into its stored object), or a workbook is created with it.
 */
export async function upsertWorkbookBySlug(
  db: Db,
  scope: DeploymentScope,
  rawSlug: string,
  body: v.InferOutput<typeof upsertWorkbookBody>,
  now: string,
) {
  const slug = normalizeSlug(rawSlug);
  const input = sent(body, ['folderId']);
  const holder = await repo.workbookBySlug(db, scope, slug);
  if (!holder.deploymentFound) throw notFound('Deployment');
  const holderId = holder.id;
  const { meta, ...rest } = input;
  return upsertBranch('Workbook', holderId === null, () =>
    holderId === null
      ? createWorkbookWithSlug(db, scope, { ...input, name: input.name ?? DEFAULT_WORKBOOK_NAME, slug }, now)
      : applyWorkbookPatch(db, scope, holderId, { ...rest, metaMerge: meta }, now),
  );
}

/**
 * An upsert that lost a race with another writer between its lookup and its write: a 409
 * `CONFLICT` whose message starts with `upsert_branch_changed`, the client's cue to retry.
 */
export class UpsertBranchChanged extends ApiError {
  constructor(readonly label: 'Report' | 'Workbook') {
    super('CONFLICT', `upsert_branch_changed: the ${label.toLowerCase()} changed concurrently; retry`);
  }
}

/**
 * Runs the branch an upsert chose by its lookup. A create that finds the key taken (409) or an
 * update whose item vanished (its own 404, not a missing folder or workbook) lost the race:
 * UpsertBranchChanged.
 */
async function upsertBranch<T>(
  label: 'Report' | 'Workbook',
  creating: boolean,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const raced = creating ? err instanceof ApiError && err.status === 409 : isNotFound(err, label);
    throw raced ? new UpsertBranchChanged(label) : err;
  }
}

// ---- Bulk move and delete ----

/** One entry per distinct item, first occurrence first (Cube collapses duplicates). */
function distinctRefs(items: ItemRef[]): ItemRef[] {
  const seen = new Set<string>();
  return items.filter((r) => {
    const key = `${r.type}:${r.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const failure = (check: BulkCheck, status: number, message: string): BulkFailure => ({
  type: check.type,
  id: check.id,
  error: { status, message },
});

const notFoundFailure = (check: BulkCheck) =>
  failure(check, 404, `${LABEL[check.type]} ${check.id} not found in this deployment`);

/** Cube's bulkMoveWorkspaceObjects: the movable items move together; the others are listed. */
export async function bulkMove(
  db: Db,
  scope: DeploymentScope,
  body: v.InferOutput<typeof bulkMoveBody>,
  now: string,
) {
  const refs = distinctRefs(body.items);
  const result = await bulkRepo.bulkMove(db, scope, refs, body.folderId ?? null, now);
  if (!result.checks) throw notFound('Deployment');
  const byId = new Map(result.items.map((item) => [item.id, item]));
  const moved: WorkspaceItem[] = [];
  const failed: BulkFailure[] = [];
  for (const check of result.checks) {
    const item = byId.get(check.id);
    if (check.ok && item) moved.push(presentItem(item));
    else if (!check.found) failed.push(notFoundFailure(check));
    else if (!check.folderFound)
      failed.push(failure(check, 404, 'Target folder not found in this deployment'));
    else if (check.cycle)
      failed.push(failure(check, 400, 'A folder cannot be moved into itself or one of its sub-folders'));
    else failed.push(failure(check, 400, `Folders nest at most ${repo.MAX_FOLDER_DEPTH} levels deep`));
  }
  return { moved, failed };
}

/** Cube's bulkDeleteWorkspaceObjects: the deletable items go together; the others are listed. */
export async function bulkDelete(db: Db, scope: DeploymentScope, body: v.InferOutput<typeof bulkDeleteBody>) {
  const checks = await bulkRepo.bulkDelete(db, scope, distinctRefs(body.items));
  if (!checks) throw notFound('Deployment');
  const deleted: ItemRef[] = [];
  const failed: BulkFailure[] = [];
  for (const check of checks) {
    if (check.ok) deleted.push({ type: check.type, id: check.id });
    else if (!check.found) failed.push(notFoundFailure(check));
    else failed.push(failure(check, 400, 'The folder still has sub-folders: delete or move them first'));
  }
  return { deleted, failed };
}
