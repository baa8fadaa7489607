import type { Context } from 'hono';
import { authenticate } from '../auth/auth.middleware';
import type { AppEnv } from '../core/env';
import { ApiError } from '../core/errors';
import { pageRequest, pageSchema } from '../core/pagination';
import { deletedSchema } from '../core/validation';
import { credentialOf } from '../embedding/embed-sessions.routes';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './comments.routes.md';
import {
  COMMENT_LIMITS,
  commentParams,
  commentSchema,
  createCommentBody,
  DEFAULT_THREADS_PAGE,
  dashboardParams,
  listThreadsQuery,
  mentionableQuery,
  mentionableUserSchema,
  resolveBody,
  threadSchema,
  updateCommentBody,
  writeQuery,
} from './comments.schemas';
import * as service from './comments.service';

/**
 * The embed credential of a comment request, read as the embed load reads it. A valid access
 * token or API key is Cube's 403: it names no embed tenant, so it has no conversation to be
 * served (an unknown one stays a 401).
 */
async function embedCredential(c: Context<AppEnv>, query: { session?: string }) {
  try {
    return credentialOf(c, query);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'UNAUTHORIZED' || !c.req.header('authorization')) {
      throw error;
    }
    await authenticate(['Bearer', 'Api-Key'])(c, async () => {});
    throw new ApiError(
      'FORBIDDEN',
      "Dashboard comments need an embed session: an account's token or API key names no embed tenant",
    );
  }
}

const route = routeGroup({
  auth: 'session',
  tags: ['Dashboard comments'],
  errors: [403, 404],
  docs: apiDocs(markdown, COMMENT_LIMITS),
});

/**
 * Embed users' comments on a published dashboard; mounted at /api/v1/embed beside the embed
 * load. Every route takes the embed session as the load does and answers only what that
 * session's load would show (its tenant's conversation on a dashboard it may load).
 */
export const commentsRoutes = routes(
  route.get('/dashboard/:publicId/comments', 'listDashboardComments', pageSchema(threadSchema), {
    input: { params: dashboardParams, query: listThreadsQuery },
    handler: async (c, { params, query }, scope) => {
      // Cube: `resolvedOnly` replaces the open threads with the resolved ones, `includeResolved` adds them.
      const filter = query.resolvedOnly ? 'resolved' : query.includeResolved ? 'all' : 'open';
      const page = pageRequest(
        { first: query.first ?? DEFAULT_THREADS_PAGE, after: query.after },
        service.threadsTag(filter),
        1,
      );
      return service.listThreads(scope, await embedCredential(c, query), params.publicId, filter, page);
    },
  }),
  route.post('/dashboard/:publicId/comments', 'createDashboardComment', commentSchema, {
    input: { params: dashboardParams, query: writeQuery, body: createCommentBody },
    errors: [409, 429],
    handler: async (c, { params, query, body }, scope) =>
      service.createComment(scope, await embedCredential(c, query), params.publicId, body),
  }),
  route.get(
    '/dashboard/:publicId/comments/mentionable-users',
    'listMentionableEmbedUsers',
    pageSchema(mentionableUserSchema),
    {
      input: { params: dashboardParams, query: mentionableQuery },
      handler: async (c, { params, query }, scope) =>
        service.listMentionable(
          scope,
          await embedCredential(c, query),
          params.publicId,
          query.search,
          pageRequest(query, service.MENTIONABLE_TAG, 1),
        ),
    },
  ),
  route.patch('/dashboard/:publicId/comments/:commentId', 'updateDashboardComment', commentSchema, {
    input: { params: commentParams, query: writeQuery, body: updateCommentBody },
    handler: async (c, { params, query, body }, scope) =>
      service.updateComment(
        scope,
        await embedCredential(c, query),
        params.publicId,
        params.commentId,
        body.body,
      ),
  }),
  route.delete('/dashboard/:publicId/comments/:commentId', 'removeDashboardComment', deletedSchema, {
    input: { params: commentParams, query: writeQuery },
    handler: async (c, { params, query }, scope) =>
      service.removeComment(scope, await embedCredential(c, query), params.publicId, params.commentId),
  }),
  route.post(
    '/dashboard/:publicId/comments/:commentId/resolve',
    'setDashboardCommentResolved',
    threadSchema,
    {
      input: { params: commentParams, query: writeQuery, body: resolveBody },
      handler: async (c, { params, query, body }, scope) =>
        service.setResolved(
          scope,
          await embedCredential(c, query),
          params.publicId,
          params.commentId,
          body.resolved,
        ),
    },
  ),
);
