import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import {
  editComment,
  embeddableBoard,
  embedUserId,
  listThreads,
  mentionable,
  postComment,
  postOk,
  removeComment,
  sessionOf,
  storedComments,
  storedMentions,
} from './fixtures';

// Every answer of Cube's comment operations is held to Cube's response schema too.
holdAnswersToCube();

let acme: SeededAccount;
let board: { id: number; publicId: string };
let alice: string;
let ids: Record<string, number>;

beforeAll(async () => {
  acme = await seedAccount();
  board = await embeddableBoard(acme);
  alice = await sessionOf(acme, 'alice', { email: 'alice@acme.com' });
  await sessionOf(acme, 'bob', { email: 'bob@acme.com', userProfile: { displayName: 'Bob Stone' } });
  await sessionOf(acme, 'carla', { email: 'carla@corp.example' });
  // Provisioned without a session: mentionable too (a stored user of the tenant).
  const provisioned = await api('POST', '/api/v1/embed-tenants/default/user', {
    auth: acme.key,
    body: { externalId: 'dora', email: 'dora@acme.com' },
  });
  expect(provisioned.status, JSON.stringify(provisioned.body)).toBe(200);
  await sessionOf(acme, 'zed', { embedTenantName: 'customer-b' });
  ids = {
    alice: await embedUserId(acme, 'alice'),
    bob: await embedUserId(acme, 'bob'),
    carla: await embedUserId(acme, 'carla'),
    dora: await embedUserId(acme, 'dora'),
    zed: await embedUserId(acme, 'zed', 'customer-b'),
  };
});

describe('listMentionableEmbedUsers', () => {
  it("answers the tenant's other embed users by username, never the caller or another tenant's", async () => {
    const res = await mentionable(alice, board.publicId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items).toEqual([
      { id: ids.bob, username: 'bob', email: 'bob@acme.com', firstName: 'Bob Stone' },
      { id: ids.carla, username: 'carla', email: 'carla@corp.example', firstName: null },
      { id: ids.dora, username: 'dora', email: 'dora@acme.com', firstName: null },
    ]);
  });

  it('filters by a substring of the username or the email, case-insensitively', async () => {
    const names = async (search: string) =>
      (await mentionable(alice, board.publicId, `search=${encodeURIComponent(search)}`)).body.items.map(
        (u: any) => u.username,
      );
    expect(await names('DOR')).toEqual(['dora']);
    expect(await names('CORP.example')).toEqual(['carla']);
    expect(await names('acme.com')).toEqual(['bob', 'dora']);
    expect(await names('zed')).toEqual([]);
    expectError(
      await mentionable(alice, board.publicId, `search=${'x'.repeat(256)}`),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('pages by username with a cursor', async () => {
    const page1 = await mentionable(alice, board.publicId, 'first=2');
    expect(page1.body.items.map((u: any) => u.username)).toEqual(['bob', 'carla']);
    expect(page1.body.pageInfo.hasNextPage).toBe(true);
    const page2 = await mentionable(
      alice,
      board.publicId,
      `first=2&after=${encodeURIComponent(page1.body.pageInfo.endCursor)}`,
    );
    expect(page2.body.items.map((u: any) => u.username)).toEqual(['dora']);
    expect(page2.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    // A thread-list cursor is not a mentionable-users cursor.
    await postOk(alice, board.publicId, { body: 'one' });
    const cursor = (await listThreads(alice, board.publicId, 'first=1')).body.pageInfo.endCursor;
    expectError(
      await mentionable(alice, board.publicId, `after=${encodeURIComponent(cursor)}`),
      400,
      'INVALID_CURSOR',
    );
    expectError(await mentionable(alice, board.publicId, 'first=101'), 400, 'VALIDATION_FAILED');
  });
});

describe('mentions in comments', () => {
  it('records the users a comment mentions and answers their names', async () => {
    const body = `<@${ids.bob}> and <@${ids.dora}>, see this (cc <@${ids.bob}>)`;
    const comment = await postOk(alice, board.publicId, { body });
    expect(comment.body).toBe(body);
    expect(comment.mentions).toEqual([
      { id: ids.bob, username: 'bob', firstName: 'Bob Stone' },
      { id: ids.dora, username: 'dora', firstName: null },
    ]);
    expect(await storedMentions(comment.id)).toEqual([{ user_id: ids.bob }, { user_id: ids.dora }]);
    const listed = (await listThreads(alice, board.publicId)).body.items.find(
      (t: any) => t.root.id === comment.id,
    );
    expect(listed.root.mentions).toEqual(comment.mentions);
  });

  it('refuses a mention of anyone but another user of the tenant, naming each, and writes nothing', async () => {
    const before = await storedComments(board.id);
    const res = await postComment(alice, board.publicId, {
      body: `<@${ids.bob}> <@${ids.zed}> <@${ids.alice}> <@999999>`,
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details).toEqual([
      { path: 'body', message: `<@${ids.zed}> is not an embed user this author may mention` },
      { path: 'body', message: `<@${ids.alice}> is not an embed user this author may mention` },
      { path: 'body', message: '<@999999> is not an embed user this author may mention' },
    ]);
    expect(await storedComments(board.id)).toEqual(before);
    // Text that only looks like a mention is text.
    const plain = await postOk(alice, board.publicId, { body: 'email me at <@bob> or <@0> or @bob' });
    expect(plain.mentions).toEqual([]);
  });

  it('takes at most 20 distinct users', async () => {
    const many = Array.from({ length: 21 }, (_, i) => `<@${1_000_000 + i}>`).join(' ');
    const res = await postComment(alice, board.publicId, { body: many });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details).toEqual([{ path: 'body', message: 'Mentions 21 users (at most 20)' }]);
  });

  it('replaces the mentions on an edit, validated the same way, and erases them on removal', async () => {
    const comment = await postOk(alice, board.publicId, { body: `Hi <@${ids.bob}>` });
    const edited = await editComment(alice, board.publicId, comment.id, { body: `Hi <@${ids.carla}>` });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.mentions).toEqual([{ id: ids.carla, username: 'carla', firstName: null }]);
    expect(await storedMentions(comment.id)).toEqual([{ user_id: ids.carla }]);
    const refused = await editComment(alice, board.publicId, comment.id, { body: `Hi <@${ids.zed}>` });
    expectError(refused, 400, 'VALIDATION_FAILED');
    expect(await storedMentions(comment.id)).toEqual([{ user_id: ids.carla }]);
    expect((await removeComment(alice, board.publicId, comment.id)).status).toBe(200);
    expect(await storedMentions(comment.id)).toEqual([]);
  });
});
