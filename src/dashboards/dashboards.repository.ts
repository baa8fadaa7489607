import { and, eq, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { dashboardVersions, publishedDashboards } from '../../schema/dashboards';
import { deployments } from '../../schema/deployments';
import { workbooks, workspaceItems } from '../../schema/workspace';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';
import type { DashboardConfig } from './dashboard-config.schemas';
import { ownWorkbook, publishedJson } from './dashboards.queries';
import type { PublishedDashboard, PublishInput } from './dashboards.schemas';

type Raw = Record<string, unknown>;

/** JSON built in SQL (`publishedJson`): D1 answers it as text. */
const parsed = <T>(text: unknown): T => JSON.parse(String(text)) as T;

// ---- The published dashboard ----

/** A published dashboard with the account it belongs to, for callers outside the workspace. */
export type PublishedDashboardRecord = PublishedDashboard & { accountId: number };

// The aliases `publishedJson` reads its columns through.
const pd = alias(publishedDashboards, 'pd');
const dv = alias(dashboardVersions, 'dv');

/** The published dashboard (current version, config, report snapshots, embed flags) and its account, in one statement. */
function publishedRead(db: Db, where: SQL | undefined) {
  return db
    .select({
      accountId: deployments.accountId,
      // One JSON object shared with the workspace's item read, which embeds it.
      published: publishedJson().mapWith(String).as('published'),
    })
    .from(pd)
    .innerJoin(dv, eq(dv.id, pd.currentVersionId))
    .innerJoin(deployments, eq(deployments.id, pd.deploymentId))
    .where(where);
}

function toPublished(row: { accountId: number; published: string | null } | undefined) {
  if (!row || row.published === null) return null;
  return { ...parsed<PublishedDashboard>(row.published), accountId: row.accountId };
}

/**
 * The published dashboard named by its publicId, in ONE query; null when there is none (never
 * published, or its workbook was deleted). The caller decides who may see it: `accountId` and
 * `deploymentId` are included.
 */
export async function findPublishedByPublicId(
  db: Db,
  publicId: string,
): Promise<PublishedDashboardRecord | null> {
  const [row] = await publishedRead(db, eq(pd.publicId, publicId));
  return toPublished(row);
}

/** The same, by the PublishedDashboard id, within one account (another account's id: null). */
export async function findPublishedById(
  db: Db,
  accountId: number,
  id: number,
): Promise<PublishedDashboardRecord | null> {
  const [row] = await publishedRead(db, and(eq(pd.id, id), eq(deployments.accountId, accountId)));
  return toPublished(row);
}

// ---- The draft ----

export interface DashboardState {
  dashboardDraft: DashboardConfig | null;
  dashboardPublished: DashboardConfig | null;
}

/** A workbook of the caller's deployment with its draft and published config: no row when there is none. */
function stateRead(scope: DeploymentScope, workbookId: number) {
  return scope.db
    .select({ dashboardDraft: workbooks.dashboardDraft, dashboardPublished: dashboardVersions.config })
    .from(workbooks)
    .leftJoin(publishedDashboards, eq(publishedDashboards.workbookId, workbooks.itemId))
    .leftJoin(dashboardVersions, eq(dashboardVersions.id, publishedDashboards.currentVersionId))
    .where(ownWorkbook(scope, workbookId));
}

const toState = (row: { dashboardDraft: unknown; dashboardPublished: unknown }): DashboardState => ({
  dashboardDraft: (row.dashboardDraft ?? null) as DashboardConfig | null,
  dashboardPublished: (row.dashboardPublished ?? null) as DashboardConfig | null,
});

/** The draft and published config of a workbook; null when it is not one of the caller's deployment. */
export async function findDashboardState(scope: DeploymentScope, workbookId: number) {
  const [row] = await stateRead(scope, workbookId);
  return row ? toState(row) : null;
}

/** Replaces (or clears) the draft, bumps the workbook's updated_at and reads the state back: one round trip. */
export async function saveDraft(scope: DeploymentScope, workbookId: number, draft: DashboardConfig | null) {
  const { db } = scope;
  const owned = deploymentOwned(scope.deploymentId, scope.accountId);
  const [, , read] = await runBatch<Raw>(db, [
    db
      .update(workspaceItems)
      .set({ updatedAt: scope.now.toISOString(), updatedBy: scope.userId })
      .where(
        and(
          eq(workspaceItems.id, workbookId),
          eq(workspaceItems.deploymentId, scope.deploymentId),
          eq(workspaceItems.type, 'WORKBOOK'),
          owned,
        ),
      ),
    db
      .update(workbooks)
      .set({ dashboardDraft: draft })
      .where(and(eq(workbooks.itemId, workbookId), eq(workbooks.deploymentId, scope.deploymentId), owned)),
    stateRead(scope, workbookId),
  ]);
  // A batch answers raw rows (snake_case, JSON as text): decoded by the columns they were read from.
  const row = read?.results[0];
  if (!row) return null;
  return toState({
    dashboardDraft: mapRow(workbooks, row).dashboardDraft,
    dashboardPublished: mapRow(dashboardVersions, row).config,
  });
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
 *
 * Hand-written: a guarded batch (D1 has no interactive transactions), whose writes are
 * INSERT … SELECT from the check with ON CONFLICT clauses drizzle's insert-select cannot take.
 */
export async function publish(
  scope: DeploymentScope,
  workbookId: number,
  input: PublishInput,
  publicId: string,
): Promise<{ check: PublishCheck; published: PublishedDashboardRecord | null }> {
  const { db } = scope;
  const now = scope.now.toISOString();
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
    // The row's own columns name the version it now points at: a correlated subquery.
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
    db
      .update(workspaceItems)
      .set({ updatedAt: now, updatedBy: scope.userId })
      .where(and(eq(workspaceItems.id, workbookId), guard)),
    publishedRead(db, eq(pd.workbookId, workbookId)),
  ]);
  const found = toPublishCheck(results[0]?.results[0]);
  const read = results[results.length - 1]?.results[0];
  return {
    check: found,
    published:
      found.ok && read
        ? toPublished({
            accountId: Number(read.account_id),
            published: (read.published ?? null) as string | null,
          })
        : null,
  };
}
