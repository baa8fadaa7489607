import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './accounts';
import { deployments } from './deployments';
import { workspaceItems } from './workspace';

/**
 * The published dashboard of a workbook (at most one). `publicId` names it in embed paths and
 * stays the same across publishes; each publish adds a `dashboard_versions` row. Deleting the
 * workbook deletes this row, its versions and their snapshots, so the publicId answers 404.
 */
export const publishedDashboards = sqliteTable(
  'published_dashboards',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    workbookId: integer()
      .notNull()
      .references(() => workspaceItems.id, { onDelete: 'cascade' }),
    /** 128 random bits, base64url: unguessable, URL-safe. */
    publicId: text().notNull(),
    /** Customer-signed embedding allowed (the embed-access switch). Survives republishing. */
    allowEmbed: integer({ mode: 'boolean' }).notNull().default(false),
    /** Shared with every embed user of the account (embed access's allEmbedUsers). */
    allEmbedUsers: integer({ mode: 'boolean' }).notNull().default(false),
    title: text(),
    description: text(),
    restrictDataDownload: integer({ mode: 'boolean' }).notNull().default(false),
    /** The latest version: its number and id. */
    versionNumber: integer().notNull().default(0),
    currentVersionId: integer(),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('published_dashboards_workbook_uq').on(t.workbookId),
    uniqueIndex('published_dashboards_public_id_uq').on(t.publicId),
    index('published_dashboards_deployment_idx').on(t.deploymentId, t.id),
    index('published_dashboards_created_by_idx').on(t.createdBy),
  ],
);

/** One publish of a dashboard: the config as it was then. */
export const dashboardVersions = sqliteTable(
  'dashboard_versions',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    publishedDashboardId: integer()
      .notNull()
      .references(() => publishedDashboards.id, { onDelete: 'cascade' }),
    versionNumber: integer().notNull(),
    config: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('dashboard_versions_number_uq').on(t.publishedDashboardId, t.versionNumber),
    index('dashboard_versions_created_by_idx').on(t.createdBy),
  ],
);

/**
 * The content of a report as one publish froze it, stored ONCE per (report, report version): a
 * report's `versionNumber` moves with every change of its content, so republishing unchanged
 * reports adds link rows only. `reportId` is deliberately not a foreign key: the content
 * outlives later edits and the deletion of its report. A content no version links to any more
 * is deleted by a trigger (see the migration's custom block).
 */
export const snapshotContents = sqliteTable(
  'snapshot_contents',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    reportId: integer().notNull(),
    versionNumber: integer().notNull(),
    name: text().notNull(),
    title: text().notNull(),
    description: text().notNull(),
    spec: text().notNull(),
    sqlQuery: text().notNull(),
    /** The report's Cube query (JSON text), frozen with its chart settings: viewers run it live. */
    jsonQuery: text(),
    meta: text({ mode: 'json' }).notNull(),
    fillMissingRows: text({ mode: 'json' }),
    periodComparisons: text({ mode: 'json' }).notNull(),
    preferences: text({ mode: 'json' }).notNull(),
  },
  (t) => [
    uniqueIndex('snapshot_contents_report_version_uq').on(t.reportId, t.versionNumber),
    index('snapshot_contents_deployment_idx').on(t.deploymentId),
  ],
);

/**
 * The workbook's reports frozen at publish time: one link row per (version, report) naming the
 * content it froze. The content columns here are legacy (filled before snapshot_contents
 * existed); the migration moves them into snapshot_contents and empties them, and a later
 * migration drops them.
 */
export const reportSnapshots = sqliteTable(
  'report_snapshots',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    dashboardVersionId: integer()
      .notNull()
      .references(() => dashboardVersions.id, { onDelete: 'cascade' }),
    contentId: integer().references(() => snapshotContents.id),
    reportId: integer(),
    versionNumber: integer(),
    name: text(),
    title: text(),
    description: text(),
    spec: text(),
    sqlQuery: text(),
    meta: text({ mode: 'json' }),
    fillMissingRows: text({ mode: 'json' }),
    periodComparisons: text({ mode: 'json' }),
    preferences: text({ mode: 'json' }),
  },
  (t) => [
    index('report_snapshots_version_idx').on(t.dashboardVersionId, t.id),
    index('report_snapshots_content_idx').on(t.contentId),
  ],
);
