import type { CommentGuard } from '../../schema/comments';
import { dashboardCommentsOffered } from '../accounts/app-config.policy';
import { refuseWriteWhileMoving } from '../core/account-moving';
import { ApiError, badRequest, notFound, tooManyRequests } from '../core/errors';
import { type CursorValue, invalidCursor, type Page, type PageRequest, toPage } from '../core/pagination';
import type { RequestScope } from '../core/scope';
import { openEmbedDashboard } from '../embedding/embed-dashboards.service';
import { withSession } from '../embedding/embed-sessions.service';
import {
  isStoredEmbedUser,
  type SessionClaims,
  type TokenUse,
  verifySession,
} from '../embedding/session-token';
import type { CommentRow, CommentScope, ThreadFilter } from './comments.repository';
import * as repo from './comments.repository';
import {
  COMMENTS_PER_MINUTE,
  type CommentView,
  MAX_MENTIONS_PER_COMMENT,
  MAX_REPLIES_PER_THREAD,
  MENTION,
  type ThreadView,
} from './comments.schemas';

/** An embed credential as the embed load reads it: a session id, or an exchanged embed token. */
export interface EmbedCredential {
  id: string;
  use: TokenUse;
}

/**
 * The session behind a comment request, verified without storage (signature, expiry), as the
 * scope its reads and writes run in. Comments are written by the stored embed user the session
 * names; an ephemeral user (not stored) and an internal user (a console user, not an embed user
 * of the tenant) may read the tenant's conversation but not write in it.
 */
async function sessionScope(
  scope: RequestScope,
  credential: EmbedCredential,
  publicId: string,
): Promise<{ claims: SessionClaims; comments: CommentScope }> {
  const claims = await verifySession(scope.env, credential.id, scope.now, credential.use);
  return {
    claims,
    comments: {
      ...scope,
      tenantId: claims.tenant.id,
      deploymentId: claims.deploymentId,
      publicId,
      embedUserId: isStoredEmbedUser(claims) ? claims.user.id : null,
    },
  };
}

/**
 * Every check of an embed load, the embedding domain's own: revocation, the session's
 * dashboard (publicDashboardId) and deployment, `allowEmbed`. A session that may not load the
 * dashboard may not read or write its comments either; nor may any session of an account whose
 * app config turns comments off (read in the load's own statement, so it costs no round trip).
 */
async function checkAccess(scope: RequestScope, claims: SessionClaims, publicId: string) {
  const access = await openEmbedDashboard(withSession(scope, claims), publicId);
  if (!dashboardCommentsOffered(access.row.appConfig)) {
    throw new ApiError(
      'FORBIDDEN',
      "Dashboard comments are turned off in the account's app config (embedding.enableDashboardComments)",
    );
  }
  return access;
}

/** `checkAccess` for a write: also refused while the operator moves the account (read in the same statement). */
async function checkWriteAccess(scope: RequestScope, claims: SessionClaims, publicId: string): Promise<void> {
  const access = await checkAccess(scope, claims, publicId);
  refuseWriteWhileMoving(access.row);
}

function requireAuthor(scope: CommentScope): number {
  if (scope.embedUserId === null) {
    throw new ApiError(
      'FORBIDDEN',
      "Comments are written by the embed user a session names; this session's user (ephemeral or internal) may only read them",
    );
  }
  return scope.embedUserId;
}

// ---- Presenting ----

function present(scope: CommentScope, row: CommentRow): CommentView {
  const removed = row.removedAt !== null;
  return {
    id: row.id,
    dashboardId: scope.publicId,
    body: removed ? '' : row.body,
    createdAt: row.createdAt,
    editedAt: row.editedAt,
    removedAt: row.removedAt,
    userId: row.authorId,
    isOwn: row.authorId !== null && row.authorId === scope.embedUserId,
    author: row.author,
    mentions: removed ? [] : row.mentions,
  };
}

function presentThread(scope: CommentScope, root: CommentRow, replies: CommentRow[]): ThreadView {
  return {
    root: present(scope, root),
    replies: replies.map((reply) => present(scope, reply)),
    resolvedAt: root.resolvedAt,
    resolvedBy: root.resolvedBy,
  };
}

// ---- Mentions ----

/** The distinct users a text mentions (`<@id>`), in order of first mention; more than the cap is a 400. */
function mentionsOf(body: string): number[] {
  const ids = [...new Set([...body.matchAll(MENTION)].map((m) => Number(m[1])))];
  if (ids.length > MAX_MENTIONS_PER_COMMENT) {
    throw new ApiError('VALIDATION_FAILED', `A comment mentions at most ${MAX_MENTIONS_PER_COMMENT} users`, [
      { path: 'body', message: `Mentions ${ids.length} users (at most ${MAX_MENTIONS_PER_COMMENT})` },
    ]);
  }
  return ids;
}

/**
 * The users of `ids` the author may not mention: anyone but the embed users of the session's
 * tenant, and the author themself. Read while the access check runs; the write inserts only
 * users that still qualify.
 */
async function unmentionable(scope: CommentScope, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const allowed = await repo.mentionableAmong(scope, ids);
  return ids.filter((id) => !allowed.has(id));
}

function mentionRefused(ids: number[]): ApiError {
  return new ApiError(
    'VALIDATION_FAILED',
    'A comment may mention only other embed users of the same tenant',
    ids.map((id) => ({
      path: 'body',
      message: `<@${id}> is not an embed user this author may mention`,
    })),
  );
}

// ---- Refusals of a write batch ----

const REFUSALS: Record<CommentGuard, () => ApiError> = {
  dashboard_missing: () => notFound('Dashboard'),
  parent_missing: () =>
    new ApiError('NOT_FOUND', 'Parent comment not found', [
      { path: 'parentId', message: 'Not a live comment of this dashboard' },
    ]),
  parent_is_reply: () =>
    badRequest("Replies are one level deep: reply to the thread's root comment", [
      { path: 'parentId', message: 'Names a reply, not a thread' },
    ]),
  thread_full: () => new ApiError('CONFLICT', `A thread holds at most ${MAX_REPLIES_PER_THREAD} replies`),
  comment_rate: () =>
    tooManyRequests('RATE_LIMITED', `At most ${COMMENTS_PER_MINUTE} comments a minute on a dashboard`),
  comment_missing: () => notFound('Comment'),
  not_author: () => new ApiError('FORBIDDEN', "Only the comment's author may change it"),
  not_a_thread: () =>
    badRequest("A reply has no resolved state: resolve its thread's root comment", [
      { path: 'commentId', message: 'Names a reply, not a thread' },
    ]),
};

function writtenOrThrow<T>(result: repo.WriteResult<T>): T {
  if (!result.ok) throw REFUSALS[result.refused]();
  return result.value;
}

// ---- Operations ----

/** The sort key a page starts after (null: the first page); a cursor whose key has another type is a 400. */
function cursorKey(request: PageRequest, type: 'number'): number | null;
function cursorKey(request: PageRequest, type: 'string'): string | null;
function cursorKey(request: PageRequest, type: 'number' | 'string'): number | string | null {
  if (request.after === null) return null;
  const key = request.after[0];
  if (typeof key !== type) throw invalidCursor();
  return key as number | string;
}

/** The cursor tag of the mentionable users (keyset on the username). */
export const MENTIONABLE_TAG = 'mentionable-users';

/** The cursor tag of a thread list: a cursor of one filter is refused by another. */
export const threadsTag = (filter: ThreadFilter) => `comment-threads:${filter}`;

/** listDashboardComments: a page of the tenant's threads on the dashboard, newest first. */
export async function listThreads(
  scope: RequestScope,
  credential: EmbedCredential,
  publicId: string,
  filter: ThreadFilter,
  request: PageRequest,
): Promise<Page<ThreadView>> {
  const { claims, comments } = await sessionScope(scope, credential, publicId);
  // The comments are read while the access check runs; they are answered only once it passed.
  const [, { roots, replies }] = await Promise.all([
    checkAccess(scope, claims, publicId),
    repo.listThreads(comments, filter, request.limit, cursorKey(request, 'number')),
  ]);
  const byRoot = new Map<number, CommentRow[]>();
  for (const reply of replies) {
    const thread = byRoot.get(reply.parentId as number);
    if (thread) thread.push(reply);
    else byRoot.set(reply.parentId as number, [reply]);
  }
  return toPage(
    roots,
    request,
    threadsTag(filter),
    (root): CursorValue[] => [root.id],
    (root) => presentThread(comments, root, byRoot.get(root.id) ?? []),
  );
}

/** createDashboardComment: a thread, or a reply when `parentId` names a thread's root. */
export async function createComment(
  scope: RequestScope,
  credential: EmbedCredential,
  publicId: string,
  input: { body: string; parentId?: number | null },
): Promise<CommentView> {
  const { claims, comments } = await sessionScope(scope, credential, publicId);
  const mentions = mentionsOf(input.body);
  const [, refused] = await Promise.all([
    checkWriteAccess(scope, claims, publicId),
    unmentionable(comments, mentions),
  ]);
  const authorId = requireAuthor(comments);
  if (refused.length > 0) throw mentionRefused(refused);
  const row = writtenOrThrow(
    await repo.createComment(comments, {
      authorId,
      body: input.body,
      parentId: input.parentId ?? null,
      mentions,
    }),
  );
  return present(comments, row);
}

/** updateDashboardComment: a new text for the author's own comment; `editedAt` is set. */
export async function updateComment(
  scope: RequestScope,
  credential: EmbedCredential,
  publicId: string,
  commentId: number,
  body: string,
): Promise<CommentView> {
  const { claims, comments } = await sessionScope(scope, credential, publicId);
  const mentions = mentionsOf(body);
  const [, refused] = await Promise.all([
    checkWriteAccess(scope, claims, publicId),
    unmentionable(comments, mentions),
  ]);
  const authorId = requireAuthor(comments);
  if (refused.length > 0) throw mentionRefused(refused);
  return present(
    comments,
    writtenOrThrow(await repo.updateComment(comments, commentId, { authorId, body, mentions })),
  );
}

/** removeDashboardComment: the author's own comment (a root with its whole thread). */
export async function removeComment(
  scope: RequestScope,
  credential: EmbedCredential,
  publicId: string,
  commentId: number,
): Promise<{ id: number; deleted: true }> {
  const { claims, comments } = await sessionScope(scope, credential, publicId);
  await checkWriteAccess(scope, claims, publicId);
  const authorId = requireAuthor(comments);
  writtenOrThrow(await repo.removeComment(comments, commentId, authorId));
  return { id: commentId, deleted: true };
}

/** setDashboardCommentResolved: resolves or re-opens the thread the caller started. */
export async function setResolved(
  scope: RequestScope,
  credential: EmbedCredential,
  publicId: string,
  commentId: number,
  resolved: boolean,
): Promise<ThreadView> {
  const { claims, comments } = await sessionScope(scope, credential, publicId);
  await checkWriteAccess(scope, claims, publicId);
  const authorId = requireAuthor(comments);
  const thread = writtenOrThrow(await repo.setResolved(comments, commentId, { authorId, resolved }));
  return presentThread(comments, thread.root, thread.replies);
}

/** listMentionableEmbedUsers: the caller's fellow embed users of the tenant, by username. */
export async function listMentionable(
  scope: RequestScope,
  credential: EmbedCredential,
  publicId: string,
  search: string | undefined,
  request: PageRequest,
) {
  const { claims, comments } = await sessionScope(scope, credential, publicId);
  const [, rows] = await Promise.all([
    checkAccess(scope, claims, publicId),
    repo.listMentionable(comments, search, cursorKey(request, 'string'), request.limit),
  ]);
  return toPage(
    rows,
    request,
    MENTIONABLE_TAG,
    (row): CursorValue[] => [row.username],
    (row) => row,
  );
}
