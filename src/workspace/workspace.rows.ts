import { type SQL, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import {
  reports,
  WORKSPACE_ITEM_TYPES,
  type WorkspaceItemType,
  workbooks,
  type workspaceItems,
} from '../../schema/workspace';
import type { DeploymentScope } from '../core/scope';
import { itemsQuery, oneItem } from './workspace.queries';

/**
 * Workspace item rows: the record every item answer is built from, its one mapper, and the
 * single-item read every write ends with.
 */

export interface OwnerSummary {
  id: number;
  email: string;
  firstName: string;
  picture: string;
}

type ItemRow = typeof workspaceItems.$inferSelect;
type WorkbookRow = typeof workbooks.$inferSelect;
type ReportRow = typeof reports.$inferSelect;

/** A report's detail as answered: its row, with the public id (always set) and add-in fields (`{}` when none). */
export type ReportFields = Omit<ReportRow, 'itemId' | 'publicId' | 'addin'> & {
  publicId: string;
  /** The spreadsheet add-in fields, as sent. */
  addin: NonNullable<ReportRow['addin']>;
};

/** One workspace item with everything an answer about it carries. */
export interface ItemRecord
  extends Pick<
    ItemRow,
    | 'id'
    | 'type'
    | 'deploymentId'
    | 'name'
    | 'folderId'
    | 'position'
    | 'createdBy'
    | 'updatedBy'
    | 'createdAt'
    | 'updatedAt'
  > {
  folderPath: { id: number; name: string }[];
  owner: OwnerSummary | null;
  isFavorite: boolean;
  viewerLastViewedAt: string | null;
  workbook: Omit<WorkbookRow, 'itemId' | 'deploymentId'> | null;
  report: ReportFields | null;
  published: Record<string, unknown> | null;
  /** The list's sort key of this row (cursor material). */
  sortRank: number;
  sortKey: string;
}

/** A raw D1 row. */
export type Raw = Record<string, unknown>;

// Column readers: the one place a raw value becomes a typed field.
const num = (x: unknown): number => Number(x);
const numOrNull = (x: unknown): number | null => (x == null ? null : Number(x));
const str = (x: unknown): string => (x == null ? '' : String(x));
const strOrNull = (x: unknown): string | null => (x == null ? null : String(x));
/** JSON built in SQL (D1 answers it as text). */
const json = <T>(x: unknown): T => (typeof x === 'string' ? JSON.parse(x) : x) as T;
const jsonOrNull = <T>(x: unknown): T | null => (x == null ? null : json<T>(x));
/** A stored JSON column, decoded by its table's column (aliased in itemsQuery, so read by hand). */
const stored = <C extends AnySQLiteColumn>(column: C, x: unknown): C['_']['data'] =>
  column.mapFromDriverValue(x);
const storedOrNull = <C extends AnySQLiteColumn>(column: C, x: unknown): C['_']['data'] | null =>
  x == null ? null : column.mapFromDriverValue(x);

export const isItemType = (x: unknown): x is WorkspaceItemType =>
  (WORKSPACE_ITEM_TYPES as readonly unknown[]).includes(x);

/** The one mapper of a workspace item row (itemsQuery's columns). */
function toItem(row: Raw): ItemRecord {
  if (!isItemType(row.type)) throw new Error(`workspace item ${String(row.id)} has an unknown type`);
  const type = row.type;
  return {
    id: num(row.id),
    type,
    deploymentId: num(row.deployment_id),
    name: str(row.name),
    folderId: numOrNull(row.folder_id),
    position: num(row.position),
    createdBy: numOrNull(row.created_by),
    updatedBy: numOrNull(row.updated_by),
    createdAt: str(row.created_at),
    updatedAt: str(row.updated_at),
    folderPath: json(row.folder_path),
    owner: jsonOrNull(row.owner),
    isFavorite: row.is_favorite === 1,
    viewerLastViewedAt: strOrNull(row.viewer_last_viewed_at),
    workbook:
      type === 'WORKBOOK'
        ? {
            slug: str(row.slug),
            meta: stored(workbooks.meta, row.workbook_meta),
            calculatedFields: stored(workbooks.calculatedFields, row.calculated_fields),
            dashboardDraft: storedOrNull(workbooks.dashboardDraft, row.dashboard_draft),
          }
        : null,
    report:
      type === 'REPORT'
        ? {
            workbookId: numOrNull(row.report_workbook_id),
            versionNumber: num(row.report_version_number),
            title: str(row.report_title),
            description: str(row.report_description),
            spec: str(row.report_spec),
            sqlQuery: str(row.report_sql_query),
            meta: stored(reports.meta, row.report_meta),
            fillMissingRows: storedOrNull(reports.fillMissingRows, row.report_fill_missing_rows),
            periodComparisons: stored(reports.periodComparisons, row.report_period_comparisons),
            preferences: stored(reports.preferences, row.report_preferences),
            publicId: str(row.report_public_id),
            jsonQuery: strOrNull(row.report_json_query),
            source: strOrNull(row.report_source),
            externalWorkbookId: strOrNull(row.report_external_workbook_id),
            addin: storedOrNull(reports.addin, row.report_addin) ?? {},
          }
        : null,
    published: jsonOrNull(row.published),
    sortRank: row.sort_rank == null ? 0 : num(row.sort_rank),
    sortKey: str(row.sort_key),
  };
}

/** The answer of an itemsQuery: null when the deployment is not the caller's. */
export interface ItemsResult {
  items: ItemRecord[];
  driver: Raw;
}

export function readItems(rows: Raw[]): ItemsResult | null {
  const first = rows[0];
  if (!first) return null;
  return { items: rows.filter((r) => r.id != null).map(toItem), driver: first };
}

const singleOrder = sql`i.id`;

export function itemOf(scope: DeploymentScope, id: number | SQL, type?: WorkspaceItemType): SQL {
  return itemsQuery({
    ...scope,
    viewerId: scope.userId,
    selection: oneItem(scope.deploymentId, id, type),
    order: singleOrder,
  });
}

/** The item answer of the last statement of a batch; null when the deployment or item is not found. */
export function singleFrom(result: D1Result<Raw> | undefined): ItemRecord | null {
  return readItems(result?.results ?? [])?.items[0] ?? null;
}
