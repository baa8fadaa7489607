import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { casesOf } from '../../src/semantic/dialects/sqlite';
import type { CubeFilter } from '../../src/semantic/query/query.types';
import { expectMatches, load, openShop, type Shop } from './dataset';

let shop: Shop;
beforeAll(async () => {
  shop = await openShop();
});
afterAll(async () => {
  await shop.close();
});

/** The ids of the rows of `table` the filters keep, against the hand-written WHERE. */
function expectIds(
  table: 'orders' | 'users' | 'products',
  filters: CubeFilter[],
  where: string | { postgres: string; sqlite?: string },
  timezone?: string,
) {
  const hand = (condition: string) =>
    `SELECT id AS "${table}.id" FROM {${table}} WHERE ${condition} ORDER BY id`;
  return expectMatches(
    shop,
    {
      dimensions: [`${table}.id`],
      filters,
      order: { [`${table}.id`]: 'asc' },
      ...(timezone ? { timezone } : {}),
    },
    typeof where === 'string'
      ? hand(where)
      : { postgres: hand(where.postgres), ...(where.sqlite ? { sqlite: hand(where.sqlite) } : {}) },
  );
}

describe('equality', () => {
  it('equals one value, several values, and null', async () => {
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'equals', values: ['pending'] }],
      "status = 'pending'",
    );
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'equals', values: ['pending', 'cancelled'] }],
      "status IN ('pending', 'cancelled')",
    );
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'equals', values: ['pending', null] }],
      "(status = 'pending' OR status IS NULL)",
    );
    await expectIds(
      'users',
      [{ member: 'users.name', operator: 'equals', values: ["O'Brien", '東京 Taro'] }],
      "name IN ('O''Brien', '東京 Taro')",
    );
    await expectIds(
      'orders',
      [{ member: 'orders.amount', operator: 'equals', values: [100, '60'] }],
      'amount IN (100, 60)',
    );
  });

  it('notEquals keeps the rows where the member is NULL, unless null is one of the values', async () => {
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'notEquals', values: ['completed'] }],
      "(status <> 'completed' OR status IS NULL)",
    );
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'notEquals', values: ['completed', 'pending'] }],
      "(status NOT IN ('completed', 'pending') OR status IS NULL)",
    );
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'notEquals', values: ['completed', null] }],
      "(status IS NOT NULL AND status <> 'completed')",
    );
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'notEquals', values: [null] }],
      'status IS NOT NULL',
    );
  });

  it('booleans', async () => {
    await expectIds(
      'orders',
      [{ member: 'orders.is_big', operator: 'equals', values: ['true'] }],
      'amount > 100',
    );
    await expectIds(
      'orders',
      [{ member: 'orders.is_big', operator: 'equals', values: [false] }],
      'amount <= 100',
    );
  });

  it('a filter the fan-out plan repeats in each subquery binds its values once', async () => {
    const query = {
      measures: ['users.count', 'orders.count', 'products.count'],
      dimensions: ['orders.status'],
      filters: Array.from({ length: 40 }, (_, index) => ({
        member: 'orders.amount',
        operator: 'notEquals',
        values: [String(1000 + index)],
      })),
      order: { 'orders.status': 'asc' as const },
    };
    const lite = await load(shop, 'sqlite', query);
    const pg = await load(shop, 'postgres', query);
    expect(lite.compiled.params.length).toBeLessThan(50);
    expect(lite.data.length).toBeGreaterThan(1);
    expect(lite.data).toEqual(pg.data);
  });

  it('many filters nest shallowly enough for SQLite (an expression at most 100 deep)', async () => {
    // `set` binds nothing: 150 of them reach the depth bound long before the parameters' bound.
    const query = {
      dimensions: ['orders.status'],
      filters: Array.from({ length: 150 }, (_, index) =>
        index % 3 === 0
          ? { member: 'orders.amount', operator: 'lt', values: [String(1000 + index)] }
          : { member: index % 3 === 1 ? 'orders.amount' : 'orders.user_id', operator: 'set' },
      ),
      order: { 'orders.status': 'asc' as const },
    };
    const lite = await load(shop, 'sqlite', query);
    const pg = await load(shop, 'postgres', query);
    expect(lite.data.length).toBeGreaterThan(1);
    expect(lite.data).toEqual(pg.data);
  });

  it('many values are one parameter, not one each (SQLite binds at most 100)', async () => {
    const values = Array.from({ length: 300 }, (_, index) => String(index));
    const { compiled, data } = await load(shop, 'sqlite', {
      dimensions: ['orders.id'],
      filters: [{ member: 'orders.id', operator: 'equals', values }],
    });
    expect(compiled.params.length).toBeLessThan(10);
    expect(data).toHaveLength(25);
    const pg = await load(shop, 'postgres', {
      dimensions: ['orders.id'],
      filters: [{ member: 'orders.id', operator: 'notEquals', values }],
    });
    expect(pg.compiled.params.length).toBeLessThan(10);
    expect(pg.data).toHaveLength(0);
  });
});

describe('text matching', () => {
  it('contains, startsWith, endsWith are case-insensitive; several values are ORed', async () => {
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'contains', values: ['PLET'] }],
      "lower(status) LIKE '%plet%'",
    );
    await expectIds(
      'users',
      [{ member: 'users.city', operator: 'startsWith', values: ['new', 'DUB'] }],
      "(lower(city) LIKE 'new%' OR lower(city) LIKE 'dub%')",
    );
    await expectIds(
      'users',
      [{ member: 'users.name', operator: 'endsWith', values: ['ICE'] }],
      "lower(name) LIKE '%ice'",
    );
    await expectIds(
      'users',
      [{ member: 'users.name', operator: 'contains', values: ['zoë', '東京'] }],
      "(name LIKE '%Zoë%' OR name LIKE '%東京%')",
    );
  });

  it('case folds beyond ASCII on both stores, as ILIKE does', async () => {
    await expectIds(
      'products',
      [{ member: 'products.name', operator: 'contains', values: ['é'] }],
      "name = 'Éclair'",
    );
    await expectIds(
      'products',
      [{ member: 'products.name', operator: 'startsWith', values: ['ÉCLAIR'] }],
      "name = 'Éclair'",
    );
    await expectIds('users', [{ member: 'users.name', operator: 'endsWith', values: ['ZOË'] }], 'id = 1');
    await expectIds(
      'users',
      [{ member: 'users.name', operator: 'notContains', values: ['Ë'] }],
      "(name <> 'Zoë' OR name IS NULL)",
    );
  });

  it('folds as ILIKE does, by lower case: İ finds i, ı finds only ı', async () => {
    await expectIds(
      'products',
      [{ member: 'products.name', operator: 'contains', values: ['İ'] }],
      "name IN ('Widget', 'Thing_1', 'Éclair')",
    );
    await expectIds('orders', [{ member: 'orders.status', operator: 'contains', values: ['ı'] }], '1 = 0');
    await expectIds(
      'products',
      [{ member: 'products.name', operator: 'startsWith', values: ['\u212a'] }],
      '1 = 0',
    );
    // Every character that lowers to another is in that one's class, and in no other.
    for (let point = 0; point <= 0x1ffff; point++) {
      if (point >= 0xd800 && point <= 0xdfff) continue;
      const char = String.fromCodePoint(point);
      const lower = String.fromCodePoint(char.toLowerCase().codePointAt(0) as number);
      if (lower === char) continue;
      expect(casesOf(lower), `U+${point.toString(16)}`).toContain(char);
      expect([...casesOf(char)].sort()).toEqual([...casesOf(lower)].sort());
    }
  });

  it("GLOB's own wildcards in values match themselves on SQLite", async () => {
    for (const value of ['*', '?', '[', ']', '[a-z]', '^']) {
      await expectIds(
        'products',
        [{ member: 'products.name', operator: 'contains', values: [value] }],
        '1 = 0',
      );
    }
    await expectIds(
      'products',
      [{ member: 'products.name', operator: 'endsWith', values: ['0%'] }],
      "name = 'Gadget 100%'",
    );
  });

  it("a boolean's text is true or false on both stores", async () => {
    await expectIds(
      'orders',
      [{ member: 'orders.is_big', operator: 'contains', values: ['TR'] }],
      'amount > 100',
    );
    await expectIds('orders', [{ member: 'orders.is_big', operator: 'startsWith', values: ['1'] }], '1 = 0');
    await expectIds(
      'orders',
      [{ member: 'orders.is_big', operator: 'notEndsWith', values: ['lse'] }],
      '(amount > 100 OR amount IS NULL)',
    );
  });

  it('%, _ and \\ in values match themselves', async () => {
    await expectIds(
      'products',
      [{ member: 'products.name', operator: 'contains', values: ['%'] }],
      "name = 'Gadget 100%'",
    );
    await expectIds(
      'products',
      [{ member: 'products.name', operator: 'contains', values: ['_'] }],
      "name = 'Thing_1'",
    );
    await expectIds(
      'users',
      [{ member: 'users.name', operator: 'endsWith', values: ['_%'] }],
      "name = 'Bob_%'",
    );
    await expectIds('users', [{ member: 'users.name', operator: 'contains', values: ['\\'] }], '1 = 0');
    await expectIds(
      'products',
      [{ member: 'products.name', operator: 'startsWith', values: ['thing_'] }],
      "name = 'Thing_1'",
    );
  });

  it('the negatives AND their values and keep NULL rows', async () => {
    await expectIds(
      'users',
      [{ member: 'users.city', operator: 'notContains', values: ['york'] }],
      "(lower(city) NOT LIKE '%york%' OR city IS NULL)",
    );
    await expectIds(
      'users',
      [{ member: 'users.city', operator: 'notStartsWith', values: ['new', 'par'] }],
      "((lower(city) NOT LIKE 'new%' AND lower(city) NOT LIKE 'par%') OR city IS NULL)",
    );
    await expectIds(
      'orders',
      [{ member: 'orders.status', operator: 'notEndsWith', values: ['ING'] }],
      "(lower(status) NOT LIKE '%ing' OR status IS NULL)",
    );
  });
});

describe('comparisons, set, nesting', () => {
  it('gt, gte, lt, lte on numbers', async () => {
    await expectIds('orders', [{ member: 'orders.amount', operator: 'gt', values: ['100'] }], 'amount > 100');
    await expectIds('orders', [{ member: 'orders.amount', operator: 'gte', values: [100] }], 'amount >= 100');
    await expectIds(
      'orders',
      [{ member: 'orders.amount', operator: 'lt', values: ['59.5'] }],
      'amount < 59.5',
    );
    await expectIds('orders', [{ member: 'orders.amount', operator: 'lte', values: ['60'] }], 'amount <= 60');
  });

  it('set and notSet', async () => {
    await expectIds('orders', [{ member: 'orders.status', operator: 'set' }], 'status IS NOT NULL');
    await expectIds(
      'orders',
      [{ member: 'orders.amount', operator: 'notSet', values: [] }],
      'amount IS NULL',
    );
  });

  it('nested and/or, and the legacy `dimension` key', async () => {
    await expectIds(
      'orders',
      [
        {
          or: [
            {
              and: [
                { dimension: 'orders.status', operator: 'equals', values: ['completed'] },
                { member: 'orders.amount', operator: 'gte', values: ['200'] },
              ],
            },
            { member: 'orders.status', operator: 'notSet' },
          ],
        },
        { member: 'orders.user_id', operator: 'notEquals', values: ['4'] },
      ],
      "((status = 'completed' AND amount >= 200) OR status IS NULL) AND (user_id <> 4 OR user_id IS NULL)",
    );
  });
});

describe('date filters, in the query time zone', () => {
  const newYork = 'America/New_York';
  it('inDateRange and notInDateRange: whole local days', async () => {
    await expectIds(
      'orders',
      [{ member: 'orders.created_at', operator: 'inDateRange', values: ['2024-03-10', '2024-03-10'] }],
      {
        postgres:
          "created_at >= '2024-03-10 00:00'::timestamp AT TIME ZONE 'America/New_York' AND created_at < '2024-03-11 00:00'::timestamp AT TIME ZONE 'America/New_York'",
        // Written by hand: 2024-03-10 in New York runs from 05:00Z to 04:00Z the next day (23 hours).
        sqlite:
          "datetime(created_at) >= '2024-03-10 05:00:00' AND datetime(created_at) < '2024-03-11 04:00:00'",
      },
      newYork,
    );
    await expectIds(
      'orders',
      [{ member: 'orders.created_at', operator: 'notInDateRange', values: ['2024-01-01', '2024-06-30'] }],
      "(created_at < '2024-01-01 00:00:00Z' OR created_at >= '2024-07-01 00:00:00Z')",
    );
  });

  it("the single-date operators compare with the date's local midnight, as Cube's compiler does", async () => {
    // 2024-11-03 in New York starts at 04:00Z; orders 10, 11 and 12 fall later that day, and
    // order 13 is exactly the next local midnight (2024-11-04 00:00 EST = 05:00Z).
    const day = (date: string) => `'${date} 00:00'::timestamp AT TIME ZONE 'America/New_York'`;
    const cases = [
      ['beforeDate', '2024-11-03', `created_at < ${day('2024-11-03')}`, "< '2024-11-03 04:00:00'"],
      ['beforeOrOnDate', '2024-11-03', `created_at <= ${day('2024-11-03')}`, "<= '2024-11-03 04:00:00'"],
      ['afterDate', '2024-11-03', `created_at > ${day('2024-11-03')}`, "> '2024-11-03 04:00:00'"],
      ['afterOrOnDate', '2024-11-03', `created_at >= ${day('2024-11-03')}`, ">= '2024-11-03 04:00:00'"],
      // On the tie: the row at the start instant is kept by the inclusive operators only.
      ['beforeDate', '2024-11-04', `created_at < ${day('2024-11-04')}`, "< '2024-11-04 05:00:00'"],
      ['beforeOrOnDate', '2024-11-04', `created_at <= ${day('2024-11-04')}`, "<= '2024-11-04 05:00:00'"],
      ['afterDate', '2024-11-04', `created_at > ${day('2024-11-04')}`, "> '2024-11-04 05:00:00'"],
      ['afterOrOnDate', '2024-11-04', `created_at >= ${day('2024-11-04')}`, ">= '2024-11-04 05:00:00'"],
    ] as const;
    for (const [operator, value, postgres, sqlite] of cases) {
      await expectIds(
        'orders',
        [{ member: 'orders.created_at', operator, values: [value] }],
        { postgres, sqlite: `datetime(created_at) ${sqlite}` },
        newYork,
      );
    }
    // A value with a time keeps it: local 2024-11-03 01:30 (EDT) is order 10's instant.
    await expectIds(
      'orders',
      [{ member: 'orders.created_at', operator: 'afterDate', values: ['2024-11-03T01:30:00'] }],
      {
        postgres: "created_at > '2024-11-03 05:30:00Z'",
        sqlite: "datetime(created_at) > '2024-11-03 05:30:00'",
      },
      newYork,
    );
    await expectIds(
      'orders',
      [{ member: 'orders.created_at', operator: 'beforeOrOnDate', values: ['2024-11-03T01:30:00'] }],
      {
        postgres: "created_at <= '2024-11-03 05:30:00Z'",
        sqlite: "datetime(created_at) <= '2024-11-03 05:30:00'",
      },
      newYork,
    );
    // A timestamp with an offset is the instant itself: 2024-01-31T23:59:59Z is not before itself.
    await expectIds(
      'orders',
      [{ member: 'orders.created_at', operator: 'beforeDate', values: ['2024-01-31T23:59:59Z'] }],
      "created_at < '2024-01-31 23:59:59Z'",
    );
  });

  it('gt and lt on a time dimension read a local timestamp', async () => {
    await expectIds(
      'orders',
      [
        { member: 'orders.created_at', operator: 'gte', values: ['2024-03-10T03:30:00'] },
        { member: 'orders.created_at', operator: 'lt', values: ['2024-03-11'] },
      ],
      { postgres: "created_at >= '2024-03-10 07:30:00Z' AND created_at < '2024-03-11 04:00:00Z'" },
      newYork,
    );
  });
});

describe('caller values are parameters', () => {
  it('a value shaped like SQL never reaches the SQL text', async () => {
    const evil = "x'); DROP TABLE t; --";
    for (const dialect of ['postgres', 'sqlite'] as const) {
      const { compiled, data } = await load(shop, dialect, {
        dimensions: ['users.name'],
        measures: ['users.count'],
        filters: [
          { member: 'users.name', operator: 'equals', values: [evil, `${evil}2`] },
          { member: 'users.name', operator: 'notContains', values: [evil] },
          { member: 'users.city', operator: 'notEquals', values: [evil] },
          { member: 'users.name', operator: 'lt', values: [evil] },
        ],
        timezone: 'America/New_York',
      });
      expect(compiled.sql).not.toContain('DROP TABLE');
      expect(compiled.sql).not.toContain("x')");
      expect(JSON.stringify(compiled.params)).toContain('DROP TABLE');
      expect(data).toEqual([]);
    }
  });
});
