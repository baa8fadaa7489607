import { describe, expect, it } from 'vitest';
import { csvChunks, demoModel, demoReports, demoTables } from '../../scripts/demo-data.mjs';
import { compileModel } from '../../src/semantic/model/compile';
import { normalizeQuery } from '../../src/semantic/query/normalize';
import { matchPreAggregation } from '../../src/semantic/query/pre-aggregations/match';
import type { CubeQuery } from '../../src/semantic/query/query.types';

describe("the seed's demo shop", () => {
  it('compiles, for both stores', () => {
    for (const prefix of ['', 'shop.']) {
      const result = compileModel([{ path: 'model/cubes/shop.yml', content: demoModel(prefix) }]);
      expect(result.ok ? [] : result.errors).toEqual([]);
      if (result.ok)
        expect(Object.keys(result.model.cubes).sort()).toEqual([
          'customers',
          'order_items',
          'orders',
          'products',
        ]);
    }
  });

  it('has over 100,000 rows whose foreign keys point at rows, in import chunks under the body limit', () => {
    const tables = Object.fromEntries(demoTables().map((t) => [t.name, t]));
    const total = Object.values(tables).reduce((n, t) => n + t.rows.length, 0);
    expect(total).toBeGreaterThan(100_000);
    const customers = tables.customers?.rows.length ?? 0;
    expect(tables.orders?.rows.every((r) => Number(r[1]) >= 1 && Number(r[1]) <= customers)).toBe(true);
    for (const table of Object.values(tables)) {
      for (const chunk of csvChunks(table)) {
        expect(new TextEncoder().encode(chunk).length).toBeLessThan(1024 * 1024);
        expect(chunk.startsWith(`${table.columns.join(',')}\n`)).toBe(true);
      }
    }
  });

  it('answers each chart of "Sales overview" from a rollup of its model', () => {
    const result = compileModel([{ path: 'model/cubes/shop.yml', content: demoModel() }]);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const answered = (query: CubeQuery, source: 'sqlite' | 'postgres' = 'sqlite') => {
      const match = matchPreAggregation(
        result.model,
        normalizeQuery(result.model, query, { now: new Date() }),
        [],
        { source },
      );
      return match && `${match.preAggregation.cube}.${match.preAggregation.name}`;
    };
    expect(Object.fromEntries(demoReports().map((r) => [r.key, answered(r.query as CubeQuery)]))).toEqual({
      revenue: 'order_items.by_product',
      orders: 'orders.by_status_country',
      completion: 'orders.by_status_country',
      trend: 'order_items.revenue_by_month',
      status: 'orders.by_status_country',
      categories: 'order_items.by_product',
      countries: 'orders.by_status_country',
      products: 'order_items.by_product',
    });
    // The dashboard's controls: a country, and another grain of the trend.
    const country = [{ member: 'customers.country', operator: 'equals', values: ['France'] }];
    const trend = demoReports().find((r) => r.key === 'trend')?.query as CubeQuery;
    expect(answered({ ...trend, filters: country })).toBe('order_items.revenue_by_month');
    const [range] = trend.timeDimensions ?? [];
    expect(
      answered({
        ...trend,
        timeDimensions: [{ ...range, dimension: 'orders.created_at', granularity: 'week' }],
      }),
    ).toBe('order_items.revenue_by_day');
    const status = demoReports().find((r) => r.key === 'status')?.query as CubeQuery;
    expect(answered({ ...status, filters: country })).toBe('orders.by_status_country');
    // The completion rate (a number measure over two counts) is computed from the counts on the
    // embedded store, under the country filter too; PostgreSQL reads it as stored, unfiltered only.
    const completion = demoReports().find((r) => r.key === 'completion')?.query as CubeQuery;
    expect(answered({ ...completion, filters: country })).toBe('orders.by_status_country');
    expect(answered(completion, 'postgres')).toBe('orders.completion');
    expect(answered({ ...completion, filters: country }, 'postgres')).toBeNull();
    // The benchmark's category-by-month query, through the view: its members are the cubes'.
    expect(
      answered({
        measures: ['sales.revenue'],
        dimensions: ['sales.products_category'],
        timeDimensions: [
          { dimension: 'sales.created_at', granularity: 'month', dateRange: ['2023-01-01', '2025-12-31'] },
        ],
      }),
    ).toBe('order_items.revenue_by_month');
    // By quarter, from months; by day, the daily rollup.
    expect(
      answered({
        ...trend,
        timeDimensions: [{ ...range, dimension: 'orders.created_at', granularity: 'quarter' }],
      }),
    ).toBe('order_items.revenue_by_month');
    expect(
      answered({
        ...trend,
        timeDimensions: [{ ...range, dimension: 'orders.created_at', granularity: 'day' }],
      }),
    ).toBe('order_items.revenue_by_day');
    // Without a date range no partition holds its rows: the source answers it.
    expect(
      answered({
        measures: ['sales.revenue'],
        dimensions: ['sales.products_category'],
        timeDimensions: [{ dimension: 'sales.created_at', granularity: 'month' }],
      }),
    ).toBeNull();
  });
});
