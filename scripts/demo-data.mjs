// The demo dataset: a small shop's customers, products, orders and order items, generated
// deterministically (the same rows on every machine), and its data model in Cube's YAML format.
// `npm run seed` loads it into the demo deployment's embedded store; the benchmark loads a larger
// scale of it into both stores.

/** A seeded PRNG (mulberry32): the dataset is the same everywhere. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COUNTRIES = [
  ['France', ['Paris', 'Lyon', 'Marseille']],
  ['Germany', ['Berlin', 'Munich', 'Hamburg']],
  ['United States', ['New York', 'Austin', 'Seattle']],
  ['Japan', ['Tokyo', 'Osaka']],
  ['Brazil', ['São Paulo', 'Rio de Janeiro']],
  ['India', ['Mumbai', 'Bengaluru']],
  ['United Kingdom', ['London', 'Manchester']],
  ['Spain', ['Madrid', 'Barcelona']],
];
const SEGMENTS = ['Consumer', 'Corporate', 'Home Office'];
const CATEGORIES = ['Books', 'Electronics', 'Garden', 'Home', 'Sports', 'Toys'];
const ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Eco', 'Smart', 'Ultra', 'Vintage', "Chef's"];
const NOUNS = [
  'Lamp',
  'Kettle',
  'Backpack',
  'Speaker',
  'Planter',
  'Puzzle',
  'Racket',
  'Novel',
  'Drone',
  'Mug',
];
const STATUSES = [
  ['completed', 0.72],
  ['shipped', 0.12],
  ['pending', 0.08],
  ['cancelled', 0.05],
  ['returned', 0.03],
];
const CHANNELS = ['web', 'mobile', 'store'];

const pick = (rnd, list) => list[Math.floor(rnd() * list.length)];
const weighted = (rnd, list) => {
  let x = rnd();
  for (const [value, weight] of list) {
    x -= weight;
    if (x <= 0) return value;
  }
  return list[list.length - 1][0];
};
const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');

/**
 * The demo tables at a scale: `orders` orders (default 40,000), about 2.5 items each, one
 * customer per 20 orders, 120 products. Each table is `{ name, columns, rows }` with rows as
 * arrays, in an order where every foreign key points at a row already listed.
 */
export function demoTables({ orders = 40_000 } = {}) {
  const rnd = random(20_240_101);
  const customers = [];
  const customerCount = Math.max(10, Math.round(orders / 20));
  const start = Date.UTC(2023, 0, 1);
  const span = Date.UTC(2026, 0, 1) - start;
  for (let id = 1; id <= customerCount; id++) {
    const [country, cities] = pick(rnd, COUNTRIES);
    customers.push([
      id,
      `Customer ${id}`,
      country,
      pick(rnd, cities),
      pick(rnd, SEGMENTS),
      iso(start - Math.floor(rnd() * 365) * 86_400_000),
    ]);
  }
  const products = [];
  for (let id = 1; id <= 120; id++) {
    const category = CATEGORIES[id % CATEGORIES.length];
    products.push([
      id,
      `${pick(rnd, ADJECTIVES)} ${pick(rnd, NOUNS)} ${id}`,
      category,
      Math.round((5 + rnd() * 195) * 100) / 100,
    ]);
  }
  const orderRows = [];
  const items = [];
  let itemId = 1;
  for (let id = 1; id <= orders; id++) {
    // More orders as time goes on, and a busier December.
    let at = start + Math.floor(Math.sqrt(rnd()) * span);
    if (rnd() < 0.05) at = Date.UTC(new Date(at).getUTCFullYear(), 11, 1 + Math.floor(rnd() * 31), 10);
    at -= at % 60_000;
    orderRows.push([
      id,
      1 + Math.floor(rnd() * customerCount),
      weighted(rnd, STATUSES),
      pick(rnd, CHANNELS),
      iso(at),
    ]);
    const lines = 1 + Math.floor(rnd() * 4);
    for (let line = 0; line < lines; line++) {
      const product = products[Math.floor(rnd() * products.length)];
      const discount = rnd() < 0.2 ? Math.round(rnd() * 30) / 100 : 0;
      items.push([itemId++, id, product[0], 1 + Math.floor(rnd() * 5), product[3], discount]);
    }
  }
  return [
    {
      name: 'customers',
      columns: ['id', 'name', 'country', 'city', 'segment', 'signed_up_at'],
      rows: customers,
    },
    { name: 'products', columns: ['id', 'name', 'category', 'price'], rows: products },
    { name: 'orders', columns: ['id', 'customer_id', 'status', 'channel', 'created_at'], rows: orderRows },
    {
      name: 'order_items',
      columns: ['id', 'order_id', 'product_id', 'quantity', 'unit_price', 'discount'],
      rows: items,
    },
  ];
}

function csvCell(value) {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * A table as CSV bodies of at most `maxBytes` each, every one with the header row: the first is
 * imported with mode=replace, the rest with mode=append.
 */
export function csvChunks(table, maxBytes = 900_000) {
  const header = table.columns.join(',');
  const chunks = [];
  let lines = [header];
  let size = header.length + 1;
  for (const row of table.rows) {
    const line = row.map(csvCell).join(',');
    if (size + line.length + 1 > maxBytes && lines.length > 1) {
      chunks.push(lines.join('\n'));
      lines = [header];
      size = header.length + 1;
    }
    lines.push(line);
    size += line.length + 1;
  }
  if (lines.length > 1) chunks.push(lines.join('\n'));
  return chunks;
}

/** The orders' rollups: with ORDER_ITEMS_ROLLUPS, they answer every chart of "Sales overview". */
const ORDERS_ROLLUPS = `    # Rollups answering the charts of the demo dashboard "Sales overview" (with the one on
    # order_items below); see docs/semantic-layer.md, "Pre-aggregations".
    pre_aggregations:
      - name: by_status_country
        measures: [count, completed_count, completion_rate]
        dimensions: [status, customers.country]
        refresh_key:
          every: 1 hour
      - name: completion
        measures: [completion_rate, count, completed_count]
        refresh_key:
          every: 1 hour
`;

const ORDER_ITEMS_ROLLUPS = `    pre_aggregations:
      - name: by_product
        measures: [revenue, quantity]
        dimensions: [products.name, products.category, customers.country]
        refresh_key:
          every: 1 hour
      - name: revenue_by_month
        measures: [revenue]
        dimensions: [customers.country, products.category]
        time_dimension: orders.created_at
        granularity: month
        partition_granularity: month
        refresh_key:
          every: 1 hour
          incremental: true
          update_window: 7 days
      - name: revenue_by_day
        measures: [revenue]
        dimensions: [customers.country, products.category]
        time_dimension: orders.created_at
        granularity: day
        partition_granularity: month
        refresh_key:
          every: 1 hour
          incremental: true
          update_window: 7 days
`;

/**
 * The demo data model; `prefix` qualifies table names (`schema.` on PostgreSQL, none embedded).
 * `rollups: false` leaves out its pre-aggregations (a bench of queries on the source).
 */
export function demoModel(prefix = '', { rollups = true } = {}) {
  return `# The demo shop: customers place orders of products. See docs/semantic-layer.md.
cubes:
  - name: customers
    sql_table: ${prefix}customers
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
        sql: name
        type: string
      - name: country
        sql: country
        type: string
      - name: city
        sql: city
        type: string
      - name: segment
        sql: segment
        type: string
      - name: signed_up_at
        sql: signed_up_at
        type: time
    measures:
      - name: count
        type: count

  - name: products
    sql_table: ${prefix}products
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
        sql: name
        type: string
      - name: category
        sql: category
        type: string
      - name: price
        sql: price
        type: number
    measures:
      - name: count
        type: count
      - name: average_price
        sql: price
        type: avg
        format: currency

  - name: orders
    sql_table: ${prefix}orders
    refresh_key:
      every: 1 minute
    joins:
      - name: customers
        relationship: many_to_one
        sql: "{CUBE}.customer_id = {customers.id}"
      - name: order_items
        relationship: one_to_many
        sql: "{CUBE}.id = {order_items}.order_id"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
      - name: channel
        sql: channel
        type: string
      - name: created_at
        sql: created_at
        type: time
    measures:
      - name: count
        type: count
      - name: completed_count
        type: count
        filters:
          - sql: "{CUBE}.status = 'completed'"
      - name: completion_rate
        sql: "100.0 * {completed_count} / NULLIF({count}, 0)"
        type: number
        format: percent
    segments:
      - name: completed
        sql: "{CUBE}.status = 'completed'"
${rollups ? ORDERS_ROLLUPS : ''}
  - name: order_items
    sql_table: ${prefix}order_items
    joins:
      - name: orders
        relationship: many_to_one
        sql: "{CUBE}.order_id = {orders.id}"
      - name: products
        relationship: many_to_one
        sql: "{CUBE}.product_id = {products.id}"
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
    measures:
      - name: quantity
        sql: quantity
        type: sum
      - name: revenue
        sql: "{CUBE}.quantity * {CUBE}.unit_price * (1 - {CUBE}.discount)"
        type: sum
        format: currency
      - name: count
        type: count
${rollups ? ORDER_ITEMS_ROLLUPS : ''}
views:
  - name: sales
    cubes:
      - join_path: order_items
        includes: [revenue, quantity]
      - join_path: order_items.orders
        includes: [count, status, channel, created_at]
      - join_path: order_items.orders.customers
        prefix: true
        includes: [country, segment]
      - join_path: order_items.products
        prefix: true
        includes: [category]
`;
}

/** The months the demo shop has orders in (its orders run from 2023 to the end of 2025). */
const DEMO_PERIOD = ['2023-01-01', '2025-12-31'];

/**
 * The reports of the demo dashboard: each a Cube query over `demoModel()` (its `jsonQuery`) and
 * the chart that shows its rows (`spec`: chart settings only; the rows come from the query on
 * every load). Field keys are the rows' keys, as Cube names them.
 */
export function demoReports() {
  const revenue = 'order_items.revenue';
  return [
    {
      key: 'revenue',
      name: 'Revenue',
      query: { measures: [revenue] },
      spec: { type: 'kpi', y: revenue, unit: '$' },
    },
    {
      key: 'orders',
      name: 'Orders',
      query: { measures: ['orders.count'] },
      spec: { type: 'kpi', y: 'orders.count' },
    },
    {
      key: 'completion',
      name: 'Completion rate',
      query: { measures: ['orders.completion_rate'] },
      spec: { type: 'kpi', y: 'orders.completion_rate', unit: '%' },
    },
    {
      key: 'trend',
      name: 'Revenue over time',
      query: {
        measures: [revenue],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: DEMO_PERIOD }],
        order: { 'orders.created_at': 'asc' },
      },
      spec: { type: 'area', x: 'orders.created_at.month', y: revenue, unit: '$' },
    },
    {
      key: 'status',
      name: 'Orders by status',
      query: { measures: ['orders.count'], dimensions: ['orders.status'], order: { 'orders.count': 'desc' } },
      spec: { type: 'donut', x: 'orders.status', y: 'orders.count' },
    },
    {
      key: 'categories',
      name: 'Revenue by category',
      query: { measures: [revenue], dimensions: ['products.category'], order: { [revenue]: 'desc' } },
      spec: { type: 'bar', x: 'products.category', y: revenue, unit: '$' },
    },
    {
      key: 'countries',
      name: 'Orders by country',
      query: {
        measures: ['orders.count'],
        dimensions: ['customers.country'],
        order: { 'orders.count': 'desc' },
      },
      spec: { type: 'bar', x: 'customers.country', y: 'orders.count' },
    },
    {
      key: 'products',
      name: 'Top products',
      query: {
        measures: [revenue, 'order_items.quantity'],
        dimensions: ['products.name', 'products.category'],
        order: { [revenue]: 'desc' },
        limit: 10,
      },
      spec: { type: 'table' },
    },
  ];
}

/**
 * Where each widget sits at each breakpoint, as `[x, y, w, h]` on its grid: lg 12 columns (the
 * widget's `position`), md 10, sm 6, xs 4 and xxs 2 (a 360 px phone, where everything stacks).
 * A row is 75 px: a control takes one, a KPI two, a chart four, the table five.
 */
// biome-ignore format: one line per widget reads as a table
const DEMO_LAYOUT = {
  //            lg 12          md 10          sm 6           xs 4           xxs 2
  country:    [[0, 0, 6, 1],  [0, 0, 5, 1],  [0, 0, 3, 1],  [0, 0, 4, 1],  [0, 0, 2, 1]],
  grain:      [[6, 0, 6, 1],  [5, 0, 5, 1],  [3, 0, 3, 1],  [0, 1, 4, 1],  [0, 1, 2, 1]],
  revenue:    [[0, 1, 4, 2],  [0, 1, 3, 2],  [0, 1, 2, 2],  [0, 2, 4, 2],  [0, 2, 2, 2]],
  orders:     [[4, 1, 4, 2],  [3, 1, 3, 2],  [2, 1, 2, 2],  [0, 4, 2, 2],  [0, 4, 2, 2]],
  completion: [[8, 1, 4, 2],  [6, 1, 4, 2],  [4, 1, 2, 2],  [2, 4, 2, 2],  [0, 6, 2, 2]],
  trend:      [[0, 3, 8, 4],  [0, 3, 6, 4],  [0, 3, 6, 4],  [0, 6, 4, 4],  [0, 8, 2, 4]],
  status:     [[8, 3, 4, 4],  [6, 3, 4, 4],  [0, 7, 3, 4],  [0, 10, 4, 4], [0, 12, 2, 4]],
  categories: [[0, 7, 6, 4],  [0, 7, 5, 4],  [3, 7, 3, 4],  [0, 14, 4, 4], [0, 16, 2, 4]],
  countries:  [[6, 7, 6, 4],  [5, 7, 5, 4],  [0, 11, 6, 4], [0, 18, 4, 4], [0, 20, 2, 4]],
  products:   [[0, 11, 12, 5], [0, 11, 10, 5], [0, 15, 6, 5], [0, 22, 4, 5], [0, 24, 2, 5]],
};

/**
 * The demo dashboard (a draft for `PUT …/workbooks/{id}/dashboard`): a country filter and a time
 * grain control over the orders' dates, then the charts of `demoReports()`. `reportIds` maps each
 * report's key to the id the API gave it.
 */
export function demoDashboard(reportIds) {
  const box = ([x, y, w, h]) => ({ x, y, w, h });
  const placed = (id) => {
    const [lg, md, sm, xs, xxs] = DEMO_LAYOUT[id].map(box);
    return { position: lg, responsiveLayouts: { lg, md, sm, xs, xxs } };
  };
  return {
    kind: 'CLASSIC',
    title: 'Sales overview',
    layout: { rowHeight: 75 },
    widgets: [
      {
        id: 'country',
        type: 'FILTER',
        ...placed('country'),
        config: { label: 'Country', member: 'customers.country' },
      },
      {
        id: 'grain',
        type: 'TIME_GRAIN',
        ...placed('grain'),
        config: { label: 'Period', member: 'orders.created_at', grain: 'month' },
      },
      ...demoReports().map((report) => ({
        id: report.key,
        type: 'CHART',
        ...placed(report.key),
        config: { reportId: reportIds[report.key] },
      })),
    ],
  };
}
