import { describe, expect, it } from 'vitest';
import { offsetMinutesAt, utcToZoned, zonedTimeToUtc } from '../../src/core/time-zone';
import { postgres } from '../../src/semantic/dialects/postgres';
import { sqlite } from '../../src/semantic/dialects/sqlite';
import { resolveDateRange } from '../../src/semantic/query/date-range';
import { normalizeQuery } from '../../src/semantic/query/normalize';
import { compileQuery } from '../../src/semantic/query/plan';
import { type CubeQuery, MAX_LIMIT } from '../../src/semantic/query/query.types';
import { QueryError } from '../../src/semantic/query/query-error';
import { annotationOf, shapeRows } from '../../src/semantic/query/results';
import { NOW, shopModel } from './dataset';

const shop = shopModel((name) => `public.${name}`);
const normalize = (query: CubeQuery) => normalizeQuery(shop, query, { now: NOW });
const fails = (query: CubeQuery, message: string) => {
  expect(() => normalize(query)).toThrow(QueryError);
  expect(() => normalize(query)).toThrow(message);
};

describe('bad queries are QueryErrors naming what is wrong', () => {
  it('unknown, hidden or misplaced members', () => {
    fails({ measures: ['orders.foo'] }, 'Unknown member: orders.foo');
    fails({ dimensions: ['nope.id'] }, 'Unknown member: nope.id');
    fails({ dimensions: ['orders.secret'] }, 'Member is not public: orders.secret');
    fails({ dimensions: ['hidden.id'] }, 'Member is not public: hidden.id');
    fails({ measures: ['orders.status'] }, 'Not a measure: orders.status');
    fails({ dimensions: ['orders.count'] }, 'Not a dimension: orders.count');
    fails({ timeDimensions: [{ dimension: 'orders.status' }] }, 'Not a time dimension: orders.status');
    fails({ segments: ['orders.status'] }, 'Not a segment: orders.status');
    fails({ measures: ['customer_orders.nothing'] }, 'Unknown member: customer_orders.nothing');
    fails(
      { filters: [{ member: 'orders.bar', operator: 'equals', values: ['1'] }] },
      'Unknown member: orders.bar',
    );
  });

  it("a query with nothing to answer with, as Cube's gateway refuses it", () => {
    const rule =
      'Query should contain either measures, dimensions or timeDimensions with granularities in order to be valid';
    fails({}, rule);
    fails({ segments: ['orders.completed'] }, rule);
    fails({ timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'last week' }] }, rule);
    fails({ filters: [{ member: 'orders.status', operator: 'set' }] }, rule);
    // A member's own error still comes first: it says more.
    fails({ filters: [{ member: 'orders.bar', operator: 'set' }] }, 'Unknown member: orders.bar');
    const grained = normalize({ timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day' }] });
    expect(grained.timeDimensions).toEqual([
      { name: 'orders.created_at', target: 'orders.created_at', granularity: 'day' },
    ]);
  });

  it('unknown operators, granularities, date ranges and time zones', () => {
    fails(
      { filters: [{ member: 'orders.status', operator: 'foo', values: ['1'] }] },
      'Unknown operator: foo',
    );
    fails(
      { timeDimensions: [{ dimension: 'orders.created_at', granularity: 'fortnight' as never }] },
      'Unknown granularity: fortnight',
    );
    fails(
      { timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'next blue moon' }] },
      "Can't parse date range: next blue moon",
    );
    fails(
      { timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-01-01', 'soon'] }] },
      "Can't parse date range",
    );
    fails(
      { timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2024-02-30', '2024-03-01'] }] },
      "Can't parse date range",
    );
    fails({ measures: ['orders.count'], timezone: 'Mars/Olympus' }, 'Unknown time zone: Mars/Olympus');
    fails(
      { filters: [{ member: 'orders.created_at', operator: 'beforeDate', values: ['someday'] }] },
      "Can't parse date: someday",
    );
  });

  it('values that do not fit the operator or the member', () => {
    fails(
      { filters: [{ member: 'orders.status', operator: 'set', values: ['x'] }] },
      'Operator set takes 0 values, got 1',
    );
    fails(
      { filters: [{ member: 'orders.created_at', operator: 'inDateRange', values: ['2024-01-01'] }] },
      'Operator inDateRange takes 2 values, got 1',
    );
    fails(
      { filters: [{ member: 'orders.amount', operator: 'gt', values: ['1', '2'] }] },
      'Operator gt takes 1 value, got 2',
    );
    fails(
      { filters: [{ member: 'orders.status', operator: 'equals', values: [] }] },
      'Operator equals takes at least 1 values, got 0',
    );
    fails(
      { filters: [{ member: 'orders.amount', operator: 'equals', values: ['ten'] }] },
      'Invalid number for orders.amount: ten',
    );
    fails(
      { filters: [{ member: 'orders.is_big', operator: 'equals', values: ['maybe'] }] },
      'Invalid boolean for orders.is_big: maybe',
    );
    fails(
      { filters: [{ member: 'orders.status', operator: 'contains', values: [null] }] },
      'Operator contains takes no null value',
    );
    fails(
      {
        filters: [{ member: 'orders.status', operator: 'inDateRange', values: ['2024-01-01', '2024-01-02'] }],
      },
      'Operator inDateRange needs a time dimension: orders.status',
    );
  });

  it('limit, offset and order', () => {
    fails(
      { measures: ['orders.count'], limit: MAX_LIMIT + 1 },
      `Limit ${MAX_LIMIT + 1} is above the maximum of ${MAX_LIMIT}`,
    );
    fails({ measures: ['orders.count'], offset: -1 }, 'Invalid offset: -1');
    fails(
      { measures: ['orders.count'], order: { 'orders.status': 'asc' } },
      'Order member is not in the query: orders.status',
    );
    fails(
      { measures: ['orders.count'], order: { 'orders.count': 'up' as never } },
      'Unknown order direction for orders.count: up',
    );
  });

  it('cubes that no join connects', () => {
    const query = normalize({ measures: ['users.count', 'products.count'] });
    expect(() => compileQuery(shop, query, postgres)).toThrow(
      "Can't find join path to join 'users', 'products'",
    );
  });

  it('measures and dimensions in one or', () => {
    const query = normalize({
      measures: ['orders.count'],
      filters: [
        {
          or: [
            { member: 'orders.count', operator: 'gt', values: ['1'] },
            { member: 'orders.status', operator: 'set' },
          ],
        },
      ],
    });
    expect(() => compileQuery(shop, query, sqlite)).toThrow(QueryError);
  });
});

describe('normalized queries', () => {
  it('defaults: limit, offset, time zone, Cube default order', () => {
    const query = normalize({ measures: ['orders.count'], dimensions: ['orders.status'] });
    expect(query).toMatchObject({
      limit: 10_000,
      offset: 0,
      timezone: 'UTC',
      total: false,
      ungrouped: false,
    });
    expect(query.order).toEqual([{ member: 'orders.count', desc: true }]);
    expect(normalize({ dimensions: ['orders.status'] }).order).toEqual([
      { member: 'orders.status', desc: false },
    ]);
    expect(normalize({ measures: ['orders.count'], order: {} }).order).toEqual([]);
  });

  it('view members resolve to their cube members, with the view join paths as hints', () => {
    const query = normalize({
      measures: ['customer_orders.count'],
      dimensions: ['customer_orders.customer_name'],
    });
    expect(query.measures).toEqual([{ name: 'customer_orders.count', target: 'orders.count' }]);
    expect(query.dimensions).toEqual([{ name: 'customer_orders.customer_name', target: 'users.name' }]);
    expect(query.joinHints).toEqual([['orders'], ['orders', 'users']]);
  });

  it("Cube's shorthand: a dimension named with a granularity is that time dimension by it", () => {
    const query = normalize({
      measures: ['orders.count'],
      dimensions: ['orders.status', 'orders.created_at.month'],
      timeDimensions: [{ dimension: 'orders.created_at', dateRange: 'last year' }],
    });
    expect(query.dimensions).toEqual([{ name: 'orders.status', target: 'orders.status' }]);
    expect(query.timeDimensions).toEqual([
      expect.objectContaining({ name: 'orders.created_at', dateRange: expect.any(Array) }),
      { name: 'orders.created_at', target: 'orders.created_at', granularity: 'month' },
    ]);
    // Only a granularity makes the third part one: anything else is still an unknown member.
    fails({ dimensions: ['orders.created_at.fortnight'] }, 'Unknown member: orders.created_at.fortnight');
    fails({ dimensions: ['orders.status.day'] }, 'Not a time dimension: orders.status');
  });

  it('filter values in canonical form, date operators as instants in the time zone', () => {
    const query = normalize({
      measures: ['orders.count'],
      filters: [
        { member: 'orders.amount', operator: 'gt', values: [10] },
        { member: 'orders.is_big', operator: 'equals', values: [true, '0'] },
        { member: 'orders.created_at', operator: 'beforeOrOnDate', values: ['2024-03-10'] },
        {
          member: 'orders.created_at',
          operator: 'inDateRange',
          values: ['2024-03-10', '2024-03-10T12:00:00'],
        },
      ],
      timezone: 'America/New_York',
    });
    expect(query.filters).toEqual([
      { member: { name: 'orders.amount', target: 'orders.amount' }, operator: 'gt', values: ['10'] },
      {
        member: { name: 'orders.is_big', target: 'orders.is_big' },
        operator: 'equals',
        values: ['true', 'false'],
      },
      {
        member: { name: 'orders.created_at', target: 'orders.created_at' },
        operator: 'beforeOrOnDate',
        values: ['2024-03-10T05:00:00.000Z'],
      },
      {
        member: { name: 'orders.created_at', target: 'orders.created_at' },
        operator: 'inDateRange',
        values: ['2024-03-10T05:00:00.000Z', '2024-03-10T16:00:00.000Z'],
      },
    ]);
  });
});

describe('date ranges', () => {
  const range = (text: string | [string, string], zone = 'UTC') => resolveDateRange(text, zone, NOW);
  it('relative ranges as Cube reads them (now: Saturday 2024-06-15 12:00Z)', () => {
    expect(range('today')).toEqual(['2024-06-15T00:00:00.000Z', '2024-06-15T23:59:59.999Z']);
    expect(range('Today', 'America/New_York')).toEqual([
      '2024-06-15T04:00:00.000Z',
      '2024-06-16T03:59:59.999Z',
    ]);
    expect(range('yesterday')).toEqual(['2024-06-14T00:00:00.000Z', '2024-06-14T23:59:59.999Z']);
    expect(range('this week')).toEqual(['2024-06-10T00:00:00.000Z', '2024-06-16T23:59:59.999Z']);
    expect(range('last week')).toEqual(['2024-06-03T00:00:00.000Z', '2024-06-09T23:59:59.999Z']);
    expect(range('last month')).toEqual(['2024-05-01T00:00:00.000Z', '2024-05-31T23:59:59.999Z']);
    expect(range('last month', 'America/New_York')).toEqual([
      '2024-05-01T04:00:00.000Z',
      '2024-06-01T03:59:59.999Z',
    ]);
    expect(range('this quarter')).toEqual(['2024-04-01T00:00:00.000Z', '2024-06-30T23:59:59.999Z']);
    expect(range('next year')).toEqual(['2025-01-01T00:00:00.000Z', '2025-12-31T23:59:59.999Z']);
    expect(range('last 7 days')).toEqual(['2024-06-08T00:00:00.000Z', '2024-06-14T23:59:59.999Z']);
    expect(range('last 1 month')).toEqual(['2024-05-01T00:00:00.000Z', '2024-05-31T23:59:59.999Z']);
    expect(range('last 3 months')).toEqual(['2024-03-01T00:00:00.000Z', '2024-05-31T23:59:59.999Z']);
    expect(range('next 2 quarters')).toEqual(['2024-07-01T00:00:00.000Z', '2024-12-31T23:59:59.999Z']);
    expect(range('last 2 years')).toEqual(['2022-01-01T00:00:00.000Z', '2023-12-31T23:59:59.999Z']);
    // Cube's `from … to …`: whole days, unless the phrase names hours, minutes or seconds.
    expect(range('from 7 days ago to now')).toEqual(['2024-06-08T00:00:00.000Z', '2024-06-15T23:59:59.999Z']);
    expect(range('from 90 minutes ago to now')).toEqual([
      '2024-06-15T10:30:00.000Z',
      '2024-06-15T12:00:59.999Z',
    ]);
    expect(range('from 3 hours ago to 1 hour from now', 'Asia/Kolkata')).toEqual([
      '2024-06-15T08:30:00.000Z',
      '2024-06-15T13:29:59.999Z',
    ]);
    expect(range('from 2024-01-01 to 2024-01-31')).toEqual([
      '2024-01-01T00:00:00.000Z',
      '2024-01-31T23:59:59.999Z',
    ]);
    expect(range('from 2024-01-01T10:00:00 to now', 'Asia/Kolkata')).toEqual([
      '2023-12-31T18:30:00.000Z',
      '2024-06-15T18:29:59.999Z',
    ]);
    expect(range('from yesterday to tomorrow')).toEqual([
      '2024-06-14T00:00:00.000Z',
      '2024-06-16T23:59:59.999Z',
    ]);
  });

  it('absolute ranges: dates are whole local days (23 or 25 hours around DST), timestamps local unless zoned', () => {
    expect(range(['2024-03-10', '2024-03-10'], 'America/New_York')).toEqual([
      '2024-03-10T05:00:00.000Z',
      '2024-03-11T03:59:59.999Z',
    ]);
    expect(range(['2024-11-03', '2024-11-03'], 'America/New_York')).toEqual([
      '2024-11-03T04:00:00.000Z',
      '2024-11-04T04:59:59.999Z',
    ]);
    expect(range(['2024-01-01T10:00:00.250', '2024-01-01T12:00:00Z'], 'Europe/Paris')).toEqual([
      '2024-01-01T09:00:00.250Z',
      '2024-01-01T12:00:00.000Z',
    ]);
    expect(range(['2024-01-01T10:00:00+02:00', '2024-01-02'])).toEqual([
      '2024-01-01T08:00:00.000Z',
      '2024-01-02T23:59:59.999Z',
    ]);
  });

  it('zone arithmetic: skipped and repeated local hours', () => {
    const local = (hour: number, minute: number, day: number, month: number) => ({
      year: 2024,
      month,
      day,
      hour,
      minute,
      second: 0,
      millisecond: 0,
    });
    // 02:30 does not exist on 2024-03-10 in New York; 01:30 on 2024-11-03 happens twice (first: EDT).
    expect(new Date(zonedTimeToUtc(local(2, 30, 10, 3), 'America/New_York')).toISOString()).toBe(
      '2024-03-10T07:30:00.000Z',
    );
    expect(new Date(zonedTimeToUtc(local(1, 30, 3, 11), 'America/New_York')).toISOString()).toBe(
      '2024-11-03T05:30:00.000Z',
    );
    expect(offsetMinutesAt(Date.UTC(2024, 6, 1), 'Asia/Kathmandu')).toBe(345);
  });

  it("reads UTC's wall clock without Intl, as Intl reads a zone that is always UTC", () => {
    // Etc/GMT+0 never leaves UTC and is read through Intl; the names of UTC itself are not.
    const instants = [
      Date.UTC(1000, 0, 1),
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      0,
      Date.UTC(2024, 1, 29, 12, 34, 56, 789),
      Date.UTC(2038, 0, 19, 3, 14, 8),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    for (const ms of instants) {
      const intl = utcToZoned(ms, 'Etc/GMT+0');
      for (const zone of ['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']) {
        expect(utcToZoned(ms, zone), `${zone} at ${ms}`).toEqual(intl);
        expect(zonedTimeToUtc(intl, zone)).toBe(ms);
        expect(offsetMinutesAt(ms, zone)).toBe(0);
      }
    }
  });
});

describe('compiled SQL and answers', () => {
  it('SQLite SQL for a zone with DST, several groups and granularities stays well under 100 KB', () => {
    const query = normalize({
      measures: ['orders.total_amount', 'users.count', 'line_items.count'],
      dimensions: ['orders.created_at'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'day' },
        { dimension: 'orders.created_at', granularity: 'week' },
      ],
      timezone: 'America/New_York',
      total: true,
    });
    const compiled = compileQuery(shop, query, sqlite);
    expect(compiled.sql.length).toBeLessThan(50_000);
    expect(compiled.totalSql?.sql.length).toBeLessThan(60_000);
    // PostgreSQL binds the zone once and reuses it.
    const pg = compileQuery(shop, query, postgres);
    expect(pg.params.filter((param) => param === 'America/New_York')).toHaveLength(1);
  });

  it('shapeRows keys rows by member, time dimensions twice, numbers as text, booleans as booleans', () => {
    const query = normalize({
      measures: ['orders.count'],
      dimensions: ['orders.is_big', 'orders.amount'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    });
    const compiled = compileQuery(shop, query, sqlite);
    expect(compiled.columns.map((column) => [column.alias, column.member, column.kind])).toEqual([
      ['c0', 'orders.is_big', 'dimension'],
      ['c1', 'orders.amount', 'dimension'],
      ['c2', 'orders.created_at', 'timeDimension'],
      ['c3', 'orders.count', 'measure'],
    ]);
    expect(
      shapeRows(compiled, [
        { c0: 1, c1: 12.5, c2: '2024-03-01T00:00:00.000', c3: 15 },
        { c0: null, c1: null, c2: null, c3: 0 },
      ]),
    ).toEqual([
      {
        'orders.is_big': true,
        'orders.amount': '12.5',
        'orders.created_at.month': '2024-03-01T00:00:00.000',
        'orders.created_at': '2024-03-01T00:00:00.000',
        'orders.count': '15',
      },
      {
        'orders.is_big': null,
        'orders.amount': null,
        'orders.created_at.month': null,
        'orders.created_at': null,
        'orders.count': '0',
      },
    ]);
  });

  it('annotation: titles, types and granularities', () => {
    const query = normalize({
      measures: ['orders.count', 'customer_orders.total_amount'],
      dimensions: ['users.name'],
      segments: ['orders.completed'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'quarter' }],
    });
    expect(annotationOf(shop, query)).toEqual({
      measures: {
        'orders.count': { title: 'Orders Count', shortTitle: 'Count', type: 'number' },
        'customer_orders.total_amount': {
          title: 'Customer orders Total amount',
          shortTitle: 'Total amount',
          type: 'number',
        },
      },
      dimensions: { 'users.name': { title: 'Users Name', shortTitle: 'Name', type: 'string' } },
      segments: { 'orders.completed': { title: 'Orders Completed', shortTitle: 'Completed' } },
      timeDimensions: {
        'orders.created_at.quarter': {
          title: 'Orders Created at',
          shortTitle: 'Created at',
          type: 'time',
          granularity: { name: 'quarter', title: 'quarter', interval: '3 months' },
        },
        'orders.created_at': { title: 'Orders Created at', shortTitle: 'Created at', type: 'time' },
      },
    });
  });
});
