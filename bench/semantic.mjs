// The semantic layer over both stores: the demo shop (scripts/demo-data.mjs) at about 1.4 million
// rows (400,000 orders, ~1,000,000 order items; 20,000 orders with --quick) loaded into a
// throwaway PostgreSQL server and into a deployment's embedded store, each behind a deployment
// serving the demo model. For each store:
//
// - cold overhead: a few representative queries with renewQuery (the result cache is skipped),
//   run sequentially through /cubejs-api/v1/load, against the same SQL and parameters (from
//   /cubejs-api/v1/sql) run on the engine itself: PostgreSQL from Node over a warm connection
//   (and over a fresh connection per query, as the data source connects), the embedded store by
//   calling its Durable Object's `query` RPC from Node;
// - warm latency: the same queries answered from the result cache, sequentially;
// - cached throughput: autocannon on a cached GET /load, against the floor of what a cached load
//   costs (two D1 reads side by side, the serving build and the data source settings, then a
//   Cache API hit).
import pg from 'pg';
import { demoModel, demoTables } from '../scripts/demo-data.mjs';
import { startPostgres } from '../scripts/postgres.mjs';
import { ms, pad, pct, timed } from './helpers/figures.mjs';
import {
  deployModel,
  loadEmbedded,
  loadPostgres,
  onFreshConnection,
  SCHEMA,
  usePostgres,
} from './helpers/stores.mjs';

const MAX_ROWS = 50_000; // the data service's MAX_RESULT_ROWS

const QUERIES = [
  {
    name: 'revenue by category and month (view sales, 4 tables)',
    query: {
      measures: ['sales.revenue'],
      dimensions: ['sales.products_category'],
      timeDimensions: [{ dimension: 'sales.created_at', granularity: 'month' }],
      order: { 'sales.created_at': 'asc' },
    },
  },
  {
    name: 'orders count by status',
    query: { measures: ['orders.count'], dimensions: ['orders.status'] },
  },
  {
    name: 'web orders in Q1 2025 (filter + date range)',
    query: {
      measures: ['orders.count', 'orders.completion_rate'],
      timeDimensions: [{ dimension: 'orders.created_at', dateRange: ['2025-01-01', '2025-03-31'] }],
      filters: [{ member: 'orders.channel', operator: 'equals', values: ['web'] }],
    },
  },
];
/** The cached-throughput query: `orders` refreshes every minute, so a round stays cached. */
const CACHED_QUERY = QUERIES[1].query;

async function must(promise, what) {
  const res = await promise;
  if (res.status >= 300)
    throw new Error(`semantic bench, ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function cube(ctx, token, op, query) {
  const res = await fetch(
    `${ctx.url}/cubejs-api/v1/${op}?query=${encodeURIComponent(JSON.stringify(query))}`,
    {
      headers: { authorization: token },
    },
  );
  const body = await res.json();
  if (res.status !== 200) throw new Error(`semantic bench, ${op}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** The SQL and parameters the data service runs for a query, from /sql. */
async function sqlOf(ctx, token, query) {
  const body = await cube(ctx, token, 'sql', query);
  const [sql, params] = body.sql.sql;
  return { sql, params };
}

/**
 * How each store runs a statement by itself. PostgreSQL: from Node on the same server, over a
 * connection kept open (the engine's time) and over a fresh one per statement with the read-only
 * transaction the data source opens (what a connection per query costs). The embedded store: its
 * Durable Object's `query` RPC called from Node through Miniflare, which adds the Node-to-workerd
 * hop; `SELECT 1` through the same path measures that hop.
 */
async function engines(ctx, server, embeddedId) {
  const warm = new pg.Client(server);
  warm.on('error', () => {});
  await warm.connect();
  await warm.query("SET TIME ZONE 'UTC'");
  const ns = await ctx.mf.getDurableObjectNamespace('DEPLOYMENT_STORE');
  const store = ns.get(ns.idFromName(`deployment:${embeddedId}`));
  return {
    postgres: {
      label: 'PostgreSQL, warm connection from Node',
      run: async (sql, params) => (await warm.query(sql, params)).rows.length,
      fresh: {
        label: 'PostgreSQL, fresh connection + BEGIN READ ONLY',
        run: (sql, params) => onFreshConnection(server, { sql, params }),
      },
    },
    embedded: {
      label: 'Durable Object query() RPC from Node',
      hop: true,
      run: async (sql, params) => {
        const answer = await store.query(sql, params, MAX_ROWS);
        if (answer.error) throw new Error(`embedded store: ${answer.error.message}`);
        return answer.rows.length;
      },
    },
    close: () => warm.end(),
  };
}

/** Cold queries through /load against the same SQL on the engine; N sequential runs each. */
async function coldOverhead(ctx, store, token, engine, runs) {
  const lines = [];
  const head = ['query', 'via', 'median ms', 'p90 ms', 'rows'];
  const widths = [54, 48, 11, 9, 6];
  lines.push(head.map((h, i) => pad(h, widths[i])).join(''));
  const row = (cells) => lines.push(cells.map((c, i) => pad(c, widths[i])).join(''));
  let hop = 0;
  if (engine.probe) {
    const times = [];
    for (let i = 0; i < runs * 3; i++) times.push((await timed(() => engine.probe())).ms);
    row(['SELECT 1', engine.label, ms(pct(times, 50)), ms(pct(times, 90)), 1]);
    // For the embedded store the probe is the Node-to-workerd hop, not the engine's work.
    if (engine.hop) hop = pct(times, 50);
  }
  for (const { name, query } of QUERIES) {
    const { sql, params } = await sqlOf(ctx, token, query);
    const fresh = { ...query, renewQuery: true };
    // One untimed run of each path first: the engine's caches, the isolate's compiled model.
    await cube(ctx, token, 'load', fresh);
    const rows = await engine.run(sql, params);
    const load = [];
    const direct = [];
    const viaFresh = [];
    for (let i = 0; i < runs; i++) {
      load.push((await timed(() => cube(ctx, token, 'load', fresh))).ms);
      direct.push((await timed(() => engine.run(sql, params))).ms);
      if (engine.fresh) viaFresh.push((await timed(() => engine.fresh.run(sql, params))).ms);
    }
    const l50 = pct(load, 50);
    const d50 = pct(direct, 50);
    row([name, 'GET /cubejs-api/v1/load, renewQuery', ms(l50), ms(pct(load, 90)), rows]);
    row(['', engine.label, ms(d50), ms(pct(direct, 90)), rows]);
    if (engine.fresh) row(['', engine.fresh.label, ms(pct(viaFresh, 50)), ms(pct(viaFresh, 90)), rows]);
    row(['', `overhead of /load (${store})`, `+${ms(l50 - d50)}`, `${(l50 / d50).toFixed(2)}x`, '']);
    if (hop > 0) {
      const e50 = Math.max(0.01, d50 - hop);
      row([
        '',
        `overhead, engine less the RPC hop (${ms(e50)} ms)`,
        `+${ms(l50 - e50)}`,
        `${(l50 / e50).toFixed(2)}x`,
        '',
      ]);
    }
  }
  return lines;
}

/** The queries answered from the result cache: a first run fills it, then N sequential runs. */
async function warmLatency(ctx, token, runs) {
  const lines = [];
  const widths = [54, 10, 10, 10, 8];
  lines.push(['query', 'p50 ms', 'p99 ms', 'max ms', 'hits'].map((h, i) => pad(h, widths[i])).join(''));
  for (const { name, query } of QUERIES) {
    const first = await cube(ctx, token, 'load', query);
    const times = [];
    let hits = 0;
    for (let i = 0; i < runs; i++) {
      const { ms: t, value } = await timed(() => cube(ctx, token, 'load', query));
      times.push(t);
      // A hit answers the rows of the run that filled the cache, with its refresh time.
      if (value.lastRefreshTime === first.lastRefreshTime) hits += 1;
    }
    lines.push(
      [name, ms(pct(times, 50)), ms(pct(times, 99)), ms(Math.max(...times)), `${hits}/${runs}`]
        .map((c, i) => pad(c, widths[i]))
        .join(''),
    );
  }
  return lines;
}

export default async function semantic(ctx) {
  const orders = ctx.quick ? 20_000 : 400_000;
  const tables = demoTables({ orders });
  const rowCount = tables.reduce((n, t) => n + t.rows.length, 0);
  const size = `${orders.toLocaleString('en')} orders, ${rowCount.toLocaleString('en')} rows in all${ctx.quick ? ' (--quick scale)' : ''}`;
  console.log(`semantic bench: demo shop at ${size}`);

  const server = await startPostgres();
  ctx.defer(() => server.stop());
  let started = Date.now();
  await loadPostgres(server, tables);
  const pgLoad = Date.now() - started;
  console.log(
    `semantic bench: PostgreSQL loaded (COPY, indexes, ANALYZE) in ${(pgLoad / 1000).toFixed(1)} s`,
  );

  const create = async (name) =>
    (
      await must(
        ctx.api('POST', '/build/api/v1/deployments', { auth: ctx.world.admin, body: { name } }),
        'deployment',
      )
    ).id;
  console.log('semantic bench: creating deployments…');
  const pgId = await create('Semantic PostgreSQL');
  const embeddedId = await create('Semantic embedded');
  await usePostgres(ctx, pgId, server);
  console.log('semantic bench: building the PostgreSQL deployment…');
  const pgToken = await deployModel(ctx, pgId, demoModel(`${SCHEMA}.`));

  started = Date.now();
  await loadEmbedded(ctx, embeddedId, tables);
  const embeddedLoad = Date.now() - started;
  console.log(
    `semantic bench: embedded store imported (CSV chunks over HTTP) in ${(embeddedLoad / 1000).toFixed(1)} s`,
  );
  const embeddedToken = await deployModel(ctx, embeddedId, demoModel(''));

  console.log('semantic bench: built; connecting to both engines…');
  const engine = await engines(ctx, server, embeddedId);
  ctx.defer(() => engine.close());
  const ns = await ctx.mf.getDurableObjectNamespace('DEPLOYMENT_STORE');
  const stub = ns.get(ns.idFromName(`deployment:${embeddedId}`));
  engine.embedded.probe = () => stub.query('SELECT 1 AS x', [], 1);
  engine.postgres.probe = () => engine.postgres.run('SELECT 1 AS x', []);

  const runs = ctx.quick ? 5 : 9;
  const warmRuns = ctx.quick ? 30 : 100;
  const stores = [
    { store: 'PostgreSQL', token: pgToken, engine: engine.postgres },
    { store: 'embedded', token: embeddedToken, engine: engine.embedded },
  ];
  const qs = new URLSearchParams({ query: JSON.stringify(CACHED_QUERY) });
  return [
    {
      name: `semantic: dataset`,
      run: async () => [
        `${size}; PostgreSQL load ${(pgLoad / 1000).toFixed(1)} s, embedded import ${(embeddedLoad / 1000).toFixed(1)} s`,
      ],
    },
    ...stores.flatMap(({ store, token, engine: e }) => [
      {
        name: `semantic: cold query overhead, ${store} (renewQuery, ${runs} sequential runs each)`,
        run: () => coldOverhead(ctx, store, token, e, runs),
      },
      {
        name: `semantic: warm (cached) latency, ${store} (${warmRuns} sequential runs each)`,
        run: () => warmLatency(ctx, token, warmRuns),
      },
      {
        name: `semantic: cached GET /cubejs-api/v1/load, ${store} (orders count by status)`,
        method: 'GET',
        path: `/cubejs-api/v1/load?${qs}`,
        headers: { authorization: token },
        floor: '2d1+cache',
      },
    ]),
  ];
}
