import { type SQL, sql } from 'drizzle-orm';
import type { DeploymentScope } from '../auth/deployment-scope';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';
import { deploymentOwned } from '../core/tenancy';
import { publishedJson, reportSnapshotsJson } from './dashboards.queries';
import type { DashboardConfig, PublishedDashboard, PublishInput, ReportSnapshot } from './dashboards.schemas';

type Raw = Record<string, unknown>;

const parse = <T>(value: unknown): T => JSON.parse(String(value));

/** A published dashboard with the account it belongs to, for callers outside the workspace. */
export type PublishedDashboardRecord = PublishedDashboard & { accountId: number };

function toPublished(row: Raw | undefined): PublishedDashboardRecord | null {
  if (!row || row.published == null) return null;
  return { ...parse<PublishedDashboard>(row.published), accountId: Number(row.account_id) };
}

const publishedSelect = (where: SQL): SQL => sql`SELECT d.account_id, ${publishedJson()} AS published
  FROM published_dashboards pd
    JOIN dashboard_versions dv ON dv.id = pd.current_version_id
    JOIN deployments d ON d.id = pd.deployment_id
  WHERE ${where}`;

/**
 * The published dashboard (current version, config, report snapshots, embed flags) named by
 * its publicId, in ONE query; null when there is none (never published, or its workbook was
 * deleted). The caller decides who may see it: `accountId` and `deploymentId` are included.
 */
export async function findPublishedByPublicId(
  db: Db,
  publicId: string,
): Promise<PublishedDashboardRecord | null> {
  const rows = await db.all<Raw>(publishedSelect(sql`pd.public_id = ${publicId}`));
  return toPublished(rows[0]);
}

/** The same, by the PublishedDashboard id, within one account (another account's id: null). */
export async function findPublishedById(
  db: Db,
  accountId: number,
  id: number,
): Promise<PublishedDashboardRecord | null> {
  const rows = await db.all<Raw>(publishedSelect(sql`pd.id = ${id} AND d.account_id = ${accountId}`));
  return toPublished(rows[0]);
}

// ---- E1 ----

export interface DashboardState {
  dashboardDraft: DashboardConfig | null;
  dashboardPublished: DashboardConfig | null;
}

const publishedConfigOf = (
  workbookId: SQL | number,
): SQL => sql`(SELECT dv.config FROM published_dashboards pd
  JOIN dashboard_versions dv ON dv.id = pd.current_version_id WHERE pd.workbook_id = ${workbookId})`;

function toState(row: Raw | undefined): DashboardState | null {
  if (!row) return null;
  return {
    dashboardDraft: row.dashboard_draft == null ? null : parse(row.dashboard_draft),
    dashboardPublished: row.published_config == null ? null : parse(row.published_config),
  };
}

export async function findDashboardState(db: Db, scope: DeploymentScope, workbookId: number) {
  const rows =
    await db.all<Raw>(sql`SELECT w.dashboard_draft, ${publishedConfigOf(workbookId)} AS published_config
    FROM workbooks w
    WHERE w.item_id = ${workbookId} AND w.deployment_id = ${scope.deploymentId}
      AND ${deploymentOwned(scope.deploymentId, scope.accountId)}`);
  return toState(rows[0]);
}

/** E1: replaces (or clears) the draft and bumps the workbook's updated_at: one round trip. */
export async function saveDraft(
  db: Db,
  scope: DeploymentScope,
  workbookId: number,
  draft: DashboardConfig | null,
  now: string,
) {
  const owned = deploymentOwned(scope.deploymentId, scope.accountId);
  const [, saved] = await runBatch<Raw>(db, [
    sql`UPDATE workspace_items SET updated_at = ${now}, updated_by = ${scope.userId}
      WHERE id = ${workbookId} AND deployment_id = ${scope.deploymentId} AND type = 'WORKBOOK' AND ${owned}`,
    sql`UPDATE workbooks SET dashboard_draft = ${draft === null ? null : JSON.stringify(draft)}
      WHERE item_id = ${workbookId} AND deployment_id = ${scope.deploymentId} AND ${owned}
      RETURNING dashboard_draft, ${publishedConfigOf(sql`workbooks.item_id`)} AS published_config`,
  ]);
  return toState(saved?.results[0]);
}

// ---- Publishing ----

/** What the check of a publish found, typed (read only by `toPublishCheck` from its aliases). */
export interface PublishCheck {
  ok: boolean;
  /** The workbook is one of the caller's deployment. */
  workbookFound: boolean;
  hasDraft: boolean;
  /** `dashboardId` is absent or names this workbook's published dashboard. */
  dashboardFound: boolean;
  /** The stored draft is JSON SQLite can read (within its depth limit). */
  draftValid: boolean;
}

const toPublishCheck = (row: Raw | undefined): PublishCheck => ({
  ok: row?.ok === 1,
  workbookFound: row?.deployment_ok === 1 && row?.found === 1,
  hasDraft: row?.has_draft === 1,
  dashboardFound: row?.dashboard_ok === 1,
  draftValid: row?.draft_valid === 1,
});

/**
 * Publishes the draft as a new version, in ONE batch (one transaction): upsert the published row
 * (the publicId and embed flags of an existing one are kept), add the version numbered in SQL,
 * point the row at it, freeze the workbook's reports into snapshots, bump the workbook. Every
 * statement is guarded by the same check, so a failed check writes nothing.
 */
export async function publish(
  db: Db,
  scope: DeploymentScope,
  workbookId: number,
  input: PublishInput,
  publicId: string,
  now: string,
): Promise<{ check: PublishCheck; published: PublishedDashboardRecord | null }> {
  // What is published: the config of the request, else the stored draft. A draft stored before
  // the JSON limits existed may be too deep for SQLite's JSON functions: it is refused (400)
  // rather than failing the publish.
  // A sent config is bound once (it may be 512 KiB); its title and description are read here.
  const given = input.config != null ? JSON.stringify(input.config) : null;
  const fromDraft = (key: string) =>
    sql.raw(`CASE WHEN json_valid(w.dashboard_draft) THEN w.dashboard_draft ->> '$.${key}' END`);
  const configTitle = given === null ? fromDraft('title') : sql`${input.config?.title ?? null}`;
  const configDescription =
    given === null ? fromDraft('description') : sql`${input.config?.description ?? null}`;
  const dashboardId = input.dashboardId ?? null;
  const check = sql`SELECT *, (deployment_ok AND found AND has_draft AND draft_valid AND dashboard_ok) AS ok
    FROM (SELECT
      ${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      EXISTS (SELECT 1 FROM workbooks WHERE item_id = ${workbookId} AND deployment_id = ${scope.deploymentId}) AS found,
      ${
        given !== null
          ? sql`1`
          : sql`EXISTS (SELECT 1 FROM workbooks WHERE item_id = ${workbookId}
        AND deployment_id = ${scope.deploymentId} AND dashboard_draft IS NOT NULL)`
      } AS has_draft,
      ${
        given !== null
          ? sql`1`
          : sql`coalesce((SELECT json_valid(dashboard_draft) FROM workbooks
        WHERE item_id = ${workbookId} AND deployment_id = ${scope.deploymentId}), 0)`
      } AS draft_valid,
      (${dashboardId} IS NULL OR EXISTS (SELECT 1 FROM published_dashboards
        WHERE id = ${dashboardId} AND workbook_id = ${workbookId})) AS dashboard_ok)`;
  const guard = sql`(SELECT ok FROM (${check})) = 1`;
  const titleGiven = input.title !== undefined;
  const descriptionGiven = input.description !== undefined;
  const restrictGiven = input.restrictDataDownload != null;
  const allowEmbedGiven = input.allowEmbed != null;
  const results = await runBatch<Raw>(db, [
    check,
    // A first publish takes its title from the published config, else the workbook's name.
    sql`INSERT INTO published_dashboards (deployment_id, workbook_id, public_id, title, description,
        allow_embed, restrict_data_download, version_number, created_by, created_at, updated_at)
      SELECT ${scope.deploymentId}, ${workbookId}, ${publicId},
        ${titleGiven ? sql`${input.title ?? null}` : sql`coalesce(${configTitle}, i.name)`},
        ${descriptionGiven ? sql`${input.description ?? null}` : configDescription},
        ${input.allowEmbed ? 1 : 0}, ${input.restrictDataDownload ? 1 : 0}, 1, ${scope.userId}, ${now}, ${now}
      FROM workbooks w JOIN workspace_items i ON i.id = w.item_id
      WHERE w.item_id = ${workbookId} AND ${guard}
      ON CONFLICT (workbook_id) DO UPDATE SET
        version_number = version_number + 1,
        title = ${titleGiven ? sql`excluded.title` : sql`title`},
        description = ${descriptionGiven ? sql`excluded.description` : sql`description`},
        allow_embed = ${allowEmbedGiven ? sql`excluded.allow_embed` : sql`allow_embed`},
        restrict_data_download = ${restrictGiven ? sql`excluded.restrict_data_download` : sql`restrict_data_download`},
        updated_at = excluded.updated_at`,
    sql`INSERT INTO dashboard_versions (published_dashboard_id, version_number, config, created_by, created_at)
      SELECT pd.id, pd.version_number, ${given === null ? sql.raw('w.dashboard_draft') : sql`${given}`},
        ${scope.userId}, ${now}
      FROM published_dashboards pd JOIN workbooks w ON w.item_id = pd.workbook_id
      WHERE pd.workbook_id = ${workbookId} AND ${guard}`,
    sql`UPDATE published_dashboards SET current_version_id = (SELECT dv.id FROM dashboard_versions dv
        WHERE dv.published_dashboard_id = published_dashboards.id
          AND dv.version_number = published_dashboards.version_number)
      WHERE workbook_id = ${workbookId} AND ${guard}`,
    // Content-addressed: a report version already frozen by an earlier publish is not stored
    // again (a report's versionNumber moves with every change of its content).
    sql`INSERT INTO snapshot_contents (deployment_id, report_id, version_number, name, title, description,
        spec, sql_query, json_query, meta, fill_missing_rows, period_comparisons, preferences)
      SELECT ${scope.deploymentId}, r.item_id, r.version_number, i.name, r.title, r.description, r.spec,
        r.sql_query, r.json_query, r.meta, r.fill_missing_rows, r.period_comparisons, r.preferences
      FROM reports r JOIN workspace_items i ON i.id = r.item_id
      WHERE r.workbook_id = ${workbookId} AND ${guard}
      ORDER BY r.item_id
      ON CONFLICT (report_id, version_number) DO NOTHING`,
    sql`INSERT INTO report_snapshots (dashboard_version_id, content_id)
      SELECT pd.current_version_id, sc.id
      FROM reports r
        JOIN snapshot_contents sc ON sc.report_id = r.item_id AND sc.version_number = r.version_number
        JOIN published_dashboards pd ON pd.workbook_id = r.workbook_id
      WHERE r.workbook_id = ${workbookId} AND ${guard}
      ORDER BY r.item_id`,
    sql`UPDATE workspace_items SET updated_at = ${now}, updated_by = ${scope.userId}
      WHERE id = ${workbookId} AND ${guard}`,
    publishedSelect(sql`pd.workbook_id = ${workbookId}`),
  ]);
  const found = toPublishCheck(results[0]?.results[0]);
  return {
    check: found,
    published: found.ok ? toPublished(results[results.length - 1]?.results[0]) : null,
  };
}

// ---- Versions ----

/** One version without its body: what the versions list answers. */
export interface VersionSummaryRecord {
  id: number;
  publishedDashboardId: number;
  publicId: string;
  versionNumber: number;
  isCurrent: boolean;
  status: 'published' | 'archived';
  createdBy: number | null;
  createdAt: string;
}

/** One version with its config and report snapshots. */
export interface VersionRecord extends VersionSummaryRecord {
  config: DashboardConfig;
  reportSnapshots: ReportSnapshot[];
}

/** The one mapper of a `dashboard_versions` row (joined with its published dashboard). */
function toVersionSummary(row: Raw): VersionSummaryRecord {
  return {
    id: Number(row.id),
    publishedDashboardId: Number(row.published_dashboard_id),
    publicId: String(row.public_id),
    versionNumber: Number(row.version_number),
    isCurrent: row.id === row.current_version_id,
    status: row.id === row.current_version_id ? 'published' : 'archived',
    createdBy: row.created_by == null ? null : Number(row.created_by),
    createdAt: String(row.created_at),
  };
}

function toVersion(row: Raw): VersionRecord {
  return {
    ...toVersionSummary(row),
    config: parse(row.config),
    reportSnapshots: parse(row.report_snapshots),
  };
}

/**
 * The workbook (of the caller's deployment) driving a read of its versions: no row at all means
 * the workbook is not found; `versions` is the selection of `dashboard_versions` to join.
 */
const versionsOf = (scope: DeploymentScope, workbookId: number, versions: SQL, columns: SQL, order: SQL) =>
  sql`SELECT w.item_id AS workbook_id, pd.public_id, pd.current_version_id,
      dv.id, dv.published_dashboard_id, dv.version_number, dv.created_by, dv.created_at ${columns}
    FROM workbooks w
      LEFT JOIN published_dashboards pd ON pd.workbook_id = w.item_id
      LEFT JOIN (${versions}) dv ON dv.published_dashboard_id = pd.id
    WHERE w.item_id = ${workbookId} AND w.deployment_id = ${scope.deploymentId}
      AND ${deploymentOwned(scope.deploymentId, scope.accountId)}
    ORDER BY ${order}`;

const versionsOfWorkbook = (workbookId: number) =>
  sql`published_dashboard_id = (SELECT id FROM published_dashboards WHERE workbook_id = ${workbookId})`;

/**
 * Summaries of the versions of a workbook's dashboard, newest first, from `beforeNumber` on: one
 * statement that also says whether the workbook exists (null: it does not, or is not the
 * caller's). No config or snapshot is read: a page costs the same whatever the versions hold.
 */
export async function listVersions(
  db: Db,
  scope: DeploymentScope,
  workbookId: number,
  beforeNumber: number | null,
  limit: number,
): Promise<VersionSummaryRecord[] | null> {
  const rows = await db.all<Raw>(
    versionsOf(
      scope,
      workbookId,
      sql`SELECT id, published_dashboard_id, version_number, created_by, created_at FROM dashboard_versions
        WHERE ${versionsOfWorkbook(workbookId)}
          ${beforeNumber === null ? sql`` : sql`AND version_number < ${beforeNumber}`}
        ORDER BY version_number DESC LIMIT ${limit + 1}`,
      sql``,
      sql`dv.version_number DESC`,
    ),
  );
  if (rows.length === 0) return null;
  return rows.filter((r) => r.id != null).map(toVersionSummary);
}

/** One version with its body; `workbookFound` false: the workbook is not the caller's. */
export async function findVersion(
  db: Db,
  scope: DeploymentScope,
  workbookId: number,
  versionNumber: number,
): Promise<{ workbookFound: boolean; version: VersionRecord | null }> {
  const rows = await db.all<Raw>(
    versionsOf(
      scope,
      workbookId,
      sql`SELECT * FROM dashboard_versions
        WHERE ${versionsOfWorkbook(workbookId)} AND version_number = ${versionNumber}`,
      sql`, dv.config, ${reportSnapshotsJson('dv')} AS report_snapshots`,
      sql`dv.id`,
    ),
  );
  const row = rows[0];
  if (!row) return { workbookFound: false, version: null };
  return { workbookFound: true, version: row.id == null ? null : toVersion(row) };
}
