// The dashboard comments API as the viewer page's comments panel calls it (see comments-panel.ts).
// Every call carries the session the page currently shows, as its other calls do: in the
// Authorization header only, never cached, without cookies. The shapes are those of the comments
// API's answers (docs/embedding.md, "Comments"), restated here because the page's script is
// bundled on its own.

/** An embed user as a comment names them: `username` is the externalId, `firstName` the display name. */
export interface CommentUser {
  id: number;
  username: string;
  firstName: string | null;
}

export interface DashboardComment {
  id: number;
  /** Empty once removed. */
  body: string;
  createdAt: string;
  editedAt: string | null;
  removedAt: string | null;
  isOwn: boolean;
  /** null once the author was deleted. */
  author: CommentUser | null;
  /** The users `<@id>` in the body names. */
  mentions: CommentUser[];
}

/** A root comment, its replies (oldest first) and its resolved state. */
export interface CommentThread {
  root: DashboardComment;
  replies: DashboardComment[];
  resolvedAt: string | null;
  resolvedBy: number | null;
}

export interface MentionableUser {
  id: number;
  username: string;
  email: string | null;
  firstName: string | null;
}

interface Page<T> {
  items: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** A refusal of the comments API (its error envelope), or no answer at all (status 0). */
export class CommentsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds the API asks to wait (a 429's Retry-After). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** The API's message, with the fields it names (a refused mention names each id). */
function messageOf(body: { error?: unknown; details?: unknown }): string {
  const main = typeof body.error === 'string' ? body.error : 'The request was refused';
  const details = Array.isArray(body.details)
    ? body.details
        .map((d: { message?: unknown }) => (typeof d?.message === 'string' ? d.message : ''))
        .filter(Boolean)
    : [];
  return details.length > 0 ? `${main}: ${details.join('; ')}` : main;
}

export interface CommentsApi {
  list(options: { includeResolved: boolean; after: string | null }): Promise<Page<CommentThread>>;
  create(body: string, parentId?: number): Promise<DashboardComment>;
  update(id: number, body: string): Promise<DashboardComment>;
  remove(id: number): Promise<void>;
  resolve(id: number, resolved: boolean): Promise<CommentThread>;
  mentionable(search: string): Promise<Page<MentionableUser>>;
}

/** The API at `url` (`…/dashboard/{publicId}/comments`), called with the session `session()` answers. */
export function commentsApi(url: string, session: () => string | null): CommentsApi {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const current = session();
    if (!current) throw new CommentsError(401, 'SESSION_INVALID', 'No session to read the comments with');
    const headers: Record<string, string> = { Authorization: `Session ${current}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      throw new CommentsError(0, 'UNAVAILABLE', 'The comments could not be reached');
    }
    const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      const wait = Number(res.headers.get('retry-after'));
      throw new CommentsError(
        res.status,
        typeof answer.code === 'string' ? answer.code : 'UNAVAILABLE',
        messageOf(answer),
        Number.isFinite(wait) && wait > 0 ? wait : null,
      );
    }
    return answer as T;
  }
  return {
    list({ includeResolved, after }) {
      const params = new URLSearchParams();
      if (includeResolved) params.set('includeResolved', 'true');
      if (after) params.set('after', after);
      const query = params.toString();
      return call('GET', query ? `?${query}` : '');
    },
    create: (body, parentId) => call('POST', '', parentId === undefined ? { body } : { body, parentId }),
    update: (id, body) => call('PATCH', `/${id}`, { body }),
    remove: async (id) => {
      await call('DELETE', `/${id}`);
    },
    resolve: (id, resolved) => call('POST', `/${id}/resolve`, { resolved }),
    mentionable: (search) =>
      call(
        'GET',
        `/mentionable-users?${new URLSearchParams(search ? { search, first: '8' } : { first: '8' })}`,
      ),
  };
}
