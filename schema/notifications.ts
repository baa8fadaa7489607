import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { CONTROL_OPERATORS } from '../src/semantic/query/control-operators';
import { accounts, users } from './accounts';
import { publishedDashboards } from './dashboards';
import { deployments } from './deployments';
import { embedUsers } from './embedding';

export const NOTIFICATION_FORMATS = ['png', 'pdf'] as const;
export type NotificationFormat = (typeof NOTIFICATION_FORMATS)[number];

/** Cube's DashboardFilterOperator. */
/** A notification filter's operators: a dashboard control's, plus Cube Cloud's `custom`. */
export const FILTER_OPERATORS = [...CONTROL_OPERATORS, 'custom'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** A filter value as Cube sends it: a scalar, or a list (`between` takes `[start, end]`). */
export type FilterValue = string | number | boolean | (string | number | boolean | null)[];

export interface NotificationFilter {
  member: string;
  operator?: FilterOperator | null;
  value?: FilterValue | null;
  caseSensitive?: boolean | null;
  startInclusive?: boolean | null;
  endInclusive?: boolean | null;
}

/** Cube's DashboardMemberSwitcher: which member a switcher shows. */
export interface MemberSwitcher {
  member: string;
  selected: string;
}

/** A user attribute of an embed recipient, as Cube's UserAttributeInput carries it. */
export type RecipientAttributeValue = string | number | boolean | string[] | number[] | null;

export interface TimeGrain {
  grain: string;
  member: string;
}

/**
 * A scheduled delivery of a published dashboard. `nextRunAt` is the next slot in UTC, null
 * while the schedule is off; the cron finds due work through its index alone.
 */
export const notifications = sqliteTable(
  'notifications',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    dashboardId: integer()
      .notNull()
      .references(() => publishedDashboards.id, { onDelete: 'cascade' }),
    scheduleType: text({ enum: ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM'] }).notNull(),
    minute: integer(),
    hour: integer(),
    dayOfWeek: integer(),
    dayOfMonth: integer(),
    customCron: text(),
    cronExpression: text().notNull(),
    timezone: text().notNull(),
    notificationFormat: text({ enum: NOTIFICATION_FORMATS }).notNull(),
    isEnabled: integer({ mode: 'boolean' }).notNull(),
    notificationEnabled: integer({ mode: 'boolean' }).notNull(),
    filters: text({ mode: 'json' }).$type<NotificationFilter[]>().notNull(),
    timeGrains: text({ mode: 'json' }).$type<TimeGrain[]>().notNull(),
    memberSwitchers: text({ mode: 'json' }).$type<MemberSwitcher[]>().notNull().default([]),
    /** Cube's flag, stored and answered: edgeboard has no AI summary, so it changes no delivery. */
    notificationAiSummary: integer({ mode: 'boolean' }).notNull().default(false),
    nextRunAt: text(),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    index('notifications_next_run_idx').on(t.nextRunAt, t.id),
    index('notifications_deployment_idx').on(t.deploymentId, t.id),
    index('notifications_dashboard_idx').on(t.deploymentId, t.dashboardId, t.id),
    // Foreign-key children: a cascading delete of an account, dashboard or user finds its rows here.
    index('notifications_account_idx').on(t.accountId, t.deploymentId, t.id),
    index('notifications_dashboard_fk_idx').on(t.dashboardId),
    index('notifications_created_by_idx').on(t.createdBy),
  ],
);

export const RECIPIENT_TYPES = ['USER', 'EMBED_USER', 'SLACK'] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];

/**
 * Who a notification goes to. `recipientKey` is the identity (`user:<id>`, `email:<address>`,
 * `embed:<embedUserId>`, `channel:<id>`), unique per notification, so adding a recipient
 * twice updates one row. Embed recipients carry their own rendering scope (groups,
 * attributes, security context).
 */
export const notificationRecipients = sqliteTable(
  'notification_recipients',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    notificationId: integer()
      .notNull()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    type: text({ enum: RECIPIENT_TYPES }).notNull(),
    recipientKey: text().notNull(),
    userId: integer().references(() => users.id, { onDelete: 'cascade' }),
    email: text(),
    embedUserId: integer().references(() => embedUsers.id, { onDelete: 'cascade' }),
    channelId: text(),
    channelName: text(),
    groups: text({ mode: 'json' }).$type<string[]>(),
    userAttributes: text({ mode: 'json' }).$type<{ name: string; value: RecipientAttributeValue }[]>(),
    /** JSON text as given, so an unchanged context compares equal without parsing. */
    securityContext: text(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('notification_recipients_key_uq').on(t.notificationId, t.recipientKey),
    index('notification_recipients_list_idx').on(t.notificationId, t.id),
    index('notification_recipients_user_idx').on(t.userId),
    index('notification_recipients_embed_user_idx').on(t.embedUserId),
  ],
);

export const RUN_STATUSES = [
  'queued',
  'running',
  'delivered',
  'partially_failed',
  'failed',
  'suppressed',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_TRIGGERS = ['scheduled', 'manual'] as const;

/**
 * One run of a notification. A scheduled run is unique per (notification, slot): claiming a
 * slot is `INSERT … ON CONFLICT DO NOTHING`, so a doubled cron tick claims nothing twice.
 */
export const notificationRuns = sqliteTable(
  'notification_runs',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    notificationId: integer()
      .notNull()
      .references(() => notifications.id, { onDelete: 'cascade' }),
    slot: text().notNull(),
    trigger: text({ enum: RUN_TRIGGERS }).notNull(),
    status: text({ enum: RUN_STATUSES }).notNull(),
    /** Why the run failed as a whole (dashboard gone, render failed, retries exhausted). */
    error: text(),
    enqueuedAt: text(),
    startedAt: text(),
    finishedAt: text(),
    createdAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('notification_runs_slot_uq').on(t.notificationId, t.slot).where(sql`"trigger" = 'scheduled'`),
    index('notification_runs_list_idx').on(t.notificationId, t.id),
    index('notification_runs_status_idx').on(t.status, t.enqueuedAt),
    // One manual run in flight per notification: a second insert conflicts (POST …/run is a 409).
    uniqueIndex('notification_runs_manual_inflight_uq')
      .on(t.notificationId)
      .where(sql`"trigger" = 'manual' AND "status" IN ('queued', 'running')`),
  ],
);

/**
 * `skipped`: not sent on purpose, with the reason in `lastError` (a recipient who is a deactivated
 * account user); neither a failure nor retried.
 */
export const DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One recipient of one run: the idempotency key of a delivery. A consumer leases a pending
 * row before sending (`leaseUntil`), so two deliveries of the same message never send twice.
 */
export const notificationDeliveries = sqliteTable(
  'notification_deliveries',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    runId: integer()
      .notNull()
      .references(() => notificationRuns.id, { onDelete: 'cascade' }),
    recipientId: integer()
      .notNull()
      .references(() => notificationRecipients.id, { onDelete: 'cascade' }),
    status: text({ enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer().notNull().default(0),
    lastError: text(),
    leaseUntil: text(),
    /** The delivery attempt holding the lease: a consumer reads back exactly the rows it leased. */
    leaseOwner: text(),
    sentAt: text(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('notification_deliveries_run_recipient_uq').on(t.runId, t.recipientId),
    // Removing a recipient cascades to its deliveries: found here, not by a scan of every run's.
    index('notification_deliveries_recipient_idx').on(t.recipientId),
  ],
);

/**
 * Never holds a row: a guard statement inserts its reason only when a write would break a
 * limit, the CHECK fails, and the whole batch (one transaction) rolls back; the constraint name
 * in the error says which limit.
 */
export const notificationWriteGuards = sqliteTable(
  'notification_write_guards',
  { reason: text().notNull() },
  (t) => [check('recipient_limit', sql`${t.reason} <> 'recipient_limit'`)],
);
