import { and, asc, eq, gt, inArray, isNull, ne, or, type SQL, sql } from 'drizzle-orm';
import {
  COMMENT_GUARDS,
  type CommentGuard,
  dashboardCommentMentions,
  dashboardComments,
} from '../../schema/comments';
import { embedUsers } from '../../schema/embedding';
import { failedCheck, mapRow, runBatch, type Statement } from '../core/db';
import type { RequestScope } from '../core/scope';
import { COMMENTS_PER_MINUTE, MAX_REPLIES_PER_THREAD } from './comments.schemas';

/**
 * The scope of a comment request, read from its embed session: the conversation is the one of
 * the session's tenant on the dashboard `publicId` of the session's deployment.
 */
export interface CommentScope extends RequestScope {
  tenantId: number;
  deploymentId: number;
  publicId: string;
  /** The embed user acting; null for a session whose user may only read (ephemeral or internal). */
  embedUserId: number | null;
}

/** An embed user as a comment names them. */
export interface CommentUser {
  id: number;
  username: string;
  firstName: string | null;
}

export type CommentRow = typeof dashboardComments.$inferSelect & {
  author: CommentUser | null;
  mentions: CommentUser[];
};

type Raw = Record<string, unknown>;

/**
 * The dashboard's id, found by its publicId within the session's deployment; null when the
 * deployment has no such published dashboard (the access check answers that case first).
 */
const dashboardOf = (scope: CommentScope): SQL =>
  sql`(SELECT id FROM published_dashboards WHERE public_id = ${scope.publicId} AND deployment_id = ${scope.deploymentId})`;

/**
 * Comments with their author's and mentioned users' names; the caller adds WHERE and ORDER.
 * Hand-written: the mentions are a JSON array built in SQL.
 */
const selectComments = sql`SELECT c.*, a.external_id AS author_username, a.display_name AS author_first_name,
    (SELECT json_group_array(json_object('id', u.id, 'username', u.external_id, 'firstName', u.display_name))
      FROM dashboard_comment_mentions m JOIN embed_users u ON u.id = m.user_id
      WHERE m.comment_id = c.id) AS mentions
  FROM dashboard_comments c LEFT JOIN embed_users a ON a.id = c.author_id`;

/** The one mapper of a comment row: the table's columns as drizzle maps them, plus the names. */
function toCommentRow(raw: Raw): CommentRow {
  const row = mapRow(dashboardComments, raw);
  const mentions = typeof raw.mentions === 'string' ? (JSON.parse(raw.mentions) as CommentUser[]) : [];
  return {
    ...row,
    author:
      row.authorId === null
        ? null
        : {
            id: row.authorId,
            username: String(raw.author_username),
            firstName: typeof raw.author_first_name === 'string' ? raw.author_first_name : null,
          },
    mentions: mentions.sort((x, y) => x.id - y.id),
  };
}

const rowsOf = (result: D1Result<Raw> | undefined): CommentRow[] => (result?.results ?? []).map(toCommentRow);

// ---- Threads ----

/** Which threads a list shows: open ones (the default), every one, or resolved ones only. */
export type ThreadFilter = 'open' | 'all' | 'resolved';

const RESOLVED: Record<ThreadFilter, SQL> = {
  open: sql`AND c.resolved_at IS NULL`,
  all: sql``,
  resolved: sql`AND c.resolved_at IS NOT NULL`,
};

/**
 * One page of the tenant's threads on the dashboard, newest root first (keyset on the root's
 * id), and the replies of the page's roots oldest first: one round trip. The `limit + 1`-th root
 * only says whether another page follows; its replies are not read. Replies per thread are
 * capped (MAX_REPLIES_PER_THREAD), so the page is bounded.
 */
export async function listThreads(
  scope: CommentScope,
  filter: ThreadFilter,
  limit: number,
  beforeId: number | null,
): Promise<{ roots: CommentRow[]; replies: CommentRow[] }> {
  // The terms the partial thread indexes are defined with, so the plan uses them.
  const roots = sql`c.dashboard_id = ${dashboardOf(scope)} AND c.tenant_id = ${scope.tenantId}
    AND c.parent_id IS NULL AND c.removed_at IS NULL ${RESOLVED[filter]}
    ${beforeId === null ? sql`` : sql`AND c.id < ${beforeId}`}`;
  const [rootRows, replyRows] = await runBatch<Raw>(scope.db, [
    sql`${selectComments} WHERE ${roots} ORDER BY c.id DESC LIMIT ${limit + 1}`,
    sql`${selectComments} WHERE c.parent_id IN (
        SELECT c.id FROM dashboard_comments c WHERE ${roots} ORDER BY c.id DESC LIMIT ${limit})
      ORDER BY c.parent_id, c.id`,
  ]);
  return { roots: rowsOf(rootRows), replies: rowsOf(replyRows) };
}

// ---- Mentionable users ----

/**
 * A page of the embed users of the session's tenant other than the caller, by username (the
 * externalId, unique in a tenant: the keyset), optionally those whose username or email contains
 * `search` (case-insensitive). Served by the tenant's (tenant, externalId) index.
 */
export function listMentionable(
  scope: CommentScope,
  search: string | undefined,
  afterUsername: string | null,
  limit: number,
) {
  return scope.db
    .select({
      id: embedUsers.id,
      username: embedUsers.externalId,
      email: embedUsers.email,
      firstName: embedUsers.displayName,
    })
    .from(embedUsers)
    .where(
      and(
        eq(embedUsers.tenantId, scope.tenantId),
        scope.embedUserId === null ? undefined : ne(embedUsers.id, scope.embedUserId),
        search
          ? or(
              sql`instr(lower(${embedUsers.externalId}), lower(${search})) > 0`,
              sql`instr(lower(coalesce(${embedUsers.email}, '')), lower(${search})) > 0`,
            )
          : undefined,
        afterUsername === null ? undefined : gt(embedUsers.externalId, afterUsername),
      ),
    )
    .orderBy(asc(embedUsers.externalId))
    .limit(limit + 1);
}

/** Which of `ids` the caller may mention: embed users of the session's tenant, the caller excepted. */
export async function mentionableAmong(scope: CommentScope, ids: number[]): Promise<Set<number>> {
  const rows = await scope.db
    .select({ id: embedUsers.id })
    .from(embedUsers)
    .where(
      and(
        eq(embedUsers.tenantId, scope.tenantId),
        inArray(embedUsers.id, ids),
        scope.embedUserId === null ? undefined : ne(embedUsers.id, scope.embedUserId),
      ),
    );
  return new Set(rows.map((r) => r.id));
}

// ---- Guarded writes ----

/** A statement that aborts its batch (guard `name`) when `condition` holds. Hand-written: an INSERT … SELECT. */
const guard = (name: CommentGuard, condition: SQL): SQL =>
  sql`INSERT INTO dashboard_comment_guards (reason) SELECT ${name} WHERE ${condition}`;

/** A write batch's outcome: its read-back rows, or the guard that rolled it back. */
export type WriteResult<T> = { ok: true; value: T } | { ok: false; refused: CommentGuard };

async function guardedBatch<T>(
  scope: CommentScope,
  statements: Statement[],
  read: (results: D1Result<Raw>[]) => T,
): Promise<WriteResult<T>> {
  try {
    return { ok: true, value: read(await runBatch<Raw>(scope.db, statements)) };
  } catch (error) {
    const refused = failedCheck(error, COMMENT_GUARDS);
    if (refused) return { ok: false, refused };
    throw error;
  }
}

/** The dashboard was unpublished (its workbook deleted) since the access check. */
const dashboardGuard = (scope: CommentScope): SQL =>
  guard('dashboard_missing', sql`${dashboardOf(scope)} IS NULL`);

/** `id` is no live comment of this dashboard and tenant: another dashboard's, another tenant's, removed, or none. */
const liveGuard = (scope: CommentScope, name: 'parent_missing' | 'comment_missing', id: number): SQL =>
  guard(
    name,
    sql`NOT EXISTS (SELECT 1 FROM dashboard_comments c WHERE c.id = ${id}
      AND c.dashboard_id = ${dashboardOf(scope)} AND c.tenant_id = ${scope.tenantId} AND c.removed_at IS NULL)`,
  );

const authorGuard = (id: number, authorId: number): SQL =>
  guard(
    'not_author',
    sql`NOT EXISTS (SELECT 1 FROM dashboard_comments c WHERE c.id = ${id} AND c.author_id = ${authorId})`,
  );

const replyGuard = (name: 'parent_is_reply' | 'not_a_thread', id: number): SQL =>
  guard(
    name,
    sql`EXISTS (SELECT 1 FROM dashboard_comments c WHERE c.id = ${id} AND c.parent_id IS NOT NULL)`,
  );

/**
 * The mentions of comment `commentId` (an id or a subquery), limited to embed users of the
 * tenant other than the author: a user deleted or moved since the service checked is left out.
 * Hand-written: an INSERT … SELECT over a JSON list.
 */
const insertMentions = (scope: CommentScope, commentId: SQL | number, authorId: number, ids: number[]): SQL =>
  sql`INSERT INTO dashboard_comment_mentions (comment_id, user_id)
    SELECT ${commentId}, u.id FROM json_each(${JSON.stringify(ids)}) j
      CROSS JOIN embed_users u ON u.id = j.value
    WHERE u.tenant_id = ${scope.tenantId} AND u.id <> ${authorId}
    ON CONFLICT DO NOTHING`;

export interface NewComment {
  authorId: number;
  body: string;
  parentId: number | null;
  mentions: number[];
}

/**
 * A comment or a reply as ONE batch: the guards (dashboard still published; for a reply, a live
 * root of this dashboard and tenant with room for one more reply; the author's rate on this
 * dashboard), the insert, its mentions, and the row read back. Counted inside the transaction,
 * so concurrent posts cannot pass a limit together.
 */
export function createComment(scope: CommentScope, comment: NewComment): Promise<WriteResult<CommentRow>> {
  const now = scope.now.toISOString();
  const windowStart = new Date(scope.now.getTime() - 60_000).toISOString();
  const dashboard = dashboardOf(scope);
  const statements: Statement[] = [dashboardGuard(scope)];
  if (comment.parentId !== null) {
    statements.push(
      liveGuard(scope, 'parent_missing', comment.parentId),
      replyGuard('parent_is_reply', comment.parentId),
      guard(
        'thread_full',
        sql`(SELECT count(*) FROM dashboard_comments c WHERE c.parent_id = ${comment.parentId}) >= ${MAX_REPLIES_PER_THREAD}`,
      ),
    );
  }
  statements.push(
    guard(
      'comment_rate',
      sql`(SELECT count(*) FROM dashboard_comments c WHERE c.author_id = ${comment.authorId}
        AND c.dashboard_id = ${dashboard} AND c.created_at > ${windowStart}) >= ${COMMENTS_PER_MINUTE}`,
    ),
    scope.db.insert(dashboardComments).values({
      tenantId: scope.tenantId,
      dashboardId: dashboard,
      parentId: comment.parentId,
      authorId: comment.authorId,
      body: comment.body,
      createdAt: now,
    }),
  );
  // The batch is one transaction: the newest comment of this dashboard and tenant is the one above.
  const created = sql`(SELECT max(id) FROM dashboard_comments WHERE dashboard_id = ${dashboard} AND tenant_id = ${scope.tenantId})`;
  if (comment.mentions.length > 0)
    statements.push(insertMentions(scope, created, comment.authorId, comment.mentions));
  statements.push(sql`${selectComments} WHERE c.id = ${created}`);
  return guardedBatch(scope, statements, (results) => rowsOf(results.at(-1))[0] as CommentRow);
}

/** An edit by its author: the text and `editedAt`, the mentions replaced, the row read back. */
export function updateComment(
  scope: CommentScope,
  id: number,
  edit: { authorId: number; body: string; mentions: number[] },
): Promise<WriteResult<CommentRow>> {
  const statements: Statement[] = [
    liveGuard(scope, 'comment_missing', id),
    authorGuard(id, edit.authorId),
    scope.db
      .update(dashboardComments)
      .set({ body: edit.body, editedAt: scope.now.toISOString() })
      .where(eq(dashboardComments.id, id)),
    scope.db.delete(dashboardCommentMentions).where(eq(dashboardCommentMentions.commentId, id)),
  ];
  if (edit.mentions.length > 0) statements.push(insertMentions(scope, id, edit.authorId, edit.mentions));
  statements.push(sql`${selectComments} WHERE c.id = ${id}`);
  return guardedBatch(scope, statements, (results) => rowsOf(results.at(-1))[0] as CommentRow);
}

/**
 * A removal by its author: the text erased and `removedAt` set, on the comment and, for a root,
 * on every reply of its thread; their mentions go with the text.
 */
export function removeComment(scope: CommentScope, id: number, authorId: number): Promise<WriteResult<null>> {
  const now = scope.now.toISOString();
  const thread = or(eq(dashboardComments.id, id), eq(dashboardComments.parentId, id));
  return guardedBatch(
    scope,
    [
      liveGuard(scope, 'comment_missing', id),
      authorGuard(id, authorId),
      scope.db
        .delete(dashboardCommentMentions)
        .where(
          inArray(
            dashboardCommentMentions.commentId,
            scope.db.select({ id: dashboardComments.id }).from(dashboardComments).where(thread),
          ),
        ),
      scope.db
        .update(dashboardComments)
        .set({ body: '', removedAt: now })
        .where(and(thread, isNull(dashboardComments.removedAt))),
    ],
    () => null,
  );
}

/**
 * Resolves or re-opens a thread as its author: resolving keeps the first resolution (resolving
 * twice changes nothing), re-opening clears it. Answers the thread: root and replies.
 */
export function setResolved(
  scope: CommentScope,
  id: number,
  change: { authorId: number; resolved: boolean },
): Promise<WriteResult<{ root: CommentRow; replies: CommentRow[] }>> {
  const update = change.resolved
    ? scope.db
        .update(dashboardComments)
        .set({ resolvedAt: scope.now.toISOString(), resolvedBy: change.authorId })
        .where(and(eq(dashboardComments.id, id), isNull(dashboardComments.resolvedAt)))
    : scope.db
        .update(dashboardComments)
        .set({ resolvedAt: null, resolvedBy: null })
        .where(eq(dashboardComments.id, id));
  return guardedBatch(
    scope,
    [
      liveGuard(scope, 'comment_missing', id),
      replyGuard('not_a_thread', id),
      authorGuard(id, change.authorId),
      update,
      sql`${selectComments} WHERE c.id = ${id}`,
      sql`${selectComments} WHERE c.parent_id = ${id} ORDER BY c.id`,
    ],
    (results) => ({ root: rowsOf(results.at(-2))[0] as CommentRow, replies: rowsOf(results.at(-1)) }),
  );
}
