import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts, users } from './accounts';
import { publishedDashboards } from './dashboards';
import { deployments } from './deployments';
import type { NotificationFilter, TimeGrain } from './notifications';

export const EXPORT_FORMATS = ['png', 'pdf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * An export job's states: `queued` until a consumer claims it, `running` while one renders it
 * (a redelivery after a lost attempt claims it again), then `done` (its file is stored) or
 * `failed` (with `error`). Cube's wire names them pending, processing, completed and failed.
 */
export const EXPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/**
 * One asynchronous PNG/PDF export of a published dashboard. `jobId` is the id on the wire; only
 * the user who started the job sees it, in its deployment, until `expiresAt`, after which the
 * cron deletes the row and its file. The file itself lives in R2 under `fileKey`.
 */
export const dashboardExports = sqliteTable(
  'dashboard_exports',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    /** 128 random bits, base64url: unguessable, so an id seen in a log opens nothing by itself. */
    jobId: text().notNull(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    /** Null once the dashboard is deleted: the job then fails (or keeps its file until it expires). */
    dashboardId: integer().references(() => publishedDashboards.id, { onDelete: 'set null' }),
    /** Who started it: the token's user, or the admin an API key acts as. */
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /**
     * Cube's `renderAs` user, when the start named one: the account user (checked at the start)
     * whose attribute values the render's queries run with; null: the user who started it. No
     * foreign key: a user who no longer exists has no values, so the render fails closed.
     */
    renderUserId: integer(),
    format: text({ enum: EXPORT_FORMATS }).notNull(),
    /** Cube's DashboardFilterInput list, as a notification stores it. */
    filters: text({ mode: 'json' }).$type<NotificationFilter[]>().notNull(),
    timeGrains: text({ mode: 'json' }).$type<TimeGrain[]>().notNull(),
    status: text({ enum: EXPORT_STATUSES }).notNull(),
    /** Renders started (claims by a consumer); the queue redelivers, this bounds the work. */
    attempts: integer().notNull().default(0),
    error: text(),
    /** Where the file is in the exports bucket, once done. */
    fileKey: text(),
    contentType: text(),
    byteSize: integer(),
    createdAt: text().notNull(),
    startedAt: text(),
    finishedAt: text(),
    expiresAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('dashboard_exports_job_id_uq').on(t.jobId),
    // The bound on jobs in flight per account counts through this index alone.
    index('dashboard_exports_in_flight_idx').on(t.accountId, t.status, t.expiresAt),
    // The cron's sweep of expired jobs.
    index('dashboard_exports_expires_idx').on(t.expiresAt),
    // Foreign-key children: a cascading delete of a deployment, dashboard or user finds its rows here.
    index('dashboard_exports_deployment_idx').on(t.deploymentId),
    index('dashboard_exports_dashboard_idx').on(t.dashboardId),
    index('dashboard_exports_user_idx').on(t.userId),
  ],
);
