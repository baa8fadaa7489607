import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, type SeededAccount } from '../helpers/harness';
import { clockAt, platform } from '../helpers/platform';
import {
  embeddableBoard,
  listThreads,
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
let alice: string;
let bob: string;

beforeAll(async () => {
  ({ account: acme, alice, bob } = await seedCommenters());
});

describe('the rate of comments', () => {
  it('is 10 a minute per user and dashboard: the 11th is a 429 with Retry-After, the next minute works', async () => {
    const board = await embeddableBoard(acme);
    const other = await embeddableBoard(acme);
    const start = Date.now() + 1_000;
    platform.clock = clockAt(start);
    const root = await postOk(alice, board.publicId, { body: 'Thread' });
    for (let i = 1; i < 10; i += 1)
      await postOk(alice, board.publicId, { body: `Reply ${i}`, parentId: root.id });
    const before = await storedComments(board.id);
    const limited = await postComment(alice, board.publicId, { body: 'One too many' });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('60');
    expectError(
      await postComment(alice, board.publicId, { body: 'x', parentId: root.id }),
      429,
      'RATE_LIMITED',
    );
    expect(await storedComments(board.id)).toEqual(before);
    // Another user, or another dashboard, has its own window.
    expect((await postComment(bob, board.publicId, { body: 'Mine' })).status).toBe(200);
    expect((await postComment(alice, other.publicId, { body: 'Elsewhere' })).status).toBe(200);
    platform.clock = clockAt(start + 60_001);
    expect((await postComment(alice, board.publicId, { body: 'A minute later' })).status).toBe(200);
  });
});

describe('replies per thread', () => {
  it('stop at 100 (removed ones count): the 101st is a 409 and nothing is written', async () => {
    const board = await embeddableBoard(acme);
    let at = Date.now() + 1_000;
    platform.clock = clockAt(at);
    const root = await postOk(alice, board.publicId, { body: 'A long thread' });
    const replies: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      // Ten a minute per user: two users, and the clock moves on every ten replies.
      if (i % 20 === 0) {
        at += 61_000;
        platform.clock = clockAt(at);
      }
      const reply = await postOk(i % 2 === 0 ? alice : bob, board.publicId, {
        body: `Reply ${i}`,
        parentId: root.id,
      });
      replies.push(reply.id);
    }
    at += 61_000;
    platform.clock = clockAt(at);
    // A removed reply keeps its place, so it still counts.
    expect((await removeComment(alice, board.publicId, replies[0] as number)).status).toBe(200);
    const before = await storedComments(board.id);
    const full = await postComment(bob, board.publicId, { body: 'Reply 101', parentId: root.id });
    expectError(full, 409, 'CONFLICT');
    expect(full.body.error).toContain('100 replies');
    expect(await storedComments(board.id)).toEqual(before);
    // A new thread is still welcome, and the full thread lists all its replies.
    expect((await postComment(bob, board.publicId, { body: 'New thread' })).status).toBe(200);
    const res = await listThreads(alice, board.publicId, 'first=2');
    const long = res.body.items.find((t: any) => t.root.id === root.id);
    expect(long.replies).toHaveLength(100);
    expect(long.replies.map((r: any) => r.body)).toEqual(
      Array.from({ length: 100 }, (_, i) => (i === 0 ? '' : `Reply ${i}`)),
    );
  });
});

describe('pagination of threads', () => {
  let board: { id: number; publicId: string };
  let ids: number[];

  beforeAll(async () => {
    board = await embeddableBoard(acme);
    ids = [];
    let at = Date.now() + 1_000;
    for (let i = 0; i < 12; i += 1) {
      if (i % 6 === 0) {
        at += 61_000;
        platform.clock = clockAt(at);
      }
      const thread = await postOk(i % 2 === 0 ? alice : bob, board.publicId, { body: `Thread ${i}` });
      ids.push(thread.id);
    }
    delete platform.clock;
    // Two threads resolved: the default list skips them.
    for (const i of [4, 10]) {
      const res = await resolveThread(alice, board.publicId, ids[i] as number, { resolved: true });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  });

  /** Every page of a list, following endCursor. */
  async function pages(query: string) {
    const out: number[][] = [];
    let after: string | null = null;
    for (;;) {
      const res = await listThreads(
        bob,
        board.publicId,
        `${query}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      out.push(res.body.items.map((t: any) => t.root.id));
      expect(res.body.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!res.body.pageInfo.hasNextPage) return out;
      after = res.body.pageInfo.endCursor;
    }
  }

  it('walks every page newest first with first/after, per filter', async () => {
    const newest = [...ids].reverse();
    const open = newest.filter((id) => id !== ids[4] && id !== ids[10]);
    expect(await pages('first=4')).toEqual([open.slice(0, 4), open.slice(4, 8), open.slice(8)]);
    expect((await pages('first=5&includeResolved=true')).flat()).toEqual(newest);
    expect(await pages('first=1&resolvedOnly=true')).toEqual([[ids[10]], [ids[4]]]);
    // Ten by default.
    const res = await listThreads(bob, board.publicId, 'includeResolved=true');
    expect(res.body.items).toHaveLength(10);
    expect(res.body.pageInfo.hasNextPage).toBe(true);
  });

  it("refuses a cursor of another filter and a page over 25, and reads one page's replies only", async () => {
    const open = await listThreads(bob, board.publicId, 'first=2');
    const cursor = encodeURIComponent(open.body.pageInfo.endCursor);
    expectError(
      await listThreads(bob, board.publicId, `first=2&includeResolved=true&after=${cursor}`),
      400,
      'INVALID_CURSOR',
    );
    expectError(await listThreads(bob, board.publicId, 'first=26'), 400, 'VALIDATION_FAILED');
    expect((await listThreads(bob, board.publicId, 'first=25')).status).toBe(200);
    // One round trip of comments beside the access check's statement, whatever the page holds.
    expect(Number(open.headers.get('x-d1-round-trips'))).toBeLessThanOrEqual(2);
    const [count] = await rows<{ n: number }>(
      'SELECT count(*) AS n FROM dashboard_comments WHERE dashboard_id = ?',
      board.id,
    );
    expect(count?.n).toBe(12);
  });
});
