import type { CompiledModel, Measure } from '../../src/semantic/model/model.types';
import { storeEveryMember } from '../../src/semantic/model/pre-aggregations';
import type { PreAggregation } from '../../src/semantic/model/pre-aggregations.types';

/**
 * Rollups over the query tests' shop (dataset.ts), added to its model as the compiler would
 * compile them, in definition order (the order matching tries them in).
 */
export function rollup(cube: string, name: string, spec: Partial<PreAggregation>): PreAggregation {
  return {
    name,
    cube,
    type: 'rollup',
    measures: [],
    dimensions: [],
    segments: [],
    refreshKey: { incremental: false },
    scheduledRefresh: true,
    allowNonStrictDateRangeMatch: false,
    indexes: [],
    position: { file: 'test.yml', line: 1, column: 1 },
    ...spec,
  };
}

/** A numeric measure PostgreSQL sums with a scale (`125.00`), to hold its digits through a rollup. */
const SCALED: Measure = {
  name: 'orders.scaled_amount',
  shortName: 'scaled_amount',
  title: 'Scaled amount',
  public: true,
  position: { file: 'test.yml', line: 1, column: 1 },
  type: 'sum',
  sql: '{CUBE}.amount * 1.25',
  filters: [],
};

/** `number` measures: two over additive leaves (one nested), one over a count_distinct. */
const numberMeasure = (shortName: string, sql: string): Measure => ({
  ...SCALED,
  name: `orders.${shortName}`,
  shortName,
  title: shortName,
  type: 'number',
  sql,
});
const NUMBERS: Record<string, Measure> = {
  completed_share: numberMeasure('completed_share', '100.0 * {completed_amount} / NULLIF({total_amount}, 0)'),
  share_and_count: numberMeasure('share_and_count', '{completed_share} + {count}'),
  // The demo shop's completion-rate KPI, as the demo model defines it.
  completed_count: {
    ...numberMeasure('completed_count', ''),
    type: 'count',
    sql: undefined,
    filters: [{ sql: "{CUBE}.status = 'completed'" }],
  },
  completion_rate: numberMeasure('completion_rate', '100.0 * {completed_count} / NULLIF({count}, 0)'),
  amount_per_user: numberMeasure('amount_per_user', '1.0 * {total_amount} / NULLIF({distinct_users}, 0)'),
};

export const ROLLUPS = {
  orders: [
    rollup('orders', 'daily', {
      measures: [
        'orders.count',
        'orders.total_amount',
        'orders.min_amount',
        'orders.max_amount',
        'orders.completed_amount',
        'orders.scaled_amount',
        'orders.avg_amount',
        'orders.distinct_users',
        'orders.amount_per_order',
      ],
      dimensions: ['orders.status', 'users.city'],
      timeDimension: 'orders.created_at',
      granularity: 'day',
      partitionGranularity: 'month',
      indexes: [{ name: 'by_status', columns: ['orders.status', 'orders.created_at'] }],
    }),
    rollup('orders', 'completed_monthly', {
      measures: ['orders.count', 'orders.total_amount'],
      segments: ['orders.completed'],
      timeDimension: 'orders.created_at',
      granularity: 'month',
    }),
    rollup('orders', 'by_amount', {
      measures: ['orders.count', 'orders.total_amount'],
      dimensions: ['orders.amount', 'orders.is_big'],
    }),
    rollup('orders', 'loose_daily', {
      measures: ['orders.count'],
      timeDimension: 'orders.created_at',
      granularity: 'day',
      partitionGranularity: 'month',
      allowNonStrictDateRangeMatch: true,
    }),
    // Number measures only: on the embedded store it stores their leaves too.
    rollup('orders', 'number_shares', {
      measures: ['orders.share_and_count', 'orders.amount_per_user', 'orders.completion_rate'],
      dimensions: ['orders.status', 'users.city'],
      timeDimension: 'orders.created_at',
      granularity: 'month',
    }),
    // The completion rate alone: on PostgreSQL, the KPI read as stored.
    rollup('orders', 'completion', { measures: ['orders.completion_rate'] }),
    // String dimensions whose values are numbers (see STRINGS_OVER_NUMBERS).
    rollup('orders', 'refs', {
      measures: ['orders.count'],
      dimensions: ['orders.id_ref', 'orders.amount_text'],
    }),
  ],
  line_items: [
    // Orders first: the rollup joins from orders, as a query naming an orders measure first does.
    rollup('line_items', 'orders_by_category', {
      measures: ['orders.total_amount', 'orders.count', 'line_items.revenue', 'line_items.total_quantity'],
      dimensions: ['products.category'],
      timeDimension: 'orders.created_at',
      granularity: 'month',
    }),
    rollup('line_items', 'revenue_by_category', {
      measures: ['line_items.revenue', 'line_items.count'],
      dimensions: ['products.category'],
      timeDimension: 'orders.created_at',
      granularity: 'day',
    }),
  ],
};

/**
 * original_sql pre-aggregations (Cube tries them after every rollup): one on the orders, stored
 * to the second and partitioned by month, and one on the products, an SQL cube. Their members
 * are filled in as the compiler fills them (`storeEveryMember`).
 */
export const ORIGINAL_SQL = [
  rollup('orders', 'base', {
    type: 'original_sql',
    timeDimension: 'orders.created_at',
    partitionGranularity: 'month',
  }),
  rollup('products', 'copy', { type: 'original_sql' }),
];

/**
 * String dimensions over numeric expressions: an integer (`{CUBE}.id + 0`, which orders as a
 * number: 9 before 10) and, on the embedded store, a REAL with whole values (`20.0`, printed `20`).
 */
const STRINGS_OVER_NUMBERS: Record<string, string> = {
  id_ref: '{CUBE}.id + 0',
  amount_text: '{CUBE}.amount * 1.0',
};

/** The shop's model with the rollups above (and the scaled measure they hold), and the original_sql ones when asked. */
export function withRollups(model: CompiledModel, options: { originalSql?: boolean } = {}): CompiledModel {
  const copy = structuredClone(model);
  const orders = copy.cubes.orders as NonNullable<(typeof copy.cubes)['orders']>;
  orders.measures.scaled_amount = SCALED;
  Object.assign(orders.measures, structuredClone(NUMBERS));
  for (const [shortName, sql] of Object.entries(STRINGS_OVER_NUMBERS)) {
    const status = orders.dimensions.status as NonNullable<(typeof orders.dimensions)['status']>;
    orders.dimensions[shortName] = {
      ...status,
      name: `orders.${shortName}`,
      shortName,
      title: shortName,
      sql,
    };
  }
  orders.preAggregations = ROLLUPS.orders.map((pre) => structuredClone(pre));
  const lineItems = copy.cubes.line_items as NonNullable<(typeof copy.cubes)['line_items']>;
  lineItems.preAggregations = ROLLUPS.line_items.map((pre) => structuredClone(pre));
  if (options.originalSql) {
    for (const original of ORIGINAL_SQL) {
      const cube = copy.cubes[original.cube] as NonNullable<(typeof copy.cubes)['orders']>;
      const pre = structuredClone(original);
      storeEveryMember(pre, cube);
      cube.preAggregations = [...(cube.preAggregations ?? []), pre];
    }
  }
  return copy;
}
