import { and, eq, sql } from 'drizzle-orm';
import { alias, type SelectedFields } from 'drizzle-orm/sqlite-core';
import { dashboardVersions, publishedDashboards } from '../../schema/dashboards';
import { deployments } from '../../schema/deployments';
import { accountSettings } from '../../schema/settings';
import { workbooks } from '../../schema/workspace';
import type { StoredConfig } from '../accounts/app-config.policy';
import { accountAttributesColumn, accountUserIdentity } from '../data-api/account-identity';
import type { RenderConfig, RenderSnapshot } from '../render/render.types';
import type { Identity } from '../semantic/query/policies';
import { publishedJson } from './dashboards.queries';
import type { PublishedDashboard } from './dashboards.schemas';
import type { WorkbookRenderScope } from './render.service';

export interface RenderSource {
  deploymentOk: boolean;
  /** The identity the render's queries run as: the scope's user, with their attribute values. */
  identity: Identity;
  workbookFound: boolean;
  draft: RenderConfig | null;
  /** The workbook's live reports, in the shape of snapshots (draft renders). */
  reports: RenderSnapshot[];
  published: PublishedDashboard | null;
  /** The account's app config (download restriction, time zone policy, theme); null: never set. */
  appConfig: StoredConfig;
}

// The aliases `publishedJson` reads its columns through.
const pd = alias(publishedDashboards, 'pd');
const dv = alias(dashboardVersions, 'dv');

/** JSON built in SQL: D1 answers it as text. */
const json = <T>(value: unknown): T | null => (typeof value === 'string' ? (JSON.parse(value) as T) : null);

// The workbook's reports as one JSON array of snapshots, aggregated in SQL (json_group_array).
const liveReportsJson = sql`(SELECT json_group_array(json_object('id', r.item_id, 'reportId', r.item_id, 'name', ri.name,
    'title', r.title, 'spec', r.spec, 'jsonQuery', r.json_query,
    'fillMissingRows', json(r.fill_missing_rows), 'periodComparisons', json(r.period_comparisons),
    'preferences', json(r.preferences)) ORDER BY r.item_id)
  FROM reports r JOIN workspace_items ri ON ri.id = r.item_id
  WHERE r.workbook_id = ${workbooks.itemId})`;

/**
 * A read of the caller's deployment (no row: not the caller's), its workbook `workbookId` (null
 * columns: not found) and the workbook's published version (`pd`, `dv`), with `fields`, the
 * account's app config and the attribute values of the user the render is for.
 */
function workbookRead<F extends SelectedFields>(scope: WorkbookRenderScope, workbookId: number, fields: F) {
  return scope.db
    .select({
      ...fields,
      workbookId: workbooks.itemId,
      appConfig: accountSettings.appConfig,
      attributes: accountAttributesColumn(scope.userId),
    })
    .from(deployments)
    .leftJoin(workbooks, and(eq(workbooks.itemId, workbookId), eq(workbooks.deploymentId, deployments.id)))
    .leftJoin(pd, eq(pd.workbookId, workbooks.itemId))
    .leftJoin(dv, eq(dv.id, pd.currentVersionId))
    .leftJoin(accountSettings, eq(accountSettings.accountId, deployments.accountId))
    .where(and(eq(deployments.id, scope.deploymentId), eq(deployments.accountId, scope.accountId)));
}

/**
 * What a render of a workbook's dashboard needs, in ONE statement: the caller's deployment, the
 * workbook, either its draft with its live reports or its published version with the frozen
 * snapshots (so a miss says which part is missing), the account's app config and the identity
 * of the user it is for.
 */
export async function findRenderSource(
  scope: WorkbookRenderScope,
  workbookId: number,
  version: 'draft' | 'published',
): Promise<RenderSource> {
  const none = {
    deploymentOk: false,
    workbookFound: false,
    draft: null,
    reports: [],
    published: null,
    appConfig: null,
    identity: accountUserIdentity(null),
  };
  // What both reads answer of the row: the deployment is the caller's, and what was found in it.
  const found = (row: { workbookId: number | null; appConfig: StoredConfig; attributes: unknown }) => ({
    ...none,
    deploymentOk: true,
    identity: accountUserIdentity(row.attributes),
    workbookFound: row.workbookId !== null,
    appConfig: row.appConfig,
  });
  if (version === 'draft') {
    const [row] = await workbookRead(scope, workbookId, {
      draft: workbooks.dashboardDraft,
      reports: liveReportsJson.mapWith(String),
    });
    if (!row) return none;
    return {
      ...found(row),
      draft: (row.draft ?? null) as RenderConfig | null,
      reports: json<RenderSnapshot[]>(row.reports) ?? [],
    };
  }
  const [row] = await workbookRead(scope, workbookId, { published: publishedJson().mapWith(String) });
  if (!row) return none;
  return { ...found(row), published: json<PublishedDashboard>(row.published) };
}
