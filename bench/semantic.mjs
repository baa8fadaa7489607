// The semantic layer over both stores: the demo shop (scripts/demo-data.mjs) at 100,000 and
// 1,000,000 orders (about 350,000 and 3.5 million rows; 20,000 orders with --quick, or the scales
// of `--orders 100000,1000000`), each scale loaded into a schema of a throwaway PostgreSQL server
// and into a deployment's embedded store, each behind deployments serving the demo model. A
// PgBouncer (scripts/pgbouncer.mjs, transaction mode) in front of the server stands in for
// Hyperdrive's pool: PostgreSQL is measured direct (a new server connection per query) and
// pooled (a new client connection to the pooler, which lends a server connection it keeps).
// For each store and scale:
//
// - cold overhead: a few representative queries with renewQuery (the result cache is skipped),
//   run sequentially through /cubejs-api/v1/load, each run paired with the same SQL and
//   parameters (from /cubejs-api/v1/sql) run on the engine itself: PostgreSQL from Node over a
//   warm connection (and over a fresh connection per query, as the data source connects), the
//   embedded store by calling its Durable Object's `query` RPC from Node. The overhead is the
//   median of the paired differences; the breakdown is the median of each phase of the Worker's
//   `server-timing` header (EXPOSE_DB_METRICS: token, D1 reads, cache, connect, query, shaping).
//   Beside it, "in the request": the /load's time less the Worker's own span of the query's
//   round trip in the same request (`pg-query`; PostgreSQL only), which no second run of the
//   query disturbs: on a query that takes seconds, two runs differ by more than the overhead;
//   and, for PostgreSQL, the platform floor: the floor Worker's cold read of the same SQL on a
//   fresh connection to the same server (bench/floor-pg.js: the login, the read as edgeboard
//   frames it, a Cache API write, and no driver or planning), its time "in the request" as for
//   the /load, and the /load's figure over it: what any Worker pays here, and what edgeboard adds;
// - warm latency: the same queries answered from the result cache, sequentially, each run paired
//   with a trivial Worker's route that makes one Cache API read (the floor Worker's `/cache`);
// - cached throughput: autocannon on a cached GET /load, against that floor.
import pg from 'pg';
import { demoModel, demoTables } from '../scripts/demo-data.mjs';
import { startPgBouncer } from '../scripts/pgbouncer.mjs';
import { startPostgres } from '../scripts/postgres.mjs';
import { startDelayProxy } from './helpers/delay-proxy.mjs';
import { median, ms, pad, pct, phasesOf, timed } from './helpers/figures.mjs';
import {
  deployModel,
  loadEmbedded,
  loadPostgres,
  onFreshConnection,
  usePostgres,
} from './helpers/stores.mjs';

const MAX_ROWS = 50_000; // the data service's MAX_RESULT_ROWS
/**
 * Sent with a second load of each cold run: bench/geo-entry.js answers the request's Cache API
 * writes at once, so the pair says what the emulated write (which runs in waitUntil, on workerd's
 * one thread beside the answer) adds to a cold /load here.
 */
const CACHE_WRITE_OFF = { 'x-bench-off': 'cache-put' };
/** Where the bench's PgBouncer listens (`--pgbouncer-port`). */
const PGBOUNCER_PORT = 8816;

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
  {
    name: 'orders by day in 2024 (366 rows)',
    query: {
      measures: ['orders.count'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'day', dateRange: ['2024-01-01', '2024-12-31'] },
      ],
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

async function cubeWithPhases(ctx, token, op, query, headers = {}) {
  const res = await fetch(
    `${ctx.url}/cubejs-api/v1/${op}?query=${encodeURIComponent(JSON.stringify(query))}`,
    { headers: { authorization: token, ...headers } },
  );
  const text = await res.text();
  if (res.status !== 200) throw new Error(`semantic bench, ${op}: ${res.status} ${text}`);
  return { body: JSON.parse(text), phases: phasesOf(res.headers.get('server-timing')), bytes: text.length };
}

const cube = async (ctx, token, op, query) => (await cubeWithPhases(ctx, token, op, query)).body;

/** The SQL and parameters the data service runs for a query, from /sql. */
async function sqlOf(ctx, token, query) {
  const body = await cube(ctx, token, 'sql', query);
  const [sql, params] = body.sql.sql;
  return { sql, params };
}

/** The phases' medians over runs, in the order they first appear, as `name m` text. */
function phaseMedians(runs) {
  const names = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  return names.map((name) => [name, median(runs.map((r) => r[name] ?? 0))]);
}
const phaseText = (medians) => medians.map(([name, m]) => `${name} ${ms(m)}`).join(', ');

/** A timed /load: its total time and the Worker's phases; what is not in a phase is `other`. */
async function timedLoad(ctx, token, query, headers) {
  const { ms: total, value } = await timed(() => cubeWithPhases(ctx, token, 'load', query, headers));
  // `worker` spans the request inside the Worker; the phases run within it (D1 reads side by side).
  const { worker = total, ...phases } = value.phases;
  const d1 = Math.max((phases['d1-build'] ?? 0) + (phases['d1-model'] ?? 0), phases['d1-source'] ?? 0);
  const inPhases = Object.entries(phases).reduce(
    (sum, [name, ms]) => sum + (name.startsWith('d1-') ? 0 : ms),
    d1,
  );
  return {
    total,
    phases: {
      ...phases,
      'other in the Worker (routing, validation, JSON)': Math.max(0, worker - inPhases),
      'HTTP to the Worker': Math.max(0, total - worker),
    },
  };
}

/**
 * Cold queries through /load, each run paired with the same SQL on the engine (and, for
 * PostgreSQL, on a fresh connection as the data source makes one); the overhead is the median of
 * the paired differences.
 */
async function coldOverhead(ctx, store, token, engine, runs) {
  const lines = [];
  const overheads = [];
  const inRequestOverheads = [];
  // The same loads with the emulated Cache API write switched off (bench/geo-entry.js).
  const offOverheads = [];
  const offInRequestOverheads = [];
  // PostgreSQL, in the request: the floor Worker's read of the same SQL, and the /load over it.
  const overFloors = [];
  const floorOverheads = [];
  let hop = 0;
  if (engine.probe) {
    const times = [];
    for (let i = 0; i < 15; i++) times.push((await timed(() => engine.probe())).ms);
    // For the embedded store the probe is the Node-to-workerd hop, not the engine's work.
    if (engine.hop) hop = pct(times, 50);
    lines.push(`SELECT 1 through ${engine.label}: p50 ${ms(pct(times, 50))} ms`);
  }
  for (const { name, query } of QUERIES) {
    const { sql, params } = await sqlOf(ctx, token, query);
    const fresh = { ...query, renewQuery: true };
    // One untimed run of each path first: the engine's caches, the isolate's compiled model.
    await cube(ctx, token, 'load', fresh);
    const rows = await engine.run(sql, params);
    const first = (await timed(() => engine.run(sql, params))).ms;
    // Scans of the whole dataset take seconds: a few runs say enough about them.
    const n = first > 2000 ? 1 : first > 300 ? Math.min(runs, 3) : runs;
    const load = [];
    const direct = [];
    const paired = [];
    const inRequest = [];
    const viaFresh = [];
    const phases = [];
    const pairedOff = [];
    const inRequestOff = [];
    const overFloor = [];
    const floorOver = [];
    for (let i = 0; i < n; i++) {
      const l = await timedLoad(ctx, token, fresh);
      const d = Math.max(0.01, (await timed(() => engine.run(sql, params))).ms - hop);
      const off = await timedLoad(ctx, token, fresh, CACHE_WRITE_OFF);
      load.push(l.total);
      phases.push(l.phases);
      direct.push(d);
      paired.push(l.total - d);
      pairedOff.push(off.total - d);
      if (engine.queryPhase) {
        inRequest.push(l.total - (l.phases[engine.queryPhase] ?? 0));
        inRequestOff.push(off.total - (off.phases[engine.queryPhase] ?? 0));
      }
      if (engine.fresh) viaFresh.push((await timed(() => engine.fresh.run(sql, params))).ms);
      if (engine.floor) {
        const f = await engine.floor(sql, params);
        if (f.rows !== rows)
          throw new Error(`semantic bench, floor read of ${name}: ${f.rows} rows, not ${rows}`);
        // In the request, as the /load's own figure: no second run of the query to differ from.
        overFloor.push(l.total - (l.phases[engine.queryPhase] ?? 0) - f.inRequest);
        floorOver.push(f.inRequest);
      }
    }
    const over = median(paired);
    overheads.push(over);
    if (inRequest.length > 0) inRequestOverheads.push(median(inRequest));
    offOverheads.push(median(pairedOff));
    if (inRequestOff.length > 0) offInRequestOverheads.push(median(inRequestOff));
    if (overFloor.length > 0) {
      overFloors.push(median(overFloor));
      floorOverheads.push(median(floorOver));
    }
    lines.push(
      `${pad(name, 54)} ${pad(`${rows} rows`, 10)} /load ${ms(median(load))} ms, engine ${ms(median(direct))} ms` +
        `${hop ? ` (less the RPC hop ${ms(hop)})` : ''}${engine.fresh ? `, ${engine.fresh.label} ${ms(median(viaFresh))} ms` : ''}` +
        `: overhead p50 +${ms(over)} ms (p90 +${ms(pct(paired, 90))}; ${n} runs)` +
        (inRequest.length > 0 ? `, in the request +${ms(median(inRequest))} ms` : ''),
    );
    lines.push(`${pad('', 56)}${phaseText(phaseMedians(phases))}`);
    lines.push(
      `${pad('', 56)}without the Cache API write: overhead p50 +${ms(median(pairedOff))} ms` +
        (inRequestOff.length > 0 ? `, in the request +${ms(median(inRequestOff))} ms` : ''),
    );
    if (overFloor.length > 0)
      lines.push(
        `${pad('', 56)}platform floor (a fresh connection's login, the read, a Cache API write): ` +
          `+${ms(median(floorOver))} ms in the request; the /load +${ms(median(overFloor))} ms over it`,
      );
  }
  const figures = (paired, inRequest) =>
    `+${ms(median(paired))} ms${inRequest.length > 0 ? ` paired, +${ms(median(inRequest))} ms in the request` : ''}`;
  lines.push(
    `overhead of a cold /load over the engine (${store}), median over the queries: ${figures(overheads, inRequestOverheads)}; ` +
      `without the Cache API write ${figures(offOverheads, offInRequestOverheads)}` +
      (overFloors.length > 0
        ? `; the platform floor +${ms(median(floorOverheads))} ms in the request, the /load +${ms(median(overFloors))} ms over the floor`
        : ''),
  );
  return {
    lines,
    overhead: median(overheads),
    inRequest: inRequestOverheads.length > 0 ? median(inRequestOverheads) : undefined,
    withoutCacheWrite: figures(offOverheads, offInRequestOverheads),
    floor: overFloors.length > 0 ? { over: median(floorOverheads), under: median(overFloors) } : undefined,
  };
}

/**
 * The queries answered from the result cache, each run paired with the floor Worker's one Cache
 * API read: p50 of each, and their ratio.
 */
async function warmLatency(ctx, token, runs) {
  const lines = [];
  const floorTimes = [];
  const loads = [];
  for (const { name, query } of QUERIES) {
    const first = await cube(ctx, token, 'load', query);
    const times = [];
    const phases = [];
    let hits = 0;
    for (let i = 0; i < runs; i++) {
      floorTimes.push((await timed(() => fetch(`${ctx.floorUrl}/cache`).then((r) => r.arrayBuffer()))).ms);
      const l = await timedLoad(ctx, token, query);
      times.push(l.total);
      phases.push(l.phases);
      const again = await cube(ctx, token, 'load', query);
      // A hit answers the rows of the run that filled the cache, with its refresh time.
      if (again.lastRefreshTime === first.lastRefreshTime) hits += 1;
    }
    loads.push(...times);
    lines.push(
      `${pad(name, 54)} p50 ${ms(pct(times, 50))} ms, p99 ${ms(pct(times, 99))} ms, hits ${hits}/${runs}: ${phaseText(phaseMedians(phases))}`,
    );
  }
  const ratio = pct(loads, 50) / pct(floorTimes, 50);
  lines.push(
    `cached /load p50 ${ms(pct(loads, 50))} ms vs a trivial Worker's one Cache API read p50 ${ms(pct(floorTimes, 50))} ms (paired runs): ${ratio.toFixed(2)}x (goal <= 1.5x ${ratio <= 1.5 ? 'MET' : 'NOT MET'})`,
  );
  return lines;
}

/**
 * The floor Worker's cold read of `sql` on a fresh connection to `server` (bench/floor-pg.js),
 * its answer written to the Cache API as a cold /load's: its time, that time less its own span of
 * the query's round trip (as "in the request" for the /load), and the rows it read.
 */
async function floorRead(ctx, server, sql, params) {
  const { host, port, user, password, database } = server;
  const { ms: total, value } = await timed(async () => {
    const res = await fetch(`${ctx.floorUrl}/pg`, {
      method: 'POST',
      body: JSON.stringify({
        target: { host, port, user, password, database },
        sql,
        params,
        timeoutMs: 30_000,
      }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`semantic bench, floor read: ${res.status} ${text}`);
    return {
      rows: JSON.parse(text).rows.length,
      query: phasesOf(res.headers.get('server-timing'))['pg-query'],
    };
  });
  return { ms: total, rows: value.rows, inRequest: total - value.query };
}

/** `--orders 100000,1000000`: the scales to measure. */
function scales(quick) {
  const i = process.argv.indexOf('--orders');
  if (i >= 0) return process.argv[i + 1].split(',').map(Number);
  return quick ? [20_000] : [100_000, 1_000_000];
}

export default async function semantic(ctx) {
  const server = await startPostgres();
  ctx.defer(() => server.stop());
  const portFlag = process.argv.indexOf('--pgbouncer-port');
  const bouncer = await startPgBouncer(server, {
    port: portFlag >= 0 ? Number(process.argv[portFlag + 1]) : PGBOUNCER_PORT,
  });
  ctx.defer(() => bouncer.stop());
  // --network-delay <ms>: the Worker and Node reach PostgreSQL and PgBouncer through a proxy that
  // delays every chunk by that much each way, so round trips cost what a network makes them cost.
  const delayFlag = process.argv.indexOf('--network-delay');
  const delayMs = delayFlag >= 0 ? Number(process.argv[delayFlag + 1]) : 0;
  const reach = async (target) => {
    if (!(delayMs > 0)) return target;
    const proxy = await startDelayProxy(target, delayMs);
    ctx.defer(() => proxy.stop());
    return proxy;
  };
  const direct = await reach(server);
  const pooled = await reach(bouncer);
  if (delayMs > 0)
    console.log(`semantic bench: PostgreSQL and PgBouncer reached with ${delayMs} ms each way`);
  const create = async (name) =>
    (
      await must(
        ctx.api('POST', '/build/api/v1/deployments', { auth: ctx.world.admin, body: { name } }),
        'deployment',
      )
    ).id;

  const warm = new pg.Client(direct);
  warm.on('error', () => {});
  await warm.connect();
  await warm.query("SET TIME ZONE 'UTC'");
  ctx.defer(() => warm.end());
  const ns = await ctx.mf.getDurableObjectNamespace('DEPLOYMENT_STORE');

  const sets = [];
  const datasetLines = [];
  for (const orders of scales(ctx.quick)) {
    const label = `${orders.toLocaleString('en')} orders`;
    let started = Date.now();
    const tables = demoTables({ orders });
    const generated = Date.now() - started;
    const rowCount = tables.reduce((n, t) => n + t.rows.length, 0);
    const schema = `shop_${orders}`;
    started = Date.now();
    await loadPostgres(server, tables, schema);
    const pgLoad = Date.now() - started;
    const directId = await create(`Semantic PostgreSQL ${label}`);
    const pooledId = await create(`Semantic PostgreSQL pooled ${label}`);
    const embeddedId = await create(`Semantic embedded ${label}`);
    await usePostgres(ctx, directId, direct);
    await usePostgres(ctx, pooledId, pooled);
    const directToken = await deployModel(ctx, directId, demoModel(`${schema}.`, { rollups: false }));
    const pooledToken = await deployModel(ctx, pooledId, demoModel(`${schema}.`, { rollups: false }));
    started = Date.now();
    await loadEmbedded(ctx, embeddedId, tables);
    const embeddedLoad = Date.now() - started;
    const embeddedToken = await deployModel(ctx, embeddedId, demoModel('', { rollups: false }));
    const line = `${label}, ${rowCount.toLocaleString('en')} rows: generated in ${(generated / 1000).toFixed(1)} s, PostgreSQL load (COPY, indexes, ANALYZE) ${(pgLoad / 1000).toFixed(1)} s, embedded import (CSV over HTTP) ${(embeddedLoad / 1000).toFixed(1)} s`;
    console.log(`semantic bench: ${line}`);
    datasetLines.push(line);
    const stub = ns.get(ns.idFromName(`deployment:${embeddedId}`));
    const pgEngine = (via, viaLabel) => ({
      label: 'PostgreSQL, warm connection from Node',
      // The Worker's own span of the query's round trip (BEGIN, the query and COMMIT, one Sync).
      queryPhase: 'pg-query',
      run: async (sql, params) => (await warm.query(sql, params)).rows.length,
      probe: () => warm.query('SELECT 1 AS x'),
      fresh: { label: viaLabel, run: (sql, params) => onFreshConnection(via, { sql, params }) },
      floor: (sql, params) => floorRead(ctx, via, sql, params),
    });
    sets.push(
      {
        store: `PostgreSQL direct, ${label}`,
        token: directToken,
        engine: pgEngine(direct, 'fresh connection'),
      },
      {
        store: `PostgreSQL pooled (PgBouncer), ${label}`,
        token: pooledToken,
        engine: pgEngine(pooled, 'fresh connection to PgBouncer'),
      },
      {
        store: `embedded, ${label}`,
        token: embeddedToken,
        engine: {
          label: 'Durable Object query() RPC from Node',
          hop: true,
          // No figure "in the request": the store runs in workerd's own thread, where the Worker's
          // clock does not see all of its time, so its `store-query` span falls short of the query.
          probe: () => stub.query('SELECT 1 AS x', [], 1),
          run: async (sql, params) => {
            const answer = await stub.query(sql, params, MAX_ROWS);
            if (answer.error) throw new Error(`embedded store: ${answer.error.message}`);
            return answer.rows.length;
          },
        },
      },
    );
  }

  const runs = ctx.quick ? 5 : 9;
  const warmRuns = ctx.quick ? 20 : 50;
  const qs = new URLSearchParams({ query: JSON.stringify(CACHED_QUERY) });
  const overheads = [];
  return [
    { name: 'semantic: datasets', run: async () => datasetLines },
    ...sets.flatMap(({ store, token, engine }) => [
      {
        name: `semantic: cold query overhead, ${store} (renewQuery, ${runs} paired runs each)`,
        run: async () => {
          const { lines, overhead, inRequest, withoutCacheWrite, floor } = await coldOverhead(
            ctx,
            store,
            token,
            engine,
            runs,
          );
          overheads.push([store, overhead, inRequest, withoutCacheWrite, floor]);
          return lines;
        },
      },
      {
        name: `semantic: warm (cached) latency, ${store} (${warmRuns} paired runs each)`,
        run: () => warmLatency(ctx, token, warmRuns),
      },
    ]),
    {
      name: 'semantic: cold overhead by store and scale (median over the queries of the p50s: paired with the engine / in the request)',
      run: async () =>
        overheads.map(
          ([store, o, r, off, floor]) =>
            `${pad(store, 50)} +${ms(o)} ms paired${r === undefined ? '' : `, +${ms(r)} ms in the request`}` +
            ` (without the Cache API write: ${off})` +
            (floor
              ? `; platform floor +${ms(floor.over)} ms in the request, the /load +${ms(floor.under)} ms over it`
              : ''),
        ),
    },
    ...sets
      .filter((_, i) => i >= sets.length - 3)
      .map(({ store, token }) => ({
        name: `semantic: cached GET /cubejs-api/v1/load, ${store} (orders count by status)`,
        method: 'GET',
        path: `/cubejs-api/v1/load?${qs}`,
        headers: { authorization: token },
        floor: 'cache',
      })),
  ];
}
