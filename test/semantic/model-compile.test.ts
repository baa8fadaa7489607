// The model compiler: Cube's YAML data model → CompiledModel, or errors with file, line and
// column. Pure code, so the tests call it directly.
import { describe, expect, it } from 'vitest';
import { compileModel } from '../../src/semantic/model/compile';
import { parseDuration } from '../../src/semantic/model/durations';
import { metaOf } from '../../src/semantic/model/meta';
import type { CompiledModel, ModelError, ModelFile } from '../../src/semantic/model/model.types';
import { parseReferences, scanReferences } from '../../src/semantic/model/references';
import { STARTER_MODEL } from '../../src/semantic/model/starter';

const ORDERS = `cubes:
  - name: orders
    sql_table: public.orders
    title: Customer Orders
    refresh_key:
      every: 10 minutes
    joins:
      - name: users
        sql: "{CUBE}.user_id = {users.id}"
        relationship: belongs_to
      - name: line_items
        sql: "{CUBE}.id = {line_items}.order_id"
        relationship: one_to_many
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
        public: false
      - name: status
        sql: "{CUBE}.status"
        type: string
        meta:
          color: blue
      - name: created_at
        sql: created_at
        type: time
      - name: user_city
        sql: "{users.city}"
        type: string
    measures:
      - name: count
        type: count
      - name: total_amount
        sql: amount
        type: sum
        format: currency
        description: Sum of order amounts
      - name: completed_count
        type: count
        filters:
          - sql: "{CUBE}.status = 'completed'"
      - name: completion_rate
        sql: "1.0 * {completed_count} / NULLIF({count}, 0)"
        type: number
        format: percent
    segments:
      - name: completed
        sql: "{status} = 'completed'"
    access_policy:
      - group: "*"
        row_level:
          filters:
            - member: status
              operator: notEquals
              values: [cancelled]
      - groups: [managers, admins]
        row_level:
          allow_all: true
        member_level:
          includes: "*"
          excludes: [total_amount]
`;

const USERS = `cubes:
  - name: users
    sql: SELECT * FROM public.users WHERE deleted_at IS NULL
    shown: false
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: city
        sql: city
        type: string
      - name: name
        sql: "{CUBE}.first_name || ' ' || {CUBE}.last_name"
        type: string
    measures:
      - name: count
        type: count_distinct
        sql: "{id}"
`;

const CATALOG = `cubes:
  - name: line_items
    sql_table: public.line_items
    joins:
      - name: products
        sql: "{CUBE.product_id} = {products.id}"
        relationship: many_to_one
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: product_id
        sql: product_id
        type: number
      - name: quantity
        sql: quantity
        type: number
    measures:
      - name: revenue
        sql: "{quantity} * {products.price}"
        type: sum
  - name: products
    sql_table: public.products
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
        sql: name
        type: string
      - name: price
        sql: price
        type: number
`;

const SALES_VIEW = `views:
  - name: sales
    description: Orders with their customers and products
    cubes:
      - join_path: orders
        includes: [status, created_at, count, total_amount, completed]
      - join_path: orders.users
        prefix: true
        includes:
          - city
          - name: name
            alias: customer_name
            title: Customer
      - join_path: orders.line_items.products
        alias: product
        prefix: true
        includes: "*"
        excludes: [id, price]
    access_policy:
      - group: sales
        row_level:
          filters:
            - or:
                - member: users_city
                  operator: equals
                  values: ["{ securityContext.tenant.city }", "{userAttributes.region}"]
                - member: sales.status
                  operator: set
        member_level:
          includes: [status, count, users_city]
`;

const PROJECT: ModelFile[] = [
  { path: 'edgeboard.json', content: '{"not": "a model"}' },
  { path: 'model/README.md', content: '# notes: not YAML at all: [' },
  { path: 'model/cubes/orders.yml', content: ORDERS },
  { path: 'model/cubes/users.yml', content: USERS },
  { path: 'model/cubes/catalog.yaml', content: CATALOG },
  { path: 'model/views/sales.yml', content: SALES_VIEW },
];

function compiled(files: ModelFile[]): CompiledModel {
  const result = compileModel(files);
  if (!result.ok) throw new Error(`expected the model to compile: ${JSON.stringify(result.errors, null, 2)}`);
  return result.model;
}

function errorsOf(files: ModelFile[]): ModelError[] {
  const result = compileModel(files);
  if (result.ok) throw new Error('expected compile errors');
  return result.errors;
}

/** The errors of one file `model/test.yml`. */
function errorsIn(content: string): ModelError[] {
  return errorsOf([{ path: 'model/test.yml', content }]);
}

/** Asserts exactly one error, whose message holds `text`, at `line` (and `column` when given). */
function expectOneError(content: string, text: string, line: number, column?: number): void {
  const errors = errorsIn(content);
  expect(errors, JSON.stringify(errors, null, 2)).toHaveLength(1);
  const [error] = errors;
  expect(error?.message).toContain(text);
  expect(error?.file).toBe('model/test.yml');
  expect(error?.line).toBe(line);
  if (column !== undefined) expect(error?.column).toBe(column);
}

describe('a realistic model', () => {
  const model = compiled(PROJECT);

  it('reads every cube of every model file and ignores other files', () => {
    expect(Object.keys(model.cubes).sort()).toEqual(['line_items', 'orders', 'products', 'users']);
    expect(Object.keys(model.views)).toEqual(['sales']);
  });

  it('keeps cube settings, defaults and positions', () => {
    const { orders, users, products } = model.cubes;
    expect(orders).toMatchObject({
      name: 'orders',
      title: 'Customer Orders',
      sqlTable: 'public.orders',
      public: true,
      refreshEvery: 600,
      position: { file: 'model/cubes/orders.yml', line: 2, column: 5 },
    });
    expect(orders?.sql).toBeUndefined();
    expect(users).toMatchObject({
      title: 'Users',
      sql: 'SELECT * FROM public.users WHERE deleted_at IS NULL',
      public: false,
    });
    expect(users?.refreshEvery).toBeUndefined();
    expect(products?.position).toEqual({ file: 'model/cubes/catalog.yaml', line: 23, column: 5 });
  });

  it('compiles members with their types, SQL as written, titles and flags', () => {
    const orders = model.cubes.orders;
    expect(orders?.dimensions.id).toEqual({
      name: 'orders.id',
      shortName: 'id',
      title: 'Id',
      public: false,
      type: 'number',
      sql: 'id',
      primaryKey: true,
      position: { file: 'model/cubes/orders.yml', line: 15, column: 9 },
    });
    expect(orders?.dimensions.status?.meta).toEqual({ color: 'blue' });
    expect(orders?.dimensions.user_city?.sql).toBe('{users.city}');
    expect(orders?.measures.total_amount).toMatchObject({
      name: 'orders.total_amount',
      title: 'Total Amount',
      description: 'Sum of order amounts',
      type: 'sum',
      sql: 'amount',
      format: 'currency',
      filters: [],
      position: { line: 34 },
    });
    expect(orders?.measures.count).toMatchObject({ type: 'count', filters: [] });
    expect(orders?.measures.count?.sql).toBeUndefined();
    expect(orders?.measures.completed_count?.filters).toEqual([{ sql: "{CUBE}.status = 'completed'" }]);
    expect(orders?.measures.completion_rate).toMatchObject({
      type: 'number',
      sql: '1.0 * {completed_count} / NULLIF({count}, 0)',
    });
    expect(orders?.segments.completed).toMatchObject({
      name: 'orders.completed',
      sql: "{status} = 'completed'",
    });
    expect(model.cubes.users?.measures.count).toMatchObject({ type: 'count_distinct', sql: '{id}' });
    expect(model.cubes.users?.dimensions.name?.sql).toBe("{CUBE}.first_name || ' ' || {CUBE}.last_name");
  });

  it('normalizes join relationships, Cube legacy names included', () => {
    expect(model.cubes.orders?.joins).toEqual({
      users: {
        cube: 'users',
        relationship: 'many_to_one',
        sql: '{CUBE}.user_id = {users.id}',
        position: { file: 'model/cubes/orders.yml', line: 8, column: 9 },
      },
      line_items: {
        cube: 'line_items',
        relationship: 'one_to_many',
        sql: '{CUBE}.id = {line_items}.order_id',
        position: { file: 'model/cubes/orders.yml', line: 11, column: 9 },
      },
    });
    expect(model.cubes.line_items?.joins.products?.relationship).toBe('many_to_one');
    expect(model.cubes.products?.joins).toEqual({});
  });

  it('compiles access policies with qualified members', () => {
    expect(model.cubes.orders?.accessPolicies).toEqual([
      {
        groups: ['*'],
        rowLevel: {
          filters: [{ member: 'orders.status', operator: 'notEquals', values: [{ literal: 'cancelled' }] }],
        },
        position: { file: 'model/cubes/orders.yml', line: 51, column: 9 },
      },
      {
        groups: ['managers', 'admins'],
        rowLevel: { allowAll: true },
        memberLevel: { includes: '*', excludes: ['orders.total_amount'] },
        position: { file: 'model/cubes/orders.yml', line: 57, column: 9 },
      },
    ]);
    expect(model.cubes.users?.accessPolicies).toEqual([]);
  });

  it('compiles the view: members, targets, join paths, prefixes, aliases and policies', () => {
    const sales = model.views.sales;
    expect(sales).toMatchObject({
      name: 'sales',
      title: 'Sales',
      description: 'Orders with their customers and products',
      public: true,
      position: { file: 'model/views/sales.yml', line: 2, column: 5 },
    });
    expect(
      Object.values(sales?.members ?? {}).map((member) => [
        member.name,
        member.target,
        member.joinPath.join('.'),
        member.kind,
      ]),
    ).toEqual([
      ['sales.status', 'orders.status', 'orders', 'dimension'],
      ['sales.created_at', 'orders.created_at', 'orders', 'dimension'],
      ['sales.count', 'orders.count', 'orders', 'measure'],
      ['sales.total_amount', 'orders.total_amount', 'orders', 'measure'],
      ['sales.completed', 'orders.completed', 'orders', 'segment'],
      ['sales.users_city', 'users.city', 'orders.users', 'dimension'],
      ['sales.customer_name', 'users.name', 'orders.users', 'dimension'],
      ['sales.product_name', 'products.name', 'orders.line_items.products', 'dimension'],
    ]);
    // Keyed by the member's own name within the view, as a cube's members are.
    expect(sales?.members.customer_name?.title).toBe('Customer');
    expect(sales?.members.total_amount).toMatchObject({
      title: 'Total Amount',
      description: 'Sum of order amounts',
    });
    expect(sales?.accessPolicies).toEqual([
      {
        groups: ['sales'],
        rowLevel: {
          filters: [
            {
              or: [
                {
                  member: 'sales.users_city',
                  operator: 'equals',
                  values: [{ securityContext: ['tenant', 'city'] }, { userAttribute: 'region' }],
                },
                { member: 'sales.status', operator: 'set', values: [] },
              ],
            },
          ],
        },
        memberLevel: { includes: ['sales.status', 'sales.count', 'sales.users_city'], excludes: [] },
        position: { file: 'model/views/sales.yml', line: 20, column: 9 },
      },
    ]);
  });

  it('is plain data that survives JSON', () => {
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });

  it('does not depend on the order files come in', () => {
    expect(compiled([...PROJECT].reverse())).toEqual(model);
  });
});

describe('the starter model', () => {
  it('compiles, with a cube that needs no table', () => {
    const model = compiled(STARTER_MODEL);
    const cubes = Object.values(model.cubes);
    expect(cubes).toHaveLength(1);
    expect(cubes[0]?.sql).toMatch(/^SELECT 1 AS id/);
    expect(STARTER_MODEL.every((file) => file.path.startsWith('model/'))).toBe(true);
  });
});

describe('metaOf', () => {
  const model = compiled(PROJECT);

  it("answers Cube's /meta shape, leaving out what is not public", () => {
    const meta = metaOf(model);
    // Files are read in path order, so the answer does not depend on how they were listed.
    expect(meta.cubes.map((cube) => [cube.name, cube.type])).toEqual([
      ['line_items', 'cube'],
      ['products', 'cube'],
      ['orders', 'cube'],
      ['sales', 'view'],
    ]);
    const orders = meta.cubes.find((cube) => cube.name === 'orders');
    expect(orders).toMatchObject({ title: 'Customer Orders', public: true, isVisible: true });
    expect(orders?.dimensions.map((dimension) => dimension.name)).toEqual([
      'orders.status',
      'orders.created_at',
      'orders.user_city',
    ]);
    expect(orders?.dimensions[0]).toEqual({
      name: 'orders.status',
      title: 'Customer Orders Status',
      shortTitle: 'Status',
      type: 'string',
      suggestFilterValues: true,
      isVisible: true,
      public: true,
      primaryKey: false,
      meta: { color: 'blue' },
    });
    expect(orders?.measures.find((measure) => measure.name === 'orders.total_amount')).toEqual({
      name: 'orders.total_amount',
      title: 'Customer Orders Total Amount',
      shortTitle: 'Total Amount',
      description: 'Sum of order amounts',
      type: 'number',
      aggType: 'sum',
      cumulative: false,
      cumulativeTotal: false,
      drillMembers: [],
      drillMembersGrouped: { measures: [], dimensions: [] },
      isVisible: true,
      public: true,
      format: 'currency',
    });
    expect(orders?.measures.map((measure) => measure.aggType)).toEqual(['count', 'sum', 'count', 'number']);
    expect(orders?.segments).toEqual([
      {
        name: 'orders.completed',
        title: 'Customer Orders Completed',
        shortTitle: 'Completed',
        isVisible: true,
        public: true,
      },
    ]);
  });

  it('describes view members through the cube members behind them', () => {
    const sales = metaOf(model).cubes.find((cube) => cube.name === 'sales');
    expect(sales).toMatchObject({
      type: 'view',
      title: 'Sales',
      description: 'Orders with their customers and products',
    });
    expect(sales?.dimensions.find((dimension) => dimension.name === 'sales.customer_name')).toMatchObject({
      title: 'Sales Customer',
      shortTitle: 'Customer',
      type: 'string',
    });
    expect(sales?.measures.map((measure) => [measure.name, measure.aggType, measure.format])).toEqual([
      ['sales.count', 'count', undefined],
      ['sales.total_amount', 'sum', 'currency'],
    ]);
    expect(sales?.segments.map((segment) => segment.name)).toEqual(['sales.completed']);
  });

  it('leaves out members the caller may not see', () => {
    const meta = metaOf(model, (name) => name !== 'orders.status' && !name.startsWith('sales.users'));
    const orders = meta.cubes.find((cube) => cube.name === 'orders');
    expect(orders?.dimensions.map((dimension) => dimension.name)).toEqual([
      'orders.created_at',
      'orders.user_city',
    ]);
    const sales = meta.cubes.find((cube) => cube.name === 'sales');
    expect(sales?.dimensions.map((dimension) => dimension.name)).toEqual([
      'sales.status',
      'sales.created_at',
      'sales.customer_name',
      'sales.product_name',
    ]);
  });

  it('derives titles from names', () => {
    const result = compiled([
      {
        path: 'model/x.yml',
        content: `cubes:
  - name: lineItems
    sql_table: t
    measures:
      - name: total_net_amount
        sql: net
        type: avg
`,
      },
    ]);
    const [cube] = metaOf(result).cubes;
    expect(cube?.title).toBe('Line Items');
    expect(cube?.measures[0]).toMatchObject({
      title: 'Line Items Total Net Amount',
      shortTitle: 'Total Net Amount',
    });
  });
});

describe('references', () => {
  it('finds each reference with its span and path', () => {
    const sql = "{CUBE}.id = { users.id } AND {status} <> 'x'";
    const references = parseReferences(sql);
    expect(references).toEqual([
      { start: 0, end: 6, path: ['CUBE'] },
      { start: 12, end: 24, path: ['users', 'id'] },
      { start: 29, end: 37, path: ['status'] },
    ]);
    expect(references.map((reference) => sql.slice(reference.start, reference.end))).toEqual([
      '{CUBE}',
      '{ users.id }',
      '{status}',
    ]);
  });

  it('reports what is not a reference', () => {
    const { references, problems } = scanReferences(
      `{{ x }} {% if %} {FILTER_PARAMS.a.b.filter(x)} \${CUBE} {1,2} {a`,
    );
    expect(references).toEqual([]);
    expect(problems.map((problem) => problem.message)).toEqual([
      'Jinja templates ({{ }}, {% %}) are not supported',
      'Jinja templates ({{ }}, {% %}) are not supported',
      'FILTER_PARAMS is not supported',
      `\${…} is the JavaScript model syntax; in YAML write {CUBE}`,
      '"{1,2}" is not a reference (write {CUBE}, {member} or {cube.member})',
      'unclosed "{" (a reference is {member} or {cube.member})',
    ]);
  });
});

describe('durations', () => {
  it('reads long and short forms and refuses the rest', () => {
    expect(parseDuration('1 hour')).toBe(3600);
    expect(parseDuration('30 seconds')).toBe(30);
    expect(parseDuration('10 minute')).toBe(600);
    expect(parseDuration('2 days')).toBe(172_800);
    expect(parseDuration('1 week')).toBe(604_800);
    expect(parseDuration('5m')).toBe(300);
    expect(parseDuration('1h')).toBe(3600);
    expect(parseDuration('0 hours')).toBeNull();
    expect(parseDuration('1 month')).toBeNull();
    expect(parseDuration('0 * * * *')).toBeNull();
    expect(parseDuration('hour')).toBeNull();
  });
});

/** A cube with the given extra YAML lines (indented as cube keys) after a valid header. */
const cube = (extra: string) => `cubes:
  - name: orders
    sql_table: orders
${extra}`;

describe('errors: files and top level', () => {
  it('reports a YAML syntax error where the parser found it', () => {
    expectOneError('cubes:\n  - name: orders\n    sql_table: [unclosed\n', 'YAML syntax error', 4);
  });

  it('reports syntax errors of every file', () => {
    const errors = errorsOf([
      { path: 'model/a.yml', content: 'cubes: [\n' },
      { path: 'model/b.yml', content: 'cubes:\n  - name: x\n  name: y\n - oops\n' },
    ]);
    expect(new Set(errors.map((error) => error.file))).toEqual(new Set(['model/a.yml', 'model/b.yml']));
    expect(errors.every((error) => error.message.startsWith('YAML syntax error'))).toBe(true);
  });

  it('refuses a duplicate key', () => {
    expectOneError('cubes:\n  - name: orders\n    name: again\n    sql_table: t\n', 'YAML syntax error', 3);
  });

  it('refuses other top-level keys and a top level that is not a mapping', () => {
    expectOneError('cubez:\n  - name: orders\n', 'unknown key "cubez" (expected one of: cubes, views)', 1, 1);
    expectOneError('- name: orders\n', 'must be a mapping', 1);
    expectOneError('cubes:\n  name: orders\n', 'cubes must be a list', 2);
  });

  it('names both places of a cube defined twice', () => {
    const errors = errorsOf([
      { path: 'model/a.yml', content: 'cubes:\n  - name: orders\n    sql_table: a\n' },
      { path: 'model/b.yml', content: '\n\ncubes:\n  - name: orders\n    sql_table: b\n' },
    ]);
    expect(errors).toEqual([
      {
        message:
          'cube "orders" is already defined at model/a.yml:2 (cube and view names share one namespace)',
        file: 'model/b.yml',
        line: 4,
        column: 5,
      },
    ]);
  });

  it('refuses a view named like a cube', () => {
    expectOneError(
      `${cube('')}views:\n  - name: orders\n    cubes:\n      - join_path: orders\n        includes: "*"\n`,
      'view "orders" is already defined at model/test.yml:2',
      5,
    );
  });

  it('bounds the number of cubes and views', () => {
    const cubes = Array.from({ length: 501 }, (_, i) => `  - name: c${i}\n    sql_table: t\n`).join('');
    const errors = errorsIn(`cubes:\n${cubes}`);
    expect(errors).toEqual([
      {
        message: 'the model defines 501 cubes and 0 views; at most 500 in all are allowed',
        file: null,
        line: null,
        column: null,
      },
    ]);
    expect(
      compileModel([{ path: 'model/x.yml', content: `cubes:\n${cubes.split('  - name: c500')[0]}` }]).ok,
    ).toBe(true);
  });

  it('reports every error, up to 50', () => {
    const errors = errorsIn(
      `cubes:\n${Array.from({ length: 60 }, (_, i) => `  - name: c${i}\n    sql_table: t\n    bad: 1\n`).join('')}`,
    );
    expect(errors).toHaveLength(50);
    expect(errors[0]?.line).toBe(4);
    expect(errors[49]?.line).toBe(4 + 49 * 3);
  });
});

describe('errors: cubes', () => {
  it('checks names', () => {
    expectOneError(
      'cubes:\n  - name: 1orders\n    sql_table: t\n',
      'name "1orders" must start with a letter',
      2,
      11,
    );
    expectOneError(`cubes:\n  - name: ${'x'.repeat(65)}\n    sql_table: t\n`, 'longer than 64 characters', 2);
    expectOneError('cubes:\n  - sql_table: t\n', 'cube: name is required', 2, 5);
  });

  it('needs exactly one of sql and sql_table', () => {
    expectOneError('cubes:\n  - name: orders\n', 'give exactly one of sql and sql_table', 2);
    expectOneError(cube('    sql: SELECT 1\n'), 'give exactly one of sql and sql_table', 3);
  });

  it('refuses unknown and unsupported keys by name', () => {
    expectOneError(
      cube('    colour: red\n'),
      'cube "orders": unknown key "colour" (expected one of: name,',
      4,
      5,
    );
    expectOneError(cube('    hierarchies: []\n'), 'cube "orders": hierarchies is not supported', 4, 5);
    expectOneError(cube('    extends: base\n'), 'extends is not supported', 4);
  });

  it('reads refresh_key.every and refuses the rest', () => {
    expectOneError(
      cube('    refresh_key:\n      sql: SELECT max(id) FROM t\n'),
      'refresh_key.sql is not supported; use every',
      5,
    );
    expectOneError(
      cube('    refresh_key:\n      every: 1 fortnight\n'),
      '"1 fortnight" is not an interval',
      5,
      14,
    );
    expectOneError(cube('    refresh_key:\n      every: "0 * * * *"\n'), 'is not an interval', 5);
    expectOneError(cube('    refresh_key: {}\n'), 'refresh_key: every is required', 4);
  });

  it('refuses public and shown together, and values of the wrong type', () => {
    expectOneError(cube('    public: false\n    shown: false\n'), 'give public or shown', 5);
    expectOneError(cube('    public: "no"\n'), 'public must be true or false', 4, 13);
    expectOneError(cube('    title: [a]\n'), 'title must be a string', 4);
  });
});

describe('errors: members', () => {
  it('refuses unsupported measure types, listing the supported ones', () => {
    expectOneError(
      cube('    measures:\n      - name: running\n        sql: amount\n        type: running_total\n'),
      'measure "running": measure type running_total is not supported (supported: count, count_distinct, count_distinct_approx, sum, avg, min, max, number, string, time, boolean)',
      7,
      15,
    );
  });

  it("compiles Cube's case of a dimension to SQL, and refuses it with sql, without when, or with braces in a label", () => {
    const compiled = compileModel([
      {
        path: 'model/cubes/orders.yml',
        content: `cubes:\n  - name: orders\n    sql_table: public.orders\n    dimensions:\n      - name: size\n        type: string\n        case:\n          when:\n            - sql: "{CUBE}.amount < 10"\n              label: "it's small"\n            - sql: amount < 100\n              label: medium\n          else:\n            label: large\n`,
      },
    ]);
    expect(compiled.ok, JSON.stringify(compiled)).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.model.cubes.orders?.dimensions.size?.sql).toBe(
      `CASE WHEN ({CUBE}.amount < 10) THEN 'it''s small' WHEN (amount < 100) THEN 'medium' ELSE 'large' END`,
    );
    const dimension = (body: string) =>
      cube(`    dimensions:\n      - name: size\n        type: string\n${body}`);
    expectOneError(
      dimension(
        '        sql: amount\n        case:\n          when:\n            - sql: amount < 1\n              label: a\n',
      ),
      'a dimension takes sql or case, not both',
      9,
    );
    expectOneError(
      dimension('        case:\n          else:\n            label: a\n'),
      'case needs a list of when conditions',
      8,
    );
    expectOneError(
      dimension(
        '        case:\n          when:\n            - sql: amount < 1\n              label: "{x}"\n',
      ),
      'a case label cannot contain { or }',
      10,
    );
  });

  it('needs sql for every measure but count, and a type', () => {
    expectOneError(
      cube('    measures:\n      - name: total\n        type: sum\n'),
      'measure "total": sql is required',
      5,
      9,
    );
    expectOneError(cube('    measures:\n      - name: total\n        sql: x\n'), 'type is required', 5);
    expectOneError(
      cube('    measures:\n      - name: total\n        sql: ""\n        type: sum\n'),
      'sql must not be empty',
      6,
    );
  });

  it('refuses unsupported dimension types and keys', () => {
    expectOneError(
      cube('    dimensions:\n      - name: location\n        sql: loc\n        type: geo\n'),
      'dimension type geo is not supported (supported: string, number, boolean, time)',
      7,
    );
    expectOneError(
      cube(
        '    dimensions:\n      - name: size\n        type: string\n        sub_query: true\n        sql: size\n',
      ),
      'dimension "size": sub_query is not supported',
      7,
      9,
    );
    expectOneError(
      cube(
        '    dimensions:\n      - name: at\n        sql: at\n        type: time\n        granularities: []\n',
      ),
      'granularities is not supported',
      8,
    );
    expectOneError(
      cube(
        '    dimensions:\n      - name: at\n        sql: at\n        type: time\n        sub_query: true\n',
      ),
      'sub_query is not supported',
      8,
    );
    expectOneError(
      cube('    measures:\n      - name: m\n        sql: x\n        type: sum\n        rolling_window: {}\n'),
      'rolling_window is not supported',
      8,
    );
    expectOneError(
      cube(
        '    dimensions:\n      - name: id\n        sql: id\n        type: number\n        primaryKey: true\n',
      ),
      'unknown key "primaryKey"',
      8,
    );
  });

  it('refuses a member name used twice in one cube', () => {
    expectOneError(
      cube(
        '    dimensions:\n      - name: total\n        sql: t\n        type: number\n    measures:\n      - name: total\n        sql: t\n        type: sum\n',
      ),
      'cube "orders" already has a member named "total"',
      9,
    );
  });
});

describe('errors: references', () => {
  const dims = `    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: amount
        sql: amount
        type: number
`;

  it('points at an unknown member inside a block scalar', () => {
    expectOneError(
      cube(`${dims}    measures:
      - name: total
        sql: |
          CASE
            WHEN {amount} > 0 THEN {amout}
          END
        type: sum
`),
      'measure "orders.total": {amout}: cube "orders" has no member "amout", and no cube is named "amout"',
      16,
      36,
    );
  });

  it('refuses unknown cubes and members of other cubes', () => {
    expectOneError(
      cube(`${dims}      - name: city\n        sql: "{customers.city}"\n        type: string\n`),
      '{customers.city}: no cube is named "customers"',
      13,
      15,
    );
    expectOneError(
      `${cube(dims)}  - name: users\n    sql_table: users\n    dimensions:\n      - name: email\n        sql: "{orders.mail}"\n        type: string\n`,
      '{orders.mail}: cube "orders" has no member "mail"',
      16,
    );
    expectOneError(
      cube(`${dims}      - name: x\n        sql: "{a.b.c}"\n        type: string\n`),
      'at most two parts',
      13,
    );
  });

  it('refuses templates this model format does not support', () => {
    const withSql = (sql: string) =>
      cube(`${dims}      - name: x\n        sql: "${sql}"\n        type: string\n`);
    expectOneError(withSql("{{ 'x' }}"), 'Jinja templates ({{ }}, {% %}) are not supported', 13, 15);
    expectOneError(withSql('{FILTER_PARAMS.orders.id.filter(id)}'), 'FILTER_PARAMS is not supported', 13);
    expectOneError(withSql('{SECURITY_CONTEXT.tenant}'), 'SECURITY_CONTEXT is not supported', 13);
    expectOneError(withSql('{COMPILE_CONTEXT.x}'), 'COMPILE_CONTEXT is not supported', 13);
    expectOneError(
      withSql(`\${CUBE}.x`),
      `\${…} is the JavaScript model syntax; in YAML write {CUBE}`,
      13,
      15,
    );
    expectOneError(withSql('{ not a reference }'), 'is not a reference', 13);
  });

  it('refuses references in a cube sql', () => {
    expectOneError(
      'cubes:\n  - name: orders\n    sql: SELECT * FROM t WHERE x = {CUBE.id}\n',
      "a cube's sql cannot hold references such as {CUBE.id}",
      3,
      36,
    );
  });

  it('keeps computed measures to measures and dimensions and other measures to dimensions', () => {
    expectOneError(
      cube(
        `${dims}    segments:\n      - name: big\n        sql: "amount > 10"\n    measures:\n      - name: ratio\n        sql: "SUM({big}) / 2"\n        type: number\n`,
      ),
      'a measure may reference measures and dimensions, and segment "orders.big" is neither',
      17,
      19,
    );
    expectOneError(
      cube(
        `${dims}    measures:\n      - name: total\n        sql: amount\n        type: sum\n      - name: double\n        sql: "{total} * 2"\n        type: sum\n`,
      ),
      'an aggregating measure may only reference dimensions (use type number to combine measures)',
      17,
    );
    expectOneError(
      cube(
        `${dims}      - name: bad\n        sql: "{total}"\n        type: number\n    measures:\n      - name: total\n        sql: amount\n        type: sum\n`,
      ),
      'measure "orders.total" cannot be used here; only dimensions can',
      13,
    );
    expectOneError(
      cube(
        `${dims}    segments:\n      - name: big\n        sql: "{total} > 10"\n    measures:\n      - name: total\n        sql: amount\n        type: sum\n`,
      ),
      'cannot be used here; only dimensions and segments can',
      14,
    );
  });

  it('names a cycle of references', () => {
    expectOneError(
      cube(`    dimensions:
      - name: a
        sql: "{b} + 1"
        type: number
      - name: b
        sql: "{c}"
        type: number
      - name: c
        sql: "{a}"
        type: number
      - name: d
        sql: "{a}"
        type: number
`),
      'circular reference: orders.a → orders.b → orders.c → orders.a',
      5,
      9,
    );
    expectOneError(
      cube('    measures:\n      - name: m\n        sql: "{m} + 1"\n        type: number\n'),
      'circular reference: orders.m → orders.m',
      5,
    );
  });

  it('does not repeat the error of a broken member at each reference to it', () => {
    expectOneError(
      cube(
        `${dims}      - name: y\n        sql: "{amount}"\n        type: geo\n      - name: z\n        sql: "{y}"\n        type: string\n`,
      ),
      'dimension type geo is not supported',
      14,
    );
  });
});

describe('errors: joins', () => {
  const withPk = (name: string, extra = '') =>
    `  - name: ${name}\n    sql_table: ${name}\n    dimensions:\n      - name: id\n        sql: id\n        type: number\n        primary_key: true\n${extra}`;

  it('needs the joined cube to exist and a known relationship', () => {
    expectOneError(
      `cubes:\n${withPk('orders', '    joins:\n      - name: users\n        sql: "{CUBE}.user_id = {users}.id"\n        relationship: many_to_one\n')}`,
      'cube "orders": the join to "users" names no cube',
      10,
      9,
    );
    expectOneError(
      `cubes:\n${withPk('orders', '    joins:\n      - name: users\n        sql: "{CUBE}.user_id = {users.id}"\n        relationship: many_to_many\n')}${withPk('users')}`,
      'unknown relationship "many_to_many" (expected one of: many_to_one, one_to_many, one_to_one)',
      12,
      23,
    );
    expectOneError(
      `cubes:\n${withPk('orders', '    joins:\n      - name: users\n        sql: "{CUBE}.user_id = {users.id}"\n')}${withPk('users')}`,
      'relationship is required',
      10,
    );
  });

  it('keeps a join ON condition to the two cubes it joins', () => {
    expectOneError(
      `cubes:\n${withPk('orders', '    joins:\n      - name: users\n        sql: "{CUBE}.user_id = {users.id} AND {products.id} > 0"\n        relationship: many_to_one\n')}${withPk('users')}${withPk('products')}`,
      "the join orders → users: {products.id}: a join's sql may only reference the two cubes it joins (orders, users)",
      11,
      47,
    );
  });

  it('needs one primary key on each side of a join', () => {
    expectOneError(
      `cubes:\n${withPk('orders', '    joins:\n      - name: users\n        sql: "{CUBE}.user_id = {users}.id"\n        relationship: many_to_one\n')}  - name: users\n    sql_table: users\n`,
      'cube "users" takes part in joins (with orders) and needs a dimension with primary_key: true',
      13,
      5,
    );
    expectOneError(
      `cubes:\n${withPk('orders', '      - name: code\n        sql: code\n        type: string\n        primary_key: true\n    joins:\n      - name: users\n        sql: "{CUBE}.user_id = {users.id}"\n        relationship: many_to_one\n')}${withPk('users')}`,
      'cube "orders" has 2 primary key dimensions (id, code); composite primary keys are not supported',
      9,
    );
  });

  it('refuses a self join and a join given twice', () => {
    expectOneError(
      `cubes:\n${withPk('orders', '    joins:\n      - name: orders\n        sql: "{CUBE}.parent_id = {CUBE}.id"\n        relationship: many_to_one\n')}`,
      'a cube cannot join itself',
      10,
    );
    expectOneError(
      `cubes:\n${withPk('orders', '    joins:\n      - name: users\n        sql: "{CUBE}.a = {users.id}"\n        relationship: many_to_one\n      - name: users\n        sql: "{CUBE}.b = {users.id}"\n        relationship: many_to_one\n')}${withPk('users')}`,
      'the join to "users" is defined twice',
      13,
    );
  });
});

describe('errors: views', () => {
  const base = `cubes:
  - name: orders
    sql_table: orders
    joins:
      - name: users
        sql: "{CUBE}.user_id = {users.id}"
        relationship: many_to_one
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
  - name: users
    sql_table: users
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
views:
  - name: v
    cubes:
`;

  it('checks join paths: cubes exist, start at the root, follow joins', () => {
    expectOneError(
      `${base}      - join_path: orders\n        includes: "*"\n      - join_path: users\n        includes: "*"\n        prefix: true\n`,
      'join_path "users" must start at the view\'s root cube "orders"',
      25,
      20,
    );
    expectOneError(
      `${base}      - join_path: users.orders\n        includes: "*"\n`,
      'join_path "users.orders": cube "users" defines no join to "orders"',
      23,
    );
    expectOneError(
      `${base}      - join_path: orders.people\n        includes: "*"\n`,
      'no cube is named "people"',
      23,
    );
  });

  it('checks included and excluded members', () => {
    expectOneError(
      `${base}      - join_path: orders\n        includes:\n          - id\n          - total\n`,
      'cube "orders" has no member "total"',
      26,
      13,
    );
    expectOneError(
      `${base}      - join_path: orders\n        includes: "*"\n        excludes: [total]\n`,
      'cube "orders" has no member "total" to exclude',
      25,
    );
    expectOneError(`${base}      - join_path: orders\n`, 'includes is required', 23);
    expectOneError(
      `${base}      - join_path: orders\n        includes: all\n`,
      'includes must be "*" or a list',
      24,
      19,
    );
    expectOneError(
      `${base}      - join_path: orders\n        includes:\n          - name: id\n            format: id\n`,
      'format is not supported',
      26,
    );
  });

  it('refuses two members with one name', () => {
    expectOneError(
      `${base}      - join_path: orders\n        includes: "*"\n      - join_path: orders.users\n        includes: [id]\n`,
      'view "v": member "id" comes from both orders.id and users.id (use prefix or alias)',
      26,
      20,
    );
  });

  it('refuses view keys it does not know', () => {
    expectOneError(
      `${base}      - join_path: orders\n        includes: "*"\n    folders: []\n`,
      'view "v": folders is not supported',
      25,
    );
    expectOneError(
      `${base.replace(/ {4}cubes:\n$/, '')}    cubes: []\n`,
      'a view needs at least one cube',
      22,
    );
  });

  it('refuses SQL that references a view', () => {
    expectOneError(
      `${base.replace('        sql: id\n        type: number\n        primary_key: true\n  - name: users', '        sql: id\n        type: number\n        primary_key: true\n      - name: x\n        sql: "{v.id}"\n        type: number\n  - name: users')}      - join_path: orders\n        includes: "*"\n`,
      'views cannot be referenced in SQL',
      14,
    );
  });
});

describe('errors: access policies', () => {
  const policy = (body: string) =>
    cube(`    dimensions:
      - name: status
        sql: status
        type: string
    access_policy:
${body}`);

  it('checks filter members, operators and values', () => {
    expectOneError(
      policy(
        '      - row_level:\n          filters:\n            - member: state\n              operator: equals\n              values: [a]\n',
      ),
      'cube "orders" has no member "state"',
      11,
      23,
    );
    expectOneError(
      policy(
        '      - row_level:\n          filters:\n            - member: users.status\n              operator: equals\n              values: [a]\n',
      ),
      'a policy may only name its own members',
      11,
    );
    expectOneError(
      policy(
        '      - row_level:\n          filters:\n            - member: status\n              operator: is\n              values: [a]\n',
      ),
      'unknown operator "is" (expected one of: equals, notEquals,',
      12,
      25,
    );
    expectOneError(
      policy(
        '      - row_level:\n          filters:\n            - member: status\n              operator: equals\n              values: ["{ securityContext }"]\n',
      ),
      '"{ securityContext }" is neither a literal nor { securityContext.path } or { userAttributes.name }',
      13,
    );
    expectOneError(
      policy(
        '      - row_level:\n          filters:\n            - member: status\n              operator: equals\n              values: ["a {userAttributes.x}"]\n',
      ),
      'is neither a literal',
      13,
    );
    expectOneError(
      policy(
        '      - row_level:\n          filters:\n            - member: status\n              operator: equals\n',
      ),
      'equals needs values',
      11,
    );
  });

  it('takes unquoted caller values and numbers', () => {
    const model = compiled([
      {
        path: 'model/test.yml',
        content: policy(
          '      - row_level:\n          filters:\n            - member: orders.status\n              operator: equals\n              values: [{ securityContext.org }, 7, true]\n',
        ),
      },
    ]);
    expect(model.cubes.orders?.accessPolicies[0]?.rowLevel).toEqual({
      filters: [
        {
          member: 'orders.status',
          operator: 'equals',
          values: [{ securityContext: ['org'] }, { literal: '7' }, { literal: 'true' }],
        },
      ],
    });
  });

  it('checks groups, row_level and member_level', () => {
    expectOneError(policy('      - group: a\n        groups: [b]\n'), 'give group or groups, not both', 10);
    expectOneError(policy('      - role: admin\n'), 'role is not supported', 9, 9);
    expectOneError(policy('      - row_level: {}\n'), 'give either filters or allow_all: true', 9);
    expectOneError(policy('      - row_level:\n          allow_all: false\n'), 'allow_all must be true', 10);
    expectOneError(
      policy('      - member_level:\n          includes: [status, secret]\n'),
      'cube "orders" has no member "secret"',
      10,
      30,
    );
    expectOneError(
      policy('      - row_level:\n          filters:\n            - and: []\n              member: status\n'),
      'a filter with and holds nothing else',
      11,
    );
  });

  it('checks view policies against the view members', () => {
    expectOneError(
      `${policy('      - group: "*"\n')}views:\n  - name: v\n    cubes:\n      - join_path: orders\n        includes: "*"\n    access_policy:\n      - member_level:\n          includes: [state]\n`,
      'view "v" has no member "state"',
      17,
    );
  });
});
