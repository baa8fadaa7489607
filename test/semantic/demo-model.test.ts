import { describe, expect, it } from 'vitest';
import { csvChunks, demoModel, demoTables } from '../../scripts/demo-data.mjs';
import { compileModel } from '../../src/semantic/model/compile';

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
});
