import { sql } from 'drizzle-orm';
import type { Db } from '../core/env';
import { deploymentOwned } from '../core/tenancy';
import type { RenderConfig, RenderSnapshot } from '../render/render.types';
import { publishedJson } from './dashboards.queries';
import type { PublishedDashboard } from './dashboards.schemas';

type Raw = Record<string, unknown>;

export interface RenderSource {
  deploymentOk: boolean;
  workbookFound: boolean;
  draft: RenderConfig | null;
  /** The workbook's live reports, in the shape of snapshots (draft renders). */
  reports: RenderSnapshot[];
  published: PublishedDashboard | null;
}

/**
 * What a render of a workbook's dashboard needs, in ONE statement: the caller's ownership of the
 * deployment, the workbook, and either its draft with its live reports or its published version
 * with the frozen snapshots. The driving row always exists, so a miss says which part is missing.
 */
export async function findRenderSource(
  db: Db,
  scope: { accountId: number; deploymentId: number },
  workbookId: number,
  version: 'draft' | 'published',
): Promise<RenderSource> {
  const draftParts =
    version === 'draft'
      ? sql`w.dashboard_draft AS draft,
      (SELECT json_group_array(json_object('id', r.item_id, 'reportId', r.item_id, 'name', ri.name,
          'title', r.title, 'spec', r.spec, 'jsonQuery', r.json_query,
          'fillMissingRows', json(r.fill_missing_rows), 'periodComparisons', json(r.period_comparisons),
          'preferences', json(r.preferences)) ORDER BY r.item_id)
        FROM reports r JOIN workspace_items ri ON ri.id = r.item_id
        WHERE r.workbook_id = w.item_id) AS reports,
      NULL AS published`
      : sql`NULL AS draft, NULL AS reports, ${publishedJson()} AS published`;
  const rows = await db.all<Raw>(sql`
    SELECT ${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      w.item_id AS workbook_id, ${draftParts}
    FROM (SELECT 1) one
      LEFT JOIN workbooks w ON w.item_id = ${workbookId} AND w.deployment_id = ${scope.deploymentId}
        AND ${deploymentOwned(scope.deploymentId, scope.accountId)}
      LEFT JOIN published_dashboards pd ON pd.workbook_id = w.item_id
      LEFT JOIN dashboard_versions dv ON dv.id = pd.current_version_id`);
  const row = rows[0] ?? {};
  const json = <T>(value: unknown): T | null => (typeof value === 'string' ? (JSON.parse(value) as T) : null);
  return {
    deploymentOk: row.deployment_ok === 1,
    workbookFound: row.workbook_id != null,
    draft: json<RenderConfig>(row.draft),
    reports: json<RenderSnapshot[]>(row.reports) ?? [],
    published: json<PublishedDashboard>(row.published),
  };
}
