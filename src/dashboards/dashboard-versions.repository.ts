import { and, desc, eq, lt } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { dashboardVersions, publishedDashboards } from '../../schema/dashboards';
import { workbooks } from '../../schema/workspace';
import type { Db } from '../core/env';
import type { DeploymentScope } from '../core/scope';
import type { DashboardConfig } from './dashboard-config.schemas';
import { ownWorkbook, reportSnapshotsJson } from './dashboards.queries';
import type { ReportSnapshot } from './dashboards.schemas';

/** The versions of a workbook's published dashboard: a page of summaries, or one version with its body. */

type VersionRow = typeof dashboardVersions.$inferSelect;

/** One version without its body: what the versions list answers. */
export interface VersionSummaryRecord
  extends Pick<VersionRow, 'id' | 'publishedDashboardId' | 'versionNumber' | 'createdBy' | 'createdAt'> {
  publicId: string;
  isCurrent: boolean;
  status: 'published' | 'archived';
}

/** One version with its config and report snapshots. */
export interface VersionRecord extends VersionSummaryRecord {
  config: DashboardConfig;
  reportSnapshots: ReportSnapshot[];
}

/** The versions of the workbook's published dashboard. */
const ofWorkbook = (db: Db, workbookId: number) =>
  eq(
    dashboardVersions.publishedDashboardId,
    db
      .select({ id: publishedDashboards.id })
      .from(publishedDashboards)
      .where(eq(publishedDashboards.workbookId, workbookId)),
  );

/** The version columns a summary answers. */
const summaryColumns = {
  id: dashboardVersions.id,
  publishedDashboardId: dashboardVersions.publishedDashboardId,
  versionNumber: dashboardVersions.versionNumber,
  createdBy: dashboardVersions.createdBy,
  createdAt: dashboardVersions.createdAt,
};

/**
 * The summary columns read through `versions` (a subquery of `summaryColumns`), with what its
 * published dashboard adds: what `toVersionSummary` maps.
 */
const joinedSummary = <V extends Record<keyof typeof summaryColumns, SQLiteColumn>>(versions: V) => ({
  id: versions.id,
  publishedDashboardId: versions.publishedDashboardId,
  versionNumber: versions.versionNumber,
  createdBy: versions.createdBy,
  createdAt: versions.createdAt,
  publicId: publishedDashboards.publicId,
  currentVersionId: publishedDashboards.currentVersionId,
});

/** A version (subquery `dv`) left-joined to its workbook's published dashboard: null columns when none joined. */
interface VersionJoin {
  id: number | null;
  publishedDashboardId: number | null;
  versionNumber: number | null;
  createdBy: number | null;
  createdAt: string | null;
  publicId: string | null;
  currentVersionId: number | null;
}

/** The one mapper of a version row; null when no version joined. */
function toVersionSummary(row: VersionJoin): VersionSummaryRecord | null {
  if (row.id === null) return null;
  const isCurrent = row.id === row.currentVersionId;
  return {
    id: row.id,
    publishedDashboardId: Number(row.publishedDashboardId),
    publicId: String(row.publicId),
    versionNumber: Number(row.versionNumber),
    isCurrent,
    status: isCurrent ? 'published' : 'archived',
    createdBy: row.createdBy,
    createdAt: String(row.createdAt),
  };
}

/**
 * Summaries of the versions of a workbook's dashboard, newest first, from `beforeNumber` on: one
 * statement that also says whether the workbook exists (null: it does not, or is not the
 * caller's). No config or snapshot is read: a page costs the same whatever the versions hold.
 */
export async function listVersions(
  scope: DeploymentScope,
  workbookId: number,
  beforeNumber: number | null,
  limit: number,
): Promise<VersionSummaryRecord[] | null> {
  const { db } = scope;
  const versions = db
    .select(summaryColumns)
    .from(dashboardVersions)
    .where(
      and(
        ofWorkbook(db, workbookId),
        beforeNumber === null ? undefined : lt(dashboardVersions.versionNumber, beforeNumber),
      ),
    )
    .orderBy(desc(dashboardVersions.versionNumber))
    .limit(limit + 1)
    .as('dv');
  const rows = await db
    .select({
      ...joinedSummary(versions),
    })
    .from(workbooks)
    .leftJoin(publishedDashboards, eq(publishedDashboards.workbookId, workbooks.itemId))
    .leftJoin(versions, eq(versions.publishedDashboardId, publishedDashboards.id))
    .where(ownWorkbook(scope, workbookId))
    .orderBy(desc(versions.versionNumber));
  if (rows.length === 0) return null;
  return rows.flatMap((row) => toVersionSummary(row) ?? []);
}

/** One version with its body; `workbookFound` false: the workbook is not the caller's. */
export async function findVersion(
  scope: DeploymentScope,
  workbookId: number,
  versionNumber: number,
): Promise<{ workbookFound: boolean; version: VersionRecord | null }> {
  const { db } = scope;
  const versions = db
    .select({ ...summaryColumns, config: dashboardVersions.config })
    .from(dashboardVersions)
    .where(and(ofWorkbook(db, workbookId), eq(dashboardVersions.versionNumber, versionNumber)))
    .as('dv');
  const [row] = await db
    .select({
      ...joinedSummary(versions),
      config: versions.config,
      // The frozen reports as one JSON array, built in SQL (shared with the published dashboard's read).
      reportSnapshots: reportSnapshotsJson('dv').mapWith(String),
    })
    .from(workbooks)
    .leftJoin(publishedDashboards, eq(publishedDashboards.workbookId, workbooks.itemId))
    .leftJoin(versions, eq(versions.publishedDashboardId, publishedDashboards.id))
    .where(ownWorkbook(scope, workbookId));
  if (!row) return { workbookFound: false, version: null };
  const summary = toVersionSummary(row);
  if (!summary) return { workbookFound: true, version: null };
  return {
    workbookFound: true,
    version: {
      ...summary,
      config: row.config as DashboardConfig,
      // JSON built in SQL: D1 answers it as text.
      reportSnapshots: JSON.parse(row.reportSnapshots) as ReportSnapshot[],
    },
  };
}
