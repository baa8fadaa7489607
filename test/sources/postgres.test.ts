import { env } from 'cloudflare:test';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/core/env';
import { type DataSourceConfig, DataSourceError, openDataSource } from '../../src/sources/open-data-source';
import { pagePostgres } from '../../src/sources/postgres.source';
import { scramDerivations } from '../../src/sources/scram-keys';

/**
 * The postgres adapter against the run's real PostgreSQL server (test/global/postgres.setup.ts).
 * Fixtures are written with a plain pg client, never through the adapter.
 */
const server = JSON.parse(env.TEST_POSTGRES) as {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
};
const config: DataSourceConfig = {
  type: 'postgres',
  host: server.host,
  port: String(server.port),
  database: server.database,
  user: server.user,
  password: server.password,
};
const limits = { timeoutMs: 5_000, maxRows: 1_000 };
const SCHEMA = `sources_pg_${Math.random().toString(36).slice(2, 8)}`;

async function admin(sql: string) {
  const client = new pg.Client({ ...server });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function failure(promise: Promise<unknown>): Promise<DataSourceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(DataSourceError);
    return err as DataSourceError;
  }
  throw new Error('expected the run to fail');
}

beforeAll(async () => {
  await admin(`
    CREATE SCHEMA ${SCHEMA};
    CREATE TABLE ${SCHEMA}.orders (
      id integer PRIMARY KEY, city text, amount numeric(10,2), big bigint, ratio double precision,
      placed_at timestamptz, local_at timestamp, day date, paid boolean);
    INSERT INTO ${SCHEMA}.orders VALUES
      (1, 'Zürich', 12.50, 9007199254740993, 0.25, '2024-03-10 12:00:00+00', '2024-03-10 12:00:00.123456', '2024-03-10', true),
      (2, 'O''Hare', 7.00, -1, 1.5, '2024-03-10 23:30:00-05', '1999-12-31 23:59:59', '1999-12-31', false),
      (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);`);
});
afterAll(() => admin(`DROP SCHEMA ${SCHEMA} CASCADE`));

describe('postgres data source', () => {
  it('runs SQL with bound parameters: numeric and bigint as strings, timestamps as ISO UTC', async () => {
    const source = openDataSource(env as Bindings, 1, config);
    expect(source.dialect).toBe('postgres');
    const { rows } = await source.run(
      `SELECT id, city, amount, big, ratio, placed_at, local_at, day, paid FROM ${SCHEMA}.orders WHERE id = ANY($1::int[]) AND (city IS NULL OR city <> $2) ORDER BY id`,
      [[1, 2, 3], 'nowhere'],
      limits,
    );
    expect(rows).toEqual([
      {
        id: 1,
        city: 'Zürich',
        amount: '12.50',
        big: '9007199254740993',
        ratio: 0.25,
        placed_at: '2024-03-10T12:00:00.000Z',
        local_at: '2024-03-10T12:00:00.123Z',
        day: '2024-03-10T00:00:00.000Z',
        paid: true,
      },
      {
        id: 2,
        city: "O'Hare",
        amount: '7.00',
        big: '-1',
        ratio: 1.5,
        placed_at: '2024-03-11T04:30:00.000Z',
        local_at: '1999-12-31T23:59:59.000Z',
        day: '1999-12-31T00:00:00.000Z',
        paid: false,
      },
      {
        id: 3,
        city: null,
        amount: null,
        big: null,
        ratio: null,
        placed_at: null,
        local_at: null,
        day: null,
        paid: null,
      },
    ]);
  });

  it('works in UTC whatever the server or role time zone', async () => {
    const { rows } = await openDataSource(env as Bindings, 1, config).run(
      `SELECT current_setting('TimeZone') AS tz, date_trunc('day', placed_at) AS d FROM ${SCHEMA}.orders WHERE id = 2`,
      [],
      limits,
    );
    expect(rows).toEqual([{ tz: 'UTC', d: '2024-03-11T00:00:00.000Z' }]);
  });

  it('leaves values ISO text cannot hold as PostgreSQL wrote them; intervals as text', async () => {
    const { rows } = await openDataSource(env as Bindings, 1, config).run(
      `SELECT 'infinity'::timestamptz AS inf, '0044-03-15 12:00:00+00'::timestamptz AS old,
         '0044-03-15 BC'::date AS bc, interval '1 day 02:00' AS iv, ARRAY['2024-03-10'::date] AS days`,
      [],
      limits,
    );
    expect(rows).toEqual([
      {
        inf: 'infinity',
        old: '0044-03-15T12:00:00.000Z',
        bc: '0044-03-15 BC',
        iv: '1 day 02:00:00',
        days: '{2024-03-10}',
      },
    ]);
  });

  it('cuts the user, database and host out of a QUERY message', async () => {
    const err = await failure(
      openDataSource(env as Bindings, 1, config).run(
        'SELECT (current_user || $1)::int',
        [`@${server.host}`],
        limits,
      ),
    );
    expect(err.code).toBe('QUERY');
    expect(err.message).toMatch(/^invalid input syntax for type integer/);
    expect(err.message).not.toContain(server.user);
    expect(err.message).not.toContain(server.host);
  });

  it('cancels a query past its time limit: TIMEOUT', async () => {
    const started = Date.now();
    const err = await failure(
      openDataSource(env as Bindings, 1, config).run('SELECT pg_sleep(2)', [], {
        timeoutMs: 200,
        maxRows: 10,
      }),
    );
    expect(err.code).toBe('TIMEOUT');
    // The server's cancel at 200 ms, well before the client's own deadline (the limit + 1 s):
    // the time limit set with BEGIN in the query's round trip applies to the query.
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('runs one statement per query: a second, such as a COMMIT then a write, is refused', async () => {
    const source = openDataSource(env as Bindings, 1, config);
    for (const sql of ['SELECT 1; SELECT 2', `COMMIT; DELETE FROM ${SCHEMA}.orders`]) {
      const err = await failure(source.run(sql, [], limits));
      expect(err.code).toBe('QUERY');
      expect(err.message).toMatch(/multiple commands/);
    }
    const { rows } = await source.run(`SELECT count(*)::int AS n FROM ${SCHEMA}.orders`, [], limits);
    expect(rows).toEqual([{ n: 3 }]);
  });

  it('refuses more rows than maxRows: TOO_MANY_ROWS', async () => {
    const source = openDataSource(env as Bindings, 1, config);
    const err = await failure(
      source.run('SELECT g FROM generate_series(1, 50) g', [], { timeoutMs: 5_000, maxRows: 49 }),
    );
    expect(err.code).toBe('TOO_MANY_ROWS');
    const { rows } = await source.run('SELECT g FROM generate_series(1, 50) g', [], {
      timeoutMs: 5_000,
      maxRows: 50,
    });
    expect(rows).toHaveLength(50);
  });

  it('answers SQL errors as QUERY with the database message', async () => {
    const err = await failure(
      openDataSource(env as Bindings, 1, config).run('SELECT * FROM no_such_table', [], limits),
    );
    expect(err.code).toBe('QUERY');
    expect(err.message).toContain('relation "no_such_table" does not exist');
  });

  it('runs reads only', async () => {
    const err = await failure(
      openDataSource(env as Bindings, 1, config).run(`DELETE FROM ${SCHEMA}.orders`, [], limits),
    );
    expect(err.code).toBe('QUERY');
    expect(err.message).toMatch(/read-only/);
  });

  it('sends BEGIN READ ONLY, the time limit, UTC and COMMIT with the query: one round trip', async () => {
    const source = openDataSource(env as Bindings, 1, config);
    // Each round trip with the server ends in ReadyForQuery, whose status says whether a
    // transaction is still open ('T') or not ('I'): record the client's.
    const client = pg.Client.prototype as unknown as {
      _handleReadyForQuery: (...args: unknown[]) => unknown;
    };
    const original = client._handleReadyForQuery;
    const answers: string[] = [];
    client._handleReadyForQuery = function (this: unknown, ...args: unknown[]) {
      answers.push((args[0] as { status: string }).status);
      return original.apply(this, args);
    };
    try {
      const { rows } = await source.run(
        `SELECT current_setting('transaction_read_only') AS read_only,
           current_setting('statement_timeout') AS time_limit, current_setting('TimeZone') AS zone`,
        [],
        limits,
      );
      expect(rows).toEqual([{ read_only: 'on', time_limit: '5s', zone: 'UTC' }]);
    } finally {
      client._handleReadyForQuery = original;
    }
    // The login's, then the query's, after which the transaction is already committed.
    expect(answers).toEqual(['I', 'I']);
  });

  it("derives a SCRAM login's salted password once per salt, not on every connection", async () => {
    const source = openDataSource(env as Bindings, 1, config);
    const one = (n: number) => source.run('SELECT $1::int AS n', [n], limits);
    // Setting the password again (to the same value) gives the role a new salt, which nothing in
    // this isolate has derived for yet: the source's next login derives it, the ones after reuse it.
    await admin(`ALTER ROLE ${server.user} PASSWORD '${server.password}'`);
    const before = scramDerivations();
    expect((await one(1)).rows).toEqual([{ n: 1 }]);
    expect(scramDerivations()).toBe(before + 1);
    expect((await one(2)).rows).toEqual([{ n: 2 }]);
    expect((await one(3)).rows).toEqual([{ n: 3 }]);
    expect(scramDerivations()).toBe(before + 1);
    // Once more: a new salt is a new entry, never the old one.
    await admin(`ALTER ROLE ${server.user} PASSWORD '${server.password}'`);
    expect((await one(4)).rows).toEqual([{ n: 4 }]);
    expect(scramDerivations()).toBe(before + 2);
  });

  it('keeps salted passwords per login target: the same password and salt elsewhere derive again', async () => {
    // The same role, password and salt, but another database of the server: another target, whose
    // login must not find the first one's entry (a tenant's own server could send any salt).
    const here = openDataSource(env as Bindings, 1, config);
    const there = openDataSource(env as Bindings, 1, { ...config, database: 'postgres' });
    const one = (source: typeof here) => source.run('SELECT current_database() AS db', [], limits);
    await admin(`ALTER ROLE ${server.user} PASSWORD '${server.password}'`);
    const before = scramDerivations();
    expect((await one(here)).rows).toEqual([{ db: server.database }]);
    expect((await one(here)).rows).toEqual([{ db: server.database }]);
    expect(scramDerivations()).toBe(before + 1);
    expect((await one(there)).rows).toEqual([{ db: 'postgres' }]);
    expect(scramDerivations()).toBe(before + 2);
    expect((await one(there)).rows).toEqual([{ db: 'postgres' }]);
    expect((await one(here)).rows).toEqual([{ db: server.database }]);
    expect(scramDerivations()).toBe(before + 2);
  });

  it('a wrong password is a CONNECTION error naming neither the password nor the host', async () => {
    const password = 'wrong-password-7f3a9c';
    const err = await failure(
      openDataSource(env as Bindings, 1, { ...config, password }).run('SELECT 1', [], limits),
    );
    expect(err.code).toBe('CONNECTION');
    expect(err.message).toBe('Could not connect to the data source: authentication failed');
    for (const secret of [password, server.host, server.user, String(server.port)]) {
      expect(err.message).not.toContain(secret);
    }
  });

  it('a closed port is a CONNECTION error without the address', async () => {
    const err = await failure(
      openDataSource(env as Bindings, 1, { ...config, port: '1' }).run('SELECT 1', [], limits),
    );
    expect(err.code).toBe('CONNECTION');
    expect(err.message).toMatch(/^Could not connect to the data source: /);
    expect(err.message).not.toContain(server.host);
  });
});

describe('paged postgres reads (rollup builds)', () => {
  const pageLimits = { statementTimeoutMs: 5_000, totalTimeoutMs: 10_000, pageRows: 10 };
  const pgConfig = config as Parameters<typeof pagePostgres>[1];

  it('hands the rows over page by page, with bound parameters', async () => {
    const pages: number[][] = [];
    await pagePostgres(
      env as Bindings,
      pgConfig,
      'SELECT g FROM generate_series(1, $1::int) g ORDER BY g',
      [25],
      pageLimits,
      async (rows) => void pages.push(rows.map((r) => r.g as number)),
    );
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it("throws the page handler's own failure as it threw it, not as the source's", async () => {
    const full = new Error('the store is full');
    let pages = 0;
    const read = pagePostgres(
      env as Bindings,
      pgConfig,
      'SELECT g FROM generate_series(1, 30) g',
      [],
      pageLimits,
      async () => {
        pages += 1;
        throw full;
      },
    );
    await expect(read).rejects.toBe(full);
    expect(pages).toBe(1);
  });

  it('stops a read past its whole time limit: TIMEOUT', async () => {
    const err = await failure(
      pagePostgres(
        env as Bindings,
        pgConfig,
        'SELECT g, pg_sleep(0.2) FROM generate_series(1, 20) g',
        [],
        { statementTimeoutMs: 5_000, totalTimeoutMs: 300, pageRows: 1 },
        async () => {},
      ),
    );
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toBe('The build read longer than 300 ms');
  });

  it('reads only', async () => {
    const err = await failure(
      pagePostgres(
        env as Bindings,
        pgConfig,
        `SELECT id FROM ${SCHEMA}.orders FOR UPDATE`,
        [],
        pageLimits,
        async () => {},
      ),
    );
    expect(err.code).toBe('QUERY');
    expect(err.message).toMatch(/read-only/);
  });
});
