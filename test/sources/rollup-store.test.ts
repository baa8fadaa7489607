import { env, runInDurableObject } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/core/env';
import type { PartitionBuildQuery } from '../../src/semantic/model/pre-aggregations.types';
import type { DataSourceConfig } from '../../src/sources/data-source';
import { type DeploymentStore, deploymentStore } from '../../src/sources/deployment-store';
import { buildPartition } from '../../src/sources/rollup-build';
import {
  physicalTableOf,
  ROLLUP_LIMITS,
  ROLLUP_TABLE_PREFIX,
  RollupBuildError,
  RollupStore,
} from '../../src/sources/rollup-store';
import { pgClient, postgresSettings } from '../data-api/fixtures';

/**
 * Pre-aggregation partitions in the deployment's store: builds from both sources, the atomic
 * swap and its version guard, failures halfway, and the bounds. Build queries are written by
 * hand here, in the shape the model compiler hands the builder.
 */

const bindings = env as Bindings;
const EMBEDDED: DataSourceConfig = { type: 'embedded' };
const postgres = (): DataSourceConfig => {
  const pg = postgresSettings();
  return {
    type: 'postgres',
    host: pg.host,
    port: String(pg.port),
    database: pg.database,
    user: pg.user,
    password: pg.password,
  };
};

const COLUMNS: PartitionBuildQuery['columns'] = [
  { name: 'orders__status', type: 'text' },
  { name: 'orders__created_at_month', type: 'timestamp' },
  { name: 'orders__count', type: 'integer' },
  { name: 'orders__total_amount', type: 'real' },
];

const storeQuery = (sql: string, version = 'orders_main'): PartitionBuildQuery => ({
  preAggregation: 'orders.main',
  tableName: `prod_pre_aggregations.${version}`,
  timezone: 'UTC',
  sql,
  params: [],
  dialect: 'sqlite',
  columns: COLUMNS,
  indexes: [{ name: 'by_status', columns: ['orders__status'] }],
});

const STORE_BUILD = `SELECT status AS orders__status,
    strftime('%Y-%m-01T00:00:00.000Z', created_at) AS orders__created_at_month,
    count(*) AS orders__count, sum(amount) AS orders__total_amount
  FROM orders GROUP BY 1, 2`;

const ORDERS_CSV = [
  'id,status,amount,created_at',
  '1,completed,100.5,2024-01-01T00:00:00.000Z',
  '2,completed,20,2024-01-31T23:59:59.000Z',
  '3,pending,55.25,2024-02-01T00:00:00.000Z',
  "4,O'Brien's,20,2024-02-15T12:30:00.000Z",
  '5,cancelled,,2024-03-10T07:00:00.000Z',
].join('\n');

const DEF = 'def1';
const stub = (id: number) => deploymentStore(bindings, id);

/** The store's own tables whose names start with the reserved prefix (registry, partitions, staging). */
async function rollupTables(id: number): Promise<string[]> {
  return runInDurableObject(stub(id), (_: DeploymentStore, state) =>
    state.storage.sql
      .exec<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '\\_preagg\\_%' ESCAPE '\\' ORDER BY name`,
      )
      .toArray()
      .map((r) => r.name),
  );
}

async function servedRows(id: number, tableName: string, timezone = 'UTC') {
  const physical = physicalTableOf(tableName, timezone);
  const answer = await stub(id).queryRollups(
    `SELECT * FROM "${physical}" ORDER BY 1, 2`,
    [],
    [{ tableName, timezone, definition: DEF }],
    1_000,
  );
  return answer as
    | {
        rows: Record<string, unknown>[];
        partitions: { tableName: string; version: number; builtAt: string }[];
      }
    | { notBuilt: string };
}

describe('partitions built from the embedded store', () => {
  it('builds with INSERT … SELECT, swaps versions in, and answers a redelivered or late build with nothing', async () => {
    const id = 7001;
    await stub(id).importCsv({ table: 'orders', csv: ORDERS_CSV, mode: 'replace' });
    const build = storeQuery(STORE_BUILD);
    expect(await servedRows(id, build.tableName)).toEqual({ notBuilt: build.tableName });

    const first = await buildPartition(bindings, id, EMBEDDED, DEF, build, 1);
    expect(first).toMatchObject({ state: 'swapped', version: 1, rows: 4 });
    const served = await servedRows(id, build.tableName);
    expect(served).toEqual({
      rows: [
        {
          orders__status: "O'Brien's",
          orders__created_at_month: '2024-02-01T00:00:00.000Z',
          orders__count: 1,
          orders__total_amount: 20,
        },
        {
          orders__status: 'cancelled',
          orders__created_at_month: '2024-03-01T00:00:00.000Z',
          orders__count: 1,
          orders__total_amount: null,
        },
        {
          orders__status: 'completed',
          orders__created_at_month: '2024-01-01T00:00:00.000Z',
          orders__count: 2,
          orders__total_amount: 120.5,
        },
        {
          orders__status: 'pending',
          orders__created_at_month: '2024-02-01T00:00:00.000Z',
          orders__count: 1,
          orders__total_amount: 55.25,
        },
      ],
      partitions: [{ tableName: build.tableName, version: 1, builtAt: expect.any(String) }],
    });

    // New data, a newer version: swapped in. The same version again (a redelivery) and an older
    // one (a late message) change nothing.
    await stub(id).importCsv({
      table: 'orders',
      csv: 'id,status,amount,created_at\n6,pending,1,2024-02-02T00:00:00.000Z\n',
      mode: 'append',
    });
    expect(await buildPartition(bindings, id, EMBEDDED, DEF, build, 2)).toMatchObject({
      state: 'swapped',
      version: 2,
    });
    expect(await buildPartition(bindings, id, EMBEDDED, DEF, build, 2)).toEqual({
      state: 'current',
      version: 2,
    });
    expect(await buildPartition(bindings, id, EMBEDDED, DEF, build, 1)).toEqual({
      state: 'current',
      version: 2,
    });
    const after = await servedRows(id, build.tableName);
    expect('rows' in after && after.rows.find((r) => r.orders__status === 'pending')).toMatchObject({
      orders__count: 2,
    });
    expect(await stub(id).listPartitions()).toEqual([
      {
        tableName: build.tableName,
        timezone: 'UTC',
        preAggregation: 'orders.main',
        definition: DEF,
        physical: physicalTableOf(build.tableName, 'UTC'),
        version: 2,
        buildingVersion: 2,
        rows: 4,
        bytes: expect.any(Number),
        builtAt: expect.any(String),
        buildMs: expect.any(Number),
        lastError: null,
        lastErrorAt: null,
        range: null,
      },
    ]);
    // Registry and one partition table: no staging table is left behind; the index came along.
    const physical = physicalTableOf(build.tableName, 'UTC');
    expect(await rollupTables(id)).toEqual([physical, '_preagg_partitions'].sort());
    const indexes = await runInDurableObject(
      stub(id),
      (_: DeploymentStore, state) =>
        state.storage.sql
          .exec<{ n: number }>(`SELECT count(*) AS n FROM pragma_index_list(?)`, physical)
          .one().n,
    );
    expect(indexes).toBe(1);
    // A model whose rollup changed since (another definition) is not served the old columns.
    expect(
      await stub(id).queryRollups(
        'SELECT 1',
        [],
        [{ tableName: build.tableName, timezone: 'UTC', definition: 'changed' }],
        10,
      ),
    ).toEqual({ notBuilt: build.tableName });
    // The tenant's own tables never list the store's rollup tables.
    expect((await stub(id).listTables()).map((t) => t.name)).toEqual(['orders']);
  });

  it('keeps the last good partition serving when a build throws halfway', async () => {
    const id = 7002;
    await stub(id).importCsv({ table: 'orders', csv: ORDERS_CSV, mode: 'replace' });
    const good = storeQuery(STORE_BUILD);
    await buildPartition(bindings, id, EMBEDDED, DEF, good, 1);
    const before = await servedRows(id, good.tableName);
    // json() fails on the fourth row: SQLite has inserted three when the statement fails.
    const failing = storeQuery(
      `SELECT status AS orders__status, created_at AS orders__created_at_month,
         CASE WHEN id = 4 THEN json('not json') ELSE 1 END AS orders__count, amount AS orders__total_amount
       FROM orders ORDER BY id`,
    );
    const outcome = await buildPartition(bindings, id, EMBEDDED, DEF, failing, 2);
    expect(outcome).toEqual({ state: 'failed', message: 'orders.main: malformed JSON' });
    expect(await servedRows(id, good.tableName)).toEqual(before);
    const [record] = (await stub(id).listPartitions()) as { version: number; lastError: string | null }[];
    expect(record).toMatchObject({ version: 1, lastError: expect.stringContaining('malformed JSON') });
    expect(await rollupTables(id)).toEqual(
      [physicalTableOf(good.tableName, 'UTC'), '_preagg_partitions'].sort(),
    );
    // The next version builds and clears the error.
    expect(await buildPartition(bindings, id, EMBEDDED, DEF, good, 3)).toMatchObject({
      state: 'swapped',
      version: 3,
    });
    expect(await stub(id).listPartitions()).toMatchObject([{ version: 3, lastError: null }]);
  });

  it('refuses a build query that writes, and imports or drops of the reserved prefix', async () => {
    const id = 7003;
    await stub(id).importCsv({ table: 'orders', csv: ORDERS_CSV, mode: 'replace' });
    expect(
      await buildPartition(bindings, id, EMBEDDED, DEF, storeQuery('DELETE FROM orders RETURNING status'), 1),
    ).toEqual({ state: 'failed', message: expect.stringContaining('orders.main: Only SELECT') });
    expect(
      await buildPartition(bindings, id, EMBEDDED, DEF, storeQuery(`${STORE_BUILD}; DROP TABLE orders`), 1),
    ).toEqual({ state: 'failed', message: 'orders.main: Only one statement may be run at a time' });
    expect(
      await stub(id).importCsv({ table: `${ROLLUP_TABLE_PREFIX}x`, csv: 'a\n1\n', mode: 'replace' }),
    ).toEqual({
      error: { kind: 'INVALID', message: expect.stringContaining('reserved for pre-aggregations') },
    });
    expect(await stub(id).importCsv({ table: '_PREAGG_partitions', csv: 'a\n1\n', mode: 'replace' })).toEqual(
      {
        error: { kind: 'INVALID', message: expect.stringContaining('reserved for pre-aggregations') },
      },
    );
    expect(await stub(id).dropTable('_preagg_partitions')).toEqual({
      error: { kind: 'NOT_FOUND', message: 'No table _preagg_partitions' },
    });
    expect((await stub(id).queryRollups('SELECT 1 AS one', [], [], 10)) as unknown).toEqual({
      rows: [{ one: 1 }],
      partitions: [],
    });
  });
});

describe('concurrent attempts at one partition', () => {
  it('lets exactly one of two deliveries of the same version swap in, and never an older version', async () => {
    const id = 7004;
    await stub(id).importCsv({ table: 'orders', csv: ORDERS_CSV, mode: 'replace' });
    const spec = { ...storeQuery(STORE_BUILD), definition: DEF, version: 5 };
    const a = await stub(id).beginPartitionBuild(spec);
    const b = await stub(id).beginPartitionBuild(spec);
    if (!('state' in a) || a.state !== 'started' || !('state' in b) || b.state !== 'started')
      throw new Error('not begun');
    const attemptA = { ...spec, attempt: a.attempt };
    const attemptB = { ...spec, attempt: b.attempt };
    // A superseded attempt can write nothing more and cannot swap in.
    expect(
      await stub(id).appendPartitionRows(attemptA, [['x', '2024-01-01T00:00:00.000Z', 1, 1]], {
        rows: 0,
        bytes: 0,
      }),
    ).toEqual({
      error: { kind: 'BUILD', message: 'orders.main: the build of version 5 was superseded' },
    });
    expect(
      await stub(id).appendPartitionRows(attemptB, [['y', '2024-01-01T00:00:00.000Z', 2, 2.5]], {
        rows: 0,
        bytes: 0,
      }),
    ).toMatchObject({
      rows: 1,
    });
    expect(await stub(id).commitPartitionBuild(attemptA, { rows: 1, bytes: 10, buildMs: 1 })).toEqual({
      state: 'stale',
      version: 5,
    });
    expect(await stub(id).commitPartitionBuild(attemptB, { rows: 1, bytes: 10, buildMs: 1 })).toMatchObject({
      state: 'swapped',
      version: 5,
    });
    // Committing again (a retried call) changes nothing.
    expect(await stub(id).commitPartitionBuild(attemptB, { rows: 1, bytes: 10, buildMs: 1 })).toEqual({
      state: 'stale',
      version: 5,
    });
    // A late build of an older version, begun after, is told there is nothing to do.
    expect(await stub(id).beginPartitionBuild({ ...spec, version: 4 })).toEqual({
      state: 'current',
      version: 5,
    });
    expect(await servedRows(id, spec.tableName)).toMatchObject({
      rows: [{ orders__status: 'y', orders__count: 2 }],
    });
    expect(await rollupTables(id)).toEqual(
      [physicalTableOf(spec.tableName, 'UTC'), '_preagg_partitions'].sort(),
    );
  });
});

describe('bounds', () => {
  const small = {
    maxRowsPerPartition: 3,
    maxPartitionsPerRollup: 2,
    maxBytesPerDeployment: 400,
    maxRowBytes: 100,
  };
  const spec = (tableName: string, version = 1) => ({
    ...storeQuery(STORE_BUILD),
    definition: DEF,
    tableName,
    version,
  });

  it('exports the documented bounds', () => {
    expect(ROLLUP_LIMITS).toEqual({
      maxRowsPerPartition: 500_000,
      maxPartitionsPerRollup: 1_200,
      maxBytesPerDeployment: 2 * 1024 ** 3,
      maxRowBytes: 2 * 1024 ** 2 - 1024,
    });
  });

  it('fails a build past each bound, naming the rollup and the bound, and keeps nothing of it', async () => {
    const id = 7005;
    await stub(id).importCsv({ table: 'orders', csv: ORDERS_CSV, mode: 'replace' });
    const errors = await runInDurableObject(stub(id), (_: DeploymentStore, state) => {
      const store = new RollupStore(state.storage, small);
      const messageOf = (run: () => unknown) => {
        try {
          run();
          return null;
        } catch (err) {
          expect(err).toBeInstanceOf(RollupBuildError);
          return (err as Error).message;
        }
      };
      const p1 = store.begin(spec('t1'));
      if (p1.state !== 'started') throw new Error('not begun');
      const rows = messageOf(() =>
        store.fillFromQuery({ ...spec('t1'), attempt: p1.attempt }, STORE_BUILD, []),
      );
      store.begin(spec('t2'));
      const partitions = messageOf(() => store.begin(spec('t3')));
      const p2 = store.begin(spec('t2', 2));
      if (p2.state !== 'started') throw new Error('not begun');
      const wide = 'w'.repeat(120);
      const rowBytes = messageOf(() =>
        store.append({ ...spec('t2', 2), attempt: p2.attempt }, [[wide, '2024-01-01T00:00:00.000Z', 1, 1]], {
          rows: 0,
          bytes: 0,
        }),
      );
      const bytes = messageOf(() =>
        store.append(
          { ...spec('t2', 2), attempt: p2.attempt },
          [['a'.repeat(60), '2024-01-01T00:00:00.000Z', 1, 1]],
          { rows: 0, bytes: 380 },
        ),
      );
      return { rows, partitions, rowBytes, bytes };
    });
    expect(errors).toEqual({
      rows: 'orders.main: partition t1 has more than 3 rows (maxRowsPerPartition)',
      partitions: 'orders.main: more than 2 partitions (maxPartitionsPerRollup)',
      rowBytes: expect.stringMatching(/^orders\.main: a row of \d+ bytes exceeds 100 \(maxRowBytes\)$/),
      bytes: "orders.main: the deployment's rollups would exceed 400 bytes (maxBytesPerDeployment)",
    });
  });

  it('enforces the real row bound through the object: a partition one row over it fails and is dropped', async () => {
    const id = 7006;
    await stub(id).importCsv({ table: 'orders', csv: ORDERS_CSV, mode: 'replace' });
    const tooMany = storeQuery(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i <= ${ROLLUP_LIMITS.maxRowsPerPartition})
       SELECT 'x' AS orders__status, NULL AS orders__created_at_month, i AS orders__count, 0 AS orders__total_amount FROM n`,
    );
    expect(await buildPartition(bindings, id, EMBEDDED, DEF, tooMany, 1)).toEqual({
      state: 'failed',
      message: `orders.main: partition ${tooMany.tableName} has more than ${ROLLUP_LIMITS.maxRowsPerPartition} rows (maxRowsPerPartition)`,
    });
    expect(await rollupTables(id)).toEqual(['_preagg_partitions']);
    expect(await stub(id).listPartitions()).toMatchObject([
      { version: 0, physical: null, lastError: expect.any(String) },
    ]);
  });
});

describe('partitions built from PostgreSQL', () => {
  const schema = `rollup_${crypto.randomUUID().replace(/-/g, '').slice(0, 10)}`;
  beforeAll(async () => {
    const client = await pgClient();
    try {
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.query(
        `CREATE TABLE ${schema}.orders (id int, status text, amount numeric(10,2), created_at timestamptz)`,
      );
      // 5,000 orders: more than two pages of the build's cursor.
      await client.query(
        `INSERT INTO ${schema}.orders
         SELECT i, (ARRAY['completed','pending','O''Brien''s','Zoë'])[1 + i % 4], (i % 97) + 0.25,
                timestamptz '2024-01-01 00:00:00+00' + (i || ' hours')::interval
         FROM generate_series(1, 5000) i`,
      );
    } finally {
      await client.end();
    }
  });
  afterAll(async () => {
    const client = await pgClient();
    await client.query(`DROP SCHEMA ${schema} CASCADE`);
    await client.end();
  });

  const pgBuild = (sql: string, params: unknown[] = []): PartitionBuildQuery => ({
    ...storeQuery(''),
    tableName: 'prod_pre_aggregations.orders_main20240101',
    range: ['2024-01-01T00:00:00.000Z', '2024-12-31T23:59:59.999Z'],
    sql,
    params,
    dialect: 'postgres',
  });
  const PG_BUILD = (from: string) => `SELECT status AS orders__status,
      date_trunc('month', created_at) AS orders__created_at_month,
      count(*) AS orders__count, sum(amount) AS orders__total_amount
    FROM ${from} WHERE created_at >= $1 GROUP BY 1, 2 ORDER BY 1, 2`;

  it('pages the source into the store: the partition holds exactly the source rows', async () => {
    const id = 7101;
    const build = pgBuild(PG_BUILD(`${schema}.orders`), ['2024-01-01T00:00:00Z']);
    const outcome = await buildPartition(bindings, id, postgres(), DEF, build, 1);
    expect(outcome).toMatchObject({ state: 'swapped', version: 1 });
    const client = await pgClient();
    const source = await client.query(
      `SELECT status, to_char(date_trunc('month', created_at), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS month,
              count(*)::int AS n, sum(amount)::float8 AS total
       FROM ${schema}.orders GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    await client.end();
    const served = await servedRows(id, build.tableName);
    if (!('rows' in served)) throw new Error('not built');
    expect(served.rows).toEqual(
      source.rows.map((r) => ({
        orders__status: r.status,
        orders__created_at_month: r.month,
        orders__count: r.n,
        orders__total_amount: r.total,
      })),
    );
    expect(outcome).toMatchObject({ rows: source.rows.length });
  });

  it('keeps the last good partition when the source fails halfway through the pages', async () => {
    const id = 7102;
    const good = pgBuild(PG_BUILD(`${schema}.orders`), ['2024-01-01T00:00:00Z']);
    await buildPartition(bindings, id, postgres(), DEF, good, 1);
    const before = await servedRows(id, good.tableName);
    // Ungrouped rows fail on the 4,500th: two full pages were already written to the store.
    const failing = pgBuild(
      `SELECT status AS orders__status, created_at AS orders__created_at_month,
              1 / (4500 - id) AS orders__count, amount AS orders__total_amount
       FROM ${schema}.orders`,
    );
    const outcome = await buildPartition(bindings, id, postgres(), DEF, failing, 2);
    expect(outcome).toEqual({ state: 'failed', message: 'orders.main: division by zero' });
    expect(await servedRows(id, good.tableName)).toEqual(before);
    expect(await rollupTables(id)).toEqual(
      [physicalTableOf(good.tableName, 'UTC'), '_preagg_partitions'].sort(),
    );
    expect(await stub(id).listPartitions()).toMatchObject([
      { version: 1, lastError: 'orders.main: division by zero' },
    ]);
  });

  it('reads the source read-only: a build query that writes fails and changes nothing', async () => {
    const id = 7103;
    const writing = pgBuild(
      `WITH gone AS (DELETE FROM ${schema}.orders WHERE id = 1 RETURNING status)
       SELECT status AS orders__status, NULL::timestamptz AS orders__created_at_month, 1 AS orders__count, 1 AS orders__total_amount FROM gone`,
    );
    const outcome = await buildPartition(bindings, id, postgres(), DEF, writing, 1);
    expect(outcome).toMatchObject({ state: 'failed' });
    const client = await pgClient();
    const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${schema}.orders`);
    await client.end();
    expect(rows).toEqual([{ n: 5000 }]);
  });
});
