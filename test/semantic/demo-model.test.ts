// The demo model (scripts/demo-data.mjs) is what `npm run seed` and the benchmark deploy: it
// must compile, on both stores' table prefixes.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations.
import { demoModel } from '../../scripts/demo-data.mjs';
import { compileModel } from '../../src/semantic/model/compile';

describe('the demo model', () => {
  for (const prefix of ['', 'shop.']) {
    it(`compiles with table prefix "${prefix}"`, () => {
      const result = compileModel([{ path: 'model/cubes/shop.yml', content: demoModel(prefix) }]);
      if (!result.ok) expect.fail(JSON.stringify(result.errors));
      expect(Object.keys(result.model.cubes).sort()).toEqual([
        'customers',
        'order_items',
        'orders',
        'products',
      ]);
      expect(result.model.cubes.orders?.sqlTable).toBe(`${prefix}orders`);
    });
  }
});
