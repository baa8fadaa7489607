import { env, runInDurableObject } from 'cloudflare:test';
import cube from '@cubejs-client/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploymentStore } from '../../src/sources/deployment-store';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import {
  CLIENT_API_URL,
  cubeToken,
  deployModel,
  load,
  loadShopIntoStore,
  pgRows,
  routeClientToWorker,
  shopModel,
  shopOnBothStores,
  usePostgres,
} from './fixtures';

const MANAGER = { cubeCloud: { groups: ['managers'] } };

/** Hand-written SQL on a deployment's own embedded store. */
async function storeRows(deploymentId: number, sql: string): Promise<Record<string, unknown>[]> {
  return runInDurableObject(deploymentStore(env, deploymentId), async (_instance, state) =>
    state.storage.sql.exec(sql).toArray(),
  );
}

const rowsOf = (data: Record<string, unknown>[], keys: string[]) =>
  data.map((row) => keys.map((k) => (row[k] === null || row[k] === undefined ? null : String(row[k]))));
const textRows = (rows: Record<string, unknown>[]) =>
  rows.map((row) => Object.values(row).map((v) => (v === null ? null : String(v))));

let acme: SeededAccount;
let storeDeployment: number;
let schema: string;
let storeToken: string;
let pgToken: string;

let restoreFetch = () => {};

beforeAll(async () => {
  acme = await seedAccount();
  ({ store: storeDeployment, schema, storeToken, pgToken } = await shopOnBothStores(acme, MANAGER));
  restoreFetch = routeClientToWorker();
});

afterAll(() => restoreFetch());

describe('the embedded store', () => {
  it('answers a join and a time dimension as SQL written by hand on the same store', async () => {
    const res = await load(storeToken, {
      measures: ['orders.count', 'orders.total_amount'],
      dimensions: ['users.country'],
      order: { 'users.country': 'asc' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = await storeRows(
      storeDeployment,
      `SELECT u.country, count(*), sum(o.amount) FROM orders o LEFT JOIN users u ON u.id = o.user_id
       GROUP BY u.country ORDER BY u.country IS NULL, u.country`,
    );
    expect(rowsOf(res.body.data, ['users.country', 'orders.count', 'orders.total_amount'])).toEqual(
      textRows(expected),
    );

    const months = await load(storeToken, {
      measures: ['orders.count'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
      ],
    });
    expect(months.status, JSON.stringify(months.body)).toBe(200);
    const byMonth = await storeRows(
      storeDeployment,
      `SELECT strftime('%Y-%m-01T00:00:00.000', created_at), count(*) FROM orders
       WHERE created_at >= '2024-01-01' AND created_at < '2024-04-01' GROUP BY 1 ORDER BY 1`,
    );
    expect(rowsOf(months.body.data, ['orders.created_at.month', 'orders.count'])).toEqual(textRows(byMonth));
  });

  it("compares the single-date operators with the date's start, as SQL written on the tie instants", async () => {
    // Orders 1, 3 and 7 sit exactly on a UTC midnight; order 2 is the last second of 31 January.
    const cases = [
      ['afterDate', '2024-01-31', 'UTC', '>', '2024-01-31T00:00:00Z'],
      ['afterOrOnDate', '2024-01-31', 'UTC', '>=', '2024-01-31T00:00:00Z'],
      ['beforeDate', '2024-01-31', 'UTC', '<', '2024-01-31T00:00:00Z'],
      ['beforeOrOnDate', '2024-01-31', 'UTC', '<=', '2024-01-31T00:00:00Z'],
      ['afterDate', '2024-02-01', 'UTC', '>', '2024-02-01T00:00:00Z'],
      ['afterOrOnDate', '2024-02-01', 'UTC', '>=', '2024-02-01T00:00:00Z'],
      ['beforeDate', '2024-02-01', 'UTC', '<', '2024-02-01T00:00:00Z'],
      ['beforeOrOnDate', '2024-02-01', 'UTC', '<=', '2024-02-01T00:00:00Z'],
      // 1 February starts at 15:00Z on 31 January in Tokyo (UTC+9, no daylight saving).
      ['afterDate', '2024-02-01', 'Asia/Tokyo', '>', '2024-01-31T15:00:00Z'],
      ['beforeOrOnDate', '2024-02-01', 'Asia/Tokyo', '<=', '2024-01-31T15:00:00Z'],
      ['afterDate', '2024-01-31T23:59:59', 'UTC', '>', '2024-01-31T23:59:59Z'],
      ['afterOrOnDate', '2024-01-31T23:59:59', 'UTC', '>=', '2024-01-31T23:59:59Z'],
    ] as const;
    for (const [operator, value, timezone, sign, instant] of cases) {
      const res = await load(storeToken, {
        dimensions: ['orders.id'],
        filters: [{ member: 'orders.created_at', operator, values: [value] }],
        order: { 'orders.id': 'asc' },
        timezone,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const expected = await storeRows(
        storeDeployment,
        `SELECT id FROM orders WHERE julianday(created_at) ${sign} julianday('${instant}') ORDER BY id`,
      );
      expect(rowsOf(res.body.data, ['orders.id']), `${operator} ${value} ${timezone}`).toEqual(
        textRows(expected),
      );
    }
  });

  it('takes any offset up to 2^53 - 1, and names a larger one in a 400', async () => {
    const byStatus = { measures: ['orders.count'], dimensions: ['orders.status'] };
    const last = await load(storeToken, { ...byStatus, offset: 2 ** 53 - 1 });
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body.data).toEqual([]);
    // SQLite refused an OFFSET past 2^63 - 1 as a datatype mismatch, blamed on the model's SQL.
    const past = await load(storeToken, { ...byStatus, offset: 2 ** 63 });
    expectError(past, 400, 'VALIDATION_FAILED');
    expect(past.body.details[0].path).toBe('query.offset');
  });

  it('does not double count across a one-to-many join', async () => {
    const res = await load(storeToken, {
      measures: ['orders.total_amount'],
      dimensions: ['line_items.product'],
      order: { 'line_items.product': 'asc' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = await storeRows(
      storeDeployment,
      `SELECT p.product, sum(o.amount) FROM orders o
       LEFT JOIN (SELECT DISTINCT order_id, product FROM line_items) p ON p.order_id = o.id
       GROUP BY p.product ORDER BY p.product IS NULL, p.product`,
    );
    expect(rowsOf(res.body.data, ['line_items.product', 'orders.total_amount'])).toEqual(textRows(expected));
  });

  it("answers Cube's computed measures (their SQL the whole aggregate) and count_distinct_approx on both stores, typed in /meta", async () => {
    const query = {
      measures: ['orders.raw_amount', 'orders.last_order', 'orders.customers_approx'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' },
    };
    const expected = {
      store: await storeRows(
        storeDeployment,
        `SELECT status, sum(amount), strftime('%Y-%m-%dT%H:%M:%f', max(created_at)), count(DISTINCT user_id)
         FROM orders GROUP BY status ORDER BY status`,
      ),
      postgres: await pgRows(
        `SELECT status, sum(amount), to_char(max(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS'),
           count(DISTINCT user_id) FROM ${schema}.orders GROUP BY status ORDER BY status`,
      ),
    };
    for (const [token, rows] of [
      [storeToken, expected.store],
      [pgToken, expected.postgres],
    ] as const) {
      const res = await load(token, query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const numeric = (r: (string | null)[]) => [r[0], Number(r[1]), r[2], r[3]];
      const columns = ['orders.status', 'orders.raw_amount', 'orders.last_order', 'orders.customers_approx'];
      expect(rowsOf(res.body.data, columns).map(numeric)).toEqual(textRows(rows).map(numeric));
      expect(res.body.annotation.measures['orders.last_order'].type).toBe('time');
      expect(res.body.annotation.measures['orders.raw_amount'].type).toBe('number');
      const meta = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: token } });
      const measures = meta.body.cubes.find((c: { name: string }) => c.name === 'orders').measures;
      const typed = (name: string) => measures.find((m: { name: string }) => m.name === name);
      expect(typed('orders.last_order')).toMatchObject({ type: 'time', aggType: 'time' });
      expect(typed('orders.raw_amount')).toMatchObject({ type: 'number', aggType: 'number' });
      expect(typed('orders.customers_approx')).toMatchObject({
        type: 'number',
        aggType: 'countDistinctApprox',
      });
    }
  });

  it("answers a dimension defined by Cube's case (when conditions and labels, an else) on both stores", async () => {
    const query = {
      measures: ['orders.count'],
      dimensions: ['orders.size'],
      order: { 'orders.size': 'asc' },
    };
    const bySize = (table: string) =>
      `SELECT CASE WHEN amount < 50 THEN 'small' WHEN amount < 100 THEN 'it''s medium' ELSE 'large' END AS size,
         count(*) FROM ${table} GROUP BY 1 ORDER BY 1`;
    for (const [token, rows] of [
      [storeToken, await storeRows(storeDeployment, bySize('orders'))],
      [pgToken, await pgRows(bySize(`${schema}.orders`))],
    ] as const) {
      const res = await load(token, query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(rowsOf(res.body.data, ['orders.size', 'orders.count'])).toEqual(textRows(rows));
      expect(rowsOf(res.body.data, ['orders.size']).flat()).toContain("it's medium");
    }
  });

  it('filters a string dimension over a numeric expression by its values on both stores, as PostgreSQL compares them', async () => {
    // SQLite gives an expression no column affinity: `user_id + 0` is a number that the text '2'
    // never equals there, where PostgreSQL reads the text as the expression's type.
    const refsModel = (prefix: string) => `cubes:
  - name: refs
    sql_table: ${prefix}orders
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: user_ref
        sql: "{CUBE}.user_id + 0"
        type: string
      - name: amount_ref
        sql: "{CUBE}.amount + 0"
        type: string
      - name: user_col
        sql: user_id
        type: string
      - name: status_ref
        sql: "{CUBE}.status || ''"
        type: string
`;
    const other = await seedAccount();
    const [store, pg] = other.deployments;
    await loadShopIntoStore(other.admin, store);
    await deployModel(other.admin, store, refsModel(''));
    await usePostgres(other.admin, pg);
    await deployModel(other.admin, pg, refsModel(`${schema}.`));
    const tokens = [await cubeToken(other.admin, store, MANAGER), await cubeToken(other.admin, pg, MANAGER)];
    const cases = [
      ['user_ref', 'equals', ['2'], 'user_id + 0 = 2'],
      ['user_ref', 'equals', ['02'], 'user_id + 0 = 2'],
      ['user_ref', 'equals', ['1', '4'], 'user_id + 0 IN (1, 4)'],
      ['user_ref', 'notEquals', ['2'], 'user_id + 0 <> 2 OR user_id IS NULL'],
      ['user_ref', 'notEquals', ['1', '4', null], 'user_id + 0 NOT IN (1, 4)'],
      ['amount_ref', 'equals', ['20'], 'amount + 0 = 20'],
      ['amount_ref', 'equals', ['55.25', null], 'amount + 0 = 55.25 OR amount IS NULL'],
      ['user_col', 'equals', ['3'], 'user_id = 3'],
      ['status_ref', 'equals', ['100'], 'false'],
      ['status_ref', 'equals', ['100%_done'], "status = '100%_done'"],
    ] as const;
    for (const [dimension, operator, values, where] of cases) {
      const expected = (await pgRows(`SELECT id FROM ${schema}.orders WHERE ${where} ORDER BY id`)).map((r) =>
        String(r.id),
      );
      for (const token of tokens) {
        const res = await load(token, {
          dimensions: ['refs.id'],
          filters: [{ member: `refs.${dimension}`, operator, values }],
          order: { 'refs.id': 'asc' },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(rowsOf(res.body.data, ['refs.id']).flat(), `${dimension} ${operator} ${values}`).toEqual(
          expected,
        );
      }
    }
  });

  it("keeps each deployment's data to itself: a model cannot read another deployment's tables", async () => {
    const other = await seedAccount();
    const theirs = other.deployments[0];
    // Their model names our table names; their store has none of our rows.
    await deployModel(other.admin, theirs, shopModel(''));
    const token = await cubeToken(other.admin, theirs, MANAGER);
    const res = await load(token, { measures: ['orders.count'] });
    expect(res.status).not.toBe(200);
    expect(JSON.stringify(res.body)).not.toContain('"8"');
  });
});

describe('@cubejs-client/core, unchanged', () => {
  for (const store of ['embedded', 'postgres'] as const) {
    it(`loads, reads meta and sql against the ${store} store`, async () => {
      const token = store === 'embedded' ? storeToken : pgToken;
      const api = cube(token, { apiUrl: CLIENT_API_URL });
      const resultSet = await api.load({
        measures: ['orders.count', 'orders.total_amount'],
        dimensions: ['users.country'],
        timeDimensions: [
          { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-12-31'] },
        ],
        filters: [{ member: 'orders.status', operator: 'equals', values: ['completed'] }],
        order: { 'users.country': 'asc', 'orders.created_at': 'asc' },
      });
      const rows = resultSet.tablePivot();
      const handSql =
        store === 'embedded'
          ? `SELECT u.country, strftime('%Y-%m-01T00:00:00.000', o.created_at) AS month, count(*), sum(o.amount)
             FROM orders o LEFT JOIN users u ON u.id = o.user_id WHERE o.status = 'completed'
             GROUP BY 1, 2 ORDER BY u.country IS NULL, u.country, 2`
          : `SELECT u.country, to_char(date_trunc('month', o.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS month,
               count(*), sum(o.amount)
             FROM ${schema}.orders o LEFT JOIN ${schema}.users u ON u.id = o.user_id WHERE o.status = 'completed'
             GROUP BY 1, 2 ORDER BY u.country NULLS LAST, 2`;
      const expected =
        store === 'embedded' ? await storeRows(storeDeployment, handSql) : await pgRows(handSql);
      expect(
        rows.map((r) => [
          r['users.country'] ?? null,
          r['orders.created_at.month'],
          String(r['orders.count']),
          String(r['orders.total_amount']),
        ]),
      ).toEqual(textRows(expected));

      const meta = await api.meta();
      expect(meta.cubes.map((c) => c.name)).toContain('orders');
      const sql = await api.sql({
        measures: ['orders.count'],
        filters: [{ member: 'orders.status', operator: 'equals', values: ['completed'] }],
      });
      expect(sql.sql()).toMatch(/select/i);
      expect(sql.rawQuery().sql[1]).toContain('completed');
    });
  }
});
