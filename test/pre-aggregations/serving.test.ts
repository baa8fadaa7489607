import { env } from 'cloudflare:test';
import cube, { type Query } from '@cubejs-client/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVING_STATE_TTL_MS } from '../../src/deployments/serving-state';
import { deploymentStore } from '../../src/sources/deployment-store';
import {
  CLIENT_API_URL,
  cubeToken,
  deployModel,
  load,
  loadShopIntoPostgres,
  loadShopIntoStore,
  routeClientToWorker,
  usePostgres,
} from '../data-api/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { dbOf } from '../helpers/shards';
import { modelWithRollups, ROLLUPS, refreshAll } from './fixtures';

/**
 * Queries served from built rollups, end to end: a published model with `pre_aggregations`
 * registers its partitions, the cron and queue build them into the deployment's store, and
 * `/load` answers from them the rows the source answered, on both stores, saying what served it.
 */

const MONTHLY = {
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.status'],
  timeDimensions: [
    { dimension: 'orders.created_at', granularity: 'quarter', dateRange: ['2024-01-01', '2024-12-31'] },
  ],
  order: { 'orders.status': 'asc' },
} satisfies Query;
const BY_COUNTRY = {
  measures: ['orders.count'],
  dimensions: ['orders.country'],
  order: { 'orders.country': 'asc' },
};

let acme: SeededAccount;

/**
 * The account's deployment for `kind` (its first for the embedded store, its second for
 * PostgreSQL) with the shop loaded and the model with `rollups` (then `edit`) published: its id.
 */
async function deployShop(
  account: SeededAccount,
  kind: 'embedded' | 'postgres',
  rollups: string,
  edit: (model: string) => string = (model) => model,
) {
  const deploymentId = (kind === 'embedded' ? account.deployments[0] : account.deployments[1]) as number;
  let prefix = '';
  if (kind === 'embedded') {
    await loadShopIntoStore(account.admin, deploymentId);
  } else {
    prefix = `${await loadShopIntoPostgres()}.`;
    await usePostgres(account.admin, deploymentId);
  }
  await deployModel(account.admin, deploymentId, edit(modelWithRollups(prefix, rollups)));
  return deploymentId;
}

const MANAGER = { cubeCloud: { groups: ['managers'] } };

/** The two stores the groups of cases below run on: words for the title, and `deployShop`'s kind. */
const STORES = [
  ['the embedded store', 'embedded'],
  ['PostgreSQL', 'postgres'],
] as const;

describe.each(STORES)('served from rollups on %s', (_name, kind) => {
  let deploymentId: number;
  let manager: string;
  let rep: string;
  const fromSource: Record<string, unknown> = {};

  beforeAll(async () => {
    acme ??= await seedAccount();
    deploymentId = await deployShop(acme, kind, ROLLUPS);
    manager = await cubeToken(acme.admin, deploymentId, MANAGER);
    rep = await cubeToken(acme.admin, deploymentId, { cubeCloud: { groups: ['reps'] }, country: 'FR' });
    // Before any build: the source answers (and says so).
    for (const [name, query] of Object.entries({ MONTHLY, BY_COUNTRY })) {
      const res = await load(manager, query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.usedPreAggregations).toEqual({});
      fromSource[name] = res.body.data;
    }
  });

  it('registers the partitions of a published model and builds them by cron and queue', async () => {
    await refreshAll();
    const list = await api('GET', `/api/v1/deployments/${deploymentId}/pre-aggregations`, {
      auth: acme.admin,
    });
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(
      list.body.items.map((p: Record<string, unknown>) => [
        p.preAggregation,
        p.tableName,
        p.timezone,
        p.state,
      ]),
    ).toEqual([
      ['orders.monthly', 'prod_pre_aggregations.orders_monthly20240101', 'UTC', 'built'],
      ['orders.by_country', 'prod_pre_aggregations.orders_by_country', 'UTC', 'built'],
    ]);
    expect(list.body.items.every((p: { rows: number; bytes: number }) => p.rows > 0 && p.bytes > 0)).toBe(
      true,
    );
  });

  it('answers a matching query from the rollup with the same rows, naming the partitions and their build time', async () => {
    const stored = (await deploymentStore(env, deploymentId).listPartitions()) as {
      tableName: string;
      version: number;
      builtAt: string;
    }[];
    const monthly = stored.find((p) => p.tableName.endsWith('monthly20240101'));
    const res = await load(manager, MONTHLY);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual(fromSource.MONTHLY);
    expect(res.body.usedPreAggregations).toEqual({
      'prod_pre_aggregations.orders_monthly20240101': {
        targetTableName: `prod_pre_aggregations.orders_monthly20240101_v${monthly?.version}`,
        refreshKeyValues: [],
        lastUpdatedAt: Date.parse(monthly?.builtAt ?? ''),
      },
    });
    expect(res.body.lastRefreshTime).toBe(monthly?.builtAt);
    const byCountry = await load(manager, BY_COUNTRY);
    expect(byCountry.body.data).toEqual(fromSource.BY_COUNTRY);
    expect(Object.keys(byCountry.body.usedPreAggregations)).toEqual([
      'prod_pre_aggregations.orders_by_country',
    ]);
  });

  it('answers from the cache what the rollup answered: rows, total and partitions', async () => {
    const query = { ...MONTHLY, limit: 2, total: true };
    const fresh = await load(manager, { ...query, renewQuery: true });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.headers.get('server-timing')).toContain('store-rollup');
    expect(fresh.body.data).toEqual((fromSource.MONTHLY as unknown[]).slice(0, 2));
    expect(fresh.body.total).toBe((fromSource.MONTHLY as unknown[]).length);
    expect(Object.keys(fresh.body.usedPreAggregations)).toEqual([
      'prod_pre_aggregations.orders_monthly20240101',
    ]);
    const cached = await load(manager, query);
    expect(cached.headers.get('server-timing')).not.toContain('store-rollup');
    expect(cached.body).toEqual({ ...fresh.body, query: { ...fresh.body.query, renewQuery: undefined } });
  });

  it('keeps the cached answers of queries no rollup matches across a swap, and asks the rollups again', async () => {
    // An average is not additive: no rollup of the model answers it.
    const AVERAGE = { measures: ['orders.average_amount'], dimensions: ['orders.status'] };
    const t0 = Date.now();
    platform.clock = clockAt(t0);
    const before = await load(manager, { ...AVERAGE, renewQuery: true });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.usedPreAggregations).toEqual({});
    expect(before.body.lastRefreshTime).toBe(new Date(t0).toISOString());
    // Read twice: the second is this test's own cache hit, whatever earlier tests left.
    await load(manager, { ...MONTHLY, renewQuery: true });
    const monthly = await load(manager, MONTHLY);
    // A swap made elsewhere: this isolate sees the new generation once its serving state expires.
    await dbOf(deploymentId)
      .prepare('UPDATE pre_aggregation_plans SET generation = generation + 1 WHERE deployment_id = ?')
      .bind(deploymentId)
      .run();
    platform.clock = clockAt(t0 + SERVING_STATE_TTL_MS);
    const after = await load(manager, AVERAGE);
    expect(after.body.lastRefreshTime).toBe(before.body.lastRefreshTime);
    expect(after.body.data).toEqual(before.body.data);
    // The rollup is read again under the new generation, and answers as before.
    const again = await load(manager, MONTHLY);
    expect(again.headers.get('server-timing')).toContain('store-rollup');
    expect(monthly.headers.get('server-timing')).not.toContain('store-rollup');
    expect(again.body.data).toEqual(fromSource.MONTHLY);
    expect(again.body.usedPreAggregations).toEqual(monthly.body.usedPreAggregations);
  });

  it("answers Cube's own client unchanged from the rollup", async () => {
    const restoreFetch = routeClientToWorker();
    try {
      const client = cube(manager, { apiUrl: CLIENT_API_URL });
      const resultSet = await client.load(MONTHLY);
      expect(resultSet.rawData()).toEqual(fromSource.MONTHLY);
      const response = resultSet.serialize().loadResponse as {
        results: { usedPreAggregations?: Record<string, unknown> }[];
      };
      expect(Object.keys(response.results[0]?.usedPreAggregations ?? {})).toEqual([
        'prod_pre_aggregations.orders_monthly20240101',
      ]);
      // The client's own shaping of the rows reads them as it reads the source's.
      expect(resultSet.tablePivot().length).toBe((fromSource.MONTHLY as unknown[]).length);
    } finally {
      restoreFetch();
    }
  });

  it('shows in /dry-run and /sql the rollup a query would read, and none for a query no rollup answers', async () => {
    const qs = (query: unknown) => new URLSearchParams({ query: JSON.stringify(query) });
    const dry = await api('GET', `/cubejs-api/v1/dry-run?${qs(MONTHLY)}`, { auth: { raw: manager } });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    const [used] = dry.body.preAggregations;
    expect(used).toMatchObject({
      preAggregationId: 'orders.monthly',
      tableName: 'prod_pre_aggregations.orders_monthly',
      type: 'rollup',
      partitions: ['prod_pre_aggregations.orders_monthly20240101'],
      external: true,
    });
    expect(used.sql[0]).toContain('"prod_pre_aggregations.orders_monthly20240101"');
    const sql = await api('GET', `/cubejs-api/v1/sql?${qs(MONTHLY)}`, { auth: { raw: manager } });
    expect(sql.body.sql.sql).toEqual(used.sql);
    const none = await api(
      'GET',
      `/cubejs-api/v1/dry-run?${qs({ ...MONTHLY, measures: ['orders.average_amount'] })}`,
      {
        auth: { raw: manager },
      },
    );
    expect(none.status).toBe(200);
    expect(none.body.preAggregations).toEqual([null]);
    // A query the planner refuses is refused as /load refuses it, though a rollup would match it.
    const mixed = {
      ...MONTHLY,
      filters: [
        {
          or: [
            { member: 'orders.count', operator: 'gt', values: ['0'] },
            { member: 'orders.status', operator: 'equals', values: ['completed'] },
          ],
        },
      ],
    };
    const refused = await api('GET', `/cubejs-api/v1/dry-run?${qs(mixed)}`, { auth: { raw: manager } });
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect((await load(manager, mixed)).status).toBe(400);
  });

  it("lists the cube's pre-aggregations in Cube's extended meta only", async () => {
    const plain = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: manager } });
    expect(plain.body.cubes.every((c: Record<string, unknown>) => !('preAggregations' in c))).toBe(true);
    const res = await api('GET', '/cubejs-api/v1/meta?extended', { auth: { raw: manager } });
    expect(res.status).toBe(200);
    const body = res.body as { cubes: { name: string; preAggregations?: unknown[] }[] };
    const orders = body.cubes.find((c) => c.name === 'orders');
    expect(orders?.preAggregations).toEqual([
      {
        name: 'monthly',
        type: 'rollup',
        measureReferences: '[orders.count, orders.total_amount]',
        dimensionReferences: '[orders.status]',
        segmentReferences: '[]',
        timeDimensionReference: 'orders.created_at',
        granularity: 'month',
        partitionGranularity: 'year',
        refreshKey: { incremental: false },
        scheduledRefresh: true,
        allowNonStrictDateRangeMatch: false,
        external: true,
      },
      expect.objectContaining({ name: 'by_country', dimensionReferences: '[orders.country]' }),
    ]);
    // As Cube's: a cube without pre-aggregations has no such field.
    expect(body.cubes.find((c) => c.name === 'users')).not.toHaveProperty('preAggregations');
  });

  it("serves a row-secured viewer from a rollup only when it holds the policy's member", async () => {
    // The reps' policy filters on orders.country: by_country holds it, monthly does not.
    const monthly = await load(rep, MONTHLY);
    expect(monthly.status).toBe(200);
    expect(monthly.body.usedPreAggregations).toEqual({});
    const byCountry = await load(rep, BY_COUNTRY);
    expect(byCountry.body.usedPreAggregations).toHaveProperty(['prod_pre_aggregations.orders_by_country']);
    expect(byCountry.body.data).toEqual([{ 'orders.country': 'FR', 'orders.count': '3' }]);
  });
});

describe('CUBEJS_ROLLUP_ONLY', () => {
  it('makes a query whose rollup is not built an error naming the rollup, and one no rollup matches an error too', async () => {
    const other = await seedAccount();
    const [deploymentId] = other.deployments;
    await loadShopIntoStore(other.admin, deploymentId);
    await deployModel(other.admin, deploymentId, modelWithRollups(''));
    const set = await api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
      auth: other.admin,
      body: { env_variables: [{ name: 'CUBEJS_ROLLUP_ONLY', value: 'true' }] },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const token = await cubeToken(other.admin, deploymentId, MANAGER);
    const res = await load(token, MONTHLY);
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error).toContain('pre-aggregation orders.monthly is not built yet');
    const unmatched = await load(token, { measures: ['users.count'] });
    expect(unmatched.status).toBe(409);
    expect(unmatched.body.error).toContain('no pre-aggregation matches this query');
    // Once built, it is served.
    await refreshAll();
    const served = await load(token, MONTHLY);
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(Object.keys(served.body.usedPreAggregations)).toEqual([
      'prod_pre_aggregations.orders_monthly20240101',
    ]);
  });
});

/** An original_sql pre-aggregation of the orders, partitioned by year: the cube's members at the finest grain. */
const ORIGINAL_SQL = `    pre_aggregations:
      - name: base
        type: original_sql
        time_dimension: created_at
        partition_granularity: year
`;
/** A query no rollup of the orders could be written for in advance: status and country by month. */
const BY_MONTH = {
  measures: ['orders.count', 'orders.total_amount', 'orders.completed_amount'],
  dimensions: ['orders.country', 'orders.status'],
  timeDimensions: [
    { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-12-31'] },
  ],
  order: [
    ['orders.created_at', 'asc'],
    ['orders.country', 'asc'],
    ['orders.status', 'asc'],
  ],
} satisfies Query;

describe.each(STORES)('served from an original_sql pre-aggregation on %s', (_name, kind) => {
  it("answers its cube's queries with the source's rows once built, and the source's before", async () => {
    const account = await seedAccount();
    const deploymentId = await deployShop(account, kind, ORIGINAL_SQL);
    const token = await cubeToken(account.admin, deploymentId, MANAGER);
    const before = await load(token, BY_MONTH);
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.usedPreAggregations).toEqual({});
    expect(before.body.data.length).toBeGreaterThan(2);

    await refreshAll();
    const list = await api('GET', `/api/v1/deployments/${deploymentId}/pre-aggregations`, {
      auth: account.admin,
    });
    expect(list.status).toBe(200);
    expect(
      list.body.items.map((p: Record<string, unknown>) => [p.preAggregation, p.tableName, p.state]),
    ).toEqual([['orders.base', 'prod_pre_aggregations.orders_base20240101', 'built']]);

    const after = await load(token, BY_MONTH);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    expect(after.body.data).toEqual(before.body.data);
    expect(Object.keys(after.body.usedPreAggregations)).toEqual([
      'prod_pre_aggregations.orders_base20240101',
    ]);
    // A measure that does not re-aggregate, coarser than the stored grain: the source answers.
    const average = await load(token, { ...BY_MONTH, measures: ['orders.average_amount'] });
    expect(average.status).toBe(200);
    expect(average.body.usedPreAggregations).toEqual({});
  });
});

/** String dimensions over numeric expressions, and a rollup of them. */
const STRINGS_OVER_NUMBERS = `      - name: user_ref
        sql: "{CUBE}.user_id + 0"
        type: string
      - name: amount_ref
        sql: "{CUBE}.amount * 1.0"
        type: string
`;
const REFS = `    pre_aggregations:
      - name: refs
        measures: [count]
        dimensions: [user_ref, amount_ref]
`;

describe.each(STORES)('a rollup of string dimensions whose values are numbers, on %s', (_name, kind) => {
  it("answers with the source's values and compares them as the source does", async () => {
    const account = await seedAccount();
    const deploymentId = await deployShop(account, kind, REFS, (model) => {
      const anchor = '      - name: user_id\n';
      const edited = model.replace(anchor, `${STRINGS_OVER_NUMBERS}${anchor}`);
      expect(edited).toContain('name: amount_ref');
      return edited;
    });
    const token = await cubeToken(account.admin, deploymentId, MANAGER);
    const queries: Query[] = [
      { measures: ['orders.count'], dimensions: ['orders.user_ref'], order: { 'orders.user_ref': 'asc' } },
      // `02` is user 2 to the source (PostgreSQL reads the text as the expression's type).
      {
        measures: ['orders.count'],
        dimensions: ['orders.user_ref'],
        filters: [{ member: 'orders.user_ref', operator: 'equals', values: ['02', '4'] }],
        order: { 'orders.user_ref': 'asc' },
      },
    ];
    // On the embedded store `amount * 1.0` is a REAL: 20.0 prints `20` and orders as a number, and
    // `20` finds it. (On PostgreSQL it is numeric text, `20.000`, which the rollup keeps as that
    // text: there it orders and compares as text, as docs/semantic-layer.md says.)
    if (kind === 'embedded') {
      queries.push(
        {
          measures: ['orders.count'],
          dimensions: ['orders.user_ref', 'orders.amount_ref'],
          order: [
            ['orders.user_ref', 'asc'],
            ['orders.amount_ref', 'asc'],
          ],
        },
        {
          measures: ['orders.count'],
          dimensions: ['orders.amount_ref'],
          filters: [{ member: 'orders.amount_ref', operator: 'equals', values: ['20', '100.50'] }],
          order: { 'orders.amount_ref': 'asc' },
        },
      );
    }
    const before = [];
    for (const query of queries) {
      const res = await load(token, query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.usedPreAggregations).toEqual({});
      expect(res.body.data.length).toBeGreaterThan(1);
      before.push(res.body.data);
    }
    await refreshAll();
    for (const [i, query] of queries.entries()) {
      const res = await load(token, query);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(Object.keys(res.body.usedPreAggregations)).toEqual(['prod_pre_aggregations.orders_refs']);
      expect(res.body.data, JSON.stringify(query)).toEqual(before[i]);
    }
  });
});
