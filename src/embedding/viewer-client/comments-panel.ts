// The comments panel of the viewer page (see viewer-client.ts): the threads of the dashboard's
// conversation under the dashboard, behind a "Comments" button. It lists the open threads (and
// the resolved ones on request), a page at a time; shows each comment's author, time, "edited"
// and text with mentions as names; posts threads and replies with a mention picker; edits and
// removes the viewer's own comments; resolves and re-opens the threads the viewer started. Every
// refusal of the API is shown in the panel. It lives inside #eb-root, so the height the page
// reports to its host (edgeboard:resize) includes it, and it is shown only with a dashboard.

import { authorOf, metaOf, textOf } from './comment-view';
import {
  type CommentsApi,
  CommentsError,
  type CommentThread,
  commentsApi,
  type DashboardComment,
} from './comments-api';
import { mentionPicker } from './mention-picker';
import { boot, root } from './page';

/** What the page tells the panel. */
export interface CommentsPanel {
  /** A load with a new session was shown: whether its user may write, and the list follows it. */
  tookSession(canComment: boolean): void;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className = '',
  text = '',
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

function button(text: string, onClick: () => void, className = ''): HTMLButtonElement {
  const b = el('button', className, text);
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

/** What a person reads for a refusal: the API's own message, or what to do about it. */
function describe(error: unknown): string {
  if (!(error instanceof CommentsError)) return 'Something went wrong with the comments. Please try again.';
  if (error.status === 0) return 'The comments could not be reached. Check the connection and try again.';
  if (error.status === 401)
    return 'The session of this page has ended: the comments come back once it is renewed.';
  if (error.status === 429) {
    return error.retryAfter ? `${error.message}. Try again in ${error.retryAfter} s.` : error.message;
  }
  return error.message;
}

let uid = 0;

/** Mounts the panel under the dashboard; null when the page offers no comments. */
export function commentsPanel(session: () => string | null): CommentsPanel | null {
  if (!boot.commentsUrl) return null;
  const api: CommentsApi = commentsApi(boot.commentsUrl, session);
  let canComment = boot.canComment;
  let open = false;
  let includeResolved = false;
  let threads: CommentThread[] = [];
  let endCursor: string | null = null;
  /** The session the list was read with: another one (a renewal) reads it again. */
  let listedWith: string | null = null;
  let generation = 0;

  const bar = el('div', 'eb-comments-bar');
  const toggle = button('Comments', () => setOpen(!open), 'eb-comments-toggle');
  toggle.id = 'eb-comments-toggle';
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-controls', 'eb-comments');
  bar.append(toggle);

  const panel = el('aside', 'eb-widget eb-comments');
  panel.id = 'eb-comments';
  panel.setAttribute('aria-labelledby', 'eb-comments-title');
  panel.hidden = true;
  const head = el('div', 'eb-comments-head');
  const title = el('h2', 'eb-comments-title', 'Comments');
  title.id = 'eb-comments-title';
  const resolvedLabel = el('label', 'eb-comments-check');
  const resolvedBox = el('input');
  resolvedBox.type = 'checkbox';
  resolvedBox.addEventListener('change', () => {
    includeResolved = resolvedBox.checked;
    void load(true);
  });
  resolvedLabel.append(resolvedBox, ' Show resolved');
  head.append(title, resolvedLabel);
  const error = el('p', 'eb-comments-error');
  error.setAttribute('role', 'alert');
  error.hidden = true;
  const composeSlot = el('div', 'eb-comments-compose');
  const list = el('ol', 'eb-threads');
  list.setAttribute('aria-labelledby', 'eb-comments-title');
  const empty = el('p', 'eb-comments-empty', 'No comments yet.');
  empty.hidden = true;
  const more = button('Show more comments', () => void load(false), 'eb-comments-more');
  more.hidden = true;
  const live = el('p', 'eb-sr');
  live.setAttribute('role', 'status');
  live.setAttribute('aria-live', 'polite');
  panel.append(head, error, composeSlot, list, empty, more, live);
  root.append(bar, panel);

  const showError = (e: unknown) => {
    error.textContent = describe(e);
    error.hidden = false;
  };
  const clearError = () => {
    error.hidden = true;
    error.textContent = '';
  };
  /** Runs an API call; a refusal is shown in the panel (never thrown away) and answers null. */
  async function attempt<T>(call: () => Promise<T>): Promise<T | null> {
    try {
      const answer = await call();
      clearError();
      return answer;
    } catch (e) {
      showError(e);
      return null;
    }
  }

  /**
   * A text form: its label, the text, a mention picker, and its buttons. `submit` answers whether
   * the text was taken (then the form empties); a refusal leaves the text for another try.
   */
  function form(options: {
    label: string;
    action: string;
    initial?: string;
    submit: (text: string) => Promise<boolean>;
    cancel?: () => void;
  }): HTMLFormElement {
    const f = el('form', 'eb-comment-form');
    const n = ++uid;
    const text = el('textarea');
    text.id = `eb-comment-text-${n}`;
    text.rows = 3;
    text.maxLength = 10_000;
    text.value = options.initial ?? '';
    text.placeholder = 'Write a comment… (@ Mention names someone)';
    const label = el('label', 'eb-sr', options.label);
    label.htmlFor = text.id;
    const mention = mentionPicker(text, async (q) => {
      const page = await attempt(() => api.mentionable(q));
      return page ? page.items : null;
    });
    const send = el('button', 'eb-primary', options.action);
    send.type = 'submit';
    const row = el('div', 'eb-comment-form-row');
    row.append(mention.button);
    if (options.cancel) row.append(button('Cancel', options.cancel));
    row.append(send);
    f.append(label, text, mention.picker, row);
    const run = async () => {
      const body = text.value.trim();
      if (!body) {
        showError(new CommentsError(400, 'VALIDATION_FAILED', 'Write something first'));
        text.focus();
        return;
      }
      send.disabled = true;
      f.setAttribute('aria-busy', 'true');
      const taken = await options.submit(body);
      send.disabled = false;
      f.removeAttribute('aria-busy');
      if (taken) text.value = '';
    };
    f.addEventListener('submit', (event) => {
      event.preventDefault();
      void run();
    });
    text.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void run();
      }
    });
    return f;
  }

  function renderComposer(): void {
    if (!canComment) {
      composeSlot.replaceChildren(
        el('p', 'eb-comments-note', 'You can read the comments here; this session cannot write them.'),
      );
      return;
    }
    composeSlot.replaceChildren(
      form({
        label: 'New comment',
        action: 'Post',
        submit: async (body) => {
          const comment = await attempt(() => api.create(body));
          if (!comment) return false;
          const thread: CommentThread = { root: comment, replies: [], resolvedAt: null, resolvedBy: null };
          threads.unshift(thread);
          list.prepend(threadItem(thread));
          empty.hidden = true;
          live.textContent = 'Comment posted';
          return true;
        },
      }),
    );
  }

  const threadOf = (rootId: number) => threads.find((t) => t.root.id === rootId);

  /** Shows `thread` in place of the one with its root's id. */
  function replaceThread(thread: CommentThread): void {
    const at = threads.findIndex((t) => t.root.id === thread.root.id);
    if (at >= 0) threads[at] = thread;
    list.querySelector(`li[data-thread-id="${thread.root.id}"]`)?.replaceWith(threadItem(thread));
  }

  function dropThread(rootId: number): void {
    threads = threads.filter((t) => t.root.id !== rootId);
    list.querySelector(`li[data-thread-id="${rootId}"]`)?.remove();
    empty.hidden = threads.length > 0;
  }

  /** One comment: who and when, the text, and the actions the viewer may take on it. */
  function commentItem(comment: DashboardComment, thread: CommentThread): HTMLElement {
    const isRoot = comment.id === thread.root.id;
    const article = el('article', `eb-comment${comment.removedAt ? ' eb-comment--removed' : ''}`);
    article.dataset.commentId = String(comment.id);
    const metaId = `eb-comment-${comment.id}-meta`;
    article.setAttribute('aria-labelledby', metaId);
    const body = textOf(comment);
    const actions = el('div', 'eb-comment-actions');
    const act = (text: string, onClick: () => void) => {
      const b = button(text, onClick);
      b.setAttribute('aria-describedby', metaId);
      return b;
    };
    const showActions = () => {
      const shown: HTMLElement[] = [];
      if (comment.isOwn && !comment.removedAt) {
        shown.push(act('Edit', edit), act('Remove', confirmRemoval));
      }
      if (isRoot && thread.root.isOwn) {
        shown.push(act(thread.resolvedAt ? 'Re-open' : 'Resolve', resolve));
      }
      actions.replaceChildren(...shown);
      actions.hidden = shown.length === 0;
    };
    const edit = () => {
      const editor = form({
        label: `Edit the comment of ${authorOf(comment)}`,
        action: 'Save',
        initial: comment.body,
        cancel: () => {
          editor.replaceWith(body);
          showActions();
        },
        submit: async (text) => {
          const updated = await attempt(() => api.update(comment.id, text));
          if (!updated) return false;
          const next = isRoot
            ? { ...thread, root: updated }
            : { ...thread, replies: thread.replies.map((r) => (r.id === updated.id ? updated : r)) };
          replaceThread(next);
          live.textContent = 'Comment saved';
          return true;
        },
      });
      body.replaceWith(editor);
      actions.replaceChildren();
      editor.querySelector('textarea')?.focus();
    };
    const confirmRemoval = () => {
      const question = el('span', 'eb-comment-question', 'Remove this comment?');
      const yes = act('Remove', () => void remove());
      yes.className = 'eb-danger';
      const no = act('Keep', () => showActions());
      actions.replaceChildren(question, yes, no);
      no.focus();
    };
    const remove = async () => {
      const done = await attempt(() => api.remove(comment.id));
      if (done === null) return showActions();
      // A removed root takes its replies with it; a removed reply stays as a placeholder.
      if (isRoot) dropThread(thread.root.id);
      else {
        const removed = { ...comment, body: '', mentions: [], removedAt: new Date().toISOString() };
        replaceThread({ ...thread, replies: thread.replies.map((r) => (r.id === comment.id ? removed : r)) });
      }
      live.textContent = 'Comment removed';
    };
    const resolve = async () => {
      const next = await attempt(() => api.resolve(thread.root.id, !thread.resolvedAt));
      if (!next) return;
      replaceThread(next);
      live.textContent = next.resolvedAt ? 'Thread resolved' : 'Thread re-opened';
    };
    showActions();
    article.append(metaOf(comment, metaId, isRoot && thread.resolvedAt !== null), body, actions);
    return article;
  }

  function threadItem(thread: CommentThread): HTMLLIElement {
    const item = el('li', `eb-thread${thread.resolvedAt ? ' eb-thread--resolved' : ''}`);
    item.dataset.threadId = String(thread.root.id);
    item.append(commentItem(thread.root, thread));
    if (thread.replies.length > 0) {
      const replies = el('ol', 'eb-replies');
      replies.setAttribute('aria-label', `Replies to ${authorOf(thread.root)}`);
      for (const reply of thread.replies) {
        const li = el('li');
        li.append(commentItem(reply, thread));
        replies.append(li);
      }
      item.append(replies);
    }
    if (canComment) {
      const reply = button('Reply', () => {
        const replyForm = form({
          label: `Reply to ${authorOf(thread.root)}`,
          action: 'Reply',
          cancel: () => replyForm.replaceWith(reply),
          submit: async (body) => {
            const comment = await attempt(() => api.create(body, thread.root.id));
            if (!comment) return false;
            const current = threadOf(thread.root.id) ?? thread;
            replaceThread({ ...current, replies: [...current.replies, comment] });
            live.textContent = 'Reply posted';
            return true;
          },
        });
        reply.replaceWith(replyForm);
        replyForm.querySelector('textarea')?.focus();
      });
      reply.className = 'eb-thread-reply';
      reply.setAttribute('aria-label', `Reply to ${authorOf(thread.root)}`);
      item.append(reply);
    }
    return item;
  }

  /** Reads the first page again (`fresh`) or the next one, and shows it. */
  async function load(fresh: boolean): Promise<void> {
    const mine = ++generation;
    listedWith = session();
    list.setAttribute('aria-busy', 'true');
    more.disabled = true;
    const page = await attempt(() => api.list({ includeResolved, after: fresh ? null : endCursor }));
    if (mine !== generation) return;
    list.removeAttribute('aria-busy');
    more.disabled = false;
    if (!page) {
      // Nothing shown is certain any more after a failed fresh read: the list says so.
      if (fresh) {
        threads = [];
        list.replaceChildren();
        more.hidden = true;
        empty.hidden = true;
      }
      return;
    }
    if (fresh) threads = [];
    threads.push(...page.items);
    endCursor = page.pageInfo.endCursor;
    more.hidden = !page.pageInfo.hasNextPage;
    if (fresh) list.replaceChildren(...page.items.map(threadItem));
    else list.append(...page.items.map(threadItem));
    empty.hidden = threads.length > 0;
    live.textContent = `${threads.length} thread${threads.length === 1 ? '' : 's'} shown`;
  }

  /** The panel follows the page: shown with a dashboard, read again for another session. */
  function sync(): void {
    const ready = root.getAttribute('data-state') === 'ready';
    bar.hidden = !ready;
    panel.hidden = !ready || !open;
    if (ready && open && session() !== listedWith) void load(true);
  }

  function setOpen(next: boolean): void {
    open = next;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Hide comments' : 'Comments';
    // Opening reads the list afresh: others may have written since it was last shown.
    if (open) listedWith = null;
    sync();
  }

  renderComposer();
  new MutationObserver(sync).observe(root, { attributes: true, attributeFilter: ['data-state'] });
  sync();
  return {
    tookSession(next: boolean) {
      if (next !== canComment) {
        canComment = next;
        renderComposer();
        listedWith = null;
      }
      sync();
    },
  };
}
