// What the semantic and live benches share: loading the demo shop into a throwaway PostgreSQL
// server and into a deployment's embedded store, pointing a deployment at the server, and
// deploying a model. Not a scenario file (scripts/bench.mjs loads only bench/*.mjs).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import { csvChunks } from '../../scripts/demo-data.mjs';

/** The PostgreSQL schema the demo shop is loaded into (the models name its tables `shop.…`). */
export const SCHEMA = 'shop';

async function must(promise, what) {
  const res = await promise;
  if (res.status >= 300) throw new Error(`bench, ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Loads the tables into PostgreSQL with COPY (through psql), then indexes and analyzes them, in
 * schema `schema` (the semantic bench loads each scale into a schema of its own).
 */
export async function loadPostgres(server, tables, schema = SCHEMA) {
  const client = new pg.Client(server);
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`
      CREATE TABLE ${schema}.customers (id int PRIMARY KEY, name text, country text, city text,
        segment text, signed_up_at timestamptz);
      CREATE TABLE ${schema}.products (id int PRIMARY KEY, name text, category text, price numeric(10,2));
      CREATE TABLE ${schema}.orders (id int PRIMARY KEY, customer_id int, status text, channel text,
        created_at timestamptz);
      CREATE TABLE ${schema}.order_items (id int PRIMARY KEY, order_id int, product_id int,
        quantity int, unit_price numeric(10,2), discount numeric(4,2));`);
    for (const table of tables) {
      execFileSync(
        path.join(server.bin, 'psql'),
        [
          '-h',
          server.host,
          '-p',
          String(server.port),
          '-U',
          server.user,
          '-d',
          server.database,
          '-v',
          'ON_ERROR_STOP=1',
          '-qc',
          `COPY ${schema}.${table.name} (${table.columns.join(', ')}) FROM STDIN WITH (FORMAT csv, HEADER true)`,
        ],
        {
          input: csvChunks(table, Number.POSITIVE_INFINITY)[0],
          env: { ...process.env, PGPASSWORD: server.password },
          stdio: ['pipe', 'ignore', 'inherit'],
          maxBuffer: 1 << 20,
        },
      );
    }
    await client.query(`
      CREATE INDEX ON ${schema}.orders (customer_id);
      CREATE INDEX ON ${schema}.orders (created_at);
      CREATE INDEX ON ${schema}.order_items (order_id);
      CREATE INDEX ON ${schema}.order_items (product_id);
      ANALYZE;`);
  } finally {
    await client.end();
  }
}

/** Imports the tables into the deployment's embedded store, in CSV bodies under 1 MiB. */
export async function loadEmbedded(ctx, deploymentId, tables) {
  for (const table of tables) {
    const chunks = csvChunks(table);
    for (let i = 0; i < chunks.length; i++) {
      const res = await fetch(
        `${ctx.url}/api/v1/deployments/${deploymentId}/data/tables/${table.name}/import?mode=${i === 0 ? 'replace' : 'append'}`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.world.admin.bearer}`, 'content-type': 'text/csv' },
          body: chunks[i],
        },
      );
      if (res.status !== 200) {
        throw new Error(`bench, import ${table.name} ${i + 1}: ${res.status} ${await res.text()}`);
      }
      await res.arrayBuffer();
    }
  }
}

/** Deploys the model, waits for the builds consumer to build it, and answers a Cube API token. */
export async function deployModel(ctx, deploymentId, yaml) {
  const auth = ctx.world.admin;
  await must(
    ctx.api('PUT', `/build/api/v1/deployments/${deploymentId}/data-model/files`, {
      auth,
      body: { files: [{ path: 'model/cubes/shop.yml', content: yaml }] },
    }),
    'model files',
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await must(
      ctx.api('GET', `/api/v1/deployments/${deploymentId}/build-status`, { auth }),
      'build status',
    );
    if (status.status === 'built') break;
    if (status.status === 'failed') throw new Error(`bench: build failed: ${status.errorText}`);
    if (Date.now() > deadline) throw new Error(`bench: build still ${status.status} after 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const token = await must(
    ctx.api('POST', `/api/v1/deployments/${deploymentId}/token`, { auth, body: { securityContext: {} } }),
    'token',
  );
  return token.cubeApiToken;
}

/** Points the deployment at the PostgreSQL server (scripts/postgres.mjs) through its env vars. */
export async function usePostgres(ctx, deploymentId, server) {
  await must(
    ctx.api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
      auth: ctx.world.admin,
      body: {
        env_variables: [
          { name: 'CUBEJS_DB_TYPE', value: 'postgres' },
          { name: 'CUBEJS_DB_HOST', value: server.host },
          { name: 'CUBEJS_DB_PORT', value: String(server.port) },
          { name: 'CUBEJS_DB_NAME', value: server.database },
          { name: 'CUBEJS_DB_USER', value: server.user },
          { name: 'CUBEJS_DB_PASS', value: server.password },
        ],
      },
    }),
    'env vars',
  );
}

/**
 * A query sent with the statements that open and end its transaction, in one round trip, as the
 * PostgreSQL data source sends it (FramedQuery in src/sources/postgres.source.ts).
 */
class FramedQuery extends pg.Query {
  constructor(config, opening, closing) {
    super({ ...config, queryMode: 'extended' });
    this.opening = opening;
    this.closing = closing;
  }

  prepare(connection) {
    writeStatements(connection, this.opening);
    super.prepare(connection);
  }

  _getRows(connection) {
    connection.execute({ portal: this.portal });
    writeStatements(connection, this.closing);
    connection.sync();
  }
}

function writeStatements(connection, statements) {
  for (const text of statements) {
    connection.parse({ text });
    connection.bind({});
    connection.execute({});
  }
}

/**
 * A statement on a connection of its own in a read-only transaction, as the PostgreSQL data
 * source runs it (`server` may be a pooler in front of the server: scripts/pgbouncer.mjs).
 */
export async function onFreshConnection(server, { sql, params }) {
  const client = new pg.Client(server);
  client.on('error', () => {});
  await client.connect();
  try {
    const opening = ['BEGIN READ ONLY', 'SET LOCAL statement_timeout = 30000', "SET LOCAL TIME ZONE 'UTC'"];
    return await new Promise((resolve, reject) => {
      let count = 0;
      const query = new FramedQuery({ text: sql, values: params }, opening, ['COMMIT']);
      query.on('row', () => count++);
      query.on('error', reject);
      query.on('end', () => resolve(count));
      client.query(query);
    });
  } finally {
    await client.end();
  }
}
