import { env } from 'cloudflare:test';
import pg from 'pg';
import { expect } from 'vitest';
import type { Dialect } from '../../src/semantic/dialects/dialect';
import { postgres } from '../../src/semantic/dialects/postgres';
import { sqlite } from '../../src/semantic/dialects/sqlite';
import type { CompiledModel } from '../../src/semantic/model/model.types';
import { normalizeQuery } from '../../src/semantic/query/normalize';
import { type CompiledQuery, compileQuery } from '../../src/semantic/query/plan';
import type { CubeQuery, NormalizedFilter } from '../../src/semantic/query/query.types';
import { shapeRows } from '../../src/semantic/query/results';
import { cube, model, view } from './model-fixture';

/**
 * One small shop, loaded into the real PostgreSQL and into SQLite (the test's D1): users, orders
 * (many to one users), line items (many to one orders and products), products. NULLs,
 * apostrophes, non-ASCII text, LIKE wildcards in names, tied amounts, timestamps exactly on day,
 * month and year boundaries and around both 2024 DST changes of America/New_York, and rows
 * around the fixed `NOW` the relative date ranges are resolved against. SQLite gets its times
 * in several ISO-8601 spellings (Z, offset, none) to hold the conversions to all of them.
 */

/** The `now` of every relative date range in the tests: Saturday 15 June 2024, noon UTC. */
export const NOW = new Date('2024-06-15T12:00:00Z');

const USERS: [number, string, string | null][] = [
  [1, 'Zoë', 'Paris'],
  [2, "O'Brien", 'Dublin'],
  [3, '東京 Taro', '東京'],
  [4, 'alice', null],
  [5, 'Bob_%', 'New York'],
  [6, 'Carol', 'New York'],
];

const ORDERS: [number, number | null, string | null, number | null, string | null][] = [
  [1, 1, 'completed', 100, '2024-01-31T23:59:59Z'],
  [2, 1, 'completed', 250, '2024-02-01 00:00:00'],
  [3, 2, 'pending', 100, '2023-12-31T23:00:00Z'],
  [4, 2, 'cancelled', 40, '2024-01-01T03:00:00Z'],
  [5, 3, 'completed', 75, '2024-03-08T23:59:59-05:00'],
  [6, 3, 'pending', null, '2024-03-10T06:30:00Z'],
  [7, 4, 'completed', 300, '2024-03-10T07:30:00Z'],
  [8, 4, null, 20, '2024-03-11 03:59:00'],
  [9, 5, 'completed', 60, '2024-03-11T04:00:00Z'],
  [10, 5, 'Completed', 60, '2024-11-03T05:30:00Z'],
  [11, null, 'pending', 15, '2024-11-03T06:30:00.000Z'],
  [12, 1, 'completed', 500, '2024-11-03 23:59:00-05:00'],
  [13, 2, 'completed', 80, '2024-11-04T05:00:00Z'],
  [14, 3, 'cancelled', 100, null],
  [15, 1, 'completed', 120, '2024-06-15T09:00:00Z'],
  [16, 2, 'pending', 45, '2024-06-14T18:00:00Z'],
  [17, 3, 'completed', 90, '2024-06-10T00:00:00Z'],
  [18, 4, 'completed', 33, '2024-06-09T23:59:59Z'],
  [19, 5, 'pending', 70, '2024-06-03T12:00:00Z'],
  [20, 1, 'completed', 210, '2024-05-31T23:30:00Z'],
  [21, 2, 'completed', 55, '2024-05-01T00:00:00Z'],
  [22, 3, 'cancelled', 95, '2024-04-15T10:00:00Z'],
  [23, 4, 'completed', 130, '2024-06-16T08:00:00Z'],
  [24, 5, 'completed', 44, '2024-07-01T00:00:00Z'],
  [25, 1, 'pending', 100, '2024-06-01T00:00:00Z'],
];

const LINE_ITEMS: [number, number, number | null, number, number][] = [
  [1, 1, 1, 2, 10],
  [2, 1, 2, 1, 80],
  [3, 2, 1, 5, 10],
  [4, 2, 3, 1, 200],
  [5, 2, 4, 3, 15],
  [6, 3, 2, 1, 100],
  [7, 5, 1, 3, 25],
  [8, 7, 3, 2, 150],
  [9, 7, null, 1, 0],
  [10, 9, 4, 4, 15],
  [11, 12, 2, 5, 100],
  [12, 13, 1, 8, 10],
  [13, 15, 3, 1, 120],
  [14, 20, 4, 6, 35],
  // Order 2 holds the widget twice: its amount must still count once per product.
  [15, 2, 1, 1, 10],
];

const PRODUCTS: [number, string, string | null][] = [
  [1, 'Widget', 'tools'],
  [2, 'Gadget 100%', 'tools'],
  [3, 'Thing_1', 'toys'],
  [4, 'Éclair', null],
];

const TABLES = {
  users: { columns: 'id INTEGER PRIMARY KEY, name TEXT, city TEXT', rows: USERS },
  orders: {
    columns: 'id INTEGER PRIMARY KEY, user_id INTEGER, status TEXT, amount INTEGER, created_at TIMESTAMPTZ',
    rows: ORDERS,
  },
  line_items: {
    columns: 'id INTEGER PRIMARY KEY, order_id INTEGER, product_id INTEGER, quantity INTEGER, price INTEGER',
    rows: LINE_ITEMS,
  },
  products: { columns: 'id INTEGER PRIMARY KEY, name TEXT, category TEXT', rows: PRODUCTS },
} as const;
type Table = keyof typeof TABLES;

/** The shop's model over tables named by `table`. */
export function shopModel(table: (name: Table) => string): CompiledModel {
  return model(
    [
      cube('users', {
        sqlTable: table('users'),
        dimensions: {
          id: { sql: 'id', type: 'number', primaryKey: true },
          name: { sql: 'name', type: 'string' },
          city: { sql: '{CUBE}.city', type: 'string' },
        },
        measures: { count: { type: 'count' } },
      }),
      cube('orders', {
        sqlTable: table('orders'),
        dimensions: {
          id: { sql: 'id', type: 'number', primaryKey: true },
          user_id: { sql: 'user_id', type: 'number' },
          status: { sql: 'status', type: 'string' },
          amount: { sql: 'amount', type: 'number' },
          created_at: { sql: 'created_at', type: 'time' },
          is_big: { sql: '{CUBE}.amount > 100', type: 'boolean' },
          status_label: { sql: "upper({status}) || '!'", type: 'string' },
          secret: { sql: 'id', type: 'number', public: false },
        },
        measures: {
          count: { type: 'count' },
          total_amount: { type: 'sum', sql: 'amount' },
          avg_amount: { type: 'avg', sql: '{CUBE}.amount' },
          min_amount: { type: 'min', sql: 'amount' },
          max_amount: { type: 'max', sql: 'amount' },
          distinct_users: { type: 'count_distinct', sql: 'user_id' },
          // Counted exactly: an exact count is within any approximation.
          distinct_users_approx: { type: 'count_distinct_approx', sql: 'user_id' },
          completed_count: { type: 'count', filters: ["{CUBE}.status = 'completed'"] },
          completed_amount: { type: 'sum', sql: 'amount', filters: ["{status} = 'completed'"] },
          amount_per_order: { type: 'number', sql: '1.0 * {total_amount} / NULLIF({count}, 0)' },
          // Cube's computed measures: their SQL is the whole aggregate, over columns and dimensions.
          raw_total: { type: 'number', sql: 'SUM({CUBE}.amount)' },
          net_amount: { type: 'number', sql: 'SUM({amount}) - {count}' },
          last_created: { type: 'time', sql: 'MAX(created_at)' },
          first_status: { type: 'string', sql: 'MIN({status})' },
          all_big: { type: 'boolean', sql: 'MIN(CASE WHEN {CUBE}.amount > 100 THEN 1 ELSE 0 END) = 1' },
        },
        segments: { completed: "{CUBE}.status = 'completed'", big: '{CUBE}.amount >= 100' },
        joins: {
          users: { relationship: 'many_to_one', sql: '{CUBE}.user_id = {users.id}' },
          line_items: { relationship: 'one_to_many', sql: '{CUBE}.id = {line_items}.order_id' },
        },
      }),
      cube('line_items', {
        sqlTable: table('line_items'),
        dimensions: {
          id: { sql: 'id', type: 'number', primaryKey: true },
          order_id: { sql: 'order_id', type: 'number' },
          quantity: { sql: 'quantity', type: 'number' },
        },
        measures: {
          count: { type: 'count' },
          total_quantity: { type: 'sum', sql: 'quantity' },
          revenue: { type: 'sum', sql: '{CUBE}.quantity * {CUBE}.price' },
          revenue_share: { type: 'number', sql: '1.0 * {revenue} / NULLIF({orders.total_amount}, 0)' },
        },
        joins: {
          orders: { relationship: 'many_to_one', sql: '{CUBE}.order_id = {orders.id}' },
          products: { relationship: 'many_to_one', sql: '{CUBE}.product_id = {products.id}' },
        },
      }),
      cube('products', {
        sql: `SELECT * FROM ${table('products')}`,
        dimensions: {
          id: { sql: 'id', type: 'number', primaryKey: true },
          name: { sql: 'name', type: 'string' },
          category: { sql: 'category', type: 'string' },
        },
        measures: { count: { type: 'count' } },
      }),
      cube('hidden', {
        sqlTable: table('users'),
        public: false,
        dimensions: { id: { sql: 'id', type: 'number' } },
      }),
    ],
    [
      view('customer_orders', {
        status: { target: 'orders.status', joinPath: ['orders'], kind: 'dimension' },
        count: { target: 'orders.count', joinPath: ['orders'], kind: 'measure' },
        total_amount: { target: 'orders.total_amount', joinPath: ['orders'], kind: 'measure' },
        created_at: { target: 'orders.created_at', joinPath: ['orders'], kind: 'dimension' },
        completed: { target: 'orders.completed', joinPath: ['orders'], kind: 'segment' },
        customer_name: { target: 'users.name', joinPath: ['orders', 'users'], kind: 'dimension' },
        customer_count: { target: 'users.count', joinPath: ['orders', 'users'], kind: 'measure' },
      }),
    ],
  );
}

export type DialectName = 'postgres' | 'sqlite';
export const DIALECTS: Record<DialectName, Dialect> = { postgres, sqlite };

/** The shop in both databases, and how to query each. */
export interface Shop {
  /** PostgreSQL schema / SQLite table prefix, unique to the test file. */
  schema: string;
  models: Record<DialectName, CompiledModel>;
  /** Runs hand-written SQL in which `{table}` names a shop table. */
  hand(dialect: DialectName, sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs compiled SQL. */
  execute(dialect: DialectName, sql: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export async function openShop(): Promise<Shop> {
  const schema = `q_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const client = new pg.Client(JSON.parse((env as unknown as { TEST_POSTGRES: string }).TEST_POSTGRES));
  client.on('error', () => {});
  await client.connect();
  await client.query("SET TIME ZONE 'UTC'");
  await client.query(`CREATE SCHEMA ${schema}`);
  const statements: D1PreparedStatement[] = [];
  for (const [name, { columns, rows }] of Object.entries(TABLES)) {
    await client.query(`CREATE TABLE ${schema}.${name} (${columns})`);
    statements.push(
      env.DB.prepare(`CREATE TABLE ${schema}_${name} (${columns.replace('TIMESTAMPTZ', 'TEXT')})`),
    );
    for (const row of rows) {
      const marks = row.map((_, index) => `$${index + 1}`).join(', ');
      await client.query(`INSERT INTO ${schema}.${name} VALUES (${marks})`, [...row]);
      statements.push(
        env.DB.prepare(`INSERT INTO ${schema}_${name} VALUES (${row.map(() => '?').join(', ')})`).bind(
          ...row,
        ),
      );
    }
  }
  await env.DB.batch(statements);
  const tableName = (dialect: DialectName, name: string) =>
    dialect === 'postgres' ? `${schema}.${name}` : `${schema}_${name}`;
  const execute = async (dialect: DialectName, sql: string, params: unknown[]) => {
    if (dialect === 'postgres') return (await client.query(sql, params)).rows as Record<string, unknown>[];
    return (
      await env.DB.prepare(sql)
        .bind(...params)
        .all<Record<string, unknown>>()
    ).results;
  };
  return {
    schema,
    models: {
      postgres: shopModel((name) => tableName('postgres', name)),
      sqlite: shopModel((name) => tableName('sqlite', name)),
    },
    hand: (dialect, sql, params = []) =>
      execute(
        dialect,
        sql.replace(/\{(\w+)\}/g, (_, name: string) => tableName(dialect, name)),
        params,
      ),
    execute,
    close: async () => {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

export interface RunOptions {
  extraFilters?: NormalizedFilter[];
  now?: Date;
}

/** Normalizes, compiles, runs and shapes a query in one dialect. */
export async function load(
  shop: Shop,
  dialect: DialectName,
  query: CubeQuery,
  options: RunOptions = {},
): Promise<{ data: Record<string, unknown>[]; compiled: CompiledQuery; total?: number }> {
  const shopModel = shop.models[dialect];
  const normalized = normalizeQuery(shopModel, query, { now: options.now ?? NOW });
  const compiled = compileQuery(shopModel, normalized, DIALECTS[dialect], {
    extraFilters: options.extraFilters,
  });
  const rows = await shop.execute(dialect, compiled.sql, compiled.params);
  const data = shapeRows(compiled, rows);
  if (!compiled.totalSql) return { data, compiled };
  const [totalRow] = await shop.execute(dialect, compiled.totalSql.sql, compiled.totalSql.params);
  return { data, compiled, total: Number(totalRow?.total) };
}

/**
 * Values of hand-written SQL rows as Cube answers them, written independently of `shapeRows`:
 * numbers as text, everything else as is.
 */
export function asCube(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        typeof value === 'number' || typeof value === 'bigint' ? String(value) : value,
      ]),
    ),
  );
}

const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/**
 * Rows equal but for how each database writes a decimal (`12.5000000000000000` and `12.5`):
 * numeric text compares as numbers (to 1e-9), all else exactly, in order.
 */
export function sameRows(actual: Record<string, unknown>[], expected: Record<string, unknown>[]): boolean {
  if (actual.length !== expected.length) return false;
  return actual.every((row, index) => {
    const other = expected[index] as Record<string, unknown>;
    const keys = Object.keys(row);
    if (keys.length !== Object.keys(other).length) return false;
    return keys.every((key) => {
      const a = row[key];
      const b = other[key];
      if (typeof a === 'string' && typeof b === 'string' && NUMBER.test(a) && NUMBER.test(b)) {
        return Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.max(1, Math.abs(Number(b)));
      }
      return a === b;
    });
  });
}

/** SQL written by hand: the same text for both databases, or one per database. */
export type HandSql = string | { postgres: string; sqlite?: string };

/**
 * Runs `query` in both dialects and holds each answer to the hand-written SQL's rows (in the
 * same database; in PostgreSQL when the SQL needs time zones SQLite lacks). Returns the answers.
 */
export async function expectMatches(
  shop: Shop,
  query: CubeQuery,
  hand: HandSql,
  options: RunOptions = {},
): Promise<Record<DialectName, Record<string, unknown>[]>> {
  const answers = {} as Record<DialectName, Record<string, unknown>[]>;
  for (const dialect of ['postgres', 'sqlite'] as const) {
    const { data } = await load(shop, dialect, query, options);
    const own = typeof hand === 'string' ? hand : hand[dialect];
    const expected = asCube(
      await shop.hand(
        own === undefined ? 'postgres' : dialect,
        own ?? (hand as { postgres: string }).postgres,
      ),
    );
    expect(
      sameRows(data, expected),
      `${dialect}:\n${JSON.stringify(data)}\nexpected:\n${JSON.stringify(expected)}`,
    ).toBe(true);
    answers[dialect] = data;
  }
  return answers;
}
