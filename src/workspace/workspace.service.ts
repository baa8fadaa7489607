import type * as v from 'valibot';
import { WORKSPACE_ITEM_TYPES, type WorkspaceItemType } from '../../schema/workspace';
import type { DeploymentScope } from '../auth/deployment-scope';
import { ApiError, badRequest, conflict, notFound } from '../core/errors';
import { type CursorValue, pageRequest, toPage } from '../core/pagination';
import { withStorageQuota } from '../core/storage-quota';
import { slugify } from '../core/text';
import type { Db } from '../env';
import type { ItemRecord, WriteResult } from './workspace.repository';
import * as repo from './workspace.repository';
import {
  type createFolderBody,
  type createReportBody,
  type createWorkbookBody,
  type Folder,
  type listQuery,
  type moveBody,
  type Report,
  SLUG_MAX,
  type updateFolderBody,
  type updateReportBody,
  type updateWorkbookBody,
  type WorkspaceItem,
} from './workspace.schemas';
import { type ListCursor, listItems } from './workspace-list.repository';

export const DEFAULT_WORKBOOK_NAME = 'Untitled workbook';

const LABEL: Record<WorkspaceItemType, string> = { FOLDER: 'Folder', WORKBOOK: 'Workbook', REPORT: 'Report' };

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
    meta: rec.workbook?.meta ?? rec.report?.meta ?? null,
    calculatedFields: rec.workbook?.calculatedFields ?? null,
    dashboardDraft: (rec.workbook?.dashboardDraft ?? null) as WorkspaceItem['dashboardDraft'],
    dashboardPublished: published?.config ?? null,
    publishedDashboard: published ?? null,
    workbookId: rec.report?.workbookId ?? null,
  };
}

export function presentFolder(rec: ItemRecord): Folder {
  return { ...common(rec), parentId: rec.folderId, position: rec.position };
}

export function presentReport(rec: ItemRecord): Report {
  const report = rec.report as repo.ReportFields;
  return {
    ...common(rec),
    folderId: rec.folderId,
    ...report,
    periodComparisons: report.periodComparisons as Report['periodComparisons'],
  };
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
  const rec = await repo.updateFolder(db, scope, id, { ...input, now });
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
  const result = await withStorageQuota(
    repo.createWorkbook(db, scope, {
      type: 'WORKBOOK',
      name,
      folderId: input?.folderId ?? null,
      slug,
      meta: input?.meta ?? {},
      calculatedFields: input?.calculatedFields ?? {},
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
  input: v.InferOutput<typeof updateWorkbookBody>,
  now: string,
) {
  const takeover = input.slug !== undefined && input.slugTakeover === true;
  const result = await withStorageQuota(
    repo.updateWorkbook(db, scope, id, {
      name: input.name,
      folderId: input.folderId,
      meta: input.meta,
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

function reportValues(input: v.InferOutput<typeof updateReportBody>): repo.ReportValues {
  const { name: _name, folderId: _folderId, ...values } = input;
  return values;
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
}

export async function createReport(
  db: Db,
  scope: DeploymentScope,
  input: v.InferOutput<typeof createReportBody>,
  now: string,
) {
  const result = await withStorageQuota(
    repo.createReport(
      db,
      scope,
      { type: 'REPORT', name: input.name, folderId: input.folderId ?? null, now },
      reportValues(input),
    ),
  );
  reportErrors(result.check);
  return written(result);
}

export async function updateReport(
  db: Db,
  scope: DeploymentScope,
  id: number,
  input: v.InferOutput<typeof updateReportBody>,
  now: string,
) {
  const result = await withStorageQuota(
    repo.updateReport(
      db,
      scope,
      id,
      { name: input.name, folderId: input.folderId, now },
      reportValues(input),
    ),
  );
  reportErrors(result.check);
  return written(result);
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

function invalidCursor(): ApiError {
  return new ApiError('INVALID_CURSOR', 'Invalid cursor: pass pageInfo.endCursor of the previous page', [
    { path: 'after', message: 'Malformed or foreign cursor' },
  ]);
}

export async function listWorkspace(db: Db, scope: DeploymentScope, query: v.InferOutput<typeof listQuery>) {
  const field = query.orderByField ?? 'updated_at';
  const direction = query.orderByDirection ?? 'DESC';
  const search = query.search ? query.search.toLowerCase() : null;
  const folderId = query.folderId ?? null;
  const types = query.types ? [...new Set(query.types)].sort() : [...WORKSPACE_ITEM_TYPES];
  const tag = `ws:${field}:${direction}:${fingerprint(JSON.stringify([folderId, search, types]))}`;
  const request = pageRequest(query, tag, 3);
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
    folderId,
    search,
    types,
    field,
    direction,
    limit: request.limit,
    after,
  });
  if (!result) throw notFound('Deployment');
  if (!result.folderFound) throw folderNotFound('folderId');
  return toPage(result.items, request, tag, (r): CursorValue[] => [r.sortRank, r.sortKey, r.id], presentItem);
}
