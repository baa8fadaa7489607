import { beforeAll, describe, expect, it } from 'vitest';
import { Timings } from '../../src/core/timings';
import {
  cachedAnswer,
  MAX_REMEMBERED_ANSWER_CHARS,
  MAX_REMEMBERED_ENTRIES,
} from '../../src/data-api/result-cache';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { fetchWorker } from '../helpers/platform';
import { buildsSettled, cubeToken, deployModel, load, loadPath, pgClient, usePostgres } from './fixtures';

/**
 * An isolate keeps the answers it read or wrote lately in memory, in front of the Cache API, for
 * as long as the Cache API keeps them: a query asked again here is answered with no Cache API
 * read (the `cache-memory` phase instead of `cache-read`), never older than its refresh interval.
 */

let acme: SeededAccount;
let token: string;
/** A table of its own in PostgreSQL, so rows written behind the API's back show who answered. */
let table: string;

/** Rows enough that the answer's text passes what the isolate keeps in memory. */
const LONG_ROWS = 4000;

/** How long the `slow` cube's query takes. */
const SLOW_SECONDS = 0.5;

/** A count and an id: what the cubes over the table share. */
const COUNTED = `    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
`;

const model = () => `cubes:
  - name: orders
    sql_table: main.${table}
${COUNTED}  - name: quick
    sql: "SELECT id FROM main.${table}"
    refresh_key:
      every: 1 second
${COUNTED}  - name: long
    sql: "SELECT g AS id, repeat('x', 64) AS label FROM generate_series(1, ${LONG_ROWS}) AS g"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: label
        sql: label
        type: string
  - name: slow
    sql: "SELECT g AS id FROM generate_series(1, 3) AS g, pg_sleep(${SLOW_SECONDS})"
${COUNTED}`;

async function addOrder(id: number) {
  const client = await pgClient();
  try {
    await client.query(`INSERT INTO main.${table} (id) VALUES ($1)`, [id]);
  } finally {
    await client.end();
  }
}

const phases = (res: Awaited<ReturnType<typeof load>>) => res.headers.get('server-timing') ?? '';

beforeAll(async () => {
  acme = await seedAccount();
  table = `memory_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const client = await pgClient();
  try {
    await client.query('CREATE SCHEMA IF NOT EXISTS main');
    await client.query(`CREATE TABLE main.${table} (id int PRIMARY KEY)`);
    await client.query(`INSERT INTO main.${table} (id) SELECT generate_series(1, 3)`);
  } finally {
    await client.end();
  }
  const deploymentId = acme.deployments[0] as number;
  await usePostgres(acme.admin, deploymentId);
  await deployModel(acme.admin, deploymentId, model());
  await buildsSettled(acme.deployments);
  token = await cubeToken(acme.admin, deploymentId);
});

describe('answers an isolate keeps in memory', () => {
  it('answers a repeated query from memory, and renewQuery replaces what it keeps', async () => {
    const query = { measures: ['orders.count'] };
    const first = await load(token, query);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toEqual([{ 'orders.count': '3' }]);
    expect(phases(first)).toContain('cache-read');

    await addOrder(100);
    const again = await load(token, query);
    expect(again.status).toBe(200);
    // The answer kept, not the source's new count, and no Cache API or D1 read for it.
    expect(again.body.data).toEqual([{ 'orders.count': '3' }]);
    expect(again.body.lastRefreshTime).toBe(first.body.lastRefreshTime);
    expect(phases(again)).toContain('cache-memory');
    expect(phases(again)).not.toContain('cache-read');
    expect(again.headers.get('x-d1-round-trips')).toBe('0');

    const renewed = await load(token, { ...query, renewQuery: true });
    expect(renewed.body.data).toEqual([{ 'orders.count': '4' }]);
    const after = await load(token, query);
    expect(after.body.data).toEqual([{ 'orders.count': '4' }]);
    expect(after.body.lastRefreshTime).toBe(renewed.body.lastRefreshTime);
    expect(phases(after)).toContain('cache-memory');
  });

  it('keeps an answer no longer than its refresh interval', async () => {
    const query = { measures: ['quick.count'] };
    const first = await load(token, query);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const before = Number(first.body.data[0]['quick.count']);
    const kept = await load(token, query);
    expect(phases(kept)).toContain('cache-memory');

    await addOrder(200);
    // `every: 1 second`: once it has passed, neither memory nor the Cache API answers.
    await new Promise((r) => setTimeout(r, 1100));
    const later = await load(token, query);
    expect(later.status).toBe(200);
    expect(Number(later.body.data[0]['quick.count'])).toBe(before + 1);
    expect(later.body.lastRefreshTime > first.body.lastRefreshTime).toBe(true);
    expect(phases(later)).not.toContain('cache-memory');
  });

  it('keeps a long answer in the Cache API alone', async () => {
    const query = { dimensions: ['long.id', 'long.label'], order: { 'long.id': 'asc' } };
    const first = await load(token, query);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toHaveLength(LONG_ROWS);
    expect(JSON.stringify(first.body.data).length).toBeGreaterThan(MAX_REMEMBERED_ANSWER_CHARS);
    const again = await load(token, query);
    expect(again.body.data).toEqual(first.body.data);
    expect(again.body.lastRefreshTime).toBe(first.body.lastRefreshTime);
    expect(phases(again)).toContain('cache-read');
    expect(phases(again)).not.toContain('cache-memory');
  });
});

describe('a query whose first asker goes away', () => {
  it('is answered to the next asker: no request waits on the query of one that was cancelled', async () => {
    const query = { measures: ['slow.count'] };
    const gone = new AbortController();
    // Not through `load`: its answer is never read, and the request is sent as it is, aborted.
    const first = fetchWorker(`http://edgeboard.test${loadPath(query)}`, {
      headers: { authorization: token },
      signal: gone.signal,
    }).catch((err: unknown) => err);
    // The client goes away while its query runs on the server.
    await new Promise((r) => setTimeout(r, (SLOW_SECONDS * 1000) / 3));
    gone.abort();
    expect(String(await first)).toContain('AbortError');
    // Asked again while the cancelled request's query is still on the server, and once more after.
    for (const _ of [1, 2]) {
      const again = await load(token, query);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.data).toEqual([{ 'slow.count': '3' }]);
    }
  });
});

describe('the memory in front of the Cache API', () => {
  const options = () => ({ fresh: false, now: new Date(), timings: new Timings() });
  const key = () => `https://result-cache.edgeboard.invalid/0/${crypto.randomUUID()}`;
  const never = async (): Promise<string> => {
    throw new Error('the answer was kept: nothing should run');
  };

  it("keeps what it reads from the Cache API (another isolate's answer) until that entry expires", async () => {
    const k = key();
    const expiresAt = Date.now() + 60_000;
    await caches.default.put(
      k,
      new Response('[{"n":"1"}]', {
        headers: {
          'cache-control': 'max-age=60',
          'x-refreshed-at': '2030-01-01T00:00:00.000Z',
          'x-expires-at': String(expiresAt),
        },
      }),
    );
    const read = options();
    const first = await cachedAnswer(k, 60, read, never);
    expect(first).toEqual({
      value: { json: '[{"n":"1"}]', refreshedAt: '2030-01-01T00:00:00.000Z' },
      hit: true,
    });
    expect(read.timings.header()).toContain('cache-read');

    await caches.default.delete(k);
    const recalled = options();
    expect(await cachedAnswer(k, 60, recalled, never)).toEqual(first);
    expect(recalled.timings.header()).toContain('cache-memory');
    expect(recalled.timings.header()).not.toContain('cache-read');
  });

  it('does not keep an entry read from the Cache API without its expiry', async () => {
    const k = key();
    await caches.default.put(k, new Response('[]', { headers: { 'cache-control': 'max-age=60' } }));
    expect((await cachedAnswer(k, 60, options(), never)).hit).toBe(true);
    const again = options();
    expect((await cachedAnswer(k, 60, again, never)).hit).toBe(true);
    expect(again.timings.header()).toContain('cache-read');
  });

  it('keeps an entry read from the Cache API only until the expiry it carries', async () => {
    const k = key();
    await caches.default.put(
      k,
      new Response('[]', {
        headers: { 'cache-control': 'max-age=60', 'x-expires-at': String(Date.now() + 200) },
      }),
    );
    expect((await cachedAnswer(k, 60, options(), never)).hit).toBe(true);
    await caches.default.delete(k);
    expect((await cachedAnswer(k, 60, options(), never)).hit).toBe(true);
    await new Promise((r) => setTimeout(r, 250));
    const later = await cachedAnswer(k, 60, options(), async () => '[{"n":"2"}]');
    expect(later).toMatchObject({ value: { json: '[{"n":"2"}]' }, hit: false });
  });

  it('keeps an answer renewed while an older copy was being read, not the older copy', async () => {
    const k = key();
    await caches.default.put(
      k,
      new Response('"old"', {
        headers: { 'cache-control': 'max-age=60', 'x-expires-at': String(Date.now() + 30_000) },
      }),
    );
    // The read waits on the Cache API while the renewal runs and stores its answer.
    const read = cachedAnswer(k, 60, options(), never);
    const renewed = await cachedAnswer(k, 60, { ...options(), fresh: true }, async () => '"new"');
    expect(renewed.value.json).toBe('"new"');
    expect((await read).value.json).toBe('"old"');
    const after = options();
    expect((await cachedAnswer(k, 60, after, never)).value.json).toBe('"new"');
    expect(after.timings.header()).toContain('cache-memory');
  });

  it('forgets the least recently used answers past its total', async () => {
    const text = 'x'.repeat(MAX_REMEMBERED_ANSWER_CHARS);
    const keys = Array.from({ length: 20 }, key);
    for (const k of keys) {
      await cachedAnswer(k, 60, options(), async () => text);
      // The first answer is asked again after each new one: always the most recently used.
      const first = options();
      await cachedAnswer(keys[0] as string, 60, first, never);
      expect(first.timings.header()).toContain('cache-memory');
    }
    // 20 answers of the longest kept pass the total: the oldest unused went, the last is kept.
    const last = options();
    await cachedAnswer(keys[19] as string, 60, last, never);
    expect(last.timings.header()).toContain('cache-memory');
    const second = options();
    const back = await cachedAnswer(keys[1] as string, 60, second, never);
    expect(back).toMatchObject({ value: { json: text }, hit: true });
    expect(second.timings.header()).toContain('cache-read');
    expect(second.timings.header()).not.toContain('cache-memory');
  });

  it('keeps at most MAX_REMEMBERED_ENTRIES answers, however short', async () => {
    const keys = Array.from({ length: MAX_REMEMBERED_ENTRIES + 1 }, key);
    for (const k of keys) await cachedAnswer(k, 60, { fresh: true, now: new Date() }, async () => '1');
    const newest = options();
    await cachedAnswer(keys[MAX_REMEMBERED_ENTRIES] as string, 60, newest, never);
    expect(newest.timings.header()).toContain('cache-memory');
    const oldest = options();
    await cachedAnswer(keys[0] as string, 60, oldest, never);
    expect(oldest.timings.header()).toContain('cache-read');
  });
});
