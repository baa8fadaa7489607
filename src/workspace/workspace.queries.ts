import { type SQL, sql } from 'drizzle-orm';
import { publishedJson } from '../dashboards/dashboards.queries';

/**
 * Hand-written SQL: recursive CTEs (folder paths, depths, cycles) and JSON built in SQL, which
 * drizzle cannot express; the guarded batches embed these fragments in their checks.
 *
 * SQL fragments of the workspace repositories (the published dashboard's come from dashboards). Each read that answers an
 * item is ONE statement: the caller's ownership of the deployment, the items, their folder
 * paths (one recursive CTE), owner summaries, the caller's favourites and views, and the
 * published dashboard all come back together.
 */

/** Folders deeper than this cannot be created or moved in (a 400). Root-level folders are depth 1. */
export const MAX_FOLDER_DEPTH = 10;

/** Bounds every recursive walk, so even a corrupted parent chain cannot loop forever. */
export const WALK_LIMIT = 64;

export const isFolderOf = (folderId: number | null, deploymentId: number): SQL =>
  folderId === null
    ? sql`1`
    : sql`EXISTS (SELECT 1 FROM workspace_items WHERE id = ${folderId} AND deployment_id = ${deploymentId} AND type = 'FOLDER')`;

/**
 * `select` over the folders from `folderId` up to the root, as `up(id, n)` (n counts from 1 at
 * `folderId`). A recursive CTE, which drizzle's builders cannot express.
 */
const overAncestors = (folderId: number, select: SQL): SQL =>
  sql`(WITH RECURSIVE up(id, n) AS (
        SELECT ${folderId}, 1
        UNION ALL
        SELECT w.folder_id, up.n + 1 FROM workspace_items w JOIN up ON w.id = up.id
        WHERE w.folder_id IS NOT NULL AND up.n < ${WALK_LIMIT})
      ${select})`;

/** What both walks up answer for the root: no folder above it. */
const NONE = sql`0`;

/** Number of folders from the root down to `folderId` inclusive (0 for the root). */
export const folderDepth = (folderId: number | null): SQL =>
  folderId === null ? NONE : overAncestors(folderId, sql`SELECT max(n) FROM up`);

/** Whether `itemId` is `folderId` or one of its ancestors (a move would make a cycle). */
export const isAncestorOrSelf = (itemId: number, folderId: number | null): SQL =>
  folderId === null ? NONE : overAncestors(folderId, sql`SELECT count(*) > 0 FROM up WHERE id = ${itemId}`);

/** Levels of folders in the subtree of `itemId` (itself included); 0 when it is not a folder. */
export const subtreeHeight = (itemId: number): SQL =>
  sql`(WITH RECURSIVE down(id, n) AS (
        SELECT id, 1 FROM workspace_items WHERE id = ${itemId} AND type = 'FOLDER'
        UNION ALL
        SELECT w.id, down.n + 1 FROM workspace_items w JOIN down ON w.folder_id = down.id
        WHERE w.type = 'FOLDER' AND down.n < ${WALK_LIMIT})
      SELECT coalesce(max(n), 0) FROM down)`;

/**
 * Every item of `selection` (a SELECT of `id, rank, sort_key`) with all it answers, in one
 * statement. The driving row is the deployment, filtered by account: no row at all means the
 * deployment is not the caller's (404); a row whose `id` is NULL means no item matched.
 * `extra` adds driver columns (e.g. a folder check) that are read even when no item matched.
 */
export function itemsQuery(options: {
  deploymentId: number;
  accountId: number;
  viewerId: number;
  selection: SQL;
  order: SQL;
  extra?: SQL;
}): SQL {
  const { deploymentId, accountId, viewerId } = options;
  return sql`WITH RECURSIVE sel AS MATERIALIZED (${options.selection}),
    anc(item_id, folder_id, depth) AS (
      SELECT s.id, i.folder_id, 0 FROM sel s JOIN workspace_items i ON i.id = s.id WHERE i.folder_id IS NOT NULL
      UNION ALL
      SELECT a.item_id, f.folder_id, a.depth + 1 FROM anc a JOIN workspace_items f ON f.id = a.folder_id
      WHERE f.folder_id IS NOT NULL AND a.depth < ${WALK_LIMIT}),
    paths AS (
      SELECT a.item_id, json_group_array(json_object('id', f.id, 'name', f.name) ORDER BY a.depth DESC) AS folder_path
      FROM anc a JOIN workspace_items f ON f.id = a.folder_id GROUP BY a.item_id)
    SELECT d.id AS deployment_ok ${options.extra ? sql`, ${options.extra}` : sql``},
      s.rank AS sort_rank, s.sort_key,
      i.id, i.type, i.deployment_id, i.name, i.folder_id, i.position, i.created_by, i.updated_by,
      i.created_at, i.updated_at, coalesce(p.folder_path, '[]') AS folder_path,
      CASE WHEN u.id IS NULL THEN NULL ELSE json_object('id', u.id, 'email', u.email,
        'firstName', u.first_name, 'picture', u.picture) END AS owner,
      EXISTS (SELECT 1 FROM workspace_favorites fv WHERE fv.user_id = ${viewerId} AND fv.item_id = i.id) AS is_favorite,
      vw.viewed_at AS viewer_last_viewed_at,
      w.slug, w.meta AS workbook_meta, w.calculated_fields, w.dashboard_draft,
      r.workbook_id AS report_workbook_id, r.version_number AS report_version_number, r.title AS report_title,
      r.description AS report_description, r.spec AS report_spec, r.sql_query AS report_sql_query,
      r.meta AS report_meta, r.fill_missing_rows AS report_fill_missing_rows,
      r.period_comparisons AS report_period_comparisons, r.preferences AS report_preferences,
      r.public_id AS report_public_id, r.json_query AS report_json_query, r.source AS report_source,
      r.external_workbook_id AS report_external_workbook_id, r.addin AS report_addin,
      ${publishedJson()} AS published
    FROM deployments d
      LEFT JOIN sel s ON 1
      LEFT JOIN workspace_items i ON i.id = s.id AND i.deployment_id = d.id
      LEFT JOIN paths p ON p.item_id = i.id
      LEFT JOIN users u ON u.id = i.created_by
      LEFT JOIN workspace_views vw ON vw.user_id = ${viewerId} AND vw.item_id = i.id
      LEFT JOIN workbooks w ON w.item_id = i.id
      LEFT JOIN reports r ON r.item_id = i.id
      LEFT JOIN published_dashboards pd ON pd.workbook_id = i.id
      LEFT JOIN dashboard_versions dv ON dv.id = pd.current_version_id
    WHERE d.id = ${deploymentId} AND d.account_id = ${accountId}
    ORDER BY ${options.order}`;
}

/** The selection of one item of the deployment by id (and type, when given). */
export function oneItem(deploymentId: number, id: number | SQL, type?: string): SQL {
  return sql`SELECT id, 0 AS rank, '' AS sort_key FROM workspace_items
    WHERE id = ${id} AND deployment_id = ${deploymentId} ${type ? sql`AND type = ${type}` : sql``}`;
}
