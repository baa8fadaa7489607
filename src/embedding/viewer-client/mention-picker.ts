// The mention picker of a comment form in the viewer's comments panel (see comments-panel.ts): a
// search over the users a comment may mention (the comments API's mentionable-users list), whose
// choice inserts `<@id>` at the caret of the form's text.

import { nameOf } from './comment-view';
import type { MentionableUser } from './comments-api';

let uid = 0;

/** Inserts `<@id> ` at the caret (or over the selection) of `text`, and puts the caret after it. */
export function insertMention(text: HTMLTextAreaElement, userId: number): void {
  const token = `<@${userId}> `;
  const start = text.selectionStart ?? text.value.length;
  const end = text.selectionEnd ?? start;
  const before = text.value.slice(0, start);
  const lead = before && !/\s$/.test(before) ? ' ' : '';
  text.value = `${before}${lead}${token}${text.value.slice(end)}`;
  const caret = start + lead.length + token.length;
  text.focus();
  text.setSelectionRange(caret, caret);
}

/**
 * A "Mention" button and the picker it opens under it; `search` reads the users matching a text
 * (null: no answer, the panel shows why). Choosing one inserts their mention into `text`.
 */
export function mentionPicker(
  text: HTMLTextAreaElement,
  search: (q: string) => Promise<MentionableUser[] | null>,
): { button: HTMLButtonElement; picker: HTMLElement } {
  const n = ++uid;
  const picker = document.createElement('div');
  picker.className = 'eb-mention-picker';
  picker.id = `eb-mention-picker-${n}`;
  picker.hidden = true;
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = '@ Mention';
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('aria-controls', picker.id);

  const input = document.createElement('input');
  input.type = 'search';
  input.id = `eb-mention-search-${n}`;
  input.placeholder = 'Search people…';
  input.autocomplete = 'off';
  const label = document.createElement('label');
  label.className = 'eb-sr';
  label.htmlFor = input.id;
  label.textContent = 'Search people to mention';
  const options = document.createElement('ul');
  options.className = 'eb-mention-options';
  options.setAttribute('aria-label', 'People to mention');
  const found = document.createElement('p');
  found.className = 'eb-mention-found';
  found.setAttribute('role', 'status');
  found.setAttribute('aria-live', 'polite');
  picker.append(label, input, options, found);

  const close = (focusText: boolean) => {
    picker.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (focusText) text.focus();
  };
  let asked = 0;
  const load = async () => {
    const mine = ++asked;
    found.textContent = 'Searching…';
    const users = await search(input.value.trim());
    if (mine !== asked) return;
    if (!users) {
      found.textContent = 'The people to mention could not be listed.';
      options.replaceChildren();
      return;
    }
    found.textContent = users.length === 0 ? 'No one found.' : '';
    options.replaceChildren(
      ...users.map((user) => {
        const choice = document.createElement('button');
        choice.type = 'button';
        choice.className = 'eb-mention-option';
        choice.dataset.userId = String(user.id);
        choice.textContent = nameOf(user);
        const detail = user.email ?? (user.firstName ? user.username : '');
        if (detail) {
          const small = document.createElement('span');
          small.className = 'eb-mention-detail';
          small.textContent = ` ${detail}`;
          choice.append(small);
        }
        choice.addEventListener('click', () => {
          insertMention(text, user.id);
          close(false);
        });
        const item = document.createElement('li');
        item.append(choice);
        return item;
      }),
    );
  };
  let typing: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(load, 250);
  });
  picker.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
    }
  });
  button.addEventListener('click', () => {
    if (!picker.hidden) return close(true);
    picker.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    input.value = '';
    input.focus();
    void load();
  });
  return { button, picker };
}
