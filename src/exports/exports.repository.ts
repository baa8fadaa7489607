import { and, asc, eq, gt, inArray, lte, notInArray, sql } from 'drizzle-orm';
import { users } from '../../schema/accounts';
import { publishedDashboards } from '../../schema/dashboards';
import { dashboardExports } from '../../schema/exports';
import { FROZEN_ACCOUNTS } from '../core/account-moving';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { DeploymentScope, RequestScope } from '../core/scope';
import { MAX_ERROR_TEXT, MAX_EXPORT_ATTEMPTS, MAX_EXPORTS_IN_FLIGHT } from './exports.limits';

export type ExportRow = typeof dashboardExports.$inferSelect;

/** The dashboard an export names: by id or by publicId (exactly one is given). */
export interface DashboardRef {
  id?: number;
  publicId?: string;
}

/** What a start stores besides what the scope says (account, deployment, user, time). */
export interface NewExport {
  jobId: string;
  format: ExportRow['format'];
  /** The `renderAs` user (null: the caller). */
  renderUserId: number | null;
  filters: ExportRow['filters'];
  timeGrains: ExportRow['timeGrains'];
  expiresAt: Date;
}

/** Why a start stored nothing, or the new row's id. */
export type StartOutcome =
  | { exportId: number }
  | {
      exportId: null;
      dashboardFound: boolean;
      restricted: boolean;
      /** The account's app config restricts data downloads (`restrictDataDownload`). */
      accountRestricted: boolean;
    };

const IN_FLIGHT = ['queued', 'running'] as const;

/**
 * Stores a queued job in ONE batch: an insert guarded in SQL by the dashboard (of the caller's
 * deployment and account, downloads restricted neither by it nor by the account's app config,
 * as the render endpoint refuses them) and by the account's jobs in flight (fewer
 * than MAX_EXPORTS_IN_FLIGHT unexpired), then a read that says which guard refused, so two
 * starts racing for the last slot cannot both pass.
 */
export async function insertExport(
  scope: DeploymentScope,
  ref: DashboardRef,
  job: NewExport,
): Promise<StartOutcome> {
  const now = scope.now.toISOString();
  const inFlight = sql`(SELECT count(*) FROM dashboard_exports e
    WHERE e.account_id = ${scope.accountId} AND e.status IN ('queued', 'running') AND e.expires_at > ${now})`;
  const accountRestricted = sql`coalesce((SELECT json_extract(s.app_config, '$.restrictDataDownload') = 1
    FROM account_settings s WHERE s.account_id = ${scope.accountId}), 0)`;
  const named = sql`d.id = ${scope.deploymentId} AND d.account_id = ${scope.accountId}
    AND (pd.id = ${ref.id ?? null} OR pd.public_id = ${ref.publicId ?? null})`;
  const [inserted, probe] = await runBatch<Record<string, unknown>>(scope.db, [
    // INSERT … SELECT guarded by the count in the same statement: drizzle's builder has no such insert.
    sql`INSERT INTO dashboard_exports (job_id, account_id, deployment_id, dashboard_id, user_id, render_user_id,
        format, filters, time_grains, status, attempts, created_at, expires_at)
      SELECT ${job.jobId}, d.account_id, d.id, pd.id, ${scope.userId}, ${job.renderUserId}, ${job.format},
        ${JSON.stringify(job.filters)}, ${JSON.stringify(job.timeGrains)}, 'queued', 0, ${now},
        ${job.expiresAt.toISOString()}
      FROM published_dashboards pd JOIN deployments d ON d.id = pd.deployment_id
      WHERE ${named} AND pd.restrict_data_download = 0 AND NOT ${accountRestricted}
        AND ${inFlight} < ${MAX_EXPORTS_IN_FLIGHT}
      RETURNING id`,
    // The same dashboard, read after the insert: which guard refused, if one did (a dashboard
    // found and restricted by neither: the bound of jobs in flight).
    sql`SELECT pd.restrict_data_download AS restricted, ${accountRestricted} AS account_restricted
      FROM published_dashboards pd JOIN deployments d ON d.id = pd.deployment_id
      WHERE ${named}`,
  ]);
  const id = inserted?.results[0]?.id;
  if (typeof id === 'number') return { exportId: id };
  const row = probe?.results[0];
  return {
    exportId: null,
    dashboardFound: row !== undefined,
    restricted: Boolean(row?.restricted),
    accountRestricted: Boolean(row?.account_restricted),
  };
}

/** Marks a job that could not be enqueued as failed, so it neither waits nor counts as in flight. */
export async function failUnqueued(scope: RequestScope, exportId: number, error: string): Promise<void> {
  await scope.db
    .update(dashboardExports)
    .set({ status: 'failed', error, finishedAt: scope.now.toISOString() })
    .where(and(eq(dashboardExports.id, exportId), eq(dashboardExports.status, 'queued')));
}

/**
 * The caller's unexpired job `jobId`: in the scope's deployment, of the scope's user (Cube: a
 * job is only ever visible to whoever started it). Anything else is no row.
 */
export async function findExport(scope: DeploymentScope, jobId: string): Promise<ExportRow | undefined> {
  const [row] = await scope.db
    .select()
    .from(dashboardExports)
    .where(
      and(
        eq(dashboardExports.jobId, jobId),
        eq(dashboardExports.accountId, scope.accountId),
        eq(dashboardExports.deploymentId, scope.deploymentId),
        eq(dashboardExports.userId, scope.userId),
        gt(dashboardExports.expiresAt, scope.now.toISOString()),
      ),
    );
  return row;
}

/** A user of the caller's account by id or by email (any case): the subject of `renderAs`. */
export async function findAccountUser(
  scope: DeploymentScope,
  ref: { userId?: number; email?: string },
): Promise<number | null> {
  const named =
    ref.userId !== undefined
      ? eq(users.id, ref.userId)
      : sql`lower(${users.email}) = ${(ref.email ?? '').toLowerCase()}`;
  const [row] = await scope.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.accountId, scope.accountId), named));
  return row?.id ?? null;
}

/** A claimed job and the workbook whose dashboard it renders (null: the dashboard was deleted). */
export interface ClaimedExport {
  job: ExportRow;
  workbookId: number | null;
}

/**
 * Claims job `exportId` for one render, in ONE batch: a job still queued or running (a
 * redelivery after an attempt that died) and unexpired becomes `running` with one more attempt;
 * one whose attempts are spent becomes `failed` instead. A finished, expired or deleted job is
 * no row, so a redelivered message of it does nothing.
 */
export async function claimExport(scope: RequestScope, exportId: number): Promise<ClaimedExport | null> {
  const now = scope.now.toISOString();
  const spent = sql`${dashboardExports.attempts} >= ${MAX_EXPORT_ATTEMPTS}`;
  const [claimed, dashboard] = await runBatch<Record<string, unknown>>(scope.db, [
    scope.db
      .update(dashboardExports)
      .set({
        status: sql`CASE WHEN ${spent} THEN 'failed' ELSE 'running' END`,
        attempts: sql`CASE WHEN ${spent} THEN ${dashboardExports.attempts} ELSE ${dashboardExports.attempts} + 1 END`,
        error: sql`CASE WHEN ${spent}
          THEN ${`The render did not finish in ${MAX_EXPORT_ATTEMPTS} attempts`} ELSE NULL END`,
        startedAt: sql`coalesce(${dashboardExports.startedAt}, ${now})`,
        finishedAt: sql`CASE WHEN ${spent} THEN ${now} ELSE NULL END`,
      })
      .where(
        and(
          eq(dashboardExports.id, exportId),
          inArray(dashboardExports.status, IN_FLIGHT),
          gt(dashboardExports.expiresAt, now),
        ),
      )
      .returning(),
    scope.db
      .select({ workbookId: publishedDashboards.workbookId })
      .from(dashboardExports)
      .innerJoin(publishedDashboards, eq(publishedDashboards.id, dashboardExports.dashboardId))
      .where(eq(dashboardExports.id, exportId)),
  ]);
  const row = claimed?.results[0];
  if (!row) return null;
  const workbookId = dashboard?.results[0]?.workbook_id;
  return {
    job: mapRow(dashboardExports, row),
    workbookId: typeof workbookId === 'number' ? workbookId : null,
  };
}

/** The file a finished render stored. */
export interface StoredFile {
  key: string;
  contentType: string;
  byteSize: number;
}

/**
 * Records a finished render: only a job still running becomes `done` (one that expired or was
 * swept meanwhile stays as it is), so the effect happens once. Whether it did.
 */
export async function finishExport(
  scope: RequestScope,
  exportId: number,
  file: StoredFile,
): Promise<boolean> {
  const done = await scope.db
    .update(dashboardExports)
    .set({
      status: 'done',
      fileKey: file.key,
      contentType: file.contentType,
      byteSize: file.byteSize,
      error: null,
      finishedAt: scope.now.toISOString(),
    })
    .where(and(eq(dashboardExports.id, exportId), eq(dashboardExports.status, 'running')))
    .returning({ id: dashboardExports.id });
  return done.length > 0;
}

/** Records a render that failed for good, with why (cut to MAX_ERROR_TEXT characters). */
export async function failExport(scope: RequestScope, exportId: number, error: string): Promise<void> {
  await scope.db
    .update(dashboardExports)
    .set({ status: 'failed', error: error.slice(0, MAX_ERROR_TEXT), finishedAt: scope.now.toISOString() })
    .where(and(eq(dashboardExports.id, exportId), eq(dashboardExports.status, 'running')));
}

/** Up to `limit` expired jobs, oldest first, with their files' keys. */
export async function expiredExports(db: Db, now: Date, limit: number) {
  return db
    .select({ id: dashboardExports.id, fileKey: dashboardExports.fileKey })
    .from(dashboardExports)
    .where(
      and(
        lte(dashboardExports.expiresAt, now.toISOString()),
        notInArray(dashboardExports.accountId, FROZEN_ACCOUNTS),
      ),
    )
    .orderBy(asc(dashboardExports.expiresAt))
    .limit(limit);
}

/** Deletes jobs by id: one bound parameter for the whole list (D1 binds at most 100 per statement). */
export async function deleteExports(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .delete(dashboardExports)
    .where(inArray(dashboardExports.id, sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`));
}
