import { env, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/core/env';
import { dataRangeOf } from '../../src/pre-aggregations/rollup-compiler';
import { sqlite } from '../../src/semantic/dialects/sqlite';
import { compileModel } from '../../src/semantic/model/compile';
import type { CompiledModel } from '../../src/semantic/model/model.types';
import { deploymentStore } from '../../src/sources/deployment-store';
import { storeIndexesOf } from '../../src/sources/store-indexes';
import {
  csvOf,
  cubeToken,
  deployModel,
  load,
  loadShopIntoStore,
  shopModel,
  usePostgres,
} from '../data-api/fixtures';
import { seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';

/**
 * The embedded store indexes what the deployment's model joins on and filters by time: made by a
 * build for the tables already there, by an import for the table it fills, dropped when the
 * model stops asking for them.
 */

let world: World;
let admin: { bearer: string };
let deploymentId: number;
beforeAll(async () => {
  world = await seedWorld();
  admin = world.acme.admin;
  deploymentId = world.acme.deployments[0];
});

const SHOP_INDEXES = {
  line_items: [{ columns: ['order_id'], instant: false }],
  orders: [
    { columns: ['created_at'], instant: true },
    { columns: ['id'], instant: false },
    { columns: ['user_id'], instant: false },
  ],
  users: [{ columns: ['id'], instant: false }],
};

const MANAGER = { cubeCloud: { groups: ['managers'] } };
/** Line items of orders placed in 2024: a join and a date range. */
const IN_2024 = {
  measures: ['orders.count', 'line_items.quantity'],
  timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-01-01', '2024-12-31'] }],
};

/** The shop model (or `yaml`), compiled. */
function compiledShop(yaml = shopModel('')): CompiledModel {
  const compiled = compileModel([{ path: 'model/cubes/m.yml', content: yaml }]);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
  return compiled.model;
}

const byColumns = (a: { columns: string[] }, b: { columns: string[] }) =>
  a.columns.join().localeCompare(b.columns.join());

/** Each table's indexes as the store's listing shows them. */
async function listedIndexes(
  id = deploymentId,
): Promise<Record<string, { columns: string[]; instant: boolean }[]>> {
  const res = await api('GET', `/api/v1/deployments/${id}/data/tables`, { auth: admin });
  expect(res.status).toBe(200);
  const items = res.body.items as { name: string; indexes: { columns: string[]; instant: boolean }[] }[];
  return Object.fromEntries(items.map((t) => [t.name, [...t.indexes].sort(byColumns)]));
}

/** SQLite's plan for `sql` in the deployment's store, one line per step. */
function planOf(sql: string, params: unknown[], id = deploymentId): Promise<string> {
  const store = deploymentStore(env as Bindings, id);
  return runInDurableObject(store, async (_instance, state) =>
    state.storage.sql
      .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, ...(params as (string | number | null)[]))
      .toArray()
      .map((r) => r.detail)
      .join('\n'),
  );
}

/** The rows `sql` answers in the deployment's store. */
const rowsOf = (sql: string, params: unknown[] = []) =>
  runInDurableObject(deploymentStore(env as Bindings, deploymentId), async (_instance, state) =>
    state.storage.sql.exec(sql, ...(params as (string | number | null)[])).toArray(),
  );

const replaceTable = (table: 'orders' | 'users' | 'line_items', id = deploymentId) =>
  api('POST', `/api/v1/deployments/${id}/data/tables/${table}/import?mode=replace`, {
    auth: admin,
    rawBody: csvOf(table),
    headers: { 'content-type': 'text/csv' },
  });

describe('indexes of the embedded store', () => {
  it('a build indexes the join keys and time dimensions of the tables already imported', async () => {
    await loadShopIntoStore(admin, deploymentId);
    expect(await listedIndexes()).toEqual({ line_items: [], orders: [], users: [] });
    await deployModel(admin, deploymentId, shopModel(''));
    expect(await listedIndexes()).toEqual(SHOP_INDEXES);
  });

  it('the query planner uses them for the SQL a query compiles to: the join and the date range', async () => {
    const token = await cubeToken(admin, deploymentId, MANAGER);
    const planOfQuery = async (query: unknown) => {
      const qs = new URLSearchParams({ query: JSON.stringify(query) });
      const res = await api('GET', `/cubejs-api/v1/sql?${qs}`, { auth: { raw: token } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [sql, params] = (res.body.sql as { sql: [string, unknown[]] }).sql;
      expect(params.slice(0, 2)).toEqual(['2024-01-01 00:00:00.000', '2024-12-31 23:59:59.999']);
      return planOf(sql, params);
    };
    // The range reads orders by the instant index; line items are found by their order's id.
    const range = /SEARCH orders USING (COVERING )?INDEX _preagg_ix_\w+ \(<expr>>\? AND <expr><\?\)/;
    const byOrder = /SEARCH line_items USING INDEX _preagg_ix_\w+ \(order_id=\?\)/;
    const both = await planOfQuery(IN_2024);
    expect(both).toMatch(range);
    expect(both).toMatch(byOrder);
    expect(both).not.toMatch(/AUTOMATIC|SCAN line_items/);
    // Line items first, orders LEFT JOINed: the range on orders still drives the join, since the
    // filter says it needs an order (not every line item read, then its order looked up).
    const items = await planOfQuery({
      measures: ['line_items.quantity'],
      timeDimensions: [
        { dimension: 'orders.created_at', dateRange: ['2024-01-01', '2024-12-31'], granularity: 'month' },
      ],
    });
    expect(items).toMatch(range);
    expect(items).toMatch(byOrder);
    expect(items).not.toMatch(/AUTOMATIC|SCAN line_items|SCAN orders/);
    // Measures of both sides of a one-to-many join: the orders' keys are read apart, DISTINCT. With
    // the statistics the build sampled, SQLite searches the range for them too; without, it
    // scanned every order in id order.
    const fanOut = await planOfQuery({
      measures: ['orders.count', 'line_items.quantity'],
      timeDimensions: IN_2024.timeDimensions,
    });
    expect(fanOut.match(new RegExp(range.source, 'g'))).toHaveLength(2);
    expect(fanOut).not.toMatch(/AUTOMATIC|SCAN line_items|SCAN orders/);
  });

  it('answers stay the same with the indexes in place', async () => {
    const token = await cubeToken(admin, deploymentId, MANAGER);
    const res = await load(token, IN_2024);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [row] = res.body.data as Record<string, unknown>[];
    const expected = await runInDurableObject(
      deploymentStore(env as Bindings, deploymentId),
      async (_i, state) =>
        state.storage.sql
          .exec<{ orders: number; quantity: number }>(
            `SELECT (SELECT count(*) FROM orders WHERE created_at >= '2024-01-01' AND created_at < '2025-01-01') AS orders,
                  (SELECT sum(l.quantity) FROM line_items l JOIN orders o ON o.id = l.order_id
                    WHERE o.created_at >= '2024-01-01' AND o.created_at < '2025-01-01') AS quantity`,
          )
          .one(),
    );
    expect(expected.orders).toBeGreaterThan(0);
    expect(Number(row?.['orders.count'])).toBe(expected.orders);
    expect(Number(row?.['line_items.quantity'])).toBe(expected.quantity);
    // From the line items, orders LEFT JOINed: the range keeps the items of orders in 2024 only.
    const items = await load(token, {
      measures: ['line_items.quantity'],
      timeDimensions: IN_2024.timeDimensions,
    });
    expect(items.status, JSON.stringify(items.body)).toBe(200);
    expect(Number((items.body.data as Record<string, unknown>[])[0]?.['line_items.quantity'])).toBe(
      expected.quantity,
    );
  });

  it("a rollup's build range is read from the instant index, as Cube reads it: min and max over the dimension's cube", async () => {
    const [first, last] = await rowsOf(
      'SELECT min(created_at) AS edge FROM orders UNION ALL SELECT max(created_at) FROM orders',
    );
    const expected = [first, last].map((row) => new Date(String(row?.edge)).toISOString());
    const sent: string[] = [];
    const range = await dataRangeOf(
      compiledShop(),
      { timeDimension: 'orders.created_at' },
      sqlite,
      async (sql) => {
        sent.push(sql);
        expect(await planOf(sql, [])).toMatch(/^SEARCH orders USING COVERING INDEX _preagg_ix_\w+$/);
        return { rows: await rowsOf(sql) };
      },
    );
    expect(range).toEqual(expected);
    expect(sent.sort()).toEqual([
      `SELECT max(strftime('%Y-%m-%d %H:%M:%f', "orders".created_at)) AS edge FROM orders AS "orders"`,
      `SELECT min(strftime('%Y-%m-%d %H:%M:%f', "orders".created_at)) AS edge FROM orders AS "orders"`,
    ]);

    // A time dimension whose SQL reaches another cube goes through the query compiler, its joins included.
    const withOrderedAt = compiledShop(
      shopModel('').replace(
        '      - name: product\n',
        '      - name: ordered_at\n        sql: "{orders.created_at}"\n        type: time\n      - name: product\n',
      ),
    );
    const joined = await dataRangeOf(
      withOrderedAt,
      { timeDimension: 'line_items.ordered_at' },
      sqlite,
      async (sql, params) => {
        expect(sql).toContain('FROM line_items AS "line_items" LEFT JOIN orders AS "orders"');
        return { rows: await rowsOf(sql, params) };
      },
    );
    expect(joined).toEqual(expected);
  });

  it('an import that replaces a table makes its indexes again, with its rows and their statistics', async () => {
    const sampled = async () =>
      (await rowsOf('SELECT tbl, count(*) AS n FROM sqlite_stat1 GROUP BY tbl ORDER BY tbl')).map(
        (r) => `${r.tbl}: ${r.n}`,
      );
    expect(await sampled()).toEqual(['line_items: 1', 'orders: 3', 'users: 1']);
    for (const table of ['orders', 'line_items'] as const) {
      const res = await replaceTable(table);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect(await listedIndexes()).toEqual(SHOP_INDEXES);
    // The tables' statistics went with them, and were sampled again from the new rows.
    expect(await sampled()).toEqual(['line_items: 1', 'orders: 3', 'users: 1']);
    const appended = await api(
      'POST',
      `/api/v1/deployments/${deploymentId}/data/tables/orders/import?mode=append`,
      {
        auth: admin,
        rawBody: 'id,user_id,status,amount,country,created_at\n999,1,completed,5,FR,2026-01-01T00:00:00Z\n',
        headers: { 'content-type': 'text/csv' },
      },
    );
    expect(appended.status, JSON.stringify(appended.body)).toBe(200);
    expect((await listedIndexes()).orders).toEqual(SHOP_INDEXES.orders);
  });

  it('a table the model does not read, or lacks a column the model names, gets no index and no error', async () => {
    const other = await api('POST', `/api/v1/deployments/${deploymentId}/data/tables/notes/import`, {
      auth: admin,
      rawBody: 'id,order_id\n1,2\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(other.status).toBe(200);
    const narrow = await api('POST', `/api/v1/deployments/${deploymentId}/data/tables/users/import`, {
      auth: admin,
      rawBody: 'name,country\nAda,FR\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(narrow.status, JSON.stringify(narrow.body)).toBe(200);
    const listed = await listedIndexes();
    expect(listed.notes).toEqual([]);
    expect(listed.users).toEqual([]);
    expect((await replaceTable('users')).status).toBe(200);
    expect((await listedIndexes()).users).toEqual(SHOP_INDEXES.users);
  });

  it('a build of a model that no longer joins drops the indexes it no longer asks for', async () => {
    const withoutLineItems = shopModel('')
      .replace(
        /\n {6}- name: line_items\n {8}relationship: one_to_many\n {8}sql: "\{CUBE\}\.id = \{line_items\.order_id\}"/,
        '',
      )
      .replace(/ {2}- name: line_items\n[\s\S]*?(?=\nviews:)/, '');
    expect(withoutLineItems).not.toContain('line_items');
    await deployModel(admin, deploymentId, withoutLineItems);
    expect(await listedIndexes()).toEqual({
      ...SHOP_INDEXES,
      line_items: [],
      notes: [],
      orders: SHOP_INDEXES.orders.filter((i) => i.columns[0] !== 'id'),
    });
  });

  it('a deployment reading PostgreSQL leaves its store alone', async () => {
    const id = world.acme.deployments[1];
    await loadShopIntoStore(admin, id);
    await usePostgres(admin, id);
    await deployModel(admin, id, shopModel(''));
    const tables = await runInDurableObject(deploymentStore(env as Bindings, id), async (_i, state) =>
      state.storage.sql
        .exec<{ n: number }>(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'index'`)
        .one(),
    );
    expect(tables.n).toBe(0);
  });
});

describe('storeIndexesOf', () => {
  const indexesOf = (yaml: string) => {
    const compiled = compileModel([{ path: 'model/cubes/m.yml', content: yaml }]);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    return storeIndexesOf(compiled.model);
  };

  it('reads columns from each form of a join side, on tables of the store only', () => {
    const indexes = indexesOf(`cubes:
  - name: a
    sql_table: main.a
    joins:
      - name: b
        relationship: many_to_one
        sql: "{CUBE}.b_id = {b}.id AND {a.kind} = {b.kind}"
      - name: c
        relationship: many_to_one
        sql: "{CUBE}.c_id = {c.id}"
      - name: d
        relationship: many_to_one
        sql: "{CUBE}.d_id >= {d.id}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: kind
        sql: "{CUBE}.kind_code"
        type: string
      - name: at
        sql: "{CUBE}.created_at"
        type: time
      - name: day
        sql: "date({CUBE}.created_at)"
        type: time
    measures:
      - name: count
        type: count
  - name: b
    sql_table: '"b"'
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: kind
        sql: kind
        type: string
  - name: c
    sql: SELECT 1 AS id
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
  - name: d
    sql_table: other.d
    joins:
      - name: e
        relationship: many_to_one
        sql: "{CUBE}.id = {e.id}"
      - name: f
        relationship: many_to_one
        sql: "{CUBE}.id = {f.id}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
  - name: e
    sql_table: sqlite_master
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
  - name: f
    sql_table: _preagg_partitions
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
`);
    expect(indexes).toEqual([
      { table: 'a', columns: ['b_id', 'kind_code'], instant: false },
      { table: 'b', columns: ['id', 'kind'], instant: false },
      { table: 'a', columns: ['c_id'], instant: false },
      { table: 'a', columns: ['created_at'], instant: true },
    ]);
  });
});
