import { and, eq, type SQL, sql } from 'drizzle-orm';
import { workbooks } from '../../schema/workspace';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';

/**
 * SQL fragments answering a published dashboard as JSON: read by the dashboards repository and
 * by the workspace item query (a workbook answer embeds its published dashboard).
 */

const bool = (expr: SQL | string) =>
  typeof expr === 'string'
    ? sql.raw(`json(CASE WHEN ${expr} THEN 'true' ELSE 'false' END)`)
    : sql`json(CASE WHEN ${expr} THEN 'true' ELSE 'false' END)`;

/**
 * The frozen reports of dashboard version `versionAlias`.id, as a JSON array (link id order):
 * each link row names a content stored once per report version.
 */
export const reportSnapshotsJson = (versionAlias: string): SQL =>
  sql.raw(`(SELECT json_group_array(json_object(
      'id', rs.id, 'reportId', sc.report_id, 'versionNumber', sc.version_number, 'name', sc.name,
      'title', sc.title, 'description', sc.description, 'spec', sc.spec, 'sqlQuery', sc.sql_query,
      'jsonQuery', sc.json_query,
      'meta', json(sc.meta), 'fillMissingRows', json(sc.fill_missing_rows),
      'periodComparisons', json(sc.period_comparisons), 'preferences', json(sc.preferences)) ORDER BY rs.id)
    FROM report_snapshots rs JOIN snapshot_contents sc ON sc.id = rs.content_id
    WHERE rs.dashboard_version_id = ${versionAlias}.id)`);

/**
 * The PublishedDashboard answer as one JSON object, from `published_dashboards pd` and its
 * current `dashboard_versions dv`; NULL when there is none.
 */
export const publishedJson = (pd = 'pd', dv = 'dv'): SQL =>
  sql`CASE WHEN ${sql.raw(dv)}.id IS NULL THEN NULL ELSE json_object(
    'id', ${sql.raw(pd)}.id, 'status', 'published', 'deploymentId', ${sql.raw(pd)}.deployment_id,
    'workbookId', ${sql.raw(pd)}.workbook_id, 'versionId', ${sql.raw(dv)}.id,
    'versionNumber', ${sql.raw(dv)}.version_number, 'publicId', ${sql.raw(pd)}.public_id,
    'allowEmbed', ${bool(`${pd}.allow_embed`)}, 'allEmbedUsers', ${bool(`${pd}.all_embed_users`)},
    'config', json(${sql.raw(dv)}.config), 'reportSnapshots', json(${reportSnapshotsJson(dv)}),
    'title', ${sql.raw(pd)}.title, 'description', ${sql.raw(pd)}.description,
    'restrictDataDownload', ${bool(`${pd}.restrict_data_download`)},
    'fromSharedWorkspace', json('false'), 'useBoardDashboards', json('false'),
    'createdBy', ${sql.raw(pd)}.created_by, 'createdAt', ${sql.raw(pd)}.created_at,
    'updatedAt', ${sql.raw(pd)}.updated_at) END`;

/** The workbook `workbookId` of the caller's deployment (a row of `workbooks` read or joined). */
export const ownWorkbook = (scope: DeploymentScope, workbookId: number): SQL | undefined =>
  and(
    eq(workbooks.itemId, workbookId),
    eq(workbooks.deploymentId, scope.deploymentId),
    deploymentOwned(scope.deploymentId, scope.accountId),
  );
