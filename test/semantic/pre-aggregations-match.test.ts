// Matching queries with pre-aggregations, Cube's rules: each rule with a query it lets a rollup
// answer and one it must not. Pure: no database.
import { describe, expect, it } from 'vitest';
import { postgres } from '../../src/semantic/dialects/postgres';
import { sqlite } from '../../src/semantic/dialects/sqlite';
import type { CompiledModel, Cube } from '../../src/semantic/model/model.types';
import { normalizeQuery } from '../../src/semantic/query/normalize';
import { buildQueryOf, MAX_PARTITION_ROWS } from '../../src/semantic/query/pre-aggregations/build';
import { numberLeaves, storedDefinitionOf } from '../../src/semantic/query/pre-aggregations/layout';
import {
  checkPreAggregation,
  type MatchOptions,
  matchPreAggregation,
} from '../../src/semantic/query/pre-aggregations/match';
import {
  MAX_PARTITIONS_PER_ROLLUP,
  partitionsOf,
} from '../../src/semantic/query/pre-aggregations/partitions';
import type { CubeQuery, NormalizedFilter } from '../../src/semantic/query/query.types';
import { NOW, shopModel } from './dataset';
import { ROLLUPS, rollup, withRollups } from './pre-aggregations-fixture';

const MODEL: CompiledModel = withRollups(shopModel((name) => name));

const normalized = (query: CubeQuery) => normalizeQuery(MODEL, query, { now: NOW });

/** The rollup that answers `query` (`cube.name`), or null. */
function matched(query: CubeQuery, policy: NormalizedFilter[] = [], options: MatchOptions = {}) {
  const match = matchPreAggregation(MODEL, normalized(query), policy, options);
  return match && `${match.preAggregation.cube}.${match.preAggregation.name}`;
}

/** Why the named rollup does not answer `query` (or `{exact}` when it does). */
function verdict(
  name: string,
  query: CubeQuery,
  policy: NormalizedFilter[] = [],
  options: MatchOptions = {},
) {
  const [cube = '', pre = ''] = name.split('.');
  const preAggregation = MODEL.cubes[cube]?.preAggregations?.find((candidate) => candidate.name === pre);
  if (!preAggregation) throw new Error(`no pre-aggregation ${name}`);
  return checkPreAggregation(MODEL, normalized(query), policy, preAggregation, options);
}

const YEAR: [string, string] = ['2024-01-01', '2024-12-31'];
const byMonth = (extra: CubeQuery = {}): CubeQuery => ({
  measures: ['orders.count', 'orders.total_amount'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: YEAR }],
  ...extra,
});

describe('number measures computed from a rollup’s stored leaves', () => {
  it('only those whose SQL reads measures alone: a bare column beside them is not in a rollup', () => {
    const orders = MODEL.cubes.orders as Cube;
    const count = orders.measures.count;
    if (!count) throw new Error('no count');
    const withColumn = (sql: string): CompiledModel => ({
      ...MODEL,
      cubes: {
        ...MODEL.cubes,
        orders: {
          ...orders,
          measures: {
            ...orders.measures,
            mixed: { ...count, name: 'orders.mixed', shortName: 'mixed', type: 'number', sql, filters: [] },
          },
        },
      },
    });
    expect(numberLeaves(withColumn('{count} * 2 + COALESCE({total_amount}, 0)'), 'orders.mixed')).toEqual([
      'orders.count',
      'orders.total_amount',
    ]);
    expect(numberLeaves(withColumn('{count} + MAX(amount)'), 'orders.mixed')).toBeNull();
    expect(numberLeaves(withColumn("{count} + CASE WHEN 1e3 > 0 THEN 'x' END"), 'orders.mixed')).toEqual([
      'orders.count',
    ]);
  });
});

describe('additivity', () => {
  it('additive leaf measures re-aggregate at any coarser grouping', () => {
    expect(matched(byMonth())).toBe('orders.daily');
    expect(verdict('orders.daily', byMonth())).toEqual({ exact: false });
    expect(
      matched(byMonth({ measures: ['orders.min_amount', 'orders.max_amount', 'orders.completed_amount'] })),
    ).toBe('orders.daily');
  });

  it('count_distinct, avg and number measures only when the dimensions equal the rollup’s', () => {
    const exact: CubeQuery = {
      measures: ['orders.avg_amount', 'orders.distinct_users', 'orders.amount_per_order'],
      dimensions: ['orders.status', 'users.city'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day', dateRange: YEAR }],
    };
    expect(matched(exact)).toBe('orders.daily');
    expect(verdict('orders.daily', exact)).toEqual({ exact: true });
    for (const measure of ['orders.avg_amount', 'orders.distinct_users', 'orders.amount_per_order']) {
      const coarser = byMonth({ measures: [measure] });
      expect(matched(coarser)).toBeNull();
      expect(verdict('orders.daily', coarser)).toContain(`measure ${measure} does not re-aggregate`);
      const fewer = { ...exact, measures: [measure], dimensions: ['orders.status'] };
      expect(verdict('orders.daily', fewer)).toContain("the query's dimensions are not the rollup's");
    }
  });

  it('number measures over additive leaves re-aggregate on the embedded store, from the leaves it stores', () => {
    const embedded: MatchOptions = { source: 'sqlite' };
    const coarser = byMonth({ measures: ['orders.amount_per_order', 'orders.count'] });
    expect(matched(coarser, [], embedded)).toBe('orders.daily');
    expect(verdict('orders.daily', coarser, [], embedded)).toEqual({ exact: false });
    // Listed alone: the rollup stores the leaves (nested ones too) beside it.
    const nested: CubeQuery = {
      measures: ['orders.share_and_count'],
      dimensions: ['orders.status'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'quarter', dateRange: YEAR }],
    };
    expect(matched(nested, [], embedded)).toBe('orders.number_shares');
    const daily = MODEL.cubes.orders?.preAggregations?.find((pre) => pre.name === 'number_shares');
    if (!daily) throw new Error('no rollup');
    expect(
      buildQueryOf(MODEL, daily, partitionsOf(daily, ['', ''], 'UTC')[0] as never, sqlite).columns.map(
        (c) => c.name,
      ),
    ).toEqual(['d0', 'd1', 't', 'm0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);
    // Partitions are fingerprinted with the stored leaves: one stored without them never serves.
    expect(storedDefinitionOf(MODEL, daily, 'sqlite').storedMeasures).toEqual([
      'orders.share_and_count',
      'orders.amount_per_user',
      'orders.completion_rate',
      'orders.completed_amount',
      'orders.total_amount',
      'orders.count',
      'orders.completed_count',
    ]);
    // Its string dimensions are stored as read: one stored as text never serves either.
    expect(storedDefinitionOf(MODEL, daily, 'postgres')).toEqual({ ...daily, stringsAsRead: true });
    const [plain] = ROLLUPS.orders;
    if (!plain) throw new Error('no rollup');
    expect(storedDefinitionOf(MODEL, plain, 'sqlite')).toEqual({ ...plain, stringsAsRead: true });
    // A rollup with neither keeps the definition it had, and so its partitions.
    const byAmount = MODEL.cubes.orders?.preAggregations?.find((pre) => pre.name === 'by_amount');
    if (!byAmount) throw new Error('no rollup');
    expect(storedDefinitionOf(MODEL, byAmount, 'sqlite')).toEqual(byAmount);
    // PostgreSQL's numeric division is not SQLite's: there, only when each group is one row.
    expect(matched(coarser)).toBeNull();
    expect(verdict('orders.daily', coarser)).toContain(
      'measure orders.amount_per_order does not re-aggregate',
    );
    expect(matched(nested)).toBeNull();
  });

  it('number measures over a count_distinct or avg stay non-additive on both stores', () => {
    const embedded: MatchOptions = { source: 'sqlite' };
    const coarser: CubeQuery = {
      measures: ['orders.amount_per_user'],
      dimensions: ['orders.status'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'quarter', dateRange: YEAR }],
    };
    expect(matched(coarser, [], embedded)).toBeNull();
    expect(verdict('orders.number_shares', coarser, [], embedded)).toContain(
      'measure orders.amount_per_user does not re-aggregate',
    );
    const exact: CubeQuery = {
      ...coarser,
      dimensions: ['orders.status', 'users.city'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: YEAR }],
    };
    expect(matched(exact, [], embedded)).toBe('orders.number_shares');
    expect(matched(exact)).toBe('orders.number_shares');
    // In a filter only, it is computed over the rollup's rows all the same.
    const filtered: CubeQuery = {
      ...coarser,
      measures: ['orders.share_and_count'],
      filters: [{ member: 'orders.amount_per_user', operator: 'gt', values: ['1'] }],
    };
    expect(verdict('orders.number_shares', filtered, [], embedded)).toContain(
      'measure orders.amount_per_user does not re-aggregate',
    );
  });

  it('a measure the rollup’s joins multiply only when the dimensions equal the rollup’s', () => {
    const exact: CubeQuery = {
      measures: ['orders.total_amount', 'line_items.revenue'],
      dimensions: ['products.category'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' }],
    };
    expect(matched(exact)).toBe('line_items.orders_by_category');
    const coarser = { ...exact, dimensions: [] };
    expect(verdict('line_items.orders_by_category', coarser)).toContain(
      'measure orders.total_amount does not re-aggregate',
    );
    expect(matched(coarser)).toBeNull();
  });

  it('a rollup built from another root cube does not answer (its rows are another join’s)', () => {
    const query: CubeQuery = {
      measures: ['line_items.revenue'],
      dimensions: ['products.category'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'quarter' }],
    };
    expect(verdict('line_items.orders_by_category', query)).toContain(
      'it joins from orders, the query from line_items',
    );
    expect(matched(query)).toBe('line_items.revenue_by_category');
  });
});

describe('members', () => {
  it('text filters only on string dimensions: a rollup keeps numbers and booleans as values', () => {
    const filtered = (member: string, operator: string) =>
      byMonth({ dimensions: ['orders.status'], filters: [{ member, operator, values: ['1'] }] });
    expect(matched(filtered('orders.status', 'contains'))).toBe('orders.daily');
    expect(matched(filtered('orders.status', 'equals'))).toBe('orders.daily');
    for (const operator of ['contains', 'notStartsWith', 'endsWith']) {
      const byAmount = { measures: ['orders.count'], dimensions: ['orders.amount'] };
      expect(matched(byAmount)).toBe('orders.by_amount');
      const text = { ...byAmount, filters: [{ member: 'orders.amount', operator, values: ['1'] }] };
      expect(verdict('orders.by_amount', text)).toContain(
        `filter ${operator} on orders.amount matches text, and it is not a string dimension`,
      );
      expect(matched(text)).toBeNull();
      const flag = { ...byAmount, filters: [{ member: 'orders.is_big', operator, values: ['t'] }] };
      expect(matched(flag)).toBeNull();
    }
  });

  it('every measure and dimension of the query is in the rollup', () => {
    expect(matched(byMonth({ dimensions: ['orders.status'] }))).toBe('orders.daily');
    expect(verdict('orders.daily', byMonth({ measures: ['users.count'] }))).toContain(
      'measure users.count is not in it',
    );
    expect(verdict('orders.daily', byMonth({ dimensions: ['users.name'] }))).toContain(
      'dimension users.name is not in it',
    );
    expect(matched(byMonth({ dimensions: ['users.name'] }))).toBeNull();
  });

  it('filter members too, measures and dimensions', () => {
    const filtered = byMonth({
      filters: [
        { member: 'orders.status', operator: 'equals', values: ['completed'] },
        { member: 'orders.count', operator: 'gt', values: ['1'] },
      ],
    });
    expect(matched(filtered)).toBe('orders.daily');
    const outside = byMonth({ filters: [{ member: 'orders.amount', operator: 'gt', values: ['1'] }] });
    expect(verdict('orders.daily', outside)).toContain('filter member orders.amount is not in it');
    expect(matched(outside)).toBeNull();
    const nested = byMonth({
      filters: [
        {
          or: [
            { member: 'orders.status', operator: 'set' },
            { member: 'users.name', operator: 'set' },
          ],
        },
      ],
    });
    expect(matched(nested)).toBeNull();
  });

  it('a time filter outside the time dimension’s date range is not applied to a rollup', () => {
    const query = byMonth({
      filters: [{ member: 'orders.created_at', operator: 'beforeDate', values: ['2024-06-01'] }],
    });
    expect(verdict('orders.daily', query)).toContain('filter member orders.created_at is not in it');
  });

  it('segments: the query’s are the rollup’s', () => {
    const completed = byMonth({ segments: ['orders.completed'] });
    expect(verdict('orders.daily', completed)).toContain('its segments (none) are not the query');
    expect(matched(completed)).toBe('orders.completed_monthly');
    // A rollup holding the segment's rows only cannot answer a query for every row.
    expect(verdict('orders.completed_monthly', byMonth())).toContain('its segments (orders.completed)');
    expect(matched(byMonth({ segments: ['orders.big'] }))).toBeNull();
  });

  it('a view’s members count as their cubes’', () => {
    const query: CubeQuery = {
      measures: ['customer_orders.count'],
      dimensions: ['customer_orders.status'],
      timeDimensions: [{ dimension: 'customer_orders.created_at', granularity: 'month', dateRange: YEAR }],
    };
    expect(matched(query)).toBe('orders.daily');
    expect(matched({ ...query, dimensions: ['customer_orders.customer_name'] })).toBeNull();
  });
});

describe('time', () => {
  it('the query’s granularity equals the rollup’s or is made of its buckets', () => {
    for (const granularity of ['day', 'week', 'month', 'quarter', 'year'] as const) {
      expect(
        matched(
          byMonth({ timeDimensions: [{ dimension: 'orders.created_at', granularity, dateRange: YEAR }] }),
        ),
      ).toBe('orders.daily');
    }
    const hourly = byMonth({
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'hour', dateRange: YEAR }],
    });
    expect(verdict('orders.daily', hourly)).toContain(
      'granularity hour of orders.created_at is not made of its day buckets',
    );
    expect(matched(hourly)).toBeNull();
    const weekly = (range?: [string, string]) => ({
      measures: ['orders.count'],
      segments: ['orders.completed'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'week' as const, ...(range && { dateRange: range }) },
      ],
    });
    expect(verdict('orders.completed_monthly', weekly())).toContain('granularity week');
    expect(
      matched({ ...weekly(), timeDimensions: [{ dimension: 'orders.created_at', granularity: 'quarter' }] }),
    ).toBe('orders.completed_monthly');
  });

  it('a date range aligned to the rollup’s buckets, unless allow_non_strict_date_range_match', () => {
    const range = (dateRange: [string, string]) =>
      byMonth({
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day', dateRange }],
      });
    expect(matched(range(['2024-01-01', '2024-01-31']))).toBe('orders.daily');
    expect(matched(range(['2024-01-01T00:00:00', '2024-01-31T23:59:59.999']))).toBe('orders.daily');
    const loose = range(['2024-01-01T00:00:00', '2024-01-31T23:59:59']);
    expect(verdict('orders.daily', loose)).toContain(
      'the date range of orders.created_at is not aligned to its day buckets',
    );
    expect(matched(loose)).toBe('orders.loose_daily');
    expect(matched(range(['2024-01-01T06:00:00', '2024-01-31']))).toBe('orders.loose_daily');
    // Aligned in New York is not aligned in UTC: alignment is in the query's zone.
    expect(matched({ ...range(['2024-01-01', '2024-01-31']), timezone: 'America/New_York' })).toBe(
      'orders.daily',
    );
  });

  it('no bound of the date range at a wall-clock time the zone repeats', () => {
    const within = (dateRange: [string, string], timezone = 'America/New_York') => ({
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day' as const, dateRange }],
      timezone,
    });
    // Ending at 01:45 EDT on 3 November 2024, whose wall-clock text 01:45 EST reads again an hour later.
    const repeated = within(['2024-11-03T04:00:00Z', '2024-11-03T05:45:00Z']);
    expect(verdict('orders.loose_daily', repeated)).toContain(
      'the date range of orders.created_at starts or ends at a wall-clock time America/New_York repeats',
    );
    expect(matched(repeated)).toBeNull();
    // The same instants in UTC, and a range clear of the repeated hour, still match.
    expect(matched(within(['2024-11-03T04:00:00Z', '2024-11-03T05:45:00Z'], 'UTC'))).toBe(
      'orders.loose_daily',
    );
    expect(matched(within(['2024-11-03T07:00:00Z', '2024-11-03T08:45:00Z']))).toBe('orders.loose_daily');
  });

  it('a partitioned rollup needs a date range on its time dimension', () => {
    const open = {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month' as const }],
    };
    expect(verdict('orders.daily', open)).toContain('it is partitioned, and the query has no date range');
    expect(matched(open)).toBeNull();
    expect(matched({ ...open, segments: ['orders.completed'] })).toBe('orders.completed_monthly');
  });

  it('the time zone is one the rollup is built in', () => {
    expect(matched(byMonth(), [], { timezones: ['UTC', 'Europe/Paris'] })).toBe('orders.daily');
    const paris = byMonth({ timezone: 'Europe/Paris' });
    expect(matched(paris, [], { timezones: ['UTC', 'Europe/Paris'] })).toBe('orders.daily');
    const tokyo = byMonth({ timezone: 'Asia/Tokyo' });
    expect(verdict('orders.daily', tokyo, [], { timezones: ['UTC'] })).toContain(
      "not built in the query's time zone Asia/Tokyo",
    );
    expect(matched(tokyo, [], { timezones: ['UTC'] })).toBeNull();
  });
});

describe('which rollup, and which queries never', () => {
  it('the first eligible in definition order, rollups before original_sql', () => {
    const query: CubeQuery = {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'day', dateRange: YEAR }],
    };
    // daily and loose_daily both answer: daily is defined first.
    expect(verdict('orders.loose_daily', query)).toEqual({ exact: true });
    expect(matched(query)).toBe('orders.daily');
    const reordered = structuredClone(MODEL);
    const orders = reordered.cubes.orders as NonNullable<(typeof reordered.cubes)['orders']>;
    orders.preAggregations = [
      rollup('orders', 'copy', { type: 'original_sql' }),
      ...(ROLLUPS.orders.slice().reverse() as typeof ROLLUPS.orders),
    ];
    const match = matchPreAggregation(reordered, normalizeQuery(reordered, query, { now: NOW }), []);
    expect(match?.preAggregation.name).toBe('loose_daily');
  });

  it('ungrouped queries never match', () => {
    expect(matched({ ...byMonth(), ungrouped: true })).toBeNull();
    expect(verdict('orders.daily', { ...byMonth(), ungrouped: true })).toContain('ungrouped');
  });
});

describe('original_sql: the cube’s members at the finest grain, tried after every rollup', () => {
  const WITH_ORIGINAL = withRollups(
    shopModel((name) => name),
    { originalSql: true },
  );
  const matchedIn = (query: CubeQuery) => {
    const match = matchPreAggregation(WITH_ORIGINAL, normalizeQuery(WITH_ORIGINAL, query, { now: NOW }), []);
    return match && `${match.preAggregation.cube}.${match.preAggregation.name}`;
  };
  const base = WITH_ORIGINAL.cubes.orders?.preAggregations?.find((pre) => pre.name === 'base');

  it('stores every measure and every dimension of its cube but the other times, its time to the second', () => {
    expect(base?.measures).toContain('orders.distinct_users');
    expect(base?.dimensions).toEqual(
      expect.arrayContaining(['orders.id', 'orders.status_label', 'orders.is_big', 'orders.secret']),
    );
    expect(base?.dimensions).not.toContain('orders.created_at');
    expect([base?.timeDimension, base?.granularity]).toEqual(['orders.created_at', 'second']);
  });

  it('a rollup that answers comes first; a query no rollup answers is answered by original_sql', () => {
    expect(matchedIn(byMonth())).toBe('orders.daily');
    expect(matchedIn(byMonth({ dimensions: ['orders.status_label'] }))).toBe('orders.base');
    expect(matchedIn({ measures: ['products.count'], dimensions: ['products.name'] })).toBe('products.copy');
  });

  it('never for another cube’s member, a non-additive measure coarser, or without a date range when partitioned', () => {
    expect(matchedIn(byMonth({ dimensions: ['users.name'] }))).toBeNull();
    expect(
      matchedIn(byMonth({ measures: ['orders.distinct_users'], dimensions: ['orders.status'] })),
    ).toBeNull();
    expect(matchedIn({ measures: ['orders.count'], dimensions: ['orders.status_label'] })).toBeNull();
    expect(
      matchedIn({ measures: ['products.count'], dimensions: ['products.category'], ungrouped: true }),
    ).toBeNull();
  });
});

describe('data access policies are filters like any other', () => {
  const status: NormalizedFilter = {
    member: { name: 'orders.status', target: 'orders.status' },
    operator: 'equals',
    values: ['completed'],
  };
  const name: NormalizedFilter = {
    member: { name: 'users.name', target: 'users.name' },
    operator: 'equals',
    values: ['Zoë'],
  };

  it('a row-secured caller is served when the policy’s member is in the rollup', () => {
    const match = matchPreAggregation(MODEL, normalized(byMonth()), [status]);
    expect(match?.preAggregation.name).toBe('daily');
    expect(match?.extraFilters).toEqual([status]);
  });

  it('and goes to the source when it is not', () => {
    expect(verdict('orders.daily', byMonth(), [name])).toContain('filter member users.name is not in it');
    expect(matched(byMonth(), [name])).toBeNull();
    expect(matched(byMonth(), [{ and: [status, name] }])).toBeNull();
  });
});

describe('partitions', () => {
  const [daily] = ROLLUPS.orders;
  if (!daily) throw new Error('fixture');

  it('one per partition_granularity bucket in the zone, named as Cube names them', () => {
    expect(
      partitionsOf(daily, ['2024-02-15T00:00:00.000Z', '2024-04-01T05:00:00.000Z'], 'America/New_York'),
    ).toEqual([
      {
        preAggregation: 'orders.daily',
        tableName: 'prod_pre_aggregations.orders_daily20240201',
        timezone: 'America/New_York',
        range: ['2024-02-01T05:00:00.000Z', '2024-03-01T04:59:59.999Z'],
      },
      {
        preAggregation: 'orders.daily',
        tableName: 'prod_pre_aggregations.orders_daily20240301',
        timezone: 'America/New_York',
        // March 10 moves New York from UTC-5 to UTC-4.
        range: ['2024-03-01T05:00:00.000Z', '2024-04-01T03:59:59.999Z'],
      },
      {
        preAggregation: 'orders.daily',
        tableName: 'prod_pre_aggregations.orders_daily20240401',
        timezone: 'America/New_York',
        range: ['2024-04-01T04:00:00.000Z', '2024-05-01T03:59:59.999Z'],
      },
    ]);
  });

  it('hourly partitions carry the hour; an unpartitioned rollup is one table', () => {
    const hourly = { ...daily, granularity: 'hour' as const, partitionGranularity: 'hour' as const };
    const specs = partitionsOf(hourly, ['2024-01-01T00:30:00.000Z', '2024-01-01T01:00:00.000Z'], 'UTC');
    expect(specs.map((spec) => spec.tableName)).toEqual([
      'prod_pre_aggregations.orders_daily2024010100',
      'prod_pre_aggregations.orders_daily2024010101',
    ]);
    const [, monthly] = ROLLUPS.orders;
    expect(
      partitionsOf(monthly as typeof daily, ['2024-01-01T00:00:00Z', '2024-12-31T00:00:00Z'], 'UTC'),
    ).toEqual([
      {
        preAggregation: 'orders.completed_monthly',
        tableName: 'prod_pre_aggregations.orders_completed_monthly',
        timezone: 'UTC',
      },
    ]);
  });

  it('bounded: more partitions than a rollup may have fail, naming it', () => {
    const hourly = { ...daily, granularity: 'hour' as const, partitionGranularity: 'hour' as const };
    expect(() => partitionsOf(hourly, ['2024-01-01T00:00:00Z', '2024-12-31T00:00:00Z'], 'UTC')).toThrow(
      `Pre-aggregation orders.daily: the build range 2024-01-01T00:00:00Z – 2024-12-31T00:00:00Z needs more than ${MAX_PARTITIONS_PER_ROLLUP} hour partitions`,
    );
  });
});

describe('build queries', () => {
  const [daily] = ROLLUPS.orders;
  if (!daily) throw new Error('fixture');
  const [spec] = partitionsOf(daily, ['2024-03-01T00:00:00.000Z', '2024-03-31T23:59:59.999Z'], 'UTC');
  if (!spec) throw new Error('fixture');

  it('the planner’s SQL restricted to the partition, in the layout’s columns, bounded', () => {
    const build = buildQueryOf(MODEL, daily, spec, postgres);
    expect(build.columns.map((column) => `${column.name} ${column.type}`)).toEqual([
      'd0 value',
      'd1 value',
      't text',
      'm0 integer',
      'm1 text',
      'm1_scale integer',
      'm2 text',
      'm2_scale integer',
      'm3 text',
      'm3_scale integer',
      'm4 text',
      'm4_scale integer',
      'm5 text',
      'm5_scale integer',
      'm6 text',
      'm7 integer',
      'm8 text',
    ]);
    expect(build.indexes).toEqual([{ name: 'orders_daily_by_status', columns: ['d0', 't'] }]);
    expect(build.params).toContain('2024-03-01T00:00:00.000Z');
    expect(build.params).toContain('2024-03-31T23:59:59.999Z');
    expect(build.params).toContain(MAX_PARTITION_ROWS + 1);
    expect(buildQueryOf(MODEL, daily, spec, postgres, { maxRows: 10 }).params).toContain(11);
    expect(build).toMatchObject({
      tableName: spec.tableName,
      timezone: 'UTC',
      range: spec.range,
      dialect: 'postgres',
    });
    // The embedded store keeps its values as they are: numbers as numbers, no scale.
    const embedded = buildQueryOf(MODEL, daily, spec, sqlite);
    expect(embedded.columns.filter((column) => column.name.endsWith('_scale'))).toEqual([]);
    expect(embedded.sql).not.toContain('::text');
  });

  it('builds an original_sql partition as a rollup of its members, the time to the second', () => {
    const model = withRollups(
      shopModel((name) => name),
      { originalSql: true },
    );
    const base = model.cubes.orders?.preAggregations?.find((pre) => pre.name === 'base');
    if (!base) throw new Error('no original_sql pre-aggregation');
    const [first] = partitionsOf(base, ['2024-03-01T00:00:00.000Z', '2024-03-31T23:59:59.999Z'], 'UTC');
    if (!first) throw new Error('no partition');
    const query = buildQueryOf(model, base, first, postgres);
    expect(first.tableName).toBe('prod_pre_aggregations.orders_base20240301');
    expect(query.sql).toContain("date_trunc('second'");
    // A column per dimension, the time, a column per measure (and a scale beside PostgreSQL's sums).
    expect(query.columns.filter((column) => !column.name.endsWith('_scale')).length).toBe(
      base.dimensions.length + 1 + base.measures.length,
    );
  });

  it('refuses another rollup’s partition', () => {
    const [, monthly] = ROLLUPS.orders;
    expect(() => buildQueryOf(MODEL, monthly as typeof daily, spec, postgres)).toThrow(
      'is not a partition of orders.completed_monthly',
    );
  });
});
