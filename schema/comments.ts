import { sql } from 'drizzle-orm';
import {
  type AnySQLiteColumn,
  check,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
} from 'drizzle-orm/sqlite-core';
import { publishedDashboards } from './dashboards';
import { embedTenants, embedUsers } from './embedding';

/**
 * Comments of embed users on a published dashboard. A conversation lives inside one embed
 * tenant: two tenants commenting on the same dashboard never see each other's threads. A thread
 * is a root (`parentId` null) and its replies, one level deep; only a root carries the resolved
 * state. Removal is soft: the text is erased and `removedAt` set, so a removed reply keeps its
 * place in its thread (removing a root removes its replies with it).
 *
 * The author and the resolver are embed users; deleting one keeps their comments with a null
 * author (Cube's nullable `userId`). Deleting the tenant or unpublishing the dashboard (deleting
 * its workbook) deletes the comments.
 */
export const dashboardComments = sqliteTable(
  'dashboard_comments',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    tenantId: integer()
      .notNull()
      .references(() => embedTenants.id, { onDelete: 'cascade' }),
    dashboardId: integer()
      .notNull()
      .references(() => publishedDashboards.id, { onDelete: 'cascade' }),
    parentId: integer().references((): AnySQLiteColumn => dashboardComments.id, { onDelete: 'cascade' }),
    authorId: integer().references(() => embedUsers.id, { onDelete: 'set null' }),
    /** Empty once removed. */
    body: text().notNull(),
    createdAt: text().notNull(),
    editedAt: text(),
    removedAt: text(),
    /** Roots only. */
    resolvedAt: text(),
    resolvedBy: integer().references(() => embedUsers.id, { onDelete: 'set null' }),
  },
  (t) => [
    // Every foreign key has an index led by it, so a cascade from its parent reads only its rows.
    index('dashboard_comments_dashboard_idx').on(t.dashboardId, t.tenantId, t.id),
    index('dashboard_comments_tenant_idx').on(t.tenantId),
    index('dashboard_comments_parent_idx').on(t.parentId, t.id),
    // Also the per-author rate window on a dashboard.
    index('dashboard_comments_author_idx').on(t.authorId, t.dashboardId, t.createdAt),
    index('dashboard_comments_resolver_idx').on(t.resolvedBy),
    // The thread lists: a tenant's live roots on a dashboard, newest first; open ones on their own.
    index('dashboard_comments_threads_idx')
      .on(t.dashboardId, t.tenantId, t.id)
      .where(sql`parent_id IS NULL AND removed_at IS NULL`),
    index('dashboard_comments_open_threads_idx')
      .on(t.dashboardId, t.tenantId, t.id)
      .where(sql`parent_id IS NULL AND removed_at IS NULL AND resolved_at IS NULL`),
  ],
);

/** The embed users a comment mentions (`<@id>` in its body), each once. */
export const dashboardCommentMentions = sqliteTable(
  'dashboard_comment_mentions',
  {
    commentId: integer()
      .notNull()
      .references(() => dashboardComments.id, { onDelete: 'cascade' }),
    userId: integer()
      .notNull()
      .references(() => embedUsers.id, { onDelete: 'cascade' }),
  },
  (t) => [
    primaryKey({ columns: [t.commentId, t.userId] }),
    index('dashboard_comment_mentions_user_idx').on(t.userId),
  ],
);

/**
 * The guards a comment write batch can trip, each a CHECK of dashboard_comment_guards named
 * after itself; the repository reads the name back from D1's error as a typed reason.
 * - `dashboard_missing`: the dashboard was unpublished since the request's access check;
 * - `parent_missing`: the reply's parent is not a live comment of this dashboard and tenant;
 * - `parent_is_reply`: the reply's parent is itself a reply (threads are one level deep);
 * - `thread_full`: the thread already holds the most replies a thread may hold;
 * - `comment_rate`: the author already posted the most comments a minute allows on this dashboard;
 * - `comment_missing`: the comment is not a live comment of this dashboard and tenant;
 * - `not_author`: the caller did not write the comment (or start the thread);
 * - `not_a_thread`: the comment is a reply, which has no resolved state.
 */
export const COMMENT_GUARDS = [
  'dashboard_missing',
  'parent_missing',
  'parent_is_reply',
  'thread_full',
  'comment_rate',
  'comment_missing',
  'not_author',
  'not_a_thread',
] as const;
export type CommentGuard = (typeof COMMENT_GUARDS)[number];

/**
 * Never holds a row: a comment write batch aborts itself by inserting a row these checks refuse
 * (`INSERT … SELECT 'thread_full' WHERE <full>`), so nothing of the batch lands.
 */
export const dashboardCommentGuards = sqliteTable(
  'dashboard_comment_guards',
  { reason: text().notNull() },
  (t) => COMMENT_GUARDS.map((guard) => check(guard, sql`${t.reason} <> ${sql.raw(`'${guard}'`)}`)),
);
