import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, type SeededAccount } from '../helpers/harness';
import { clockAt, platform } from '../helpers/platform';
import {
  editComment,
  listThreads,
  mentionable,
  mintOk,
  postComment,
  postOk,
  removeComment,
  resolveThread,
  rows,
  seedCommenters,
  storedComments,
} from './fixtures';

// Every answer of Cube's comment operations is held to Cube's response schema too.
holdAnswersToCube();

let acme: SeededAccount;
let board: { id: number; publicId: string };
let alice: string;
let bob: string;
let aliceId: number;

beforeAll(async () => {
  ({ account: acme, board, alice, bob, aliceId } = await seedCommenters());
});

describe('updateDashboardComment', () => {
  it("edits the author's own comment: new text, editedAt set, the rest kept", async () => {
    const comment = await postOk(alice, board.publicId, { body: 'Draft' });
    platform.clock = clockAt(Date.now() + 5_000);
    const res = await editComment(alice, board.publicId, comment.id, { body: ' Final ' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ ...comment, body: 'Final', editedAt: expect.any(String) });
    expect(Date.parse(res.body.editedAt)).toBeGreaterThan(Date.parse(comment.createdAt));
    const [row] = await rows('SELECT body, edited_at FROM dashboard_comments WHERE id = ?', comment.id);
    expect(row).toEqual({ body: 'Final', edited_at: res.body.editedAt });
  });

  it("refuses another user's comment with 403 and changes nothing", async () => {
    const comment = await postOk(alice, board.publicId, { body: 'Mine' });
    const before = await storedComments(board.id);
    expectError(await editComment(bob, board.publicId, comment.id, { body: 'Hijacked' }), 403, 'FORBIDDEN');
    expect(await storedComments(board.id)).toEqual(before);
  });

  it('answers 404 for an unknown comment and validates the body and the id', async () => {
    const comment = await postOk(alice, board.publicId, { body: 'Valid' });
    expectError(await editComment(alice, board.publicId, 999999, { body: 'x' }), 404, 'NOT_FOUND');
    expectError(await editComment(alice, board.publicId, 'abc', { body: 'x' }), 400, 'VALIDATION_FAILED');
    expectError(
      await editComment(alice, board.publicId, comment.id, { body: ' ' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await editComment(alice, board.publicId, comment.id, {}), 400, 'VALIDATION_FAILED');
    expectError(
      await editComment(alice, board.publicId, comment.id, { body: 'x', parentId: 1 }),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('removeDashboardComment', () => {
  it('removes a reply: its thread keeps it with an empty body and removedAt', async () => {
    const root = await postOk(alice, board.publicId, { body: 'Thread to keep' });
    const reply = await postOk(bob, board.publicId, { body: 'Oops', parentId: root.id });
    const kept = await postOk(alice, board.publicId, { body: 'Still here', parentId: root.id });
    expectError(await removeComment(alice, board.publicId, reply.id), 403, 'FORBIDDEN');
    const res = await removeComment(bob, board.publicId, reply.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ id: reply.id, deleted: true });
    const [row] = await rows('SELECT body, removed_at FROM dashboard_comments WHERE id = ?', reply.id);
    expect(row).toEqual({ body: '', removed_at: expect.any(String) });
    const thread = (await listThreads(alice, board.publicId)).body.items.find(
      (t: any) => t.root.id === root.id,
    );
    expect(thread.replies).toEqual([{ ...reply, body: '', removedAt: row?.removed_at, isOwn: false }, kept]);
    // Gone for every write: a second removal, an edit, a reply to it.
    expectError(await removeComment(bob, board.publicId, reply.id), 404, 'NOT_FOUND');
    expectError(await editComment(bob, board.publicId, reply.id, { body: 'Back' }), 404, 'NOT_FOUND');
  });

  it('removes a thread root with its replies: the thread leaves the list', async () => {
    const root = await postOk(alice, board.publicId, { body: 'Whole thread' });
    const reply = await postOk(bob, board.publicId, { body: 'Reply', parentId: root.id });
    expectError(await removeComment(bob, board.publicId, root.id), 403, 'FORBIDDEN');
    expect((await removeComment(alice, board.publicId, root.id)).status).toBe(200);
    const stored = await rows<{ body: string; removed_at: string | null }>(
      'SELECT body, removed_at FROM dashboard_comments WHERE id IN (?, ?) ORDER BY id',
      root.id,
      reply.id,
    );
    expect(stored.every((r) => r.body === '' && r.removed_at !== null)).toBe(true);
    for (const query of ['', 'includeResolved=true', 'resolvedOnly=true']) {
      const { items } = (await listThreads(alice, board.publicId, query)).body;
      expect(items.map((t: any) => t.root.id)).not.toContain(root.id);
    }
    expectError(
      await postComment(bob, board.publicId, { body: 'Late', parentId: root.id }),
      404,
      'NOT_FOUND',
    );
    expectError(await resolveThread(alice, board.publicId, root.id, { resolved: true }), 404, 'NOT_FOUND');
  });
});

describe('setDashboardCommentResolved', () => {
  it('resolves and re-opens a thread; the lists filter by state', async () => {
    const root = await postOk(alice, board.publicId, { body: 'Is this resolved?' });
    const reply = await postOk(bob, board.publicId, { body: 'Not yet', parentId: root.id });
    const resolvedAt = new Date(Date.now() + 60_000).toISOString();
    platform.clock = clockAt(resolvedAt);
    const res = await resolveThread(alice, board.publicId, root.id, { resolved: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      root,
      replies: [{ ...reply, isOwn: false }],
      resolvedAt,
      resolvedBy: aliceId,
    });
    const [row] = await rows('SELECT resolved_at, resolved_by FROM dashboard_comments WHERE id = ?', root.id);
    expect(row).toEqual({ resolved_at: resolvedAt, resolved_by: aliceId });
    const ids = async (query: string) =>
      (await listThreads(bob, board.publicId, query)).body.items.map((t: any) => t.root.id);
    expect(await ids('')).not.toContain(root.id);
    expect(await ids('includeResolved=true')).toContain(root.id);
    expect(await ids('resolvedOnly=true')).toEqual([root.id]);
    // resolvedOnly wins over includeResolved; false is the default.
    expect(await ids('resolvedOnly=true&includeResolved=true')).toEqual([root.id]);
    expect(await ids('resolvedOnly=false&includeResolved=false')).toEqual(await ids(''));

    // Resolving again keeps the first resolution.
    platform.clock = clockAt(Date.now() + 120_000);
    const again = await resolveThread(alice, board.publicId, root.id, { resolved: true });
    expect(again.body.resolvedAt).toBe(resolvedAt);

    // A reply to a resolved thread is allowed and leaves it resolved.
    await postOk(bob, board.publicId, { body: 'Thanks', parentId: root.id });
    expect(await ids('resolvedOnly=true')).toEqual([root.id]);

    const reopened = await resolveThread(alice, board.publicId, root.id, { resolved: false });
    expect(reopened.body).toMatchObject({ resolvedAt: null, resolvedBy: null });
    expect(await ids('resolvedOnly=true')).toEqual([]);
    expect(await ids('')).toContain(root.id);
  });

  it("is the thread starter's: another user 403, a reply 400, unknown 404", async () => {
    const root = await postOk(alice, board.publicId, { body: 'Mine to resolve' });
    const reply = await postOk(bob, board.publicId, { body: 'Reply', parentId: root.id });
    expectError(await resolveThread(bob, board.publicId, root.id, { resolved: true }), 403, 'FORBIDDEN');
    const onReply = await resolveThread(bob, board.publicId, reply.id, { resolved: true });
    expectError(onReply, 400, 'BAD_REQUEST');
    expect(onReply.body.details).toEqual([{ path: 'commentId', message: 'Names a reply, not a thread' }]);
    expectError(await resolveThread(alice, board.publicId, 999999, { resolved: true }), 404, 'NOT_FOUND');
    for (const body of [{}, { resolved: 'yes' }, { resolved: true, by: 1 }]) {
      expectError(await resolveThread(alice, board.publicId, root.id, body), 400, 'VALIDATION_FAILED');
    }
    const [row] = await rows('SELECT resolved_at FROM dashboard_comments WHERE id = ?', root.id);
    expect(row).toEqual({ resolved_at: null });
  });
});

describe('who may read and write', () => {
  it('lets an ephemeral or internal session read the conversation but not write in it', async () => {
    await postOk(alice, board.publicId, { body: 'Visible to every session of the tenant' });
    const ephemeral = await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId: 'passing-by',
      isEphemeral: true,
    });
    const internal = await mintOk(acme.key, { deploymentId: acme.deployments[0], internalId: 'admin' });
    for (const session of [ephemeral, internal]) {
      const list = await listThreads(session, board.publicId);
      expect(list.status, JSON.stringify(list.body)).toBe(200);
      expect(list.body.items.length).toBeGreaterThan(0);
      expect(list.body.items.every((t: any) => t.root.isOwn === false)).toBe(true);
      expect((await mentionable(session, board.publicId)).status).toBe(200);
      const root = list.body.items[0].root.id;
      const before = await storedComments(board.id);
      expectError(await postComment(session, board.publicId, { body: 'Hello' }), 403, 'FORBIDDEN');
      expectError(await editComment(session, board.publicId, root, { body: 'x' }), 403, 'FORBIDDEN');
      expectError(await removeComment(session, board.publicId, root), 403, 'FORBIDDEN');
      expectError(await resolveThread(session, board.publicId, root, { resolved: true }), 403, 'FORBIDDEN');
      expect(await storedComments(board.id)).toEqual(before);
    }
  });

  it("answers an account's valid token or API key with 403, an unknown one or none with 401", async () => {
    const root = await postOk(alice, board.publicId, { body: 'Admins cannot touch this' });
    for (const auth of [acme.admin, acme.member, acme.key, { bearer: acme.key.apiKey }]) {
      expectError(await listThreads(auth, board.publicId), 403, 'FORBIDDEN');
      expectError(await postComment(auth, board.publicId, { body: 'As admin' }), 403, 'FORBIDDEN');
      expectError(await removeComment(auth, board.publicId, root.id), 403, 'FORBIDDEN');
      expectError(await mentionable(auth, board.publicId), 403, 'FORBIDDEN');
    }
    for (const auth of [
      { bearer: 'eb_at_unknown' },
      { apiKey: 'eb_ak_unknown' },
      { raw: 'Basic abc' },
      null,
    ]) {
      expectError(await listThreads(auth, board.publicId), 401);
      expectError(await removeComment(auth, board.publicId, root.id), 401);
    }
    expectError(await listThreads('not-a-session', board.publicId), 401, 'SESSION_INVALID');
    const [row] = await rows('SELECT removed_at FROM dashboard_comments WHERE id = ?', root.id);
    expect(row).toEqual({ removed_at: null });
  });
});
