import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeQuery } from '../../src/semantic/query/normalize';
import type { CubeQuery, NormalizedQuery } from '../../src/semantic/query/query.types';
import {
  applyReportFields,
  checkReportFields,
  comparisonQuery,
  fillMissingRows,
  MAX_FILLED_ROWS,
  mergeComparison,
  type PeriodComparisonField,
  type ResultRow,
} from '../../src/semantic/query/report-fields';
import { load, NOW, openShop, type Shop, shopModel } from './dataset';

const model = shopModel((name) => name);
const normalized = (query: CubeQuery): NormalizedQuery => normalizeQuery(model, query, { now: NOW });

/** A row as Cube answers it: the month bucket under both keys, the measures as text. */
const monthRow = (month: string, values: Record<string, unknown>): ResultRow => ({
  'orders.created_at.month': `${month}-01T00:00:00.000`,
  'orders.created_at': `${month}-01T00:00:00.000`,
  ...values,
});

describe('fillMissingRows', () => {
  it('fills the months between the first and last bucket when the query has no date range', () => {
    const query = normalized({
      measures: ['orders.count', 'orders.total_amount'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    });
    const rows = [
      monthRow('2024-01', { 'orders.count': '2', 'orders.total_amount': '350' }),
      monthRow('2024-04', { 'orders.count': '1', 'orders.total_amount': '95' }),
    ];
    const result = fillMissingRows(rows, query, { member: 'orders.created_at', excludedDimensions: [] });
    expect(result).toEqual({
      rows: [
        monthRow('2024-01', { 'orders.count': '2', 'orders.total_amount': '350' }),
        monthRow('2024-02', { 'orders.count': '0', 'orders.total_amount': '0' }),
        monthRow('2024-03', { 'orders.count': '0', 'orders.total_amount': '0' }),
        monthRow('2024-04', { 'orders.count': '1', 'orders.total_amount': '95' }),
      ],
      filled: 2,
      overLimit: false,
    });
  });

  it("fills every series over the query's date range, member named with its granularity", () => {
    const query = normalized({
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-04-30'] },
      ],
    });
    const rows = [
      monthRow('2024-01', { 'orders.status': 'completed', 'orders.count': '3' }),
      monthRow('2024-02', { 'orders.status': 'pending', 'orders.count': '1' }),
      monthRow('2024-03', { 'orders.status': 'completed', 'orders.count': '2' }),
    ];
    const result = fillMissingRows(rows, query, {
      member: 'orders.created_at.month',
      excludedDimensions: [],
    });
    // Two series (completed, pending) over January to April: 8 rows, 3 from the query.
    expect(result.filled).toBe(5);
    expect(result.rows).toEqual([
      monthRow('2024-01', { 'orders.status': 'completed', 'orders.count': '3' }),
      monthRow('2024-01', { 'orders.status': 'pending', 'orders.count': '0' }),
      monthRow('2024-02', { 'orders.status': 'pending', 'orders.count': '1' }),
      monthRow('2024-02', { 'orders.status': 'completed', 'orders.count': '0' }),
      monthRow('2024-03', { 'orders.status': 'completed', 'orders.count': '2' }),
      monthRow('2024-03', { 'orders.status': 'pending', 'orders.count': '0' }),
      monthRow('2024-04', { 'orders.status': 'completed', 'orders.count': '0' }),
      monthRow('2024-04', { 'orders.status': 'pending', 'orders.count': '0' }),
    ]);
  });

  it('excluded dimensions do not split series and are null in filled rows', () => {
    const query = normalized({
      measures: ['orders.count'],
      dimensions: ['orders.status', 'users.city'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
      ],
    });
    const rows = [
      monthRow('2024-01', { 'orders.status': 'completed', 'users.city': 'Paris', 'orders.count': '1' }),
      monthRow('2024-02', { 'orders.status': 'completed', 'users.city': 'Dublin', 'orders.count': '1' }),
      monthRow('2024-02', { 'orders.status': 'pending', 'users.city': 'Paris', 'orders.count': '4' }),
    ];
    const result = fillMissingRows(rows, query, {
      member: 'orders.created_at',
      excludedDimensions: ['users.city'],
    });
    // completed has January and February (whatever the city), pending only February.
    expect(result.rows).toEqual([
      rows[0],
      monthRow('2024-01', { 'orders.status': 'pending', 'users.city': null, 'orders.count': '0' }),
      rows[1],
      rows[2],
      monthRow('2024-03', { 'orders.status': 'completed', 'users.city': null, 'orders.count': '0' }),
      monthRow('2024-03', { 'orders.status': 'pending', 'users.city': null, 'orders.count': '0' }),
    ]);
  });

  it('a null dimension value is a series of its own', () => {
    const query = normalized({
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    });
    const rows = [
      monthRow('2024-01', { 'orders.status': null, 'orders.count': '1' }),
      monthRow('2024-02', { 'orders.status': 'pending', 'orders.count': '1' }),
    ];
    const result = fillMissingRows(rows, query, { member: 'orders.created_at', excludedDimensions: [] });
    expect(result.rows).toEqual([
      rows[0],
      monthRow('2024-01', { 'orders.status': 'pending', 'orders.count': '0' }),
      rows[1],
      monthRow('2024-02', { 'orders.status': null, 'orders.count': '0' }),
    ]);
  });

  it('weeks across the DST change in Europe/Paris start on local Mondays', () => {
    const query = normalized({
      measures: ['orders.count'],
      timezone: 'Europe/Paris',
      timeDimensions: [
        // Monday 18 March to Sunday 14 April 2024; clocks go forward on Sunday 31 March. The range
        // starts at 2024-03-17T23:00Z: read in UTC, it would begin a week early.
        { dimension: 'orders.created_at', granularity: 'week', dateRange: ['2024-03-18', '2024-04-14'] },
      ],
    });
    const week = (day: string, count: string): ResultRow => ({
      'orders.created_at.week': `${day}T00:00:00.000`,
      'orders.created_at': `${day}T00:00:00.000`,
      'orders.count': count,
    });
    const result = fillMissingRows([week('2024-03-25', '7')], query, {
      member: 'orders.created_at',
      excludedDimensions: [],
    });
    expect(result.rows).toEqual([
      week('2024-03-18', '0'),
      week('2024-03-25', '7'),
      week('2024-04-01', '0'),
      week('2024-04-08', '0'),
    ]);
  });

  it('hours on DST days in Europe/Paris: the skipped hour is no bucket, the repeated one is one', () => {
    const hours = (range: [string, string]) => {
      const query = normalized({
        measures: ['orders.count'],
        timezone: 'Europe/Paris',
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'hour', dateRange: range }],
      });
      return fillMissingRows([], query, { member: 'orders.created_at', excludedDimensions: [] }).rows.map(
        (row) => row['orders.created_at.hour'],
      );
    };
    expect(hours(['2024-03-31T00:00:00', '2024-03-31T03:59:59'])).toEqual([
      '2024-03-31T00:00:00.000',
      '2024-03-31T01:00:00.000',
      '2024-03-31T03:00:00.000',
    ]);
    expect(hours(['2024-10-27T00:00:00', '2024-10-27T03:59:59'])).toEqual([
      '2024-10-27T00:00:00.000',
      '2024-10-27T01:00:00.000',
      '2024-10-27T02:00:00.000',
      '2024-10-27T03:00:00.000',
    ]);
  });

  it('keeps the query order: a measure sorted descending puts the filled zeros last', () => {
    const query = normalized({
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
      order: { 'orders.count': 'desc' },
    });
    const rows = [
      monthRow('2024-03', { 'orders.count': '9' }),
      monthRow('2024-01', { 'orders.count': '10' }),
    ];
    const result = fillMissingRows(rows, query, { member: 'orders.created_at', excludedDimensions: [] });
    expect(result.rows).toEqual([rows[1], rows[0], monthRow('2024-02', { 'orders.count': '0' })]);
  });

  it(`adds at most ${MAX_FILLED_ROWS} rows; a result needing more comes back unfilled and marked`, () => {
    const days = (to: string) =>
      normalized({
        measures: ['orders.count'],
        timeDimensions: [
          { dimension: 'orders.created_at', granularity: 'day', dateRange: ['2000-01-01', to] },
        ],
      });
    // 2000-01-01 plus 4,999 days is 2013-09-08: exactly 5,000 days.
    const lastDay = new Date(Date.UTC(2000, 0, 1) + (MAX_FILLED_ROWS - 1) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    expect(lastDay).toBe('2013-09-08');
    const exact = fillMissingRows([], days(lastDay), { member: 'orders.created_at', excludedDimensions: [] });
    expect([exact.filled, exact.overLimit, exact.rows.length]).toEqual([
      MAX_FILLED_ROWS,
      false,
      MAX_FILLED_ROWS,
    ]);
    expect(exact.rows.at(-1)?.['orders.created_at.day']).toBe('2013-09-08T00:00:00.000');

    const rows = [
      {
        'orders.created_at.day': '2005-01-01T00:00:00.000',
        'orders.created_at': '2005-01-01T00:00:00.000',
        'orders.count': '1',
      },
    ];
    const over = fillMissingRows(rows, days('2013-09-10'), {
      member: 'orders.created_at',
      excludedDimensions: [],
    });
    expect(over).toEqual({ rows, filled: 0, overLimit: true });
  });

  it('no rows and no date range: nothing to fill', () => {
    const query = normalized({
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    });
    expect(fillMissingRows([], query, { member: 'orders.created_at', excludedDimensions: [] })).toEqual({
      rows: [],
      filled: 0,
      overLimit: false,
    });
  });
});

const monthOverMonth: PeriodComparisonField = {
  measure: 'orders.total_amount',
  timeDimension: 'orders.created_at',
  offset: { amount: 1, unit: 'month' },
  outputs: ['previousValue', 'change', 'percentChange'],
};

describe('comparisonQuery', () => {
  it('shifts a month in Europe/Paris back one month: all of February, as UTC instants', () => {
    const query: CubeQuery = {
      measures: ['orders.total_amount'],
      timezone: 'Europe/Paris',
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'day', dateRange: ['2024-03-01', '2024-03-31'] },
      ],
    };
    expect(comparisonQuery(query, monthOverMonth, { now: NOW })).toEqual({
      ...query,
      timeDimensions: [
        {
          dimension: 'orders.created_at',
          granularity: 'day',
          // 1 February 00:00 CET to 29 February 23:59:59.999 CET.
          dateRange: ['2024-01-31T23:00:00.000Z', '2024-02-29T22:59:59.999Z'],
        },
      ],
    });
  });

  it('resolves a relative range at `now`, then shifts it a year back', () => {
    const query: CubeQuery = {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: 'last 12 months' }],
    };
    const shifted = comparisonQuery(
      query,
      { ...monthOverMonth, timeDimension: 'orders.created_at.month', offset: { amount: 1, unit: 'year' } },
      { now: NOW },
    );
    // Now is 15 June 2024: the last 12 months are June 2023 to May 2024; a year back, June 2022 to May 2023.
    expect(shifted.timeDimensions?.[0]?.dateRange).toEqual([
      '2022-06-01T00:00:00.000Z',
      '2023-05-31T23:59:59.999Z',
    ]);
  });

  it('without a date range the comparison query is the query itself', () => {
    const query: CubeQuery = {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    };
    expect(comparisonQuery(query, monthOverMonth, { now: NOW })).toEqual(query);
  });

  it('refuses a time dimension the query lacks and an unknown unit', () => {
    const query: CubeQuery = { measures: ['orders.count'] };
    expect(() => comparisonQuery(query, monthOverMonth, { now: NOW })).toThrow(
      "'orders.created_at' is not a time dimension of the query",
    );
    const withTime: CubeQuery = { timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'today' }] };
    expect(() =>
      comparisonQuery(
        withTime,
        { ...monthOverMonth, offset: { amount: 2, unit: 'fortnight' } },
        { now: NOW },
      ),
    ).toThrow("unknown unit 'fortnight'");
  });
});

describe('mergeComparison', () => {
  const monthly = normalized({
    measures: ['orders.total_amount'],
    timeDimensions: [
      { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-03-01', '2024-04-30'] },
    ],
  });

  it('month over month: each month beside the one before it', () => {
    const rows = [
      monthRow('2024-03', { 'orders.total_amount': '150' }),
      monthRow('2024-04', { 'orders.total_amount': '90' }),
    ];
    const previous = [
      monthRow('2024-02', { 'orders.total_amount': '120' }),
      monthRow('2024-03', { 'orders.total_amount': '150' }),
    ];
    expect(mergeComparison(rows, previous, monthOverMonth, monthly)).toEqual([
      monthRow('2024-03', {
        'orders.total_amount': '150',
        'orders.total_amount.previousValue': '120',
        'orders.total_amount.change': 30,
        'orders.total_amount.percentChange': 25,
      }),
      monthRow('2024-04', {
        'orders.total_amount': '90',
        'orders.total_amount.previousValue': '150',
        'orders.total_amount.change': -60,
        'orders.total_amount.percentChange': -40,
      }),
    ]);
  });

  it('year over year per status; a previous 0 has no percent change, a missing one no outputs', () => {
    const query = normalized({
      measures: ['orders.count'],
      dimensions: ['orders.status'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    });
    const comparison: PeriodComparisonField = {
      measure: 'orders.count',
      timeDimension: 'orders.created_at.month',
      offset: { amount: 1, unit: 'year' },
      outputs: ['percentChange', 'previousValue'],
    };
    const rows = [
      monthRow('2024-01', { 'orders.status': 'completed', 'orders.count': '9' }),
      monthRow('2024-01', { 'orders.status': 'pending', 'orders.count': '2' }),
      monthRow('2024-01', { 'orders.status': 'cancelled', 'orders.count': '1' }),
    ];
    const previous = [
      monthRow('2023-01', { 'orders.status': 'pending', 'orders.count': '0' }),
      monthRow('2023-01', { 'orders.status': 'completed', 'orders.count': '8' }),
      // Another month and another year: neither pairs with January 2024.
      monthRow('2023-02', { 'orders.status': 'cancelled', 'orders.count': '5' }),
      monthRow('2022-01', { 'orders.status': 'cancelled', 'orders.count': '5' }),
    ];
    expect(mergeComparison(rows, previous, comparison, query)).toEqual([
      { ...rows[0], 'orders.count.percentChange': 12.5, 'orders.count.previousValue': '8' },
      { ...rows[1], 'orders.count.percentChange': null, 'orders.count.previousValue': '0' },
      { ...rows[2], 'orders.count.percentChange': null, 'orders.count.previousValue': null },
    ]);
  });

  it('a negative previous value: the percent change follows the direction of the change', () => {
    const query = normalized({
      measures: ['orders.total_amount'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    });
    const rows = [monthRow('2024-03', { 'orders.total_amount': '-50' })];
    const previous = [monthRow('2024-02', { 'orders.total_amount': '-200' })];
    expect(mergeComparison(rows, previous, monthOverMonth, query)[0]).toMatchObject({
      'orders.total_amount.change': 150,
      'orders.total_amount.percentChange': 75,
    });
  });

  it('days a month back clamp to the end of the shorter month', () => {
    const query = normalized({
      measures: ['orders.total_amount'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day' }],
    });
    const day = (date: string, amount: string): ResultRow => ({
      'orders.created_at.day': `${date}T00:00:00.000`,
      'orders.created_at': `${date}T00:00:00.000`,
      'orders.total_amount': amount,
    });
    const merged = mergeComparison(
      [day('2024-03-31', '10')],
      [day('2024-02-29', '4')],
      monthOverMonth,
      query,
    );
    expect(merged[0]).toMatchObject({
      'orders.total_amount.previousValue': '4',
      'orders.total_amount.change': 6,
    });
  });

  it('a total over a date range (no granularity) pairs with the previous total', () => {
    const query = normalized({
      measures: ['orders.total_amount'],
      timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'this month' }],
    });
    const merged = mergeComparison(
      [{ 'orders.total_amount': '110.5' }],
      [{ 'orders.total_amount': '100' }],
      monthOverMonth,
      query,
    );
    expect(merged).toEqual([
      {
        'orders.total_amount': '110.5',
        'orders.total_amount.previousValue': '100',
        'orders.total_amount.change': 10.5,
        'orders.total_amount.percentChange': 10.5,
      },
    ]);
  });

  it('refuses an unknown output and a measure the query lacks', () => {
    expect(() => mergeComparison([], [], { ...monthOverMonth, outputs: ['ratio'] }, monthly)).toThrow(
      "unknown output 'ratio'",
    );
    expect(() => mergeComparison([], [], { ...monthOverMonth, measure: 'orders.count' }, monthly)).toThrow(
      "'orders.count' is not a measure of the query",
    );
  });
});

describe('checkReportFields', () => {
  const query = normalized({
    measures: ['orders.count'],
    dimensions: ['orders.status'],
    timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
  });

  it('accepts fields the query can compute', () => {
    expect(
      checkReportFields(
        {
          fillMissingRows: { member: 'orders.created_at.month', excludedDimensions: ['orders.status'] },
          periodComparisons: [{ ...monthOverMonth, measure: 'orders.count', outputs: ['change'] }],
        },
        query,
      ),
    ).toEqual([]);
  });

  it('names every field it cannot compute', () => {
    expect(
      checkReportFields(
        {
          fillMissingRows: { member: 'orders.updated_at', excludedDimensions: ['users.city'] },
          periodComparisons: [
            { ...monthOverMonth, measure: 'orders.count' },
            {
              measure: 'orders.revenue',
              timeDimension: 'orders.status',
              offset: { amount: 1.5, unit: 'fortnight' },
              outputs: ['previousValue', 'ratio'],
            },
          ],
        },
        query,
      ),
    ).toEqual([
      "fillMissingRows.member 'orders.updated_at' is not a time dimension of the query",
      "fillMissingRows.excludedDimensions[0] 'users.city' is not a dimension of the query",
      'periodComparisons[1].offset.amount: not an integer: 1.5',
      "periodComparisons[1].offset.unit: unknown unit 'fortnight'",
      "periodComparisons[1].outputs[1]: unknown output 'ratio' (one of value, previousValue, change, percentChange)",
      "periodComparisons[1].measure 'orders.revenue' is not a measure of the query",
      "periodComparisons[1].timeDimension 'orders.status' is not a time dimension of the query",
    ]);
  });

  it('a filled time dimension needs a granularity', () => {
    const total = normalized({
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'today' }],
    });
    expect(
      checkReportFields({ fillMissingRows: { member: 'orders.created_at', excludedDimensions: [] } }, total),
    ).toEqual(["fillMissingRows.member 'orders.created_at' has no granularity in the query"]);
  });

  it('without a query only units, amounts and outputs are checked', () => {
    expect(
      checkReportFields(
        {
          fillMissingRows: { member: 'anything', excludedDimensions: ['at.all'] },
          periodComparisons: [{ ...monthOverMonth, offset: { amount: 1, unit: 'fortnight' } }],
        },
        null,
      ),
    ).toEqual(["periodComparisons[0].offset.unit: unknown unit 'fortnight'"]);
  });
});

describe('applyReportFields', () => {
  it('fills first, then compares, so filled months get previous values too', () => {
    const query = normalized({
      measures: ['orders.total_amount'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-03-31'] },
      ],
    });
    const result = applyReportFields({
      rows: [
        monthRow('2024-01', { 'orders.total_amount': '100' }),
        monthRow('2024-03', { 'orders.total_amount': '40' }),
      ],
      query,
      fields: {
        fillMissingRows: { member: 'orders.created_at', excludedDimensions: [] },
        periodComparisons: [{ ...monthOverMonth, outputs: ['previousValue', 'change'] }],
      },
      comparisonRows: [
        [
          monthRow('2023-12', { 'orders.total_amount': '80' }),
          monthRow('2024-01', { 'orders.total_amount': '100' }),
        ],
      ],
    });
    expect(result).toEqual({
      rows: [
        monthRow('2024-01', {
          'orders.total_amount': '100',
          'orders.total_amount.previousValue': '80',
          'orders.total_amount.change': 20,
        }),
        monthRow('2024-02', {
          'orders.total_amount': '0',
          'orders.total_amount.previousValue': '100',
          'orders.total_amount.change': -100,
        }),
        // February is not in the comparison's rows: nothing to compare with.
        monthRow('2024-03', {
          'orders.total_amount': '40',
          'orders.total_amount.previousValue': null,
          'orders.total_amount.change': null,
        }),
      ],
      errors: [],
      filled: 1,
      overLimit: false,
    });
  });

  it('skips the fields the query cannot compute and names them', () => {
    const query = normalized({ measures: ['orders.count'] });
    const rows = [{ 'orders.count': '3' }];
    expect(
      applyReportFields({
        rows,
        query,
        fields: {
          fillMissingRows: { member: 'orders.created_at', excludedDimensions: [] },
          periodComparisons: [{ ...monthOverMonth, measure: 'orders.count' }],
        },
        comparisonRows: [[]],
      }),
    ).toEqual({
      rows,
      errors: [
        "fillMissingRows.member 'orders.created_at' is not a time dimension of the query",
        "periodComparisons[0].timeDimension 'orders.created_at' is not a time dimension of the query",
      ],
      filled: 0,
      overLimit: false,
    });
  });
});

describe('report fields on the shop, against SQL written by hand', () => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await openShop();
  });
  afterAll(async () => {
    await shop.close();
  });

  const local = (expr: string) => `to_char(${expr}, 'YYYY-MM-DD"T"HH24:MI:SS.MS')`;
  const newYork = (day: string) => `(timestamp '${day}' AT TIME ZONE 'America/New_York')`;
  const byBucketAndStatus = (rows: Record<string, unknown>[]) =>
    [...rows].sort((a, b) =>
      `${a.bucket}|${a.status ?? '\u0000'}`.localeCompare(`${b.bucket}|${b.status ?? '\u0000'}`),
    );

  for (const dialect of ['postgres', 'sqlite'] as const) {
    it(`fills every status's missing months in New York (${dialect})`, async () => {
      const cubeQuery: CubeQuery = {
        measures: ['orders.count'],
        dimensions: ['orders.status'],
        timezone: 'America/New_York',
        timeDimensions: [
          { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-06-30'] },
        ],
      };
      const { data } = await load(shop, dialect, cubeQuery);
      const { rows, filled } = fillMissingRows(data, normalized(cubeQuery), {
        member: 'orders.created_at',
        excludedDimensions: [],
      });
      // Every status seen in the range, crossed with every month of it; empty months count 0.
      const expected = await shop.hand(
        'postgres',
        `WITH o AS (
           SELECT status, date_trunc('month', created_at AT TIME ZONE 'America/New_York') AS b FROM {orders}
           WHERE created_at >= ${newYork('2024-01-01')} AND created_at < ${newYork('2024-07-01')}),
         s AS (SELECT DISTINCT status FROM o),
         m AS (SELECT generate_series(timestamp '2024-01-01', timestamp '2024-06-01', interval '1 month') AS b)
         SELECT ${local('m.b')} AS bucket, s.status, count(o.b)::text AS count
         FROM s CROSS JOIN m LEFT JOIN o ON o.status IS NOT DISTINCT FROM s.status AND o.b = m.b
         GROUP BY m.b, s.status`,
      );
      expect(rows.every((row) => row['orders.created_at'] === row['orders.created_at.month'])).toBe(true);
      expect(
        byBucketAndStatus(
          rows.map((row) => ({
            bucket: row['orders.created_at.month'],
            status: row['orders.status'],
            count: row['orders.count'],
          })),
        ),
      ).toEqual(byBucketAndStatus(expected));
      expect(filled).toBe(expected.filter((row) => row.count === '0').length);
      expect(filled).toBeGreaterThan(0);
    });
  }

  it('month over month of the total amount in New York', async () => {
    const cubeQuery: CubeQuery = {
      measures: ['orders.total_amount'],
      timezone: 'America/New_York',
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-02-01', '2024-06-30'] },
      ],
    };
    const comparison: PeriodComparisonField = {
      measure: 'orders.total_amount',
      timeDimension: 'orders.created_at',
      offset: { amount: 1, unit: 'month' },
      outputs: ['previousValue', 'change', 'percentChange'],
    };
    const [current, previous] = await Promise.all([
      load(shop, 'postgres', cubeQuery),
      load(shop, 'postgres', comparisonQuery(cubeQuery, comparison, { now: NOW })),
    ]);
    const merged = mergeComparison(current.data, previous.data, comparison, normalized(cubeQuery));
    const expected = await shop.hand(
      'postgres',
      `WITH t AS (
         SELECT date_trunc('month', created_at AT TIME ZONE 'America/New_York') AS b, sum(amount) AS total
         FROM {orders} WHERE created_at >= ${newYork('2024-01-01')} AND created_at < ${newYork('2024-07-01')}
         GROUP BY 1)
       SELECT ${local('c.b')} AS bucket, c.total::float8 AS total, p.total::float8 AS previous,
         (c.total - p.total)::float8 AS change,
         (100.0 * (c.total - p.total) / NULLIF(abs(p.total), 0))::float8 AS percent
       FROM t c LEFT JOIN t p ON p.b = c.b - interval '1 month'
       WHERE c.b >= timestamp '2024-02-01' ORDER BY c.b`,
    );
    const numberOrNull = (value: unknown) => (value === null ? null : Number(value));
    expect(
      merged.map((row) => ({
        bucket: row['orders.created_at.month'],
        total: numberOrNull(row['orders.total_amount']),
        previous: numberOrNull(row['orders.total_amount.previousValue']),
        change: row['orders.total_amount.change'],
        percent: row['orders.total_amount.percentChange'],
      })),
    ).toEqual(
      expected.map((row) => ({
        ...row,
        percent: row.percent === null ? null : Number((row.percent as number).toPrecision(12)),
      })),
    );
    expect(expected.some((row) => row.previous !== null && row.change !== 0)).toBe(true);
  });
});
