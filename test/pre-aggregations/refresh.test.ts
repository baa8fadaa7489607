import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PreAggregationMessage } from '../../src/core/env';
import { NEVER } from '../../src/pre-aggregations/pre-aggregations.limits';
import type { RollupCompiler } from '../../src/pre-aggregations/rollup-compiler';
import { dataRangeOf } from '../../src/pre-aggregations/rollup-compiler';
import type { PreAggregation } from '../../src/semantic/model/pre-aggregations.types';
import { deploymentStore } from '../../src/sources/deployment-store';
import { deployModel, loadShopIntoStore, shopModel } from '../data-api/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, cronTick, platform } from '../helpers/platform';
import { deliverPreAggregations, freezeAccount, recordPreAggregations } from './fixtures';

/**
 * The refresh of pre-aggregations through the Worker's own handlers: the cron claims what is due
 * and enqueues it, the queue consumer plans and builds. The semantic layer's side (partitions of
 * a rollup, its build query) is a hand-written compiler here, the port the Worker takes it through.
 */

let acme: SeededAccount;
let deploymentId: number;

/** A monthly rollup of orders by status, as the model compiler hands it over. */
const MAIN: PreAggregation = {
  name: 'main',
  cube: 'orders',
  type: 'rollup',
  measures: ['orders.count', 'orders.total_amount'],
  dimensions: ['orders.status'],
  segments: [],
  timeDimension: 'orders.created_at',
  granularity: 'month',
  partitionGranularity: 'month',
  refreshKey: { every: 3_600, incremental: true, updateWindow: 7 * 86_400 },
  scheduledRefresh: true,
  allowNonStrictDateRangeMatch: false,
  indexes: [],
  position: { file: 'model/cubes/shop.yml', line: 1, column: 1 },
};

const MONTHS = ['2024-01', '2024-02', '2024-03', '2024-04'];
const endOf = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 1) - 1).toISOString();
};

/** Whether the next build query of `month` should fail halfway through its rows. */
const failing = new Set<string>();

const compiler: RollupCompiler = {
  partitionsOf: (pre, range, timezone) =>
    MONTHS.filter((m) => `${m}-01` >= `${range[0].slice(0, 8)}01` && `${m}-01` <= range[1].slice(0, 10)).map(
      (m) => ({
        preAggregation: `${pre.cube}.${pre.name}`,
        tableName: `prod_pre_aggregations.orders_main${m.replace('-', '')}01`,
        timezone,
        range: [`${m}-01T00:00:00.000Z`, endOf(m)],
      }),
    ),
  buildQueryOf: (_model, _pre, spec) => {
    const month = spec.range?.[0].slice(0, 7) ?? '';
    const count = failing.has(month) ? "CASE WHEN id = 6 THEN json('broken') ELSE 1 END" : '1';
    return {
      ...spec,
      sql: `SELECT status AS s, sum(${count}) AS n, sum(amount) AS total FROM orders
             WHERE created_at >= ? AND created_at <= ? GROUP BY status`,
      params: spec.range ?? [],
      dialect: 'sqlite',
      columns: [
        { name: 's', type: 'text' },
        { name: 'n', type: 'integer' },
        { name: 'total', type: 'real' },
      ],
      indexes: [],
    };
  },
  dataRangeOf,
};

/** The messages the Worker sent to the pre-aggregations queue since the last call. */
const sent: PreAggregationMessage[] = [];

function deliver(messages: PreAggregationMessage[], at: string) {
  platform.clock = clockAt(at);
  return deliverPreAggregations(messages, new Date(at));
}

/** The messages sent since the last call; of one kind when given. */
function take(kind?: PreAggregationMessage['kind']): PreAggregationMessage[] {
  const out = sent.filter((m) => !kind || m.kind === kind);
  sent.splice(0);
  return out;
}

async function partitions() {
  const { results } = await env.DB.prepare(
    `SELECT table_name, timezone, state, version, built_version, next_refresh_at, last_error
       FROM pre_aggregation_partitions WHERE deployment_id = ? ORDER BY timezone, table_name`,
  )
    .bind(deploymentId)
    .all<Record<string, unknown>>();
  return results;
}

const generation = async () =>
  (
    await env.DB.prepare('SELECT generation FROM pre_aggregation_plans WHERE deployment_id = ?')
      .bind(deploymentId)
      .first<{ generation: number }>()
  )?.generation;

beforeAll(async () => {
  acme = await seedAccount();
  [deploymentId] = acme.deployments;
  await loadShopIntoStore(acme.admin, deploymentId);
  await deployModel(acme.admin, deploymentId, shopModel(''));
  const zones = await api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
    auth: acme.admin,
    body: { env_variables: [{ name: 'CUBEJS_SCHEDULED_REFRESH_TIMEZONES', value: 'Asia/Tokyo, Not/AZone' }] },
  });
  expect(zones.status, JSON.stringify(zones.body)).toBe(200);
  // The model as the compiler will compile `pre_aggregations`, and its plan as a publish leaves it.
  await env.DB.prepare(
    `UPDATE builds SET compiled_model = json_set(compiled_model, '$.cubes.orders.preAggregations', json(?))
      WHERE deployment_id = ? AND status = 'built'`,
  )
    .bind(JSON.stringify([MAIN]), deploymentId)
    .run();
  await env.DB.prepare(
    `INSERT INTO pre_aggregation_plans (deployment_id, account_id, build_id, timezones, next_plan_at)
     SELECT id, account_id, 0, '[]', '2026-01-01T00:00:00.000Z' FROM deployments WHERE id = ?`,
  )
    .bind(deploymentId)
    .run();
  platform.rollupCompiler = compiler;
});

describe('the refresh of pre-aggregations', () => {
  it('plans, claims each due partition once over two overlapping ticks, and builds one per message', async () => {
    const use = () => {
      platform.rollupCompiler = compiler;
      recordPreAggregations(sent);
    };
    use();
    await cronTick('2026-05-01T10:00:00.000Z');
    const plans = take();
    expect(plans).toEqual([{ kind: 'pre-aggregation-plan', deploymentId, version: 1, shard: 0 }]);
    expect(await deliver(plans, '2026-05-01T10:00:05.000Z')).toMatchObject({
      explicitAcks: [expect.any(String)],
    });
    // UTC and the env var's known zone: four months each.
    const registered = await partitions();
    expect(registered.map((p) => [p.timezone, p.table_name, p.state, p.version])).toEqual([
      ...['Asia/Tokyo', 'UTC'].flatMap((zone) =>
        ['20240101', '20240201', '20240301', '20240401'].map((d) => [
          zone,
          `prod_pre_aggregations.orders_main${d}`,
          'queued',
          0,
        ]),
      ),
    ]);

    use();
    await Promise.all([cronTick('2026-05-01T10:01:00.000Z'), cronTick('2026-05-01T10:01:00.000Z')]);
    const builds = take();
    expect(builds).toHaveLength(8);
    expect(new Set(builds.map((m) => (m as { partitionId: number }).partitionId)).size).toBe(8);
    expect(builds.every((m) => m.version === 1)).toBe(true);

    use();
    const result = await deliver(builds, '2026-05-01T10:01:10.000Z');
    expect(result.explicitAcks).toHaveLength(8);
    const built = await partitions();
    expect(built.map((p) => [p.state, p.built_version, p.last_error])).toEqual(
      Array(8).fill(['built', 1, null]),
    );
    // Incremental: months that ended before the update window are final; none is here (2024 < window).
    expect(built.every((p) => p.next_refresh_at === NEVER)).toBe(true);
    expect(await generation()).toBe(8);
    const stored = (await deploymentStore(env, deploymentId).listPartitions()) as {
      version: number;
      rows: number;
    }[];
    expect(stored).toHaveLength(8);
    expect(stored.every((p) => p.version === 1)).toBe(true);

    // A redelivery of the same messages builds nothing and records nothing.
    use();
    const again = await deliver(builds, '2026-05-01T10:05:00.000Z');
    expect(again.explicitAcks).toHaveLength(8);
    expect(await partitions()).toEqual(built);
    expect(await generation()).toBe(8);
    expect(await deploymentStore(env, deploymentId).listPartitions()).toEqual(stored);
  });

  it('keeps the last good partition serving when a build throws halfway, and retries it later', async () => {
    platform.rollupCompiler = compiler;
    recordPreAggregations(sent);
    // The update window now reaches March: its partition is due again.
    await env.DB.prepare(
      `UPDATE pre_aggregation_partitions SET next_refresh_at = '2026-05-02T00:00:00.000Z'
        WHERE deployment_id = ? AND table_name LIKE '%20240301' AND timezone = 'UTC'`,
    )
      .bind(deploymentId)
      .run();
    const before = (await deploymentStore(env, deploymentId).listPartitions()) as Record<string, unknown>[];
    failing.add('2024-03');
    await cronTick('2026-05-02T00:00:00.000Z');
    // (The hourly plan is due again too; this test delivers the builds only.)
    const messages = take('pre-aggregation-build');
    expect(messages).toEqual([
      { kind: 'pre-aggregation-build', partitionId: expect.any(Number), version: 2, shard: 0 },
    ]);
    platform.rollupCompiler = compiler;
    expect((await deliver(messages, '2026-05-02T00:00:10.000Z')).explicitAcks).toHaveLength(1);
    failing.clear();
    const march = (await partitions()).find(
      (p) => p.timezone === 'UTC' && String(p.table_name).endsWith('20240301'),
    );
    expect(march).toMatchObject({
      state: 'failed',
      version: 2,
      built_version: 1,
      last_error: expect.stringContaining('malformed JSON'),
      next_refresh_at: '2026-05-02T00:01:10.000Z',
    });
    const after = (await deploymentStore(env, deploymentId).listPartitions()) as Record<string, unknown>[];
    const marchBefore = before.find((p) => p.timezone === 'UTC' && String(p.tableName).endsWith('20240301'));
    expect(after.find((p) => p.tableName === marchBefore?.tableName && p.timezone === 'UTC')).toEqual({
      ...marchBefore,
      buildingVersion: 2,
      lastError: expect.stringContaining('malformed JSON'),
      lastErrorAt: expect.any(String),
    });
    expect(await generation()).toBe(8);

    // The retry, once due, builds it and bumps the generation.
    recordPreAggregations(sent);
    await cronTick('2026-05-02T00:02:00.000Z');
    const retry = take('pre-aggregation-build');
    expect(retry).toEqual([
      {
        kind: 'pre-aggregation-build',
        partitionId: messages[0] && (messages[0] as { partitionId: number }).partitionId,
        version: 3,
        shard: 0,
      },
    ]);
    platform.rollupCompiler = compiler;
    await deliver(retry, '2026-05-02T00:02:05.000Z');
    expect(
      (await partitions()).find((p) => p.timezone === 'UTC' && String(p.table_name).endsWith('20240301')),
    ).toMatchObject({
      state: 'built',
      built_version: 3,
      last_error: null,
    });
    expect(await generation()).toBe(9);
  });

  it('drops the partitions a plan no longer lists, in D1 and in the store', async () => {
    platform.rollupCompiler = compiler;
    recordPreAggregations(sent);
    await api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
      auth: acme.admin,
      body: { env_variables: [{ name: 'CUBEJS_SCHEDULED_REFRESH_TIMEZONES', value: '' }] },
    });
    await env.DB.prepare(
      `UPDATE pre_aggregation_plans SET next_plan_at = '2026-05-03T00:00:00.000Z' WHERE deployment_id = ?`,
    )
      .bind(deploymentId)
      .run();
    await cronTick('2026-05-03T00:00:00.000Z');
    const plan = take().filter((m) => m.kind === 'pre-aggregation-plan');
    expect(plan).toHaveLength(1);
    platform.rollupCompiler = compiler;
    await deliver(plan, '2026-05-03T00:00:05.000Z');
    expect(new Set((await partitions()).map((p) => p.timezone))).toEqual(new Set(['UTC']));
    const stored = (await deploymentStore(env, deploymentId).listPartitions()) as { timezone: string }[];
    expect(stored.map((p) => p.timezone)).toEqual(['UTC', 'UTC', 'UTC', 'UTC']);
  });
});

describe('GET /api/v1/deployments/{id}/pre-aggregations', () => {
  it("lists each partition's refresh state beside its last build, a page at a time", async () => {
    const first = await api('GET', `/api/v1/deployments/${deploymentId}/pre-aggregations?first=3`, {
      auth: acme.admin,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.items).toHaveLength(3);
    expect(first.body.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const rest = await api(
      'GET',
      `/api/v1/deployments/${deploymentId}/pre-aggregations?first=3&after=${first.body.pageInfo.endCursor}`,
      { auth: acme.admin },
    );
    expect(rest.status).toBe(200);
    const items = [...first.body.items, ...rest.body.items];
    expect(rest.body.pageInfo.hasNextPage).toBe(false);
    const stored = (await deploymentStore(env, deploymentId).listPartitions()) as Record<string, any>[];
    expect(items.map((i) => i.tableName)).toEqual(stored.map((p) => p.tableName));
    const march = items.find((i) => i.tableName.endsWith('20240301'));
    const marchStored = stored.find((p) => p.tableName === march.tableName);
    expect(march).toEqual({
      id: expect.any(Number),
      preAggregation: 'orders.main',
      tableName: 'prod_pre_aggregations.orders_main20240301',
      timezone: 'UTC',
      range: { start: '2024-03-01T00:00:00.000Z', end: '2024-03-31T23:59:59.999Z' },
      state: 'built',
      version: 3,
      builtVersion: 3,
      rows: marchStored?.rows,
      bytes: marchStored?.bytes,
      lastBuiltAt: marchStored?.builtAt,
      buildMs: marchStored?.buildMs,
      nextRefreshAt: null,
      lastError: null,
    });
    // Cancelled and completed orders in March: two groups.
    expect(march.rows).toBe(2);
    expect(march.bytes).toBeGreaterThan(0);
  });

  it("answers 404 for another account's deployment and 400 for a foreign cursor", async () => {
    const other = await seedAccount();
    const res = await api('GET', `/api/v1/deployments/${deploymentId}/pre-aggregations`, {
      auth: other.admin,
    });
    expectError(res, 404, 'NOT_FOUND');
    const bad = await api('GET', `/api/v1/deployments/${deploymentId}/pre-aggregations?after=bm9wZQ`, {
      auth: acme.admin,
    });
    expectError(bad, 400, 'INVALID_CURSOR');
  });
});

describe('refresh keys', () => {
  const use = () => {
    platform.rollupCompiler = compiler;
    recordPreAggregations(sent);
  };
  /** Ticks at `at` and delivers what it sent, at `at`. */
  async function cycle(at: string) {
    use();
    sent.splice(0);
    await cronTick(at);
    const messages = take();
    use();
    if (messages.length > 0) await deliver(messages, at);
    return messages;
  }
  const storeVersions = async () =>
    Object.fromEntries(
      (
        (await deploymentStore(env, deploymentId).listPartitions()) as {
          tableName: string;
          version: number;
        }[]
      ).map((p) => [p.tableName.slice(-8), p.version]),
    );

  it('refreshes only the partitions inside the update window, and rebuilds only when refresh_key.sql changes', async () => {
    // The rollup now refreshes hourly, checks the orders' count, and keeps a 10-day window.
    const refreshKey = {
      every: 3_600,
      sql: 'SELECT count(*) FROM orders',
      incremental: true,
      updateWindow: 10 * 86_400,
    };
    // Published as a new build, as a deploy would (a build never changes once built).
    await env.DB.prepare(
      `INSERT INTO builds (deployment_id, status, attempts, created_at, finished_at, compiled_model)
       SELECT deployment_id, 'built', 1, created_at, finished_at,
              json_set(compiled_model, '$.cubes.orders.preAggregations', json(?))
         FROM builds WHERE deployment_id = ? AND status = 'built' ORDER BY id DESC LIMIT 1`,
    )
      .bind(JSON.stringify([{ ...MAIN, refreshKey }]), deploymentId)
      .run();
    await env.DB.prepare(
      `UPDATE pre_aggregation_plans SET next_plan_at = '2024-04-20T00:00:00.000Z' WHERE deployment_id = ?`,
    )
      .bind(deploymentId)
      .run();
    // The plan registers the new definition: every partition is due and rebuilt once.
    const planned = await cycle('2024-04-20T00:00:00.000Z');
    expect(planned.map((m) => m.kind)).toEqual(['pre-aggregation-plan']);
    const rebuilt = await cycle('2024-04-20T00:01:00.000Z');
    expect(rebuilt).toHaveLength(4);
    const after = await storeVersions();
    const due = Object.fromEntries(
      (await partitions()).map((p) => [String(p.table_name).slice(-8), p.next_refresh_at]),
    );
    // January to March ended before the window (April 10th on): built once, never refreshed.
    expect(due).toEqual({
      '20240101': NEVER,
      '20240201': NEVER,
      '20240301': NEVER,
      '20240401': '2024-04-20T01:01:00.000Z',
    });

    // An hour on, April is checked: the count is the same, so nothing is rebuilt.
    const checked = await cycle('2024-04-20T01:01:00.000Z');
    // (The hourly plan is due too, and registers nothing new.)
    expect(checked.filter((m) => m.kind === 'pre-aggregation-build')).toHaveLength(1);
    expect(await storeVersions()).toEqual(after);
    expect((await partitions()).find((p) => String(p.table_name).endsWith('20240401'))).toMatchObject({
      state: 'built',
      next_refresh_at: '2024-04-20T02:01:00.000Z',
    });

    // A new order changes the count: the next check rebuilds April, and only April.
    const append = await api(
      'POST',
      `/api/v1/deployments/${deploymentId}/data/tables/orders/import?mode=append`,
      {
        auth: acme.admin,
        rawBody: 'id,user_id,status,amount,country,created_at\n9,1,completed,5,FR,2024-04-19T10:00:00Z',
        headers: { 'content-type': 'text/csv' },
      },
    );
    expect(append.status, JSON.stringify(append.body)).toBe(200);
    await cycle('2024-04-20T02:01:00.000Z');
    const versions = await storeVersions();
    expect(versions['20240401']).toBeGreaterThan(after['20240401'] as number);
    expect({ ...versions, '20240401': 0 }).toEqual({ ...after, '20240401': 0 });
  });
});

describe('a plan and an account move', () => {
  it('registers nothing while the account is frozen, and plans again once the move is over', async () => {
    platform.rollupCompiler = compiler;
    recordPreAggregations(sent);
    const zones = await api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
      auth: acme.admin,
      body: { env_variables: [{ name: 'CUBEJS_SCHEDULED_REFRESH_TIMEZONES', value: 'Asia/Tokyo' }] },
    });
    expect(zones.status).toBe(200);
    await env.DB.prepare(
      `UPDATE pre_aggregation_plans SET next_plan_at = '2026-05-04T00:00:00.000Z' WHERE deployment_id = ?`,
    )
      .bind(deploymentId)
      .run();
    await cronTick('2026-05-04T00:00:00.000Z');
    const plan = take('pre-aggregation-plan');
    expect(plan).toHaveLength(1);
    const before = await partitions();
    expect(before.every((p) => p.timezone === 'UTC')).toBe(true);
    const freeze = (at: string | null) => freezeAccount(acme.accountId, at);
    // The move freezes the account after the claim, before the message arrives.
    await freeze('2026-05-04T00:00:01.000Z');
    try {
      platform.rollupCompiler = compiler;
      expect((await deliver(plan, '2026-05-04T00:00:05.000Z')).explicitAcks).toHaveLength(1);
      expect(await partitions()).toEqual(before);
      const claimed = await env.DB.prepare(
        'SELECT next_plan_at FROM pre_aggregation_plans WHERE deployment_id = ?',
      )
        .bind(deploymentId)
        .first<{ next_plan_at: string }>();
      // Still the claim's: due again when it lapses, not a day later.
      expect(claimed?.next_plan_at).toBe('2026-05-04T00:20:00.000Z');
    } finally {
      await freeze(null);
    }
    platform.rollupCompiler = compiler;
    await cronTick('2026-05-04T00:21:00.000Z');
    const again = take('pre-aggregation-plan');
    expect(again).toHaveLength(1);
    platform.rollupCompiler = compiler;
    await deliver(again, '2026-05-04T00:21:05.000Z');
    expect(new Set((await partitions()).map((p) => p.timezone))).toEqual(new Set(['Asia/Tokyo', 'UTC']));
  });
});
