import { beforeAll, describe, expect, it } from 'vitest';
import { SERVING_STATE_TTL_MS } from '../../src/deployments/serving-state';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { dbOf } from '../helpers/shards';
import { buildsSettled, cubeToken, deployModel, load, ORDERS, pgClient, usePostgres } from './fixtures';

/**
 * A load recalls its deployment's serving build and data source from the isolate for
 * SERVING_STATE_TTL_MS: a cached answer then costs no D1 round trip. A change made elsewhere (in
 * another isolate: here written to D1 directly) is seen once that bound has passed, and the
 * answers cached under the other version are never served again; a change made through this
 * isolate is seen at once.
 */

let acme: SeededAccount;
/** The orders table: in schema `main` of PostgreSQL, and of the embedded store (SQLite's own name). */
let table: string;

/** One cube over `main.<table>`, its count narrowed to one status: two builds, two answers. */
const model = (status: string) => `cubes:
  - name: orders
    sql_table: main.${table}
    measures:
      - name: count
        type: count
        filters:
          - sql: "{CUBE}.status = '${status}'"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
`;

const COUNT = { measures: ['orders.count'] };
const countOf = (res: Awaited<ReturnType<typeof load>>) => Number(res.body.data[0]['orders.count']);

/** The embedded store's orders: other rows than PostgreSQL's (3 pending, 1 completed). */
async function loadStoreOrders(deploymentId: number) {
  const res = await api(
    'POST',
    `/api/v1/deployments/${deploymentId}/data/tables/${table}/import?mode=replace`,
    {
      auth: acme.admin,
      rawBody: 'id,status\n1,pending\n2,pending\n3,pending\n4,completed',
      headers: { 'content-type': 'text/csv' },
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  acme = await seedAccount();
  table = `serving_${crypto.randomUUID().replace(/-/g, '').slice(0, 12)}`;
  // Imported while the deployment still reads its store: an import to a postgres one is refused.
  await loadStoreOrders(acme.deployments[1] as number);
  // PostgreSQL's orders: the shop's (4 completed, 2 pending).
  const client = await pgClient();
  try {
    await client.query('CREATE SCHEMA IF NOT EXISTS main');
    await client.query(`CREATE TABLE main.${table} (id int PRIMARY KEY, status text)`);
    for (const [id, , status] of ORDERS) {
      await client.query(`INSERT INTO main.${table} (id, status) VALUES ($1, $2)`, [id, status]);
    }
  } finally {
    await client.end();
  }
});

describe('the serving state an isolate keeps', () => {
  it('answers a cached load with no D1 read, and a new build only once the bound has passed', async () => {
    const [deploymentId, other] = acme.deployments;
    await usePostgres(acme.admin, deploymentId);
    await deployModel(acme.admin, deploymentId, model('completed'));
    // The second model, built where it changes nothing this isolate keeps.
    await usePostgres(acme.admin, other);
    await deployModel(acme.admin, other, model('pending'));
    await buildsSettled(acme.deployments);
    const t0 = Date.parse('2030-01-01T00:00:00Z');
    platform.clock = clockAt(t0);
    const token = await cubeToken(acme.admin, deploymentId);

    const first = await load(token, COUNT);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(countOf(first)).toBe(4);
    const cached = await load(token, COUNT);
    expect(cached.body.lastRefreshTime).toBe(first.body.lastRefreshTime);
    // The token names the deployment; the isolate knows its build and source; the cache answers.
    expect(cached.headers.get('x-d1-round-trips')).toBe('0');

    // Another isolate finishes a build of the second model for this deployment.
    const db = dbOf(deploymentId);
    await db
      .prepare(
        `INSERT INTO builds (deployment_id, status, attempts, created_at, finished_at, compiled_model)
         SELECT ?, 'built', 1, ?, ?, compiled_model FROM builds
         WHERE deployment_id = ? AND status = 'built' ORDER BY id DESC LIMIT 1`,
      )
      .bind(deploymentId, new Date(t0).toISOString(), new Date(t0).toISOString(), other)
      .run();

    platform.clock = clockAt(t0 + SERVING_STATE_TTL_MS - 1);
    const stale = await load(token, COUNT);
    expect(countOf(stale)).toBe(4);
    expect(stale.headers.get('x-d1-round-trips')).toBe('0');

    platform.clock = clockAt(t0 + SERVING_STATE_TTL_MS);
    const fresh = await load(token, COUNT);
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(countOf(fresh)).toBe(2);
    // The build, then the new build's model, beside the data source settings.
    expect(fresh.headers.get('x-d1-round-trips')).toBe('3');
    expect(fresh.body.lastRefreshTime).not.toBe(first.body.lastRefreshTime);
    expect(countOf(await load(token, COUNT))).toBe(2);
  });

  it('serves a new data source only once the bound has passed, never an answer of the other one', async () => {
    const deploymentId = acme.deployments[1];
    const t0 = Date.parse('2031-01-01T00:00:00Z');
    platform.clock = clockAt(t0);
    const token = await cubeToken(acme.admin, deploymentId);
    const first = await load(token, COUNT);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.dbType, JSON.stringify(first.body)).toBe('postgres');
    expect(countOf(first)).toBe(2);

    // Another isolate points the deployment at its embedded store (a plain, unencrypted value).
    await dbOf(deploymentId)
      .prepare(
        "UPDATE deployment_env_vars SET value = 'embedded' WHERE deployment_id = ? AND name = 'CUBEJS_DB_TYPE'",
      )
      .bind(deploymentId)
      .run();
    platform.clock = clockAt(t0 + SERVING_STATE_TTL_MS - 1);
    expect((await load(token, COUNT)).body.dbType).toBe('postgres');

    platform.clock = clockAt(t0 + SERVING_STATE_TTL_MS);
    const moved = await load(token, COUNT);
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.dbType).toBe('sqlite');
    expect(countOf(moved)).toBe(3);
    expect(moved.body.lastRefreshTime).not.toBe(first.body.lastRefreshTime);

    // And back: the answer cached from PostgreSQL earlier is the one for that source again.
    await dbOf(deploymentId)
      .prepare(
        "UPDATE deployment_env_vars SET value = 'postgres' WHERE deployment_id = ? AND name = 'CUBEJS_DB_TYPE'",
      )
      .bind(deploymentId)
      .run();
    platform.clock = clockAt(t0 + 2 * SERVING_STATE_TTL_MS);
    const back = await load(token, COUNT);
    expect(back.body.dbType).toBe('postgres');
    expect(countOf(back)).toBe(2);
  });

  it('reads the serving state once for all the queries of one load (a blend, /sql of a list)', async () => {
    const deploymentId = acme.deployments[0] as number;
    const t0 = Date.parse('2033-01-01T00:00:00Z');
    platform.clock = clockAt(t0 - 1);
    const token = await cubeToken(acme.admin, deploymentId);
    const cold = async (at: number, run: () => ReturnType<typeof load>) => {
      // Past the bound, so the isolate reads the serving state again; renewed, so no cached answer.
      platform.clock = clockAt(at);
      const res = await run();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return Number(res.headers.get('x-d1-round-trips'));
    };
    const one = await cold(t0, () => load(token, { ...COUNT, renewQuery: true }));
    expect(one).toBeGreaterThan(0);
    const three = Array.from({ length: 3 }, (_, i) => ({ ...COUNT, limit: i + 1, renewQuery: true }));
    expect(await cold(t0 + SERVING_STATE_TTL_MS, () => load(token, three, { queryType: 'multi' }))).toBe(one);
    const sql = () =>
      api('GET', `/cubejs-api/v1/sql?query=${encodeURIComponent(JSON.stringify(three))}`, {
        auth: { raw: token },
      });
    expect(await cold(t0 + 2 * SERVING_STATE_TTL_MS, sql)).toBe(one);
  });

  it('sees a change made through this isolate at once', async () => {
    const deploymentId = acme.deployments[1];
    platform.clock = clockAt(Date.parse('2032-01-01T00:00:00Z'));
    const token = await cubeToken(acme.admin, deploymentId);
    expect((await load(token, COUNT)).body.dbType).toBe('postgres');
    const set = await api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
      auth: acme.admin,
      body: { env_variables: [{ name: 'CUBEJS_DB_TYPE', value: 'embedded' }] },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const after = await load(token, COUNT);
    expect(after.body.dbType).toBe('sqlite');
    expect(countOf(after)).toBe(3);

    await deployModel(acme.admin, deploymentId, model('completed'));
    const rebuilt = await load(token, COUNT);
    expect(rebuilt.status, JSON.stringify(rebuilt.body)).toBe(200);
    expect(countOf(rebuilt)).toBe(1);

    const deleted = await api('DELETE', `/api/v1/deployments/${deploymentId}`, { auth: acme.admin });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const gone = await load(token, COUNT);
    expect(gone.status).toBe(404);
  });
});
