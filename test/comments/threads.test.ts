import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, type SeededAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import {
  commentsPath,
  embeddableBoard,
  listThreads,
  postComment,
  postOk,
  rows,
  seedCommenters,
  storedComments,
} from './fixtures';

// Every answer of Cube's comment operations is held to Cube's response schema too.
holdAnswersToCube();

let acme: SeededAccount;
let board: { id: number; publicId: string };
let second: { id: number; publicId: string };
let alice: string;
let bob: string;
let aliceId: number;
let bobId: number;

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

beforeAll(async () => {
  ({
    account: acme,
    board,
    alice,
    bob,
    aliceId,
    bobId,
  } = await seedCommenters({
    alice: { userProfile: { displayName: 'Alice Smith' } },
  }));
  second = await embeddableBoard(acme);
});

describe('createDashboardComment', () => {
  it('starts a thread attributed to the session user and stores it', async () => {
    const res = await postComment(alice, board.publicId, { body: '  Revenue dipped in March?  ' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      id: expect.any(Number),
      dashboardId: board.publicId,
      body: 'Revenue dipped in March?',
      createdAt: expect.stringMatching(ISO),
      editedAt: null,
      removedAt: null,
      userId: aliceId,
      isOwn: true,
      author: { id: aliceId, username: 'alice', firstName: 'Alice Smith' },
      mentions: [],
    });
    const [row] = await rows('SELECT * FROM dashboard_comments WHERE id = ?', res.body.id);
    expect(row).toMatchObject({
      dashboard_id: board.id,
      parent_id: null,
      author_id: aliceId,
      body: 'Revenue dipped in March?',
      created_at: res.body.createdAt,
      removed_at: null,
      resolved_at: null,
    });
  });

  it('replies to a thread when parentId names its root', async () => {
    const root = await postOk(alice, board.publicId, { body: 'Who owns the Q2 numbers?' });
    const reply = await postOk(bob, board.publicId, { body: 'I do.', parentId: root.id });
    expect(reply).toMatchObject({ body: 'I do.', userId: bobId, isOwn: true, author: { username: 'bob' } });
    const [row] = await rows('SELECT parent_id FROM dashboard_comments WHERE id = ?', reply.id);
    expect(row).toEqual({ parent_id: root.id });
    // null parentId is Cube's "not sent": a new thread.
    const thread = await postOk(bob, board.publicId, { body: 'Another topic', parentId: null });
    const [stored] = await rows('SELECT parent_id FROM dashboard_comments WHERE id = ?', thread.id);
    expect(stored).toEqual({ parent_id: null });
  });

  it('nests one level: a reply to a reply is a 400, an unknown or foreign parent a 404', async () => {
    const root = await postOk(alice, board.publicId, { body: 'Root' });
    const reply = await postOk(bob, board.publicId, { body: 'Reply', parentId: root.id });
    const before = await storedComments(board.id);
    const nested = await postComment(alice, board.publicId, { body: 'Deeper', parentId: reply.id });
    expectError(nested, 400, 'BAD_REQUEST');
    expect(nested.body.details).toEqual([{ path: 'parentId', message: 'Names a reply, not a thread' }]);
    expectError(await postComment(alice, board.publicId, { body: 'x', parentId: 999999 }), 404, 'NOT_FOUND');
    // A thread of another dashboard is no parent here.
    const elsewhere = await postOk(alice, second.publicId, { body: 'On the second board' });
    expectError(
      await postComment(alice, board.publicId, { body: 'x', parentId: elsewhere.id }),
      404,
      'NOT_FOUND',
    );
    expect(await storedComments(board.id)).toEqual(before);
  });

  it('takes 1–10,000 characters and refuses a blank body', async () => {
    const long = 'é'.repeat(10_000);
    expect((await postOk(alice, board.publicId, { body: long })).body).toBe(long);
    const before = await storedComments(board.id);
    for (const body of [{ body: 'x'.repeat(10_001) }, { body: '   \n ' }, { body: '' }, {}, { body: 5 }]) {
      const res = await postComment(alice, board.publicId, body);
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe('body');
    }
    expectError(await postComment(alice, board.publicId, { body: 'x', extra: 1 }), 400, 'VALIDATION_FAILED');
    expectError(
      await postComment(alice, board.publicId, { body: 'x', parentId: 0 }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await postComment(alice, board.publicId, { body: 'x', parentId: 'one' }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await api('POST', commentsPath(board.publicId), {
        auth: { session: alice },
        rawBody: '{"body":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    );
    expect(await storedComments(board.id)).toEqual(before);
  });
});

describe('listDashboardComments', () => {
  let board3: { id: number; publicId: string };
  let first: any;
  let firstReplies: any[];
  let later: any;

  beforeAll(async () => {
    board3 = await embeddableBoard(acme);
    first = await postOk(alice, board3.publicId, { body: 'First thread' });
    later = await postOk(bob, board3.publicId, { body: 'Later thread' });
    // Replies to the first thread after the later thread started: the first keeps its place.
    firstReplies = [
      await postOk(bob, board3.publicId, { body: 'Reply one', parentId: first.id }),
      await postOk(alice, board3.publicId, { body: 'Reply two', parentId: first.id }),
    ];
  });

  it('answers threads newest first, each root with its replies oldest first', async () => {
    const res = await listThreads(alice, board3.publicId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items).toEqual([
      { root: { ...later, isOwn: false }, replies: [], resolvedAt: null, resolvedBy: null },
      {
        root: first,
        replies: [{ ...firstReplies[0], isOwn: false }, firstReplies[1]],
        resolvedAt: null,
        resolvedBy: null,
      },
    ]);
    expect(res.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
  });

  it('marks isOwn for the viewer', async () => {
    const res = await listThreads(bob, board3.publicId);
    const [laterThread, firstThread] = res.body.items;
    expect(laterThread.root.isOwn).toBe(true);
    expect(firstThread.root.isOwn).toBe(false);
    expect(firstThread.replies.map((r: any) => r.isOwn)).toEqual([true, false]);
  });

  it('takes the session in ?session= and as an exchanged embed token', async () => {
    const viaQuery = await api('GET', `${commentsPath(board3.publicId)}?session=${alice}`);
    expect(viaQuery.status, JSON.stringify(viaQuery.body)).toBe(200);
    expect(viaQuery.body.items).toHaveLength(2);
    const exchange = await api('POST', '/api/v1/embed/session/token', { body: { sessionId: alice } });
    expect(exchange.status).toBe(200);
    const viaToken = await listThreads({ bearer: exchange.body.token }, board3.publicId);
    expect(viaToken.status, JSON.stringify(viaToken.body)).toBe(200);
    expect(viaToken.body.items[1].root.isOwn).toBe(true);
    const posted = await postComment({ bearer: exchange.body.token }, board3.publicId, { body: 'By token' });
    expect(posted.status).toBe(200);
    expect(posted.body.userId).toBe(aliceId);
  });

  it('is an empty page on a dashboard without comments', async () => {
    const fresh = await embeddableBoard(acme);
    const res = await listThreads(bob, fresh.publicId);
    expect(res.body).toEqual({
      items: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it('validates its query string', async () => {
    for (const query of [
      'includeResolved=yes',
      'resolvedOnly=1',
      'first=0',
      'first=26',
      'first=x',
      'sort=id',
    ]) {
      expectError(await listThreads(alice, board3.publicId, query), 400, 'VALIDATION_FAILED');
    }
    expectError(await listThreads(alice, board3.publicId, 'after=garbage'), 400, 'INVALID_CURSOR');
  });
});

describe('cost', () => {
  it('is the access check beside one comment round trip; a mention check runs beside the access check', async () => {
    const trips = (res: { headers: Headers }) => Number(res.headers.get('x-d1-round-trips'));
    const root = await postComment(alice, board.publicId, { body: 'Counting' });
    expect(trips(root)).toBe(2);
    const mentioning = await postComment(alice, board.publicId, {
      body: `Hi <@${bobId}>`,
      parentId: root.body.id,
    });
    expect(mentioning.status).toBe(200);
    expect(trips(mentioning)).toBe(3);
    expect(trips(await listThreads(alice, board.publicId, 'includeResolved=true&first=25'))).toBe(2);
    expect(
      trips(await api('GET', commentsPath(board.publicId, '/mentionable-users'), { auth: { session: bob } })),
    ).toBe(2);
    expect(
      trips(
        await api('PATCH', commentsPath(board.publicId, `/${root.body.id}`), {
          auth: { session: alice },
          body: { body: 'Counted' },
        }),
      ),
    ).toBe(2);
    expect(
      trips(
        await api('POST', commentsPath(board.publicId, `/${root.body.id}/resolve`), {
          auth: { session: alice },
          body: { resolved: true },
        }),
      ),
    ).toBe(2);
    expect(
      trips(
        await api('DELETE', commentsPath(board.publicId, `/${root.body.id}`), { auth: { session: alice } }),
      ),
    ).toBe(2);
  });
});
