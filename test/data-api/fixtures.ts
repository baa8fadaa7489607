import { createMessageBatch, env } from 'cloudflare:test';
import { Client } from 'pg';
import { expect } from 'vitest';
import { type Auth, api, workerFetch } from '../helpers/http';
import { deliverBatch } from '../helpers/platform';
import { dbOf } from '../helpers/shards';

/**
 * A small shop: users, their orders and the orders' line items, with the awkward values a
 * semantic layer must get right: NULLs, apostrophes, non-ASCII text, ties, timestamps exactly on
 * day and month boundaries, and an order with no line items (fan-out checks).
 */
export const USERS = [
  [1, 'Ana', 'FR', 'gold'],
  [2, "O'Brien", 'IE', 'silver'],
  [3, 'Zoë', 'FR', null],
  [4, '東京 Taro', 'JP', 'gold'],
  [5, 'Ben', null, 'silver'],
] as const;

export const ORDERS = [
  [1, 1, 'completed', 100.5, 'FR', '2024-01-01T00:00:00Z'],
  [2, 1, 'completed', 20, 'FR', '2024-01-31T23:59:59Z'],
  [3, 2, 'pending', 55.25, 'IE', '2024-02-01T00:00:00Z'],
  [4, 3, 'completed', 20, 'FR', '2024-02-15T12:30:00Z'],
  [5, 4, 'cancelled', 300, 'JP', '2024-03-10T07:00:00Z'],
  [6, 4, 'completed', 42, 'JP', '2024-03-31T23:00:00Z'],
  [7, 5, 'pending', null, null, '2024-04-01T00:00:00Z'],
  [8, 2, '100%_done', 10, 'IE', '2024-04-15T08:00:00Z'],
] as const;

export const LINE_ITEMS = [
  [1, 1, 'Widget', 2, 25.25],
  [2, 1, 'Gadget', 1, 50],
  [3, 2, 'Widget', 4, 5],
  [4, 3, 'Gizmo', 1, 55.25],
  [5, 4, 'Widget', 1, 20],
  [6, 5, 'Gadget', 3, 100],
  [7, 6, 'Gizmo', 2, 21],
  [8, 6, 'Widget', 1, 0],
  [9, 8, "Bob's thing", 1, 10],
] as const;

/** The model, over `prefix` tables (`schema.` for PostgreSQL, nothing for the embedded store). */
export function shopModel(prefix: string): string {
  return `cubes:
  - name: users
    sql_table: ${prefix}users
    joins:
      - name: orders
        relationship: one_to_many
        sql: "{CUBE}.id = {orders.user_id}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
        sql: name
        type: string
      - name: country
        sql: country
        type: string
      - name: tier
        sql: tier
        type: string
    measures:
      - name: count
        type: count

  - name: orders
    sql_table: ${prefix}orders
    joins:
      - name: users
        relationship: many_to_one
        sql: "{CUBE}.user_id = {users.id}"
      - name: line_items
        relationship: one_to_many
        sql: "{CUBE}.id = {line_items.order_id}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: user_id
        sql: user_id
        type: number
        public: false
      - name: status
        sql: status
        type: string
      - name: country
        sql: country
        type: string
      - name: created_at
        sql: created_at
        type: time
      - name: size
        type: string
        case:
          when:
            - sql: "{CUBE}.amount < 50"
              label: small
            - sql: "{CUBE}.amount < 100"
              label: "it's medium"
          else:
            label: large
    measures:
      - name: count
        type: count
      - name: total_amount
        sql: amount
        type: sum
      - name: average_amount
        sql: amount
        type: avg
      - name: completed_amount
        sql: amount
        type: sum
        filters:
          - sql: "{CUBE}.status = 'completed'"
      - name: amount_per_order
        sql: "{total_amount} / NULLIF({count}, 0)"
        type: number
      - name: raw_amount
        sql: "SUM({CUBE}.amount)"
        type: number
      - name: last_order
        sql: "MAX({created_at})"
        type: time
      - name: customers_approx
        sql: user_id
        type: count_distinct_approx
    segments:
      - name: completed
        sql: "{CUBE}.status = 'completed'"
    access_policy:
      - group: managers
      - group: reps
        row_level:
          filters:
            - member: country
              operator: equals
              values: ["{ securityContext.country }"]
        member_level:
          includes: "*"
          excludes: [average_amount]

  - name: line_items
    sql_table: ${prefix}line_items
    joins:
      - name: orders
        relationship: many_to_one
        sql: "{CUBE}.order_id = {orders.id}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: order_id
        sql: order_id
        type: number
        public: false
      - name: product
        sql: product
        type: string
    measures:
      - name: quantity
        sql: quantity
        type: sum
      - name: count
        type: count

views:
  - name: sales
    cubes:
      - join_path: orders
        includes: [count, total_amount, status, created_at]
      - join_path: orders.users
        prefix: true
        includes: [country]
`;
}

const TABLES = {
  users: { columns: ['id', 'name', 'country', 'tier'], rows: USERS },
  orders: { columns: ['id', 'user_id', 'status', 'amount', 'country', 'created_at'], rows: ORDERS },
  line_items: { columns: ['id', 'order_id', 'product', 'quantity', 'price'], rows: LINE_ITEMS },
} as const;

export const postgresSettings = () =>
  JSON.parse((env as unknown as { TEST_POSTGRES: string }).TEST_POSTGRES) as {
    host: string;
    port: number;
    database: string;
    user: string;
    password: string;
  };

/** A PostgreSQL client on the test server, for loading data and for golden answers. */
export async function pgClient(): Promise<Client> {
  const client = new Client(postgresSettings());
  client.on('error', () => {});
  await client.connect();
  await client.query("SET TIME ZONE 'UTC'");
  return client;
}

/** Loads the shop into a fresh schema of the test PostgreSQL server; answers the schema. */
export async function loadShopIntoPostgres(): Promise<string> {
  const schema = `shop_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const client = await pgClient();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(
      `CREATE TABLE ${schema}.users (id int PRIMARY KEY, name text, country text, tier text)`,
    );
    await client.query(
      `CREATE TABLE ${schema}.orders (id int PRIMARY KEY, user_id int, status text, amount numeric(10,2), country text, created_at timestamptz)`,
    );
    await client.query(
      `CREATE TABLE ${schema}.line_items (id int PRIMARY KEY, order_id int, product text, quantity int, price numeric(10,2))`,
    );
    for (const [table, { columns, rows }] of Object.entries(TABLES)) {
      for (const row of rows) {
        const placeholders = row.map((_, i) => `$${i + 1}`).join(', ');
        await client.query(
          `INSERT INTO ${schema}.${table} (${columns.join(', ')}) VALUES (${placeholders})`,
          [...row],
        );
      }
    }
  } finally {
    await client.end();
  }
  return schema;
}

/** Runs hand-written SQL on the test PostgreSQL server. */
export async function pgRows(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = await pgClient();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}

function csvCell(value: unknown): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvOf(table: keyof typeof TABLES): string {
  const { columns, rows } = TABLES[table];
  return [columns.join(','), ...rows.map((r) => r.map(csvCell).join(','))].join('\n');
}

/** Imports the shop into a deployment's embedded store through HTTP. */
export async function loadShopIntoStore(auth: Auth, deploymentId: number): Promise<void> {
  for (const table of Object.keys(TABLES) as (keyof typeof TABLES)[]) {
    const res = await api(
      'POST',
      `/api/v1/deployments/${deploymentId}/data/tables/${table}/import?mode=replace`,
      {
        auth,
        rawBody: csvOf(table),
        headers: { 'content-type': 'text/csv' },
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

/** Delivers a deployment's latest build to the builds consumer and answers its final status. */
export async function runLatestBuild(auth: Auth, deploymentId: number) {
  const status = await api('GET', `/api/v1/deployments/${deploymentId}/build-status`, { auth });
  expect(status.status).toBe(200);
  const buildId = status.body.buildId as number;
  const batch = createMessageBatch('edgeboard-builds', [
    { id: `b-${buildId}`, timestamp: new Date(), attempts: 1, body: { kind: 'build', buildId } },
  ]);
  await deliverBatch(batch);
  const after = await api('GET', `/api/v1/deployments/${deploymentId}/build-status`, { auth });
  return after.body as { status: string; errorText: string | null; buildId: number };
}

/** Writes the model and builds it; the build must succeed. */
export async function deployModel(auth: Auth, deploymentId: number, yaml: string): Promise<void> {
  const put = await api('PUT', `/build/api/v1/deployments/${deploymentId}/data-model/files`, {
    auth,
    body: { files: [{ path: 'model/cubes/shop.yml', content: yaml }] },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const build = await runLatestBuild(auth, deploymentId);
  expect(build.status, build.errorText ?? '').toBe('built');
}

/** Points a deployment at the test PostgreSQL server. */
export async function usePostgres(auth: Auth, deploymentId: number): Promise<void> {
  const pg = postgresSettings();
  const res = await api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
    auth,
    body: {
      env_variables: [
        { name: 'CUBEJS_DB_TYPE', value: 'postgres' },
        { name: 'CUBEJS_DB_HOST', value: pg.host },
        { name: 'CUBEJS_DB_PORT', value: String(pg.port) },
        { name: 'CUBEJS_DB_NAME', value: pg.database },
        { name: 'CUBEJS_DB_USER', value: pg.user },
        { name: 'CUBEJS_DB_PASS', value: pg.password },
      ],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A Cube API token for a deployment, optionally with a security context. */
export async function cubeToken(
  auth: Auth,
  deploymentId: number,
  securityContext?: Record<string, unknown>,
): Promise<string> {
  const res = await api('POST', `/api/v1/deployments/${deploymentId}/token`, {
    auth,
    body: securityContext ? { securityContext } : {},
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.cubeApiToken as string;
}

/** The path of `GET /cubejs-api/v1/load?query=…`, as Cube's clients send it. */
export function loadPath(query: unknown, extra: Record<string, string> = {}): string {
  return `/cubejs-api/v1/load?${new URLSearchParams({ query: JSON.stringify(query), ...extra })}`;
}

/** `GET /cubejs-api/v1/load?query=…` with a token, as Cube's clients send it. */
export function load(token: string, query: unknown, extra: Record<string, string> = {}) {
  return api('GET', loadPath(query, extra), { auth: { raw: token } });
}

/**
 * Waits until no build of these deployments (one account's) is queued or building: the starter
 * builds the queue delivers on its own would otherwise finish mid-test, and a finished build
 * makes the isolate forget what it keeps and changes the answers' cache keys.
 */
export async function buildsSettled(deployments: readonly number[]): Promise<void> {
  const ids = JSON.stringify(deployments);
  for (let attempt = 0; attempt < 200; attempt++) {
    const row = await dbOf(deployments[0] as number)
      .prepare(
        "SELECT count(*) AS n FROM builds WHERE deployment_id IN (SELECT value FROM json_each(?)) AND status IN ('queued', 'building')",
      )
      .bind(ids)
      .first<{ n: number }>();
    if (row?.n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('builds still queued or building after 10 s');
}

/** The API URL @cubejs-client/core is given in tests: `routeClientToWorker` sends its host to the Worker. */
export const CLIENT_API_URL = 'http://edgeboard.test/cubejs-api/v1';

/**
 * Sends the global fetch's requests to `CLIENT_API_URL`'s host (@cubejs-client/core calls the
 * global fetch) to the Worker; answers the function that puts the real fetch back.
 */
export function routeClientToWorker(): () => void {
  const realFetch = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    return url.startsWith('http://edgeboard.test/') ? workerFetch(input, init) : realFetch(input, init);
  }) as typeof fetch;
  return () => {
    globalThis.fetch = realFetch;
  };
}

/**
 * The shop on both stores: in the embedded store of the account's first deployment, and in a
 * fresh schema of the test PostgreSQL server behind its second, each serving the shop model; with
 * a Cube API token of each for `securityContext`.
 */
export async function shopOnBothStores(
  account: { admin: Auth; deployments: readonly number[] },
  securityContext?: Record<string, unknown>,
) {
  const [store, postgres] = account.deployments as [number, number];
  await loadShopIntoStore(account.admin, store);
  await deployModel(account.admin, store, shopModel(''));
  const storeToken = await cubeToken(account.admin, store, securityContext);
  const schema = await loadShopIntoPostgres();
  await usePostgres(account.admin, postgres);
  await deployModel(account.admin, postgres, shopModel(`${schema}.`));
  const pgToken = await cubeToken(account.admin, postgres, securityContext);
  return { store, postgres, schema, storeToken, pgToken };
}
