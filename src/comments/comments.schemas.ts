import * as v from 'valibot';
import { pageQueryEntries } from '../core/pagination';
import { idNumber, idString, integerString, obj } from '../core/validation';
import { publicIdParams, sessionQuery } from '../embedding/embed-sessions.schemas';

// ---- Limits ----

/** Cube's CreateEmbedDashboardCommentBody / UpdateEmbedDashboardCommentBody: `body` ≤ 10,000 characters. */
export const MAX_COMMENT_LENGTH = 10_000;
/** Distinct users one comment may mention. */
export const MAX_MENTIONS_PER_COMMENT = 20;
/** Replies one thread may hold (removed ones included), so a page of threads stays bounded. */
export const MAX_REPLIES_PER_THREAD = 100;
/** Comments one embed user may post on one dashboard in a minute (removed ones included). */
export const COMMENTS_PER_MINUTE = 10;
/** Threads per page: each carries its replies, so a page is bounded by this × (1 + MAX_REPLIES_PER_THREAD) comments. */
export const MAX_THREADS_PAGE = 25;
export const DEFAULT_THREADS_PAGE = 10;

/** The limits by name, for the Markdown documentation of the routes. */
export const COMMENT_LIMITS = {
  MAX_COMMENT_LENGTH,
  MAX_MENTIONS_PER_COMMENT,
  MAX_REPLIES_PER_THREAD,
  COMMENTS_PER_MINUTE,
  MAX_THREADS_PAGE,
  DEFAULT_THREADS_PAGE,
};

/**
 * A mention in a comment's text: `<@id>`, the id of an embed user as the mentionable-users list
 * answers it. The viewer shows it as `@` and the user's name, from the comment's `mentions`.
 */
export const MENTION = /<@([1-9]\d{0,14})>/g;

// ---- Inputs ----

const booleanString = v.pipe(
  v.picklist(['true', 'false']),
  v.transform((s) => s === 'true'),
);

/** Every comment route takes the session in `?session=` too (or in the Authorization header). */
export const writeQuery = obj({ ...sessionQuery.entries });

export const listThreadsQuery = obj({
  ...sessionQuery.entries,
  includeResolved: v.optional(booleanString),
  resolvedOnly: v.optional(booleanString),
  first: v.optional(integerString(1, MAX_THREADS_PAGE)),
  after: pageQueryEntries.after,
});

export const mentionableQuery = obj({
  ...sessionQuery.entries,
  ...pageQueryEntries,
  search: v.optional(v.pipe(v.string(), v.maxLength(255))),
});

export const dashboardParams = publicIdParams;
export const commentParams = v.object({ ...publicIdParams.entries, commentId: idString });

/** The text of a comment: Cube's 1–10,000 characters, trimmed; only blanks is a 400. */
const commentText = v.pipe(
  v.string(),
  v.maxLength(MAX_COMMENT_LENGTH),
  v.trim(),
  v.minLength(1, 'Must not be empty'),
);

export const createCommentBody = obj({
  body: commentText,
  parentId: v.optional(v.nullable(idNumber)),
});

export const updateCommentBody = obj({ body: commentText });

export const resolveBody = obj({ resolved: v.boolean() });

// ---- Answers ----

/** An embed user as a comment names them: `username` is the externalId, `firstName` the display name. */
export const commentUserSchema = v.object({
  id: v.number(),
  username: v.string(),
  firstName: v.nullable(v.string()),
});

/** Cube's EmbedDashboardCommentDto, plus `author` and `mentions` (the names the viewer shows). */
export const commentSchema = v.object({
  id: v.number(),
  /** The dashboard's publicId. */
  dashboardId: v.string(),
  /** Empty once removed. */
  body: v.string(),
  createdAt: v.string(),
  editedAt: v.nullable(v.string()),
  removedAt: v.nullable(v.string()),
  /** The author's embed user id; null once that user is deleted. */
  userId: v.nullable(v.number()),
  isOwn: v.boolean(),
  author: v.nullable(commentUserSchema),
  /** The users the body mentions (`<@id>`), by id; empty once removed. */
  mentions: v.array(commentUserSchema),
});
export type CommentView = v.InferOutput<typeof commentSchema>;

/** Cube's EmbedDashboardCommentThreadDto: the root, its replies oldest first, its resolved state. */
export const threadSchema = v.object({
  root: commentSchema,
  replies: v.array(commentSchema),
  resolvedAt: v.nullable(v.string()),
  resolvedBy: v.nullable(v.number()),
});
export type ThreadView = v.InferOutput<typeof threadSchema>;

/** Cube's EmbedMentionableUserDto. */
export const mentionableUserSchema = v.object({
  id: v.number(),
  username: v.string(),
  email: v.nullable(v.string()),
  firstName: v.nullable(v.string()),
});
