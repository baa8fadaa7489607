import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectMatches, load, openShop, type Shop } from './dataset';

let shop: Shop;
beforeAll(async () => {
  shop = await openShop();
});
afterAll(async () => {
  await shop.close();
});

describe('measures', () => {
  it('count, sum, avg, min, max, count_distinct and count_distinct_approx by a dimension', async () => {
    const answers = await expectMatches(
      shop,
      {
        dimensions: ['orders.status'],
        measures: [
          'orders.count',
          'orders.total_amount',
          'orders.avg_amount',
          'orders.min_amount',
          'orders.max_amount',
          'orders.distinct_users',
          'orders.distinct_users_approx',
        ],
        order: { 'orders.status': 'asc' },
      },
      `SELECT status AS "orders.status", count(*) AS "orders.count", sum(amount) AS "orders.total_amount",
         avg(amount) AS "orders.avg_amount", min(amount) AS "orders.min_amount", max(amount) AS "orders.max_amount",
         count(DISTINCT user_id) AS "orders.distinct_users", count(DISTINCT user_id) AS "orders.distinct_users_approx"
       FROM {orders} GROUP BY status ORDER BY status ASC NULLS LAST`,
    );
    // Integer results read the same from both databases.
    const completed = (rows: Record<string, unknown>[]) =>
      rows.find((row) => row['orders.status'] === 'completed');
    expect(completed(answers.postgres)?.['orders.count']).toBe('14');
    expect(completed(answers.sqlite)?.['orders.count']).toBe('14');
    expect(completed(answers.sqlite)?.['orders.total_amount']).toBe(
      completed(answers.postgres)?.['orders.total_amount'],
    );
  });
});

describe('fan-out: measures of a cube repeated by a join are not double counted', () => {
  it('sums and counts of orders beside a count of their line items (one to many, declared on orders)', async () => {
    const answers = await expectMatches(
      shop,
      { measures: ['orders.count', 'orders.total_amount', 'orders.avg_amount', 'line_items.count'] },
      `SELECT (SELECT count(*) FROM {orders}) AS "orders.count", (SELECT sum(amount) FROM {orders}) AS "orders.total_amount",
         (SELECT avg(amount) FROM {orders}) AS "orders.avg_amount", (SELECT count(*) FROM {line_items}) AS "line_items.count"`,
    );
    for (const rows of Object.values(answers)) {
      expect(rows).toHaveLength(1);
      expect(rows[0]?.['orders.count']).toBe('25');
      expect(rows[0]?.['orders.total_amount']).toBe('2692');
      expect(rows[0]?.['line_items.count']).toBe('15');
    }
  });

  it('sums, averages and counts of orders by a dimension of the many side (products, through line items)', async () => {
    await expectMatches(
      shop,
      {
        measures: ['orders.total_amount', 'orders.avg_amount', 'orders.count', 'line_items.total_quantity'],
        dimensions: ['products.name'],
        order: [['products.name', 'asc']],
      },
      `SELECT p.name AS "products.name",
         (SELECT sum(o.amount) FROM {orders} o WHERE EXISTS (SELECT 1 FROM {line_items} l2 LEFT JOIN {products} p2 ON l2.product_id = p2.id
            WHERE l2.order_id = o.id AND (p2.name = p.name OR (p2.name IS NULL AND p.name IS NULL)))
            OR (p.name IS NULL AND NOT EXISTS (SELECT 1 FROM {line_items} l3 WHERE l3.order_id = o.id))) AS "orders.total_amount",
         (SELECT avg(o.amount) FROM {orders} o WHERE EXISTS (SELECT 1 FROM {line_items} l2 LEFT JOIN {products} p2 ON l2.product_id = p2.id
            WHERE l2.order_id = o.id AND (p2.name = p.name OR (p2.name IS NULL AND p.name IS NULL)))
            OR (p.name IS NULL AND NOT EXISTS (SELECT 1 FROM {line_items} l3 WHERE l3.order_id = o.id))) AS "orders.avg_amount",
         (SELECT count(*) FROM {orders} o WHERE EXISTS (SELECT 1 FROM {line_items} l2 LEFT JOIN {products} p2 ON l2.product_id = p2.id
            WHERE l2.order_id = o.id AND (p2.name = p.name OR (p2.name IS NULL AND p.name IS NULL)))
            OR (p.name IS NULL AND NOT EXISTS (SELECT 1 FROM {line_items} l3 WHERE l3.order_id = o.id))) AS "orders.count",
         sum(li.quantity) AS "line_items.total_quantity"
       FROM {orders} o0 LEFT JOIN {line_items} li ON li.order_id = o0.id LEFT JOIN {products} p ON li.product_id = p.id
       GROUP BY p.name ORDER BY p.name ASC NULLS LAST`,
    );
  });

  it('the one side joined from the many side (many to one walked back): orders from line items by product', async () => {
    await expectMatches(
      shop,
      {
        measures: ['line_items.total_quantity', 'orders.total_amount', 'line_items.revenue_share'],
        dimensions: ['products.category'],
        order: [['products.category', 'asc']],
      },
      `SELECT p.category AS "products.category", sum(li.quantity) AS "line_items.total_quantity",
         (SELECT sum(o.amount) FROM {orders} o WHERE EXISTS (SELECT 1 FROM {line_items} l2 LEFT JOIN {products} p2 ON l2.product_id = p2.id
            WHERE l2.order_id = o.id AND (p2.category = p.category OR (p2.category IS NULL AND p.category IS NULL)))) AS "orders.total_amount",
         1.0 * sum(li.quantity * li.price) / NULLIF((SELECT sum(o.amount) FROM {orders} o WHERE EXISTS (SELECT 1 FROM {line_items} l2
            LEFT JOIN {products} p2 ON l2.product_id = p2.id
            WHERE l2.order_id = o.id AND (p2.category = p.category OR (p2.category IS NULL AND p.category IS NULL)))), 0) AS "line_items.revenue_share"
       FROM {line_items} li LEFT JOIN {products} p ON li.product_id = p.id
       GROUP BY p.category ORDER BY p.category ASC NULLS LAST`,
    );
  });

  it('a count of users by order status counts each user once per status', async () => {
    await expectMatches(
      shop,
      {
        measures: ['users.count', 'orders.count'],
        dimensions: ['orders.status'],
        order: { 'orders.status': 'asc' },
      },
      `SELECT o.status AS "orders.status", count(DISTINCT u.id) AS "users.count", count(*) AS "orders.count"
       FROM {orders} o LEFT JOIN {users} u ON o.user_id = u.id GROUP BY o.status ORDER BY o.status ASC NULLS LAST`,
    );
  });

  it('filters on the many side narrow the one side to the rows that match, each counted once', async () => {
    await expectMatches(
      shop,
      {
        measures: ['orders.total_amount', 'orders.count'],
        dimensions: ['users.name'],
        filters: [{ member: 'line_items.quantity', operator: 'gte', values: ['2'] }],
        order: { 'users.name': 'asc' },
      },
      `SELECT u.name AS "users.name", sum(o.amount) AS "orders.total_amount", count(*) AS "orders.count"
       FROM {orders} o LEFT JOIN {users} u ON o.user_id = u.id
       WHERE EXISTS (SELECT 1 FROM {line_items} li WHERE li.order_id = o.id AND li.quantity >= 2)
       GROUP BY u.name ORDER BY u.name ASC NULLS LAST`,
    );
  });
});

describe('number measures, measure filters, measures filtered after aggregation', () => {
  it('a number measure from other measures, and measures with filters', async () => {
    await expectMatches(
      shop,
      {
        measures: ['orders.amount_per_order', 'orders.completed_count', 'orders.completed_amount'],
        dimensions: ['users.city'],
        order: { 'users.city': 'asc' },
      },
      `SELECT u.city AS "users.city", 1.0 * sum(o.amount) / NULLIF(count(*), 0) AS "orders.amount_per_order",
         count(CASE WHEN o.status = 'completed' THEN 1 END) AS "orders.completed_count",
         sum(CASE WHEN o.status = 'completed' THEN o.amount END) AS "orders.completed_amount"
       FROM {orders} o LEFT JOIN {users} u ON o.user_id = u.id GROUP BY u.city ORDER BY u.city ASC NULLS LAST`,
    );
  });

  it('filters on measures apply after aggregation, also on a measure not selected', async () => {
    await expectMatches(
      shop,
      {
        measures: ['orders.count'],
        dimensions: ['users.name'],
        filters: [
          { member: 'orders.count', operator: 'gte', values: ['4'] },
          { member: 'orders.total_amount', operator: 'lt', values: [1000] },
        ],
        order: { 'users.name': 'asc' },
      },
      `SELECT u.name AS "users.name", count(*) AS "orders.count"
       FROM {orders} o LEFT JOIN {users} u ON o.user_id = u.id GROUP BY u.name
       HAVING count(*) >= 4 AND sum(o.amount) < 1000 ORDER BY u.name ASC NULLS LAST`,
    );
  });

  it('a measure filter with a decimal value against an integer count', async () => {
    await expectMatches(
      shop,
      {
        measures: ['orders.count'],
        dimensions: ['orders.status'],
        filters: [{ member: 'orders.count', operator: 'gt', values: ['4.5'] }],
        order: { 'orders.status': 'asc' },
      },
      `SELECT status AS "orders.status", count(*) AS "orders.count" FROM {orders} GROUP BY status HAVING count(*) > 4.5 ORDER BY status ASC NULLS LAST`,
    );
  });
});

describe("Cube's computed measures: number, string, time and boolean, their SQL the whole aggregate", () => {
  it('aggregate columns and dimensions in their own SQL, beside the measures they read', async () => {
    await expectMatches(
      shop,
      {
        measures: [
          'orders.raw_total',
          'orders.net_amount',
          'orders.first_status',
          'orders.all_big',
          'orders.last_created',
        ],
        dimensions: ['orders.user_id'],
        order: { 'orders.user_id': 'asc' },
      },
      {
        // Both stores against PostgreSQL's rows: SQLite's own would give 0/1 for the boolean.
        postgres: `SELECT user_id AS "orders.user_id", sum(amount) AS "orders.raw_total",
           sum(amount) - count(*) AS "orders.net_amount", min(status) AS "orders.first_status",
           min(CASE WHEN amount > 100 THEN 1 ELSE 0 END) = 1 AS "orders.all_big",
           to_char(max(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS "orders.last_created"
         FROM {orders} GROUP BY user_id ORDER BY user_id ASC NULLS LAST`,
      },
    );
  });

  it('a computed measure of a cube the joins multiply reads its rows once each', async () => {
    const answers = await expectMatches(
      shop,
      { measures: ['orders.raw_total', 'orders.net_amount', 'line_items.count'] },
      `SELECT (SELECT sum(amount) FROM {orders}) AS "orders.raw_total",
         (SELECT sum(amount) - count(*) FROM {orders}) AS "orders.net_amount",
         (SELECT count(*) FROM {line_items}) AS "line_items.count"`,
    );
    for (const rows of Object.values(answers)) expect(rows[0]?.['orders.raw_total']).toBe('2692');
  });

  it('filters on computed measures apply after aggregation, a time measure with date operators', async () => {
    await expectMatches(
      shop,
      {
        measures: ['orders.count'],
        dimensions: ['orders.status'],
        filters: [
          { member: 'orders.raw_total', operator: 'gt', values: ['200'] },
          { member: 'orders.last_created', operator: 'afterDate', values: ['2024-06-01'] },
        ],
        order: { 'orders.status': 'asc' },
      },
      `SELECT status AS "orders.status", count(*) AS "orders.count" FROM {orders} GROUP BY status
       HAVING sum(amount) > 200 AND max(created_at) > '2024-06-01T00:00:00Z' ORDER BY status ASC NULLS LAST`,
    );
  });

  it('an ungrouped query refuses a measure that aggregates its own SQL, by name', async () => {
    for (const dialect of ['postgres', 'sqlite'] as const) {
      await expect(
        load(shop, dialect, { measures: ['orders.raw_total'], dimensions: ['orders.id'], ungrouped: true }),
      ).rejects.toThrow(
        'Measure orders.raw_total aggregates its own SQL, which an ungrouped query cannot read',
      );
    }
  });
});

describe('segments, views, extra filters, ungrouped', () => {
  it('segments are row conditions', async () => {
    await expectMatches(
      shop,
      { measures: ['orders.count', 'orders.total_amount'], segments: ['orders.completed', 'orders.big'] },
      `SELECT count(*) AS "orders.count", sum(amount) AS "orders.total_amount" FROM {orders} WHERE status = 'completed' AND amount >= 100`,
    );
  });

  it('a view answers under its own member names, joined along its join paths', async () => {
    await expectMatches(
      shop,
      {
        measures: ['customer_orders.total_amount', 'customer_orders.customer_count'],
        dimensions: ['customer_orders.customer_name'],
        segments: ['customer_orders.completed'],
        order: { 'customer_orders.customer_name': 'asc' },
      },
      `SELECT u.name AS "customer_orders.customer_name", sum(o.amount) AS "customer_orders.total_amount",
         count(DISTINCT u.id) AS "customer_orders.customer_count"
       FROM {orders} o LEFT JOIN {users} u ON o.user_id = u.id WHERE o.status = 'completed'
       GROUP BY u.name ORDER BY u.name ASC NULLS LAST`,
    );
  });

  it('extra (row-level) filters are ANDed in and join the cubes they name', async () => {
    const city = { name: 'users.city', target: 'users.city' };
    await expectMatches(
      shop,
      {
        measures: ['orders.count', 'orders.total_amount'],
        dimensions: ['orders.status'],
        order: { 'orders.status': 'asc' },
      },
      `SELECT o.status AS "orders.status", count(*) AS "orders.count", sum(o.amount) AS "orders.total_amount"
       FROM {orders} o LEFT JOIN {users} u ON o.user_id = u.id WHERE u.city IN ('New York', 'Paris')
       GROUP BY o.status ORDER BY o.status ASC NULLS LAST`,
      { extraFilters: [{ member: city, operator: 'equals', values: ['New York', 'Paris'] }] },
    );
  });

  it('ungrouped queries answer one row per joined row', async () => {
    await expectMatches(
      shop,
      {
        dimensions: ['orders.id', 'orders.status'],
        measures: ['orders.total_amount', 'orders.count'],
        ungrouped: true,
        filters: [{ member: 'orders.id', operator: 'lte', values: ['6'] }],
        order: { 'orders.id': 'asc' },
      },
      `SELECT id AS "orders.id", status AS "orders.status", amount AS "orders.total_amount", 1 AS "orders.count"
       FROM {orders} WHERE id <= 6 ORDER BY id`,
    );
  });

  it('dimensions only: the distinct combinations', async () => {
    await expectMatches(
      shop,
      { dimensions: ['users.city'], order: { 'users.city': 'desc' } },
      'SELECT DISTINCT city AS "users.city" FROM {users} ORDER BY city DESC NULLS FIRST',
    );
  });

  it('a cube defined by SQL, a boolean dimension and a dimension built from another', async () => {
    const answers = await expectMatches(
      shop,
      {
        dimensions: ['orders.is_big', 'orders.status_label'],
        measures: ['orders.count'],
        order: [
          ['orders.status_label', 'asc'],
          ['orders.is_big', 'asc'],
        ],
      },
      {
        postgres: `SELECT amount > 100 AS "orders.is_big", upper(status) || '!' AS "orders.status_label", count(*) AS "orders.count"
          FROM {orders} GROUP BY 1, 2 ORDER BY 2 ASC NULLS LAST, 1 ASC NULLS LAST`,
      },
    );
    expect(answers.sqlite.some((row) => row['orders.is_big'] === true)).toBe(true);
    await expectMatches(
      shop,
      {
        dimensions: ['products.category'],
        measures: ['products.count'],
        order: { 'products.category': 'asc' },
      },
      'SELECT category AS "products.category", count(*) AS "products.count" FROM {products} GROUP BY category ORDER BY category ASC NULLS LAST',
    );
  });
});
