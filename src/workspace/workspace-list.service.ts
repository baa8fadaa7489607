import type * as v from 'valibot';
import { WORKSPACE_ITEM_TYPES, type WorkspaceItemType } from '../../schema/workspace';
import { badRequest, notFound } from '../core/errors';
import { type CursorValue, invalidCursor, pageRequest, toPage } from '../core/pagination';
import type { DeploymentScope } from '../core/scope';
import { folderNotFound } from './item-writes';
import type { REPORT_SORT_FIELDS, reportsQuery } from './reports.schemas';
import { presentFolder, presentItem, presentReport } from './workspace.present';
import type { ItemRecord } from './workspace.rows';
import { cubeList, type foldersQuery, type listQuery, type workbooksQuery } from './workspace.schemas';
import {
  type ListCursor,
  type ListParams,
  listItems,
  type OrderDirection,
  type OrderField,
} from './workspace-list.repository';

/** The workspace list and Cube's lists of folders, workbooks and reports: keyset pages whose cursors fingerprint their filters. */

/** FNV-1a: a short fingerprint of a list's filters, so a cursor only works for the list it came from. */
export function fingerprint(text: string): string {
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
async function listPage(scope: DeploymentScope, list: ListRequest) {
  const search = list.search ? list.search.toLowerCase() : null;
  const types = [...new Set(list.types)].sort();
  const filters = [list.folder, search, types, list.workbookId ?? null, list.externalWorkbookId ?? null];
  const tag = `ws:${list.field}:${list.direction}:${fingerprint(JSON.stringify(filters))}`;
  const request = pageRequest(list, tag, 3);
  const result = await listItems(scope, {
    folder: list.folder,
    search,
    types,
    field: list.field,
    direction: list.direction,
    limit: request.limit,
    after: listCursor(request.after),
    workbookId: list.workbookId,
    externalWorkbookId: list.externalWorkbookId,
  });
  if (!result) throw notFound('Deployment');
  if (!result.folderFound) throw folderNotFound('folderId');
  return { rows: result.items, request, tag };
}

/** The keys of a list cursor (rank, sort key, id), as a keyset; a malformed one is a 400. */
export function listCursor(values: CursorValue[] | null): ListCursor | null {
  if (!values) return null;
  const [rank, sortKey, id] = values;
  if (
    (rank !== 0 && rank !== 1) ||
    typeof sortKey !== 'string' ||
    typeof id !== 'number' ||
    !Number.isSafeInteger(id)
  ) {
    throw invalidCursor();
  }
  return { rank, sortKey, id };
}

export const cursorOf = (r: ItemRecord): CursorValue[] => [r.sortRank, r.sortKey, r.id];

/** A folder id of a query string: 0 is the root (Cube); omitted is `missing`. */
export const folderOf = (id: number | undefined, missing: 'root' | 'any'): ListParams['folder'] =>
  id === undefined ? missing : id === 0 ? 'root' : id;

/** The workspace list (Cube's workspaceObjects): every kind of item, folders first. */
export async function listWorkspace(scope: DeploymentScope, query: v.InferOutput<typeof listQuery>) {
  const search = query.search || undefined;
  const { rows, request, tag } = await listPage(scope, {
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
export async function listFolders(scope: DeploymentScope, query: v.InferOutput<typeof foldersQuery>) {
  const { rows, request, tag } = await listPage(scope, {
    ...query,
    folder: folderOf(query.parentId, 'root'),
    types: ['FOLDER'],
    field: 'name',
    direction: 'ASC',
  });
  return cubeList(toPage(rows, request, tag, cursorOf, presentFolder));
}

/** Cube's getWorkbooks: every workbook, or one folder's (0: the root's), most recently updated first. */
export async function listWorkbooks(scope: DeploymentScope, query: v.InferOutput<typeof workbooksQuery>) {
  const { rows, request, tag } = await listPage(scope, {
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
export async function listReports(scope: DeploymentScope, query: v.InferOutput<typeof reportsQuery>) {
  if (query.first !== undefined && query.limit !== undefined && query.first !== query.limit) {
    throw badRequest('Send `first` or its legacy name `limit`, not both with different values', [
      { path: 'limit', message: 'Differs from first' },
    ]);
  }
  const { rows, request, tag } = await listPage(scope, {
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
