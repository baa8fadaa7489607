import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import {
  countedD1,
  D1_LIMITS,
  D1LimitError,
  newD1Metrics,
  recordStatements,
  stopRecording,
} from '../../src/core/db';
import { api } from '../helpers/http';

const table = async () => {
  await env.DB.exec('CREATE TABLE IF NOT EXISTS wrapper_t (id INTEGER PRIMARY KEY, v TEXT)');
  await env.DB.exec('DELETE FROM wrapper_t');
};

describe('the D1 wrapper counts where round trips go and what they read', () => {
  it('counts the plain binding and first-primary as primary, first-unconstrained reads as replica', async () => {
    await table();
    const m = newD1Metrics();
    const d1 = countedD1(env.DB, m);
    await d1.batch([
      d1.prepare('INSERT INTO wrapper_t (v) VALUES (?)').bind('a'),
      d1.prepare('INSERT INTO wrapper_t (v) VALUES (?)').bind('b'),
    ]);
    expect(m).toMatchObject({ queries: 2, roundTrips: 1, primaryRoundTrips: 1, replicaRoundTrips: 0 });
    expect(m.rowsWritten).toBeGreaterThanOrEqual(2);

    const replica = d1.withSession('first-unconstrained');
    const rows = await replica.prepare('SELECT v FROM wrapper_t ORDER BY id').all();
    expect(rows.results).toEqual([{ v: 'a' }, { v: 'b' }]);
    expect(m).toMatchObject({ roundTrips: 2, primaryRoundTrips: 1, replicaRoundTrips: 1 });
    expect(m.rowsRead).toBeGreaterThanOrEqual(2);

    // A write through a replica session is forwarded to the primary.
    await replica.prepare('UPDATE wrapper_t SET v = ? WHERE id = 1').bind('c').run();
    expect(m).toMatchObject({ primaryRoundTrips: 2, replicaRoundTrips: 1 });

    await d1.withSession('first-primary').prepare('SELECT 1').first();
    expect(m).toMatchObject({ primaryRoundTrips: 3, replicaRoundTrips: 1, roundTrips: 4 });
  });

  it('meters first() and raw() through all() with the same answers', async () => {
    await table();
    await env.DB.prepare('INSERT INTO wrapper_t (v) VALUES (?), (?)').bind('x', 'y').run();
    const m = newD1Metrics();
    const d1 = countedD1(env.DB, m);
    expect(await d1.prepare('SELECT id, v FROM wrapper_t ORDER BY id').first()).toEqual({ id: 1, v: 'x' });
    expect(await d1.prepare('SELECT v FROM wrapper_t ORDER BY id').first('v')).toBe('x');
    expect(await d1.prepare('SELECT v FROM wrapper_t WHERE id = 99').first()).toBeNull();
    expect(await d1.prepare('SELECT id, v FROM wrapper_t ORDER BY id').raw()).toEqual([
      [1, 'x'],
      [2, 'y'],
    ]);
    expect(m.unmetered).toBe(0);
    expect(m.rowsRead).toBeGreaterThanOrEqual(6);
    // A join may repeat a column name: it keeps raw() and is reported unmetered.
    const joined = await d1
      .prepare('SELECT a.id, b.id FROM wrapper_t a JOIN wrapper_t b ON b.id = a.id ORDER BY a.id')
      .raw();
    expect(joined).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(m.unmetered).toBe(1);
  });

  it('exposes the figures as response headers', async () => {
    const res = await api('GET', '/healthz');
    expect(res.headers.get('x-d1-primary-round-trips')).toBe('0');
    expect(res.headers.get('x-d1-replica-round-trips')).toBe('0');
    expect(res.headers.get('x-d1-rows-read')).toBe('0');
    expect(res.headers.get('x-d1-rows-written')).toBe('0');
    const created = await api('POST', '/admin/v1/accounts', {
      auth: { bearer: 'test-operator-token' },
      body: { name: 'Metrics', plan: 'enterprise' },
    });
    expect(created.status).toBe(201);
    expect(Number(created.headers.get('x-d1-primary-round-trips'))).toBeGreaterThan(0);
    expect(Number(created.headers.get('x-d1-rows-written'))).toBeGreaterThan(0);
  });

  it('records statements with their parameters only while asked to', async () => {
    const log = recordStatements();
    try {
      await countedD1(env.DB, { queries: 0, roundTrips: 0 }).prepare('SELECT ?1 AS x').bind(7).first();
    } finally {
      stopRecording();
    }
    await countedD1(env.DB, { queries: 0, roundTrips: 0 }).prepare('SELECT 2').first();
    expect(log).toEqual([{ sql: 'SELECT ?1 AS x', params: [7] }]);
  });
});

describe('the D1 wrapper refuses what production D1 refuses', () => {
  const d1 = () => countedD1(env.DB, { queries: 0, roundTrips: 0 });

  it(`refuses more than ${D1_LIMITS.maxBoundParameters} bound parameters`, async () => {
    const params = Array.from({ length: 101 }, (_, i) => i);
    const sql = `SELECT ${params.map(() => '?').join(' + ')} AS s`;
    expect(() =>
      d1()
        .prepare(sql)
        .bind(...params),
    ).toThrow(D1LimitError);
    expect(() =>
      d1()
        .prepare(sql)
        .bind(...params),
    ).toThrow(/101 bound parameters, over the 100-parameter limit/);
    const ok = params.slice(0, 100);
    const fine = await d1()
      .prepare(`SELECT ${ok.map(() => '?').join(' + ')} AS s`)
      .bind(...ok)
      .first<{ s: number }>();
    expect(fine?.s).toBe(4950);
  });

  it('refuses a statement longer than 100 KB', async () => {
    const sql = `SELECT '${'x'.repeat(100_001)}' AS s`;
    expect(() => d1().prepare(sql)).toThrow(/bytes, over the 100000-byte statement length limit/);
    // Multi-byte text counts in UTF-8 bytes: 40,000 × 3 bytes is over, 40,000 characters is not.
    expect(() => d1().prepare(`SELECT '${'€'.repeat(40_000)}'`)).toThrow(D1LimitError);
    await expect(
      d1()
        .prepare(`SELECT '${'x'.repeat(90_000)}' AS s`)
        .first(),
    ).resolves.toBeTruthy();
  });

  it('refuses a string or blob value over 1 MB, in a batch too', async () => {
    await table();
    const big = 'x'.repeat(D1_LIMITS.maxValueBytes + 1);
    const db = d1();
    expect(() => db.prepare('INSERT INTO wrapper_t (v) VALUES (?)').bind(big)).toThrow(
      /bound value 1 is 1000001 bytes, over the 1000000-byte limit/,
    );
    expect(() => db.prepare('INSERT INTO wrapper_t (v) VALUES (?)').bind(new Uint8Array(1_000_001))).toThrow(
      D1LimitError,
    );
    expect(() => db.prepare('INSERT INTO wrapper_t (v) VALUES (?)').bind('é'.repeat(500_001))).toThrow(
      D1LimitError,
    );
    await db.prepare('INSERT INTO wrapper_t (v) VALUES (?)').bind('x'.repeat(D1_LIMITS.maxValueBytes)).run();
    const stored = await env.DB.prepare('SELECT length(v) AS n FROM wrapper_t').first<{ n: number }>();
    expect(stored?.n).toBe(1_000_000);
  });
});
