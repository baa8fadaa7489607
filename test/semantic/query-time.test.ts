import { env } from 'cloudflare:test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlite } from '../../src/semantic/dialects/sqlite';
import { GRANULARITIES } from '../../src/semantic/model/model.types';
import { expectMatches, load, openShop, type Shop } from './dataset';

let shop: Shop;
beforeAll(async () => {
  shop = await openShop();
});
afterAll(async () => {
  await shop.close();
});

const localText = (expr: string) => `to_char(${expr}, 'YYYY-MM-DD"T"HH24:MI:SS.MS')`;

describe('time dimensions', () => {
  for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
    it(`every granularity in ${zone}`, async () => {
      for (const granularity of GRANULARITIES) {
        const bucket = localText(`date_trunc('${granularity}', created_at AT TIME ZONE '${zone}')`);
        await expectMatches(
          shop,
          {
            measures: ['orders.count', 'orders.total_amount'],
            timeDimensions: [{ dimension: 'orders.created_at', granularity }],
            timezone: zone,
          },
          {
            postgres: `SELECT ${bucket} AS "orders.created_at.${granularity}", ${bucket} AS "orders.created_at",
              count(*) AS "orders.count", sum(amount) AS "orders.total_amount"
              FROM {orders} GROUP BY 1 ORDER BY 1 ASC NULLS LAST`,
          },
        );
      }
    });
  }

  it('on SQLite a zone change takes effect at its instant, wherever the query’s span starts', async () => {
    const zone = 'America/New_York';
    // A relative range (`from 7 days ago to now`) starts at any millisecond.
    for (const [from, to] of [
      ['2024-11-03T05:59:30.123Z', '2024-11-03T07:00:00Z'],
      ['2024-11-01T00:00:00Z', '2024-11-09T00:00:00Z'],
      ['2024-03-10T06:59:30.5Z', '2024-03-10T08:00:00Z'],
    ] as const) {
      const span: [number, number] = [Date.parse(from), Date.parse(to)];
      const local = (instant: string) =>
        env.DB.prepare(
          `SELECT ${sqlite.localTime(`'${instant}'`, { zone, zoneParam: '?', span }, 'second')} AS l`,
        )
          .first<{ l: string }>()
          .then((row) => row?.l);
      if (from.startsWith('2024-03')) {
        expect(await local('2024-03-10T06:59:59Z')).toBe('2024-03-10T01:59:59.000');
        expect(await local('2024-03-10T07:00:10Z')).toBe('2024-03-10T03:00:10.000');
      } else {
        expect(await local('2024-11-03T05:59:59Z')).toBe('2024-11-03T01:59:59.000');
        expect(await local('2024-11-03T06:00:10Z')).toBe('2024-11-03T01:00:10.000');
      }
    }
  });

  it('on SQLite a time reads the same as stored or rewritten as UTC text, in every form the store keeps', async () => {
    // Local time reads the value itself (one strftime per row); the instant a range compares is
    // the value rewritten as UTC text. Both must name the same local time, whatever the form.
    const stored = [
      "'2024-03-10T12:34:56Z'",
      "'2024-03-10T12:34:56.789+02:00'",
      "'2024-11-03 01:30:00-05:30'",
      "'2024-03-10 06:59:59.999'",
      "'2024-03-10'",
      "'2024-12-31T23:59:59.9996Z'",
      '2460380.25',
      "'not a time'",
      'NULL',
    ];
    const span: [number, number] = [Date.parse('2024-01-01T00:00:00Z'), Date.parse('2025-01-01T00:00:00Z')];
    for (const zone of ['UTC', 'Asia/Kolkata', 'America/New_York']) {
      for (const granularity of [undefined, ...GRANULARITIES]) {
        const context = { zone, zoneParam: '?', span };
        const columns = stored.flatMap((value, i) => [
          `${sqlite.localTime(value, context, granularity)} AS a${i}`,
          `${sqlite.localTime(sqlite.instant(value), context, granularity)} AS b${i}`,
        ]);
        const row = (await env.DB.prepare(`SELECT ${columns.join(', ')}`).first()) as Record<string, unknown>;
        for (const i of stored.keys()) {
          expect(row[`a${i}`], `${stored[i]} in ${zone} by ${granularity ?? 'none'}`).toBe(row[`b${i}`]);
        }
        expect(row.a0).toMatch(/^2024-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
      }
    }
    // So in UTC a row's bucket costs one strftime, not a second one to rewrite the value first.
    const month = sqlite.localTime('"orders".created_at', { zone: 'UTC', zoneParam: '?', span }, 'month');
    expect(month.match(/strftime\(/g)).toHaveLength(1);
  });

  it('DST days in New York: 23 and 25 hours, one hour read twice', async () => {
    const query = (granularity: 'day' | 'hour') => ({
      measures: ['orders.count'],
      timeDimensions: [
        {
          dimension: 'orders.created_at',
          granularity,
          dateRange: ['2024-11-03', '2024-11-03'] as [string, string],
        },
      ],
      timezone: 'America/New_York',
    });
    for (const dialect of ['postgres', 'sqlite'] as const) {
      const days = await load(shop, dialect, query('day'));
      expect(days.data).toEqual([
        {
          'orders.created_at.day': '2024-11-03T00:00:00.000',
          'orders.created_at': '2024-11-03T00:00:00.000',
          'orders.count': '3',
        },
      ]);
      const hours = await load(shop, dialect, query('hour'));
      expect(hours.data.map((row) => [row['orders.created_at.hour'], row['orders.count']])).toEqual([
        ['2024-11-03T01:00:00.000', '2'],
        ['2024-11-03T23:00:00.000', '1'],
      ]);
      const spring = await load(shop, dialect, {
        dimensions: ['orders.id'],
        timeDimensions: [
          { dimension: 'orders.created_at', granularity: 'day', dateRange: ['2024-03-10', '2024-03-10'] },
        ],
        timezone: 'America/New_York',
        order: { 'orders.id': 'asc' },
      });
      expect(spring.data.map((row) => row['orders.id'])).toEqual(['6', '7', '8']);
    }
  });

  it('weeks start on Monday, in the query time zone', async () => {
    for (const dialect of ['postgres', 'sqlite'] as const) {
      const week = async (timezone: string) =>
        (
          await load(shop, dialect, {
            dimensions: ['orders.id'],
            timeDimensions: [{ dimension: 'orders.created_at', granularity: 'week' }],
            filters: [{ member: 'orders.id', operator: 'equals', values: ['17'] }],
            timezone,
          })
        ).data[0]?.['orders.created_at.week'];
      // Monday 2024-06-10 00:00Z is Sunday evening in New York.
      expect(await week('UTC')).toBe('2024-06-10T00:00:00.000');
      expect(await week('America/New_York')).toBe('2024-06-03T00:00:00.000');
    }
  });

  it('a time dimension among dimensions reads as local time to the millisecond', async () => {
    await expectMatches(
      shop,
      {
        dimensions: ['orders.id', 'orders.created_at'],
        filters: [{ member: 'orders.id', operator: 'lte', values: ['14'] }],
        order: { 'orders.id': 'asc' },
        timezone: 'America/New_York',
      },
      {
        postgres: `SELECT id AS "orders.id", ${localText("created_at AT TIME ZONE 'America/New_York'")} AS "orders.created_at"
          FROM {orders} WHERE id <= 14 ORDER BY id`,
      },
    );
  });

  it('two granularities of one time dimension', async () => {
    const { data } = await load(shop, 'sqlite', {
      measures: ['orders.count'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'year' },
        { dimension: 'orders.created_at', granularity: 'quarter', dateRange: ['2024-01-01', '2024-12-31'] },
      ],
      order: [['orders.created_at', 'asc']],
    });
    expect(data[0]).toMatchObject({
      'orders.created_at.year': '2024-01-01T00:00:00.000',
      'orders.created_at.quarter': '2024-01-01T00:00:00.000',
      'orders.count': '8',
    });
    expect(data.map((row) => row['orders.created_at.quarter'])).toEqual([
      '2024-01-01T00:00:00.000',
      '2024-04-01T00:00:00.000',
      '2024-07-01T00:00:00.000',
      '2024-10-01T00:00:00.000',
    ]);
  });
});

describe('date ranges of time dimensions', () => {
  const idsIn = (dateRange: string | [string, string], timezone: string, where: string) =>
    expectMatches(
      shop,
      {
        dimensions: ['orders.id'],
        timeDimensions: [{ dimension: 'orders.created_at', dateRange }],
        order: { 'orders.id': 'asc' },
        timezone,
      },
      { postgres: `SELECT id AS "orders.id" FROM {orders} WHERE ${where} ORDER BY id` },
    );
  const local = (text: string, zone: string) => `'${text}'::timestamp AT TIME ZONE '${zone}'`;

  it('relative ranges against a fixed now (Saturday 2024-06-15 12:00Z)', async () => {
    for (const zone of ['UTC', 'America/New_York']) {
      const between = (from: string, to: string) =>
        `created_at >= ${local(from, zone)} AND created_at < ${local(to, zone)}`;
      await idsIn('today', zone, between('2024-06-15', '2024-06-16'));
      await idsIn('yesterday', zone, between('2024-06-14', '2024-06-15'));
      await idsIn('tomorrow', zone, between('2024-06-16', '2024-06-17'));
      await idsIn('this week', zone, between('2024-06-10', '2024-06-17'));
      await idsIn('last week', zone, between('2024-06-03', '2024-06-10'));
      await idsIn('this month', zone, between('2024-06-01', '2024-07-01'));
      await idsIn('last month', zone, between('2024-05-01', '2024-06-01'));
      await idsIn('next month', zone, between('2024-07-01', '2024-08-01'));
      await idsIn('this quarter', zone, between('2024-04-01', '2024-07-01'));
      await idsIn('last quarter', zone, between('2024-01-01', '2024-04-01'));
      await idsIn('this year', zone, between('2024-01-01', '2025-01-01'));
      await idsIn('last year', zone, between('2023-01-01', '2024-01-01'));
      await idsIn('last 7 days', zone, between('2024-06-08', '2024-06-15'));
      await idsIn('last 3 months', zone, between('2024-03-01', '2024-06-01'));
      await idsIn('next 2 weeks', zone, between('2024-06-17', '2024-07-01'));
      await idsIn('from 2024-03-10 to 2024-03-11', zone, between('2024-03-10', '2024-03-12'));
      await idsIn(['2024-01-31', '2024-02-01'], zone, between('2024-01-31', '2024-02-02'));
      await idsIn(
        ['2024-01-31T23:59:59', '2024-02-01T00:00:00'],
        zone,
        `created_at >= ${local('2024-01-31 23:59:59', zone)} AND created_at <= ${local('2024-02-01 00:00:00', zone)}`,
      );
    }
    // Cube widens a `from … to …` phrase to whole days (or to the unit it names).
    await idsIn(
      'from 7 days ago to now',
      'UTC',
      "created_at >= '2024-06-08 00:00:00Z' AND created_at < '2024-06-16 00:00:00Z'",
    );
    await idsIn(
      'from 2 hours ago to now',
      'UTC',
      "created_at >= '2024-06-15 10:00:00Z' AND created_at <= '2024-06-15 12:59:59.999Z'",
    );
  });
});

describe('order, limit, offset, total', () => {
  it('pages through ordered groups and counts them all', async () => {
    const query = {
      dimensions: ['users.name'],
      measures: ['orders.count'],
      order: [
        ['orders.count', 'desc'],
        ['users.name', 'asc'],
      ] as [string, 'asc' | 'desc'][],
      limit: 3,
      offset: 1,
      total: true,
    };
    const hand = `SELECT u.name AS "users.name", count(*) AS "orders.count" FROM {orders} o LEFT JOIN {users} u ON o.user_id = u.id
      GROUP BY u.name ORDER BY 2 DESC, 1 ASC NULLS LAST LIMIT 3 OFFSET 1`;
    await expectMatches(shop, query, hand);
    for (const dialect of ['postgres', 'sqlite'] as const) {
      const [groups] = await shop.hand(
        dialect,
        "SELECT count(DISTINCT coalesce(u.name, '')) AS n FROM {orders} o LEFT JOIN {users} u ON o.user_id = u.id",
      );
      const { total, data } = await load(shop, dialect, query);
      expect(total).toBe(Number(groups?.n));
      expect(data).toHaveLength(3);
    }
  });

  it('orders by default as Cube: the first time dimension ascending, else the first measure descending', async () => {
    await expectMatches(
      shop,
      {
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'year' }],
      },
      {
        postgres: `SELECT ${localText("date_trunc('year', created_at AT TIME ZONE 'UTC')")} AS "orders.created_at.year",
          ${localText("date_trunc('year', created_at AT TIME ZONE 'UTC')")} AS "orders.created_at", count(*) AS "orders.count"
          FROM {orders} GROUP BY 1 ORDER BY 1 ASC NULLS LAST`,
      },
    );
    await expectMatches(
      shop,
      { measures: ['orders.total_amount'], dimensions: ['orders.status'] },
      'SELECT status AS "orders.status", sum(amount) AS "orders.total_amount" FROM {orders} GROUP BY status ORDER BY 2 DESC NULLS FIRST',
    );
  });
});
