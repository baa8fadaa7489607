import { type SQL, sql } from 'drizzle-orm';
import type { WorkspaceItemType } from '../../schema/workspace';
import type { DeploymentScope } from '../core/scope';
import { itemsSource, matchingIds, nameContains } from './name-search';
import { isFolderOf, itemsQuery } from './workspace.queries';
import { type ItemRecord, type Raw, readItems } from './workspace.rows';

/**
 * The keyset-paginated list of a deployment's items, in one statement. Hand-written SQL: a
 * UNION of per-partition index walks with row-value keysets, which drizzle cannot express cleanly.
 */

export const ORDER_FIELDS = ['updated_at', 'created_at', 'name', 'viewer_last_viewed_at'] as const;
export type OrderField = (typeof ORDER_FIELDS)[number];
export type OrderDirection = 'ASC' | 'DESC';

/** Folders first: the leading sort key, carried in every cursor. */
const TYPE_RANK: Record<WorkspaceItemType, number> = { FOLDER: 0, WORKBOOK: 1, REPORT: 1 };

const COLUMN: Record<Exclude<OrderField, 'viewer_last_viewed_at'>, string> = {
  updated_at: 'updated_at',
  created_at: 'created_at',
  name: 'name_key',
};

export interface ListCursor {
  rank: number;
  sortKey: string;
  id: number;
}

export interface ListParams {
  /** A folder's direct children, the root level, or items in any folder. */
  folder: number | 'root' | 'any';
  search: string | null;
  /** Reports of this workbook only. */
  workbookId?: number;
  /** Reports placed in this spreadsheet (the add-in's workbook id) only. */
  externalWorkbookId?: string;
  types: WorkspaceItemType[];
  field: OrderField;
  direction: OrderDirection;
  limit: number;
  after: ListCursor | null;
}

/**
 * One sub-select per (type, partition), each walking one index in the requested order from the
 * cursor on and stopping after `limit + 1` rows; the union of those few hundred rows is then
 * sorted and cut. The cost of a page is bounded by its size, not by the workspace's.
 */
function listSelection(scope: ListScope, params: ListParams): SQL {
  const { deploymentId, userId } = scope;
  const { direction, limit, after } = params;
  const dir = sql.raw(direction);
  const cmp = sql.raw(direction === 'DESC' ? '<' : '>');
  const take = limit + 1;

  const where: SQL[] = [sql`i.deployment_id = ${deploymentId}`];
  if (typeof params.folder === 'number') where.push(sql`i.folder_id = ${params.folder}`);
  else if (params.folder === 'root') where.push(sql`i.folder_id IS NULL`);
  if (params.search !== null) where.push(nameContains(params.search));
  const reportFilter = reportFilterOf(params);
  if (reportFilter) {
    where.push(sql`EXISTS (SELECT 1 FROM reports r WHERE r.item_id = i.id AND ${reportFilter})`);
  }
  // The narrowest index drives: the search's matches, else the reports of the filter, else the table.
  const source =
    params.search === null && reportFilter
      ? sql`(SELECT item_id AS id FROM reports r WHERE ${reportFilter}) m CROSS JOIN workspace_items i ON i.id = m.id`
      : itemsSource(params.search);
  // With a search the matches drive here too, each looked up among the caller's views.
  const viewsSource =
    params.search === null
      ? sql`workspace_views v`
      : sql`(${matchingIds(params.search)}) m CROSS JOIN workspace_views v ON v.user_id = ${userId} AND v.item_id = m.id`;

  // D1 caps the terms of one compound SELECT, so each type's partitions form their own union.
  const perType: SQL[] = [];
  for (const type of [...new Set(params.types)]) {
    const rank = TYPE_RANK[type];
    // A group wholly before the cursor contributes nothing; one after it starts at its beginning.
    if (after && rank < after.rank) continue;
    const cursor = after && rank === after.rank ? after : null;
    const filters = sql.join([...where, sql`i.type = ${type}`], sql` AND `);
    const parts: SQL[] = [];

    if (params.field !== 'viewer_last_viewed_at') {
      const column = sql.raw(`i.${COLUMN[params.field]}`);
      const keyset = cursor ? sql`AND (${column}, i.id) ${cmp} (${cursor.sortKey}, ${cursor.id})` : sql``;
      parts.push(sql`SELECT * FROM (SELECT i.id AS id, ${rank} AS rank, ${column} AS sort_key
        FROM ${source} WHERE ${filters} ${keyset}
        ORDER BY ${column} ${dir}, i.id ${dir} LIMIT ${take})`);
    } else {
      // viewer_last_viewed_at: the caller's views in view order, and the items never viewed, whose
      // key is '' (below every timestamp) with id as tie-breaker.
      const viewedKeyset = cursor
        ? sql`AND (v.viewed_at, v.item_id) ${cmp} (${cursor.sortKey}, ${cursor.id})`
        : sql``;
      parts.push(sql`SELECT * FROM (SELECT v.item_id AS id, ${rank} AS rank, v.viewed_at AS sort_key
        FROM ${viewsSource} JOIN workspace_items i ON i.id = v.item_id
        WHERE v.user_id = ${userId} AND v.deployment_id = ${deploymentId} AND ${filters} ${viewedKeyset}
        ORDER BY v.viewed_at ${dir}, v.item_id ${dir} LIMIT ${take})`);
      // Ascending, the never-viewed items come before any viewed one: past a viewed cursor, none remain.
      const unviewedDone = cursor !== null && cursor.sortKey !== '' && direction === 'ASC';
      if (!unviewedDone) {
        const unviewedKeyset = cursor && cursor.sortKey === '' ? sql`AND i.id ${cmp} ${cursor.id}` : sql``;
        parts.push(sql`SELECT * FROM (SELECT i.id AS id, ${rank} AS rank, '' AS sort_key
          FROM ${source} WHERE ${filters}
            AND NOT EXISTS (SELECT 1 FROM workspace_views v WHERE v.user_id = ${userId} AND v.item_id = i.id)
            ${unviewedKeyset}
          ORDER BY i.id ${dir} LIMIT ${take})`);
      }
    }
    perType.push(
      parts.length === 1 ? (parts[0] as SQL) : sql`SELECT * FROM (${sql.join(parts, sql` UNION ALL `)})`,
    );
  }

  if (perType.length === 0) return sql`SELECT NULL AS id, NULL AS rank, NULL AS sort_key WHERE 0`;
  return sql`SELECT id, rank, sort_key FROM (${sql.join(perType, sql` UNION ALL `)})
    ORDER BY rank ASC, sort_key ${dir}, id ${dir} LIMIT ${take}`;
}

/** The condition on `reports r` of a report list's filters; null without one. */
function reportFilterOf(params: ListParams): SQL | null {
  if (params.workbookId !== undefined) {
    const byWorkbook = sql`r.workbook_id = ${params.workbookId}`;
    return params.externalWorkbookId === undefined
      ? byWorkbook
      : sql`${byWorkbook} AND r.external_workbook_id = ${params.externalWorkbookId}`;
  }
  return params.externalWorkbookId === undefined
    ? null
    : sql`r.external_workbook_id = ${params.externalWorkbookId}`;
}

export interface ListResult {
  items: ItemRecord[];
  folderFound: boolean;
}

/** The deployment's ids a list statement filters by: whose deployment, and whose views and favourites. */
export type ListScope = Pick<DeploymentScope, 'accountId' | 'deploymentId' | 'userId'>;

/** A list page in one statement: ownership, folder check and the page with everything each item carries. */
export function listItemsQuery(scope: ListScope, params: ListParams): SQL {
  const dir = sql.raw(params.direction);
  return itemsQuery({
    ...scope,
    viewerId: scope.userId,
    selection: listSelection(scope, params),
    order: sql`s.rank ASC, s.sort_key ${dir}, s.id ${dir}`,
    extra: sql`${isFolderOf(typeof params.folder === 'number' ? params.folder : null, scope.deploymentId)} AS folder_ok`,
  });
}

export async function listItems(scope: DeploymentScope, params: ListParams): Promise<ListResult | null> {
  const rows = await scope.db.all<Raw>(listItemsQuery(scope, params));
  const result = readItems(rows);
  if (!result) return null;
  return { items: result.items, folderFound: result.driver.folder_ok === 1 };
}
