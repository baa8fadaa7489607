// A model with Cube's pre_aggregations through the data API: it builds, `/load` is still served
// by the source and says so (`usedPreAggregations: {}`), `/sql` shows the SQL that reads the
// rollup a query matches, and `/meta` lists cubes as Cube's does (no pre-aggregations field).
import { env, runInDurableObject } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { deploymentStore } from '../../src/sources/deployment-store';
import { seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { modelWithRollups } from '../pre-aggregations/fixtures';
import { cubeToken, deployModel, load, loadShopIntoStore } from './fixtures';

let deploymentId: number;
let manager: string;
let rep: string;

beforeAll(async () => {
  const acme = await seedAccount();
  deploymentId = acme.deployments[0] as number;
  await loadShopIntoStore(acme.admin, deploymentId);
  expect(modelWithRollups()).toContain('name: monthly');
  await deployModel(acme.admin, deploymentId, modelWithRollups());
  manager = await cubeToken(acme.admin, deploymentId, { cubeCloud: { groups: ['managers'] } });
  rep = await cubeToken(acme.admin, deploymentId, { cubeCloud: { groups: ['reps'] }, country: 'FR' });
});

const sqlOf = (token: string, query: unknown) =>
  api('GET', `/cubejs-api/v1/sql?${new URLSearchParams({ query: JSON.stringify(query) })}`, {
    auth: { raw: token },
  });

const MONTHLY = {
  measures: ['orders.count', 'orders.total_amount'],
  timeDimensions: [
    { dimension: 'orders.created_at', granularity: 'quarter', dateRange: ['2024-01-01', '2024-12-31'] },
  ],
};

describe('a model with pre_aggregations', () => {
  it('/load is served by the source and answers usedPreAggregations: {}', async () => {
    const res = await load(manager, MONTHLY);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.usedPreAggregations).toEqual({});
    expect(res.body.data).toEqual([
      {
        'orders.created_at.quarter': '2024-01-01T00:00:00.000',
        'orders.created_at': '2024-01-01T00:00:00.000',
        'orders.count': '6',
        'orders.total_amount': '537.75',
      },
      {
        'orders.created_at.quarter': '2024-04-01T00:00:00.000',
        'orders.created_at': '2024-04-01T00:00:00.000',
        'orders.count': '2',
        'orders.total_amount': '10',
      },
    ]);
  });

  it('/sql shows the SQL reading the rollup a query matches, and the rollup', async () => {
    const res = await sqlOf(manager, MONTHLY);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { sql } = res.body;
    expect(sql.external).toBe(true);
    expect(sql.sql[0]).toContain('FROM "prod_pre_aggregations.orders_monthly20240101"');
    expect(sql.sql[0]).not.toContain('FROM orders');
    expect(sql.aliasNameToMember).toEqual({
      c0: 'orders.created_at',
      c1: 'orders.count',
      c2: 'orders.total_amount',
    });
    expect(sql.preAggregations).toHaveLength(1);
    expect(sql.preAggregations[0]).toMatchObject({
      preAggregationId: 'orders.monthly',
      tableName: 'prod_pre_aggregations.orders_monthly',
      type: 'rollup',
      timezone: 'UTC',
      granularity: 'month',
      partitionGranularity: 'year',
      partitions: ['prod_pre_aggregations.orders_monthly20240101'],
    });
    const [loadSql, loadParams] = sql.preAggregations[0].loadSql;
    expect(loadSql).toContain('FROM orders');
    expect(loadParams).toContain('2024-01-01 00:00:00.000');

    // The rollup SQL runs on the store's SQLite once its partition exists (here: built by hand).
    const build = await runInDurableObject(deploymentStore(env, deploymentId), async (_instance, state) => {
      state.storage.sql.exec(
        `CREATE TABLE "prod_pre_aggregations.orders_monthly20240101" AS SELECT * FROM (${loadSql})`,
        ...loadParams,
      );
      return state.storage.sql.exec(sql.sql[0], ...sql.sql[1]).toArray();
    });
    expect(build).toEqual([
      { c0: '2024-01-01T00:00:00.000', c1: 6, c2: 537.75 },
      { c0: '2024-04-01T00:00:00.000', c1: 2, c2: 10 },
    ]);
  });

  it('/sql shows the source SQL when no rollup matches', async () => {
    const res = await sqlOf(manager, { ...MONTHLY, dimensions: ['users.country'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sql.preAggregations).toEqual([]);
    expect(res.body.sql.external).toBe(false);
    expect(res.body.sql.sql[0]).toContain('FROM orders');
  });

  it('a row-secured caller: served from a rollup holding the policy’s member, else from the source', async () => {
    const byStatus = await sqlOf(rep, { ...MONTHLY, measures: ['orders.count'] });
    expect(byStatus.status, JSON.stringify(byStatus.body)).toBe(200);
    expect(byStatus.body.sql.preAggregations).toEqual([]);

    const byCountry = await sqlOf(rep, { measures: ['orders.count'], dimensions: ['orders.country'] });
    expect(byCountry.status, JSON.stringify(byCountry.body)).toBe(200);
    expect(byCountry.body.sql.preAggregations[0]?.preAggregationId).toBe('orders.by_country');
    // The caller's value is a bound parameter of the rollup SQL, as of the source's.
    expect(byCountry.body.sql.sql[1]).toContain('FR');
    expect(byCountry.body.sql.sql[0]).not.toContain("'FR'");
  });

  it('/meta lists the cube as Cube does: no pre-aggregations field', async () => {
    const res = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: manager } });
    expect(res.status).toBe(200);
    const orders = res.body.cubes.find((cube: { name: string }) => cube.name === 'orders');
    expect(orders).toBeDefined();
    expect(Object.keys(orders)).not.toContain('preAggregations');
  });
});
