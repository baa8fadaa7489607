import cube from '@cubejs-client/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { CLIENT_API_URL, load, routeClientToWorker, shopOnBothStores } from './fixtures';

/**
 * Cube's query types beyond a single query, on both stores, and read by `@cubejs-client/core` as
 * Cube's own answers are: compare-date-range queries (`timeDimensions[].compareDateRange`: one
 * query per range, each row tagged by its range) and data blending (a list of queries with a
 * granularity, lined up on a common `time` axis).
 */

type Json = any;
const MANAGER = { cubeCloud: { groups: ['managers'] } };
const JANUARY = '2024-01-01T00:00:00.000 - 2024-01-31T23:59:59.999';
const FEB_TO_MID_MARCH = '2024-02-01T00:00:00.000 - 2024-03-15T23:59:59.999';

let acme: SeededAccount;
const tokens: Record<'embedded' | 'postgres', string> = { embedded: '', postgres: '' };
let restoreFetch = () => {};

beforeAll(async () => {
  acme = await seedAccount();
  const shop = await shopOnBothStores(acme, MANAGER);
  tokens.embedded = shop.storeToken;
  tokens.postgres = shop.pgToken;
  restoreFetch = routeClientToWorker();
});

afterAll(() => restoreFetch());

const compared = (extra: Json = {}) => ({
  measures: ['orders.count', 'orders.total_amount'],
  timeDimensions: [
    {
      dimension: 'orders.created_at',
      granularity: 'month',
      compareDateRange: [
        ['2024-01-01', '2024-01-31'],
        ['2024-02-01', '2024-03-15'],
      ],
    },
  ],
  ...extra,
});

/** A result's rows as `[compareDateRange, month, count, total]`. */
const rowsOf = (result: Json) =>
  result.data.map((row: Json) => [
    row.compareDateRange,
    row['orders.created_at.month'],
    String(row['orders.count']),
    row['orders.total_amount'] === null ? null : Number(row['orders.total_amount']),
  ]);

describe.each(['embedded', 'postgres'] as const)('compareDateRange on the %s store', (store) => {
  it('runs one query per range and tags each row with its range', async () => {
    for (const queryType of ['multi', undefined]) {
      const res = await load(tokens[store], compared(), queryType ? { queryType } : {});
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.queryType).toBe('compareDateRangeQuery');
      expect(res.body.results).toHaveLength(2);
      const [first, second] = res.body.results;
      // Orders 1 and 2 in January; 3 and 4 in February, 5 on 10 March (6 is on 31 March).
      expect(rowsOf(first)).toEqual([[JANUARY, '2024-01-01T00:00:00.000', '2', 120.5]]);
      expect(rowsOf(second)).toEqual([
        [FEB_TO_MID_MARCH, '2024-02-01T00:00:00.000', '2', 75.25],
        [FEB_TO_MID_MARCH, '2024-03-01T00:00:00.000', '1', 300],
      ]);
      // Each result echoes the query it ran, with its own range.
      expect(first.query.timeDimensions[0]).toEqual({
        dimension: 'orders.created_at',
        granularity: 'month',
        dateRange: ['2024-01-01', '2024-01-31'],
      });
      expect(second.query.timeDimensions[0].dateRange).toEqual(['2024-02-01', '2024-03-15']);
      expect(first.query.queryType).toBe('compareDateRangeQuery');
      expect(res.body.pivotQuery.dimensions).toEqual(['compareDateRange']);
      expect(res.body.pivotQuery.queryType).toBe('compareDateRangeQuery');
      expect(res.body.pivotQuery.measures).toEqual(['orders.count', 'orders.total_amount']);
    }
  });

  it("labels each range in the query's time zone, and filters and dimensions apply to every range", async () => {
    const res = await load(
      tokens[store],
      compared({
        dimensions: ['orders.status'],
        filters: [{ member: 'orders.status', operator: 'equals', values: ['completed'] }],
        timezone: 'America/New_York',
        order: { 'orders.created_at': 'asc' },
      }),
      { queryType: 'multi' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = (result: Json) =>
      result.data.map((row: Json) => [
        row.compareDateRange,
        row['orders.created_at.month'],
        row['orders.status'],
        String(row['orders.count']),
      ]);
    // In New York, order 1 (midnight UTC on 1 January) falls on 31 December; order 6 (23:00 UTC
    // on 31 March) is still in March there, past the second range.
    expect(rows(res.body.results[0])).toEqual([[JANUARY, '2024-01-01T00:00:00.000', 'completed', '1']]);
    expect(rows(res.body.results[1])).toEqual([
      [FEB_TO_MID_MARCH, '2024-02-01T00:00:00.000', 'completed', '1'],
    ]);
    expect(res.body.pivotQuery.dimensions).toEqual(['compareDateRange', 'orders.status']);
  });

  it('labels the rows with the compared time dimension’s range, not another one’s', async () => {
    const res = await load(
      tokens[store],
      compared({
        measures: ['orders.count'],
        timeDimensions: [
          { dimension: 'orders.created_at', dateRange: ['2024-01-15', '2024-12-31'] },
          compared().timeDimensions[0],
        ],
      }),
      { queryType: 'multi' },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Both ranges apply: from 15 January, order 2 alone; then orders 3 and 4 in February, 5 in March.
    expect(
      res.body.results.map((r: Json) =>
        r.data.map((row: Json) => [row.compareDateRange, String(row['orders.count'])]),
      ),
    ).toEqual([
      [[JANUARY, '1']],
      [
        [FEB_TO_MID_MARCH, '2'],
        [FEB_TO_MID_MARCH, '1'],
      ],
    ]);
  });

  it('reads as Cube’s answer in @cubejs-client/core', async () => {
    const client = cube(tokens[store], { apiUrl: CLIENT_API_URL });
    const resultSet = await client.load(compared({ measures: ['orders.count'] }) as Json);
    expect(resultSet.decompose()).toHaveLength(2);
    const series = resultSet.seriesNames().map((s: Json) => s.key);
    expect(series).toEqual([`${JANUARY},orders.count`, `${FEB_TO_MID_MARCH},orders.count`]);
    const pivot = resultSet.chartPivot();
    const january = pivot.find((row: Json) => row.x === '2024-01-01T00:00:00.000');
    expect(january?.[`${JANUARY},orders.count`]).toBe(2);
  });

  it('shows the SQL of each range, and dry-runs the queries as run', async () => {
    const query = encodeURIComponent(JSON.stringify(compared()));
    const auth = { raw: tokens[store] };
    const sql = await api('GET', `/cubejs-api/v1/sql?query=${query}`, { auth });
    expect(sql.status, JSON.stringify(sql.body)).toBe(200);
    expect(sql.body.queryType).toBe('multi');
    expect(sql.body.sql).toHaveLength(2);
    const params = sql.body.sql.map((s: Json) => JSON.stringify(s.sql[1]));
    expect(params[0]).toMatch(/2024-01-31.23:59:59\.999/);
    expect(params[1]).toMatch(/2024-03-15.23:59:59\.999/);

    const dry = await api('GET', `/cubejs-api/v1/dry-run?query=${query}`, { auth });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.queryType).toBe('compareDateRangeQuery');
    expect(dry.body.normalizedQueries.map((q: Json) => q.timeDimensions[0].dateRange)).toEqual([
      ['2024-01-01', '2024-01-31'],
      ['2024-02-01', '2024-03-15'],
    ]);
    expect(dry.body.pivotQuery.dimensions).toEqual(['compareDateRange']);
  });
});

describe.each(['embedded', 'postgres'] as const)('data blending on the %s store', (store) => {
  const month = (dimension: string) => [
    { dimension, granularity: 'month', dateRange: ['2024-01-01', '2024-04-30'] },
  ];
  const blend = [
    { measures: ['orders.count'], timeDimensions: month('orders.created_at') },
    { measures: ['sales.total_amount'], timeDimensions: month('sales.created_at') },
  ];

  it("lines the queries up on Cube's `time` axis", async () => {
    const res = await load(tokens[store], blend, { queryType: 'multi' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.queryType).toBe('blendingQuery');
    expect(res.body.pivotQuery).toEqual({
      measures: ['orders.count', 'sales.total_amount'],
      dimensions: [],
      timeDimensions: [{ dimension: 'time', granularity: 'month' }],
      queryType: 'blendingQuery',
    });
    const [orders, sales] = res.body.results;
    expect(
      orders.data.map((r: Json) => [
        r['time.month'],
        r['orders.created_at.month'],
        String(r['orders.count']),
      ]),
    ).toEqual([
      ['2024-01-01T00:00:00.000', '2024-01-01T00:00:00.000', '2'],
      ['2024-02-01T00:00:00.000', '2024-02-01T00:00:00.000', '2'],
      ['2024-03-01T00:00:00.000', '2024-03-01T00:00:00.000', '2'],
      ['2024-04-01T00:00:00.000', '2024-04-01T00:00:00.000', '2'],
    ]);
    expect(sales.data.map((r: Json) => [r['time.month'], Number(r['sales.total_amount'])])).toEqual([
      ['2024-01-01T00:00:00.000', 120.5],
      ['2024-02-01T00:00:00.000', 75.25],
      ['2024-03-01T00:00:00.000', 342],
      ['2024-04-01T00:00:00.000', 10],
    ]);
  });

  it('charts both measures per month in @cubejs-client/core', async () => {
    const client = cube(tokens[store], { apiUrl: CLIENT_API_URL });
    const resultSet = await client.load(blend as Json);
    expect(
      resultSet.chartPivot().map((row: Json) => [row.x, row['orders.count'], row['sales.total_amount']]),
    ).toEqual([
      ['2024-01-01T00:00:00.000', 2, 120.5],
      ['2024-02-01T00:00:00.000', 2, 75.25],
      ['2024-03-01T00:00:00.000', 2, 342],
      ['2024-04-01T00:00:00.000', 2, 10],
    ]);
  });
});

describe.each(['embedded', 'postgres'] as const)('responseFormat compact on the %s store', (store) => {
  const query = {
    measures: ['orders.count'],
    dimensions: ['orders.status'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-02-29'] },
    ],
    order: { 'orders.created_at': 'asc', 'orders.status': 'asc' },
  };

  it("writes the rows as Cube's {members, dataset}, the same values as the row objects", async () => {
    const rows = await load(tokens[store], query);
    const packed = await load(tokens[store], { ...query, responseFormat: 'compact' });
    expect(packed.status, JSON.stringify(packed.body)).toBe(200);
    expect(packed.body.query.responseFormat).toBe('compact');
    const { members, dataset } = packed.body.data;
    expect(members).toEqual(Object.keys(rows.body.data[0]));
    expect(members).toEqual(
      expect.arrayContaining(['orders.count', 'orders.status', 'orders.created_at.month']),
    );
    expect(
      dataset.map((values: unknown[]) =>
        Object.fromEntries(members.map((m: string, i: number) => [m, values[i]])),
      ),
    ).toEqual(rows.body.data);
    expect(dataset).toHaveLength(3);

    const none = await load(tokens[store], {
      ...query,
      responseFormat: 'compact',
      filters: [{ member: 'orders.status', operator: 'equals', values: ['nope'] }],
    });
    expect(none.body.data).toEqual({ members: [], dataset: [] });
  });

  it('tags compared rows in the compact lists too, and reads back in @cubejs-client/core', async () => {
    const res = await load(tokens[store], compared({ responseFormat: 'compact' }), { queryType: 'multi' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [first] = res.body.results;
    expect(first.data.members.at(-1)).toBe('compareDateRange');
    expect(first.data.dataset[0].at(-1)).toBe(JANUARY);

    const client = cube(tokens[store], { apiUrl: CLIENT_API_URL });
    const [asRows, asCompact] = [
      await client.load(query as Json),
      await client.load(query as Json, {}, undefined, 'compact'),
    ];
    expect(asCompact.rawData()).toEqual(asRows.rawData());
    expect(asCompact.tablePivot()).toEqual(asRows.tablePivot());
  });
});

describe('compareDateRange, refused', () => {
  const td = (extra: Json) => ({ dimension: 'orders.created_at', granularity: 'month', ...extra });
  const cases: [string, Json, RegExp][] = [
    [
      'beside a dateRange',
      {
        measures: ['orders.count'],
        timeDimensions: [td({ dateRange: 'last year', compareDateRange: ['this year'] })],
      },
      /orders\.created_at has both dateRange and compareDateRange/,
    ],
    [
      'on two time dimensions',
      {
        measures: ['orders.count'],
        timeDimensions: [td({ compareDateRange: ['this year'] }), td({ compareDateRange: ['last year'] })],
      },
      /one time dimension only/,
    ],
    [
      'with no range',
      { measures: ['orders.count'], timeDimensions: [td({ compareDateRange: [] })] },
      /compareDateRange/,
    ],
    [
      'with 11 ranges',
      {
        measures: ['orders.count'],
        timeDimensions: [td({ compareDateRange: Array.from({ length: 11 }, (_, i) => `${2010 + i}`) })],
      },
      /compareDateRange/,
    ],
    [
      'with a range it cannot read',
      {
        measures: ['orders.count'],
        timeDimensions: [td({ compareDateRange: ['this year', 'next blue moon'] })],
      },
      /next blue moon/,
    ],
  ];
  for (const [what, query, message] of cases) {
    it(`${what}: a 400 naming it`, async () => {
      const res = await load(tokens.embedded, query, { queryType: 'multi' });
      expectError(res, 400);
      expect(res.body.error).toMatch(message);
    });
  }

  it('in a list of queries, and in a report, where nothing would run it', async () => {
    const query = { measures: ['orders.count'], timeDimensions: [td({ compareDateRange: ['this year'] })] };
    const list = await load(tokens.embedded, [query, { measures: ['orders.count'] }], { queryType: 'multi' });
    expectError(list, 400);
    expect(list.body.error).toBe(
      'Invalid query: query.0.timeDimensions.0.compareDateRange compareDateRange is answered only by the Cube REST API, in a single query',
    );

    const deploymentId = acme.deployments[0] as number;
    const workbook = await api('POST', `/api/v1/deployments/${deploymentId}/workbooks`, {
      auth: acme.admin,
      body: { name: 'Compare' },
    });
    expect(workbook.status).toBe(200);
    const report = await api('POST', `/api/v1/deployments/${deploymentId}/reports`, {
      auth: acme.admin,
      body: { name: 'Compared', workbookId: workbook.body.id, jsonQuery: JSON.stringify(query) },
    });
    expectError(report, 400);
    expect(report.body.error).toMatch(/compareDateRange is answered only by the Cube REST API/);
    const reports = await api('GET', `/api/v1/deployments/${deploymentId}/reports`, { auth: acme.admin });
    expect(JSON.stringify(reports.body)).not.toContain('Compared');
  });
});
