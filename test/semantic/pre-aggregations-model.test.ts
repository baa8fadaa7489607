// Cube's `pre_aggregations` in the model compiler: what compiles, and what fails the build by
// name, each error positioned at file, line and column.
import { describe, expect, it } from 'vitest';
import { compileModel } from '../../src/semantic/model/compile';
import type { CompiledModel, ModelError } from '../../src/semantic/model/model.types';
import { MAX_PRE_AGGREGATIONS_PER_CUBE, MAX_ROLLUP_MEMBERS } from '../../src/semantic/model/pre-aggregations';

const BASE = `cubes:
  - name: users
    sql_table: public.users
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: country
        sql: country
        type: string
  - name: products
    sql_table: public.products
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
  - name: orders
    sql_table: public.orders
    joins:
      - name: users
        relationship: many_to_one
        sql: "{CUBE}.user_id = {users.id}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: created_at
        sql: created_at
        type: time
    measures:
      - name: count
        type: count
      - name: total
        sql: amount
        type: sum
    segments:
      - name: completed
        sql: "{CUBE}.status = 'completed'"
    pre_aggregations:
`;
/** Line of the first line of `entry` (the `pre_aggregations:` list starts after BASE). */
const FIRST = BASE.split('\n').length;

const compile = (entries: string) => compileModel([{ path: 'model/shop.yml', content: BASE + entries }]);

function compiled(entries: string): CompiledModel {
  const result = compile(entries);
  if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 2));
  return result.model;
}

function errorsOf(entries: string): ModelError[] {
  const result = compile(entries);
  if (result.ok) throw new Error('expected the build to fail');
  return result.errors;
}

/** The build fails with one error containing `text`, at line `offset` of the entries (0: the first). */
function expectOneError(entries: string, text: string, offset: number, column?: number) {
  const errors = errorsOf(entries);
  expect(errors, JSON.stringify(errors, null, 2)).toHaveLength(1);
  expect(errors[0]?.message).toContain(text);
  expect(errors[0]?.file).toBe('model/shop.yml');
  expect(errors[0]?.line).toBe(FIRST + offset);
  if (column !== undefined) expect(errors[0]?.column).toBe(column);
}

describe('pre_aggregations compile', () => {
  it('a rollup with every supported key', () => {
    const model = compiled(`      - name: main
        type: rollup
        measures: [count, CUBE.total]
        dimensions: [status, users.country]
        segments: [completed]
        time_dimension: orders.created_at
        granularity: day
        partition_granularity: month
        build_range_start:
          sql: SELECT min(created_at) FROM public.orders
        build_range_end:
          sql: SELECT now()
        refresh_key:
          every: 1 hour
          sql: SELECT max(updated_at) FROM public.orders
          incremental: true
          update_window: 7 days
        scheduled_refresh: false
        allow_non_strict_date_range_match: true
        indexes:
          - name: by_status
            columns: [status, created_at]
      - name: plain
        dimensions: [status]
`);
    const [main, plain] = model.cubes.orders?.preAggregations ?? [];
    expect(main).toEqual({
      name: 'main',
      cube: 'orders',
      type: 'rollup',
      measures: ['orders.count', 'orders.total'],
      dimensions: ['orders.status', 'users.country'],
      segments: ['orders.completed'],
      timeDimension: 'orders.created_at',
      granularity: 'day',
      partitionGranularity: 'month',
      buildRangeStart: 'SELECT min(created_at) FROM public.orders',
      buildRangeEnd: 'SELECT now()',
      refreshKey: {
        every: 3600,
        sql: 'SELECT max(updated_at) FROM public.orders',
        incremental: true,
        updateWindow: 7 * 86_400,
      },
      scheduledRefresh: false,
      allowNonStrictDateRangeMatch: true,
      indexes: [{ name: 'by_status', columns: ['orders.status', 'orders.created_at'] }],
      position: { file: 'model/shop.yml', line: FIRST, column: 9 },
    });
    // Cube's defaults: type rollup, scheduled refresh on, strict date ranges, no refresh key.
    expect(plain).toMatchObject({
      type: 'rollup',
      dimensions: ['orders.status'],
      scheduledRefresh: true,
      allowNonStrictDateRangeMatch: false,
      refreshKey: { incremental: false },
      indexes: [],
    });
    expect(model.cubes.users?.preAggregations).toBeUndefined();
  });

  it('original_sql, in both spellings', () => {
    const model = compiled(`      - name: copy
        type: original_sql
        time_dimension: created_at
        partition_granularity: month
        refresh_key:
          every: 1 day
      - name: copy2
        type: originalSql
`);
    expect(
      model.cubes.orders?.preAggregations?.map((pre) => [pre.name, pre.type, pre.partitionGranularity]),
    ).toEqual([
      ['copy', 'original_sql', 'month'],
      ['copy2', 'original_sql', undefined],
    ]);
    // Each stores every measure and dimension of the cube, its time_dimension to the second.
    const [copy, copy2] = model.cubes.orders?.preAggregations ?? [];
    expect(copy?.measures).toEqual(Object.keys(model.cubes.orders?.measures ?? {}).map((m) => `orders.${m}`));
    expect(copy?.dimensions).toContain('orders.status');
    expect(copy?.dimensions).not.toContain('orders.created_at');
    expect([copy?.timeDimension, copy?.granularity, copy2?.timeDimension]).toEqual([
      'orders.created_at',
      'second',
      undefined,
    ]);
  });
});

describe('pre_aggregations that fail the build, by name', () => {
  it("Cube's other types and keys", () => {
    expectOneError(
      '      - name: j\n        type: rollup_join\n',
      'type rollup_join is not supported',
      1,
      15,
    );
    expectOneError('      - name: l\n        type: rollupLambda\n', 'type rollupLambda is not supported', 1);
    expectOneError('      - name: a\n        type: auto_rollup\n', 'type auto_rollup is not supported', 1);
    expectOneError('      - name: x\n        type: cube_store\n', 'unknown type "cube_store"', 1);
    for (const key of [
      'external: true',
      'use_original_sql_pre_aggregations: true',
      'union_with_source_data: true',
      'time_dimensions: []',
      'rollups: []',
      'sql_alias: x',
    ]) {
      const name = key.slice(0, key.indexOf(':'));
      expectOneError(
        `      - name: main\n        measures: [count]\n        ${key}\n`,
        `cube "orders": pre-aggregation "main": ${name} is not supported`,
        2,
        9,
      );
    }
    expectOneError(
      '      - name: main\n        measures: [count]\n        colour: red\n',
      'unknown key "colour"',
      2,
    );
    expectOneError(
      '      - name: main\n        type: original_sql\n        measures: [count]\n',
      'measures is not supported',
      2,
    );
    expectOneError(
      '      - name: main\n        dimensions: [status]\n        indexes:\n          - name: i\n            columns: [status]\n            type: aggregate\n',
      'type is not supported',
      5,
    );
  });

  it('member references that name nothing the cube may use', () => {
    expectOneError(
      '      - name: main\n        measures: [nothing]\n',
      'measure "nothing": cube "orders" has no member "nothing"',
      1,
      20,
    );
    expectOneError(
      '      - name: main\n        measures: [status]\n',
      'orders.status is a dimension, not a measure',
      1,
    );
    expectOneError(
      '      - name: main\n        dimensions: [count]\n',
      'orders.count is a measure, not a dimension',
      1,
    );
    expectOneError('      - name: main\n        segments: [status]\n', 'is a dimension, not a segment', 1);
    expectOneError(
      '      - name: main\n        dimensions: [products.id]\n',
      'cube "products" is not joined to cube "orders"',
      1,
    );
    expectOneError(
      '      - name: main\n        dimensions: [orders.users.country]\n',
      'join paths (cube.cube.member) are not supported',
      1,
    );
    expectOneError(
      '      - name: main\n        dimensions: [status, status]\n',
      'orders.status is listed twice in dimensions',
      1,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        time_dimension: status\n        granularity: day\n',
      'time_dimension orders.status is not a time dimension',
      2,
    );
    expectOneError(
      '      - name: main\n        dimensions: [status]\n        indexes:\n          - name: i\n            columns: [users.country]\n',
      'is not a dimension or the time_dimension of the rollup',
      4,
    );
  });

  it('a string, time or boolean measure in a rollup fails the build; original_sql leaves them out', () => {
    const model = (entry: string) =>
      compileModel([
        {
          path: 'model/shop.yml',
          content: BASE.replace(
            '    segments:\n',
            '      - name: last_order\n        sql: "MAX(created_at)"\n        type: time\n    segments:\n',
          ).concat(entry),
        },
      ]);
    const refused = model('      - name: main\n        measures: [count, last_order]\n');
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.errors).toHaveLength(1);
    expect(refused.errors[0]?.message).toContain(
      'orders.last_order is a time measure; a rollup stores numbers only, and a query with it reads the source',
    );
    expect(refused.errors[0]?.line).toBe(FIRST + 4);
    const kept = model('      - name: rows\n        type: original_sql\n');
    expect(kept.ok, JSON.stringify(kept)).toBe(true);
    if (!kept.ok) return;
    const [pre] = kept.model.cubes.orders?.preAggregations ?? [];
    expect(pre?.measures).toEqual(['orders.count', 'orders.total']);
  });

  it('hostile text: SQL in names, another table, templates', () => {
    expectOneError(
      '      - name: "main; DROP TABLE orders"\n        measures: [count]\n',
      'must start with a letter or _ and hold only letters, digits and _',
      0,
    );
    expectOneError(
      '      - name: main\n        measures: ["count) FROM other_deployment.orders --"]\n',
      'not a member reference',
      1,
    );
    expectOneError(
      '      - name: main\n        dimensions: [prod_pre_aggregations.orders_main]\n',
      'no cube is named "prod_pre_aggregations"',
      1,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        sql_table: other_deployment.orders\n',
      'unknown key "sql_table"',
      2,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        time_dimension: created_at\n        granularity: day\n        build_range_start:\n          sql: "SELECT {SECURITY_CONTEXT.x}"\n        build_range_end:\n          sql: SELECT now()\n',
      'references ({…}) and templates are not supported here',
      5,
    );
  });

  it('the combinations Cube refuses, and bounds', () => {
    expectOneError(
      '      - name: main\n        measures: [count]\n        time_dimension: created_at\n',
      'granularity is required',
      0,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        granularity: day\n',
      'granularity needs a time_dimension',
      2,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        time_dimension: created_at\n        granularity: month\n        partition_granularity: day\n',
      'partition_granularity day is finer than the rollup',
      4,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        time_dimension: created_at\n        granularity: fortnight\n',
      'unknown granularity "fortnight"',
      3,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        refresh_key:\n          every: soon\n',
      '"soon" is not an interval',
      3,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        refresh_key:\n          update_window: 1 day\n',
      'update_window needs incremental: true',
      3,
    );
    expectOneError(
      '      - name: main\n        measures: [count]\n        refresh_key:\n          incremental: true\n',
      'refresh_key.incremental needs a partition_granularity',
      3,
    );
    expectOneError('      - name: main\n        type: rollup\n', 'a rollup needs at least one measure', 0);
    expectOneError(
      '      - name: main\n        measures: [count]\n      - name: main\n        measures: [total]\n',
      'already has a pre-aggregation named "main"',
      2,
    );
    const many = Array.from(
      { length: MAX_PRE_AGGREGATIONS_PER_CUBE + 1 },
      (_, index) => `      - name: p${index}\n        measures: [count]\n`,
    ).join('');
    expectOneError(
      many,
      `at most ${MAX_PRE_AGGREGATIONS_PER_CUBE} are allowed`,
      2 * MAX_PRE_AGGREGATIONS_PER_CUBE,
    );
  });

  it('an original_sql pre-aggregation of a cube with more members than a rollup may store', () => {
    const dimensions = Array.from(
      { length: MAX_ROLLUP_MEMBERS },
      (_, index) => `      - name: d${index}\n        sql: d${index}\n        type: string\n`,
    ).join('');
    const content = `cubes:
  - name: wide
    sql: SELECT * FROM public.wide
    measures:
      - name: count
        type: count
    dimensions:
${dimensions}    pre_aggregations:
      - name: copy
        type: original_sql
`;
    const result = compileModel([{ path: 'model/wide.yml', content }]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: `cube "wide": pre-aggregation "copy": an original_sql pre-aggregation stores every measure and dimension of its cube, and cube "wide" has ${MAX_ROLLUP_MEMBERS + 1}; at most ${MAX_ROLLUP_MEMBERS} are allowed`,
        line: 3 * MAX_ROLLUP_MEMBERS + 9,
      }),
    ]);
  });

  it('two pre-aggregations Cube would store in one table', () => {
    const content = `${BASE}      - name: by_day
        measures: [count]
  - name: orders_by
    sql_table: public.orders
    pre_aggregations:
      - name: day
        dimensions: [id]
    dimensions:
      - name: id
        sql: id
        type: number
`;
    const result = compileModel([{ path: 'model/shop.yml', content }]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((error) => error.message)).toEqual([
      'cube "orders_by": pre-aggregation "day": its table name prod_pre_aggregations.orders_by_day is already the table of pre-aggregation orders.by_day',
    ]);
    expect(result.errors[0]?.line).toBe(FIRST + 5);
  });
});
