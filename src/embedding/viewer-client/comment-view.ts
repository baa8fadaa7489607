// How one comment reads in the viewer's comments panel (see comments-panel.ts): who wrote it and
// when, whether it was edited, and its text with `<@id>` mentions shown as names. User text only
// ever becomes text nodes: nothing a commenter writes is parsed as markup.
import type { CommentUser, DashboardComment } from './comments-api';

/** A mention as the comments API writes it in a body (its own MENTION pattern). */
const MENTION = /<@([1-9]\d{0,14})>/g;

/** The name a user goes by: the display name, else the username (the externalId). */
export const nameOf = (user: Pick<CommentUser, 'firstName' | 'username'>): string =>
  user.firstName?.trim() || user.username;

/** The author's name; a deleted user's comment stays, without its author. */
export const authorOf = (comment: DashboardComment): string =>
  comment.author ? nameOf(comment.author) : 'Deleted user';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function time(iso: string): HTMLTimeElement {
  const el = document.createElement('time');
  el.dateTime = iso;
  const date = new Date(iso);
  el.textContent = Number.isNaN(date.getTime()) ? iso : when.format(date);
  return el;
}

function span(className: string, text: string): HTMLSpanElement {
  const el = document.createElement('span');
  el.className = className;
  el.textContent = text;
  return el;
}

/**
 * The body as text, each `<@id>` replaced by `@` and the name of the matching entry of `mentions`;
 * an id without one (the API answers every mention it stored) stays as written.
 */
export function bodyNodes(comment: Pick<DashboardComment, 'body' | 'mentions'>): Node[] {
  const names = new Map(comment.mentions.map((m) => [String(m.id), nameOf(m)]));
  const nodes: Node[] = [];
  let at = 0;
  for (const match of comment.body.matchAll(MENTION)) {
    const name = names.get(match[1] ?? '');
    if (name === undefined) continue;
    const index = match.index ?? 0;
    if (index > at) nodes.push(document.createTextNode(comment.body.slice(at, index)));
    nodes.push(span('eb-mention', `@${name}`));
    at = index + match[0].length;
  }
  if (at < comment.body.length) nodes.push(document.createTextNode(comment.body.slice(at)));
  return nodes;
}

/** The comment's line of who and when, with the id its action buttons point to for their context. */
export function metaOf(comment: DashboardComment, id: string, resolved: boolean): HTMLElement {
  const meta = document.createElement('p');
  meta.className = 'eb-comment-meta';
  meta.id = id;
  meta.append(span('eb-comment-author', authorOf(comment)), ' ', time(comment.createdAt));
  if (comment.editedAt && !comment.removedAt) {
    const edited = span('eb-comment-edited', '(edited)');
    edited.title = `Edited ${when.format(new Date(comment.editedAt))}`;
    meta.append(' ', edited);
  }
  if (resolved) meta.append(' ', span('eb-badge', 'Resolved'));
  return meta;
}

/** The comment's text, or the placeholder of a removed one. */
export function textOf(comment: DashboardComment): HTMLElement {
  const text = document.createElement('p');
  if (comment.removedAt) {
    text.className = 'eb-comment-body eb-comment-body--removed';
    text.textContent = 'This comment was removed.';
  } else {
    text.className = 'eb-comment-body';
    text.append(...bodyNodes(comment));
  }
  return text;
}
