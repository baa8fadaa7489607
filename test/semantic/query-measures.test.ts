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
  it('count, sum, avg, min, max and count_distinct by a dimension', async () => {
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
        ],
        order: { 'orders.status': 'asc' },
      },
      `SELECT status AS "orders.status", count(*) AS "orders.count", sum(amount) AS "orders.total_amount",
         avg(amount) AS "orders.avg_amount", min(amount) AS "orders.min_amount", max(amount) AS "orders.max_amount",
         count(DISTINCT user_id) AS "orders.distinct_users"
       FROM {orders} GROUP BY status ORDER BY status ASC NULLS LAST`,
    );
    // Integer results read the same from both databases.
    const completed = (rows: Record<string, unknown>[]) => rows.find((row) => row['orders.status'] === 'completed');
    expect(completed(answers.postgres)?.['orders.count']).toBe('14');
    expect(completed(answers.sqlite)?.['orders.count']).toBe('14');
    expect(completed(answers.sqlite)?.['orders.total_amount']).toBe(completed(answers.postgres)?.['orders.total_amount']);
  });
});
