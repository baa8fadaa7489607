import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import {
  cubeToken,
  deployModel,
  load,
  loadShopIntoPostgres,
  pgRows,
  shopModel,
  usePostgres,
} from './fixtures';

const MANAGER = { cubeCloud: { groups: ['managers'] } };

/** Rows as arrays of strings (null stays null), in the order of `keys`. */
const rowsOf = (data: Record<string, unknown>[], keys: string[]) =>
  data.map((row) => keys.map((k) => (row[k] === null || row[k] === undefined ? null : String(row[k]))));
const textRows = (rows: Record<string, unknown>[]) =>
  rows.map((row) => Object.values(row).map((v) => (v === null ? null : String(v))));

let acme: SeededAccount;
let schema: string;
let deploymentId: number;
let token: string;

beforeAll(async () => {
  acme = await seedAccount();
  deploymentId = acme.deployments[0];
  schema = await loadShopIntoPostgres();
  await usePostgres(acme.admin, deploymentId);
  await deployModel(acme.admin, deploymentId, shopModel(`${schema}.`));
  token = await cubeToken(acme.admin, deploymentId, MANAGER);
});

describe('/cubejs-api/v1/load over PostgreSQL', () => {
  it('counts and sums by a dimension, as the same aggregation written in SQL', async () => {
    const res = await load(token, {
      measures: ['orders.count', 'orders.total_amount', 'orders.average_amount'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = await pgRows(
      `SELECT status, count(*), sum(amount), avg(amount) FROM ${schema}.orders GROUP BY status ORDER BY status`,
    );
    expect(
      rowsOf(res.body.data, [
        'orders.status',
        'orders.count',
        'orders.total_amount',
        'orders.average_amount',
      ]),
    ).toEqual(textRows(expected));
    expect(res.body.annotation.measures['orders.count']).toMatchObject({ type: 'number' });
    expect(res.body.query).toMatchObject({ limit: 10000, timezone: 'UTC' });
    expect(typeof res.body.lastRefreshTime).toBe('string');
  });

  it('does not double count the one side of a one-to-many join', async () => {
    const res = await load(token, {
      measures: ['orders.total_amount', 'orders.count', 'line_items.quantity'],
      dimensions: ['line_items.product'],
      order: { 'line_items.product': 'asc' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = await pgRows(
      `SELECT p.product, sum(o.amount) AS amount, count(o.id) AS orders,
         (SELECT sum(quantity) FROM ${schema}.line_items li WHERE li.product IS NOT DISTINCT FROM p.product) AS quantity
       FROM ${schema}.orders o
       LEFT JOIN (SELECT DISTINCT order_id, product FROM ${schema}.line_items) p ON p.order_id = o.id
       GROUP BY p.product ORDER BY p.product NULLS LAST`,
    );
    expect(
      rowsOf(res.body.data, [
        'line_items.product',
        'orders.total_amount',
        'orders.count',
        'line_items.quantity',
      ]),
    ).toEqual(textRows(expected));
    // The one side's total over all products would exceed the orders' own total if counted per item.
    const overall = await pgRows(`SELECT sum(amount) AS s FROM ${schema}.orders`);
    const total = await load(token, { measures: ['orders.total_amount'], dimensions: [] });
    expect(total.body.data[0]['orders.total_amount']).toBe(String(overall[0]?.s));
  });

  it('buckets a time dimension by month in the query time zone, within a date range', async () => {
    for (const timezone of ['UTC', 'America/New_York']) {
      const res = await load(token, {
        measures: ['orders.count'],
        timeDimensions: [
          { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
        ],
        timezone,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const expected = await pgRows(
        `SELECT to_char(date_trunc('month', created_at AT TIME ZONE $1), 'YYYY-MM-DD"T"HH24:MI:SS.MS'), count(*)
         FROM ${schema}.orders
         WHERE created_at AT TIME ZONE $1 >= '2024-01-01' AND created_at AT TIME ZONE $1 < '2024-04-01'
         GROUP BY 1 ORDER BY 1`,
        [timezone],
      );
      expect(rowsOf(res.body.data, ['orders.created_at.month', 'orders.count'])).toEqual(textRows(expected));
      expect(res.body.data[0]['orders.created_at']).toBe(res.body.data[0]['orders.created_at.month']);
    }
  });

  it("takes Cube's shorthand of a time dimension and granularity among the dimensions", async () => {
    const range = { dimension: 'orders.created_at', dateRange: ['2024-01-01', '2024-03-31'] };
    const long = await load(token, {
      measures: ['orders.count'],
      timeDimensions: [{ ...range, granularity: 'month' }],
    });
    const short = await load(token, {
      measures: ['orders.count'],
      dimensions: ['orders.created_at.month'],
      timeDimensions: [range],
    });
    expect(short.status, JSON.stringify(short.body)).toBe(200);
    expect(short.body.data.length).toBeGreaterThan(1);
    expect(short.body.data).toEqual(long.body.data);
    // The order may name it so too, and picks that granularity's column when there are two.
    const both = await load(token, {
      measures: ['orders.count'],
      dimensions: ['orders.created_at.month'],
      timeDimensions: [{ ...range, granularity: 'day' }],
      order: [['orders.created_at.month', 'desc']],
    });
    expect(both.status, JSON.stringify(both.body)).toBe(200);
    const months = both.body.data.map((row: Record<string, string>) => row['orders.created_at.month']);
    expect(months.length).toBeGreaterThan(2);
    expect(months).toEqual([...months].sort().reverse());
    expect(new Set(months).size).toBeGreaterThan(1);
    expect(both.body.query.order).toEqual([['orders.created_at.month', 'desc']]);
  });

  it('applies filters with Cube operators as bound parameters', async () => {
    const res = await load(token, {
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      filters: [
        {
          or: [
            { member: 'orders.status', operator: 'contains', values: ['COMPLETE'] },
            { member: 'orders.status', operator: 'startsWith', values: ['100%'] },
          ],
        },
        { member: 'orders.country', operator: 'notEquals', values: ['JP'] },
      ],
      order: [['orders.status', 'asc']],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = await pgRows(
      `SELECT status, count(*) FROM ${schema}.orders
       WHERE (status ILIKE '%complete%' OR status LIKE '100\\%%') AND (country <> 'JP' OR country IS NULL)
       GROUP BY status ORDER BY status`,
    );
    expect(rowsOf(res.body.data, ['orders.status', 'orders.count'])).toEqual(textRows(expected));
  });

  it("compares the single-date operators with the date's start in the query time zone, as Cube does", async () => {
    // Orders 1, 3 and 7 sit exactly on a UTC midnight; order 2 is the last second of 31 January.
    const cases = [
      ['afterDate', '2024-01-31', 'UTC', '>'],
      ['afterOrOnDate', '2024-01-31', 'UTC', '>='],
      ['beforeDate', '2024-01-31', 'UTC', '<'],
      ['beforeOrOnDate', '2024-01-31', 'UTC', '<='],
      ['afterDate', '2024-02-01', 'UTC', '>'],
      ['afterOrOnDate', '2024-02-01', 'UTC', '>='],
      ['beforeDate', '2024-02-01', 'UTC', '<'],
      ['beforeOrOnDate', '2024-02-01', 'UTC', '<='],
      // 1 February starts at 15:00Z on 31 January in Tokyo: order 2 is after it.
      ['afterDate', '2024-02-01', 'Asia/Tokyo', '>'],
      ['beforeOrOnDate', '2024-02-01', 'Asia/Tokyo', '<='],
    ] as const;
    for (const [operator, date, timezone, sign] of cases) {
      const res = await load(token, {
        dimensions: ['orders.id'],
        filters: [{ member: 'orders.created_at', operator, values: [date] }],
        order: { 'orders.id': 'asc' },
        timezone,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const expected = await pgRows(
        `SELECT id FROM ${schema}.orders WHERE created_at ${sign} ($1::date::timestamp AT TIME ZONE $2) ORDER BY id`,
        [date, timezone],
      );
      expect(rowsOf(res.body.data, ['orders.id']), `${operator} ${date} ${timezone}`).toEqual(
        textRows(expected),
      );
    }
    // A value with a time keeps its time.
    const timed = await load(token, {
      dimensions: ['orders.id'],
      filters: [{ member: 'orders.created_at', operator: 'afterOrOnDate', values: ['2024-01-31T23:59:59'] }],
      order: { 'orders.id': 'asc' },
    });
    const fromTime = await pgRows(
      `SELECT id FROM ${schema}.orders WHERE created_at >= '2024-01-31 23:59:59+00' ORDER BY id`,
    );
    expect(rowsOf(timed.body.data, ['orders.id'])).toEqual(textRows(fromTime));
    // /sql shows the bound instant: the date's first one, never its last.
    const qs = new URLSearchParams({
      query: JSON.stringify({
        measures: ['orders.count'],
        filters: [{ member: 'orders.created_at', operator: 'afterDate', values: ['2024-01-31'] }],
      }),
    });
    const sql = await api('GET', `/cubejs-api/v1/sql?${qs}`, { auth: { raw: token } });
    expect(sql.status, JSON.stringify(sql.body)).toBe(200);
    const params = JSON.stringify(sql.body.sql.sql[1]);
    expect(params).toContain('2024-01-31T00:00:00.000');
    expect(params).not.toContain('23:59:59.999');
  });

  it('answers a filtered measure, a calculated measure, a segment and a view', async () => {
    const res = await load(token, {
      measures: ['orders.completed_amount', 'orders.amount_per_order'],
      segments: ['orders.completed'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [expected] = await pgRows(
      `SELECT sum(CASE WHEN status = 'completed' THEN amount END) AS c, sum(amount) / NULLIF(count(*), 0) AS p
       FROM ${schema}.orders WHERE status = 'completed'`,
    );
    expect(res.body.data[0]['orders.completed_amount']).toBe(String(expected?.c));
    expect(Number(res.body.data[0]['orders.amount_per_order'])).toBeCloseTo(Number(expected?.p), 10);

    const view = await load(token, {
      measures: ['sales.count'],
      dimensions: ['sales.users_country'],
      order: { 'sales.users_country': 'asc' },
    });
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    const byCountry = await pgRows(
      `SELECT u.country, count(*) FROM ${schema}.orders o LEFT JOIN ${schema}.users u ON u.id = o.user_id
       GROUP BY u.country ORDER BY u.country NULLS LAST`,
    );
    expect(rowsOf(view.body.data, ['sales.users_country', 'sales.count'])).toEqual(textRows(byCountry));
  });

  it('answers total, limit and offset', async () => {
    const res = await load(token, {
      measures: ['orders.count'],
      dimensions: ['orders.id'],
      order: { 'orders.id': 'asc' },
      limit: 3,
      offset: 2,
      total: true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.map((r: Record<string, string>) => r['orders.id'])).toEqual(['3', '4', '5']);
    expect(res.body.total).toBe(8);
  });

  it('answers from the cache what it answered from the source: rows, total and the multi format', async () => {
    const query = {
      measures: ['orders.count', 'orders.total_amount'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' },
      limit: 2,
      total: true,
    } as const;
    const fresh = await load(token, { ...query, renewQuery: true });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    const expected = await pgRows(
      `SELECT status, count(*), sum(amount) FROM ${schema}.orders GROUP BY status ORDER BY status LIMIT 2`,
    );
    expect(rowsOf(fresh.body.data, ['orders.status', 'orders.count', 'orders.total_amount'])).toEqual(
      textRows(expected),
    );
    const groups = await pgRows(`SELECT count(DISTINCT status) AS n FROM ${schema}.orders`);
    expect(fresh.body.total).toBe(Number(groups[0]?.n));
    const cached = await load(token, query);
    expect(cached.body).toEqual({ ...fresh.body, query: { ...fresh.body.query, renewQuery: undefined } });
    expect(cached.body.lastRefreshTime).toBe(fresh.body.lastRefreshTime);
    const multi = await api('POST', '/cubejs-api/v1/load', {
      auth: { bearer: token },
      body: { query: [query, { measures: ['orders.count'] }], queryType: 'multi' },
    });
    expect(multi.status, JSON.stringify(multi.body)).toBe(200);
    expect(multi.body.queryType).toBe('blendingQuery');
    expect(multi.body.results[0]).toEqual(cached.body);
    expect(multi.body.pivotQuery).toEqual(cached.body.query);
    expect(multi.body.slowQuery).toBe(false);
    const [all] = await pgRows(`SELECT count(*)::text AS n FROM ${schema}.orders`);
    expect(multi.body.results[1].data).toEqual([{ 'orders.count': all?.n }]);
  });

  it('takes POST and the multi format @cubejs-client/core asks for', async () => {
    const res = await api('POST', '/cubejs-api/v1/load', {
      auth: { bearer: token },
      body: { query: { measures: ['orders.count'] }, queryType: 'multi' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queryType).toBe('regularQuery');
    expect(res.body.results[0].data).toEqual([{ 'orders.count': '8' }]);
  });

  it('answers a list of queries together (data blending), by GET and by POST', async () => {
    const queries = [
      { measures: ['orders.count'] },
      {
        measures: ['orders.count'],
        filters: [{ member: 'orders.status', operator: 'equals', values: ['nope'] }],
      },
    ];
    for (const res of [
      await load(token, queries),
      await api('POST', '/cubejs-api/v1/load', { auth: { bearer: token }, body: { query: queries } }),
    ]) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.queryType).toBe('blendingQuery');
      expect(res.body.results.map((r: { data: unknown }) => r.data)).toEqual([
        [{ 'orders.count': '8' }],
        [{ 'orders.count': '0' }],
      ]);
    }
    // A list with a malformed query is refused as a whole, at that query, by GET and by POST.
    const malformed = [{ measures: ['orders.count'] }, { measures: 'orders.count' }];
    for (const res of [
      await load(token, malformed),
      await api('POST', '/cubejs-api/v1/load', { auth: { bearer: token }, body: { query: malformed } }),
    ]) {
      expectError(res, 400);
      expect(res.body.error).toContain('query.1.measures');
      expect(res.body.error).not.toContain('at least one member');
    }
    // A list whose element is no query at all, or a query that is neither: named as such.
    for (const query of [[{ measures: ['orders.count'] }, 5], 5]) {
      const res = await load(token, query);
      expectError(res, 400);
      expect(res.body.error).toBe(
        'Invalid query: query Expected a query object or a list of 1 to 10 of them',
      );
    }
  });

  it('names an unknown member, operator or date range in a 400', async () => {
    const member = await load(token, { measures: ['orders.nope'] });
    expectError(member, 400);
    expect(member.body.error).toContain('orders.nope');
    const operator = await load(token, {
      measures: ['orders.count'],
      filters: [{ member: 'orders.status', operator: 'resembles', values: ['x'] }],
    });
    expectError(operator, 400);
    expect(operator.body.error).toContain('resembles');
    const range = await load(token, {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'next blue moon' }],
    });
    expectError(range, 400);
    expect(range.body.error).toContain('next blue moon');
    expectError(await load(token, { measures: ['orders.count'], limit: 50_001 }), 400);
    // An order of [member, direction] pairs is named at the bad direction, not at the pair.
    const order = await load(token, { measures: ['orders.count'], order: [['orders.count', 'up']] });
    expectError(order, 400);
    expect(order.body.error).toMatch(/^Invalid query: query\.order\.0\.1 /);
    expect(order.body.details).toHaveLength(1);
    expectError(await api('GET', '/cubejs-api/v1/load?query=%7Bnot-json', { auth: { raw: token } }), 400);
    // Nothing to answer with: a 400 in Cube's words, on the embedded store's SQL too (never `SELECT  FROM`).
    for (const query of [
      {},
      { segments: ['orders.completed'] },
      { filters: [{ member: 'orders.status', operator: 'set' }] },
    ]) {
      const empty = await load(token, query);
      expectError(empty, 400);
      expect(empty.body.error).toContain(
        'Query should contain either measures, dimensions or timeDimensions',
      );
    }
  });

  it('names a lone surrogate or an offset past 2^53 - 1 in a 400, by GET and by POST', async () => {
    const status = (value: string) => ({
      measures: ['orders.count'],
      filters: [{ member: 'orders.status', operator: 'equals', values: [value] }],
    });
    const byGet = await load(token, status('paid\ud800'));
    expectError(byGet, 400, 'VALIDATION_FAILED');
    expect(byGet.body.details).toEqual([
      { path: 'query.filters.0.values.0', message: expect.stringContaining('surrogate') },
    ]);
    const byPost = await api('POST', '/cubejs-api/v1/load', {
      auth: { raw: token },
      body: { query: status('\udc00paid') },
    });
    expectError(byPost, 400, 'VALIDATION_FAILED');
    expect(byPost.body.details[0].path).toBe('query.filters.0.values.0');
    // A pair is one character: a value like any other.
    const pair = await load(token, status('paid😀'));
    expect(pair.status, JSON.stringify(pair.body)).toBe(200);
    expect(rowsOf(pair.body.data, ['orders.count'])).toEqual([['0']]);

    const byStatus = { measures: ['orders.count'], dimensions: ['orders.status'] };
    for (const offset of [2 ** 53, 2 ** 63, 1e300]) {
      const res = await load(token, { ...byStatus, offset });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe('query.offset');
    }
    const last = await load(token, { ...byStatus, offset: 2 ** 53 - 1 });
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    expect(last.body.data).toEqual([]);
  });

  it('/sql binds every value: a hostile value never reaches the SQL text', async () => {
    const hostile = "x'); DROP TABLE orders; --";
    const qs = new URLSearchParams({
      query: JSON.stringify({
        measures: ['orders.count'],
        filters: [{ member: 'orders.status', operator: 'equals', values: [hostile] }],
      }),
    });
    const res = await api('GET', `/cubejs-api/v1/sql?${qs}`, { auth: { raw: token } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [text, params] = res.body.sql.sql as [string, unknown[]];
    expect(text).not.toContain('DROP TABLE');
    expect(JSON.stringify(params)).toContain('DROP TABLE');
    const run = await load(token, {
      measures: ['orders.count'],
      filters: [{ member: 'orders.status', operator: 'equals', values: [hostile] }],
    });
    expect(run.body.data).toEqual([{ 'orders.count': '0' }]);
  });

  it('/meta lists the cubes and views; /dry-run normalizes without running', async () => {
    const meta = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: token } });
    expect(meta.status).toBe(200);
    const names = meta.body.cubes.map((c: { name: string }) => c.name).sort();
    // The starter project's example cube is still there beside the shop.
    expect(names).toEqual(['example', 'line_items', 'orders', 'sales', 'users']);
    const orders = meta.body.cubes.find((c: { name: string }) => c.name === 'orders');
    expect(orders.measures.map((m: { name: string }) => m.name)).toContain('orders.total_amount');
    // Non-public members are not listed.
    expect(orders.dimensions.map((d: { name: string }) => d.name)).not.toContain('orders.user_id');

    const qs = new URLSearchParams({ query: JSON.stringify({ measures: ['orders.count'] }) });
    const dry = await api('GET', `/cubejs-api/v1/dry-run?${qs}`, { auth: { raw: token } });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.normalizedQueries[0]).toMatchObject({ measures: ['orders.count'], limit: 10000 });
  });

  it('serves a repeated query from the cache, and renewQuery runs it again', async () => {
    const query = { measures: ['orders.count'], dimensions: ['orders.country'] };
    const first = await load(token, query);
    const second = await load(token, query);
    expect(second.body.lastRefreshTime).toBe(first.body.lastRefreshTime);
    expect(second.body.data).toEqual(first.body.data);
    await new Promise((r) => setTimeout(r, 5));
    const renewed = await load(token, { ...query, renewQuery: true });
    expect(renewed.status).toBe(200);
    expect(renewed.body.lastRefreshTime > first.body.lastRefreshTime).toBe(true);
  });
});

describe('credentials of the Cube REST API', () => {
  it('needs a token, refuses a forged or another deployment host one', async () => {
    expectError(await api('GET', '/cubejs-api/v1/meta'), 401);
    expectError(await api('GET', '/cubejs-api/v1/meta', { auth: { raw: `${token}x` } }), 401);
    const other = await seedAccount();
    const otherToken = await cubeToken(other.admin, other.deployments[0], MANAGER);
    // Another account's token on this deployment's host: the host and the token disagree.
    const deployment = await api('GET', `/api/v1/deployments/${deploymentId}`, { auth: acme.admin });
    const host = new URL(deployment.body.deploymentUrl).host;
    const res = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: otherToken }, headers: { host } });
    expectError(res, 403);
    const own = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: token }, headers: { host } });
    expect(own.status).toBe(200);
  });

  it('issues tokens to admins only, within expiresIn bounds', async () => {
    expectError(
      await api('POST', `/api/v1/deployments/${deploymentId}/token`, { auth: acme.member, body: {} }),
      403,
    );
    expectError(
      await api('POST', `/api/v1/deployments/${deploymentId}/token`, {
        auth: acme.admin,
        body: { expiresIn: 10 },
      }),
      400,
    );
    const other = await seedAccount();
    expectError(
      await api('POST', `/api/v1/deployments/${deploymentId}/token`, { auth: other.admin, body: {} }),
      404,
    );
  });
});

describe('data access policies', () => {
  it('shows each viewer only their rows, whatever the query', async () => {
    const fr = await cubeToken(acme.admin, deploymentId, { country: 'FR', cubeCloud: { groups: ['reps'] } });
    const jp = await cubeToken(acme.admin, deploymentId, { country: 'JP', cubeCloud: { groups: ['reps'] } });
    for (const [viewer, country] of [
      [fr, 'FR'],
      [jp, 'JP'],
    ] as const) {
      const res = await load(viewer, {
        measures: ['orders.count', 'orders.total_amount'],
        dimensions: ['orders.country'],
        // An OR filter that would include other countries cannot widen the policy.
        filters: [
          {
            or: [
              { member: 'orders.country', operator: 'set' },
              { member: 'orders.country', operator: 'notSet' },
            ],
          },
        ],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const expected = await pgRows(
        `SELECT country, count(*), sum(amount) FROM ${schema}.orders WHERE country = $1 GROUP BY country`,
        [country],
      );
      expect(rowsOf(res.body.data, ['orders.country', 'orders.count', 'orders.total_amount'])).toEqual(
        textRows(expected),
      );
      // Through the view and through a join the same rows are hidden.
      const view = await load(viewer, { measures: ['sales.count'] });
      expect(view.body.data).toEqual([{ 'sales.count': String(expected[0]?.count) }]);
    }
  });

  it('fails closed: a viewer lacking the policy value sees no rows', async () => {
    const nobody = await cubeToken(acme.admin, deploymentId, { cubeCloud: { groups: ['reps'] } });
    const res = await load(nobody, { measures: ['orders.count'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual([{ 'orders.count': '0' }]);
  });

  it('answers 403 naming a member the viewer may not see, and hides it from /meta', async () => {
    const rep = await cubeToken(acme.admin, deploymentId, { country: 'FR', cubeCloud: { groups: ['reps'] } });
    const res = await load(rep, { measures: ['orders.average_amount'] });
    expectError(res, 403);
    expect(res.body.error).toContain('orders.average_amount');
    const stranger = await cubeToken(acme.admin, deploymentId);
    expectError(await load(stranger, { measures: ['orders.count'] }), 403);
    const meta = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: rep } });
    const orders = meta.body.cubes.find((c: { name: string }) => c.name === 'orders');
    expect(orders.measures.map((m: { name: string }) => m.name)).not.toContain('orders.average_amount');
  });
});

describe('embed tokens on the Cube REST API', () => {
  it("carry the embed viewer's groups and security context into the policies, until revoked", async () => {
    const group = await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'reps' } });
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    const minted = await api('POST', '/api/v1/embed/generate-session', {
      auth: { bearer: acme.key.apiKey },
      body: { deploymentId, externalId: 'rep-ie', groups: ['reps'], securityContext: { country: 'IE' } },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const exchanged = await api('POST', '/api/v1/embed/session/token', {
      body: { sessionId: minted.body.sessionId },
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const embedToken = exchanged.body.token as string;
    const res = await load(embedToken, { measures: ['orders.count'], dimensions: ['orders.country'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = await pgRows(
      `SELECT country, count(*) FROM ${schema}.orders WHERE country = 'IE' GROUP BY country`,
    );
    expect(rowsOf(res.body.data, ['orders.country', 'orders.count'])).toEqual(textRows(expected));
    // The session id itself is not a data credential, and a revoked session's token stops working.
    expectError(await load(minted.body.sessionId, { measures: ['orders.count'] }), 401);
    const revoked = await api('POST', '/api/v1/embed/session/revoke', {
      auth: acme.admin,
      body: { sessionId: minted.body.sessionId },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expectError(await load(embedToken, { measures: ['orders.count'] }), 401);
  });
});

describe('a misconfigured data source', () => {
  it('answers 409 naming the problem, never a 500', async () => {
    const staging = acme.deployments[1];
    await deployModel(acme.admin, staging, shopModel(`${schema}.`));
    const stagingToken = await cubeToken(acme.admin, staging, MANAGER);
    for (const env_variables of [
      [{ name: 'CUBEJS_DB_TYPE', value: 'mysql' }],
      // postgres without a host: the settings are incomplete.
      [{ name: 'CUBEJS_DB_TYPE', value: 'postgres' }],
    ]) {
      const set = await api('PUT', `/api/v1/deployments/${staging}/env-vars`, {
        auth: acme.admin,
        body: { env_variables },
      });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      const res = await load(stagingToken, { measures: ['orders.count'] });
      expectError(res, 409);
      const sqlRes = await api(
        'GET',
        `/cubejs-api/v1/sql?${new URLSearchParams({ query: '{"measures":["orders.count"]}' })}`,
        {
          auth: { raw: stagingToken },
        },
      );
      expectError(sqlRes, 409);
    }
  });
});
