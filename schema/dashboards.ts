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
    /** Customer-signed embedding allowed (E8). Survives republishing. */
    allowEmbed: integer({ mode: 'boolean' }).notNull().default(false),
    /** Shared with every embed user of the account (E8's allEmbedUsers). */
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
  (t) => [uniqueIndex('dashboard_versions_number_uq').on(t.publishedDashboardId, t.versionNumber)],
);

/**
 * The workbook's reports frozen at publish time. `reportId` is deliberately not a foreign key:
 * a snapshot outlives later edits and the deletion of its report.
 */
export const reportSnapshots = sqliteTable(
  'report_snapshots',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    dashboardVersionId: integer()
      .notNull()
      .references(() => dashboardVersions.id, { onDelete: 'cascade' }),
    reportId: integer().notNull(),
    versionNumber: integer().notNull(),
    name: text().notNull(),
    title: text().notNull(),
    description: text().notNull(),
    spec: text().notNull(),
    sqlQuery: text().notNull(),
    meta: text({ mode: 'json' }).notNull(),
    fillMissingRows: text({ mode: 'json' }),
    periodComparisons: text({ mode: 'json' }).notNull(),
    preferences: text({ mode: 'json' }).notNull(),
  },
  (t) => [index('report_snapshots_version_idx').on(t.dashboardVersionId, t.id)],
);
