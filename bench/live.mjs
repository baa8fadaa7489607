// A live dashboard: eight charts whose reports are Cube queries over the demo shop
// (scripts/demo-data.mjs) in a deployment's embedded store, with a FILTER control on
// `orders.status` and a TIME_GRAIN control on `orders.created_at`, loaded through the embed load
// API (`GET /api/v1/embed/dashboard/{publicId}`, Session auth). Every figure is a ratio or a
// difference taken in the same run, so machine drift cancels out:
//
// - cached load vs static load: throughput and latency of the live dashboard with a warm result
//   cache against the same layout whose reports are static `spec` rows (the rows the live load
//   answered), interleaved round by round (live, static, static, live, …);
// - cold load vs its slowest query: the load with every query missing the result cache (each
//   iteration sets the filter to a value list no earlier load used), against each of its eight
//   queries run alone through `/cubejs-api/v1/load` with a value list of its own.
//
// Both on the embedded store (one Durable Object, which runs one query at a time) and on the same
// data in a throwaway PostgreSQL server (scripts/postgres.mjs), where the eight queries run side
// by side, one connection each.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { demoModel, demoTables } from '../scripts/demo-data.mjs';
import { startPostgres } from '../scripts/postgres.mjs';
import { median, ms, pad, pct, timed } from './helpers/figures.mjs';
import {
  deployModel,
  loadEmbedded,
  loadPostgres,
  onFreshConnection,
  usePostgres,
} from './helpers/stores.mjs';

const STATUS = 'orders.status';
const FILTER_WIDGET = 'f-status';
const GRAIN_WIDGET = 'g-grain';
/** The live load bounds every chart's rows (MAX_LIVE_ROWS): the queries run alone carry it too. */
const LIVE_LIMIT = 1_000;
const YEAR = ['2025-01-01', '2025-12-31'];
const TWO_YEARS = ['2024-01-01', '2025-12-31'];

/** The eight charts: KPIs, lines by month, bars by category, a pie and a table, all reachable by the status filter. */
const CHARTS = [
  {
    id: 'c-kpi-orders',
    name: 'Orders and completion (KPI)',
    spec: { type: 'kpi' },
    query: {
      measures: ['orders.count', 'orders.completion_rate'],
      timeDimensions: [{ dimension: 'orders.created_at', dateRange: YEAR }],
    },
  },
  {
    id: 'c-kpi-revenue',
    name: 'Revenue and units (KPI)',
    spec: { type: 'kpi', unit: 'USD' },
    query: {
      measures: ['order_items.revenue', 'order_items.quantity'],
      timeDimensions: [{ dimension: 'orders.created_at', dateRange: YEAR }],
    },
  },
  {
    id: 'c-orders-month',
    name: 'Orders by month (line)',
    spec: { type: 'line' },
    query: {
      measures: ['orders.count'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: TWO_YEARS }],
    },
  },
  {
    id: 'c-revenue-month',
    name: 'Revenue by month (area)',
    spec: { type: 'area' },
    query: {
      measures: ['order_items.revenue'],
      timeDimensions: [{ dimension: 'orders.created_at', granularity: 'month', dateRange: TWO_YEARS }],
    },
  },
  {
    id: 'c-revenue-category',
    name: 'Revenue by category (bar)',
    spec: { type: 'bar' },
    query: {
      measures: ['order_items.revenue'],
      dimensions: ['products.category'],
      order: { 'order_items.revenue': 'desc' },
    },
  },
  {
    id: 'c-orders-channel',
    name: 'Orders by channel (bar)',
    spec: { type: 'bar' },
    query: { measures: ['orders.count'], dimensions: ['orders.channel'], order: { 'orders.channel': 'asc' } },
  },
  {
    id: 'c-orders-status',
    name: 'Orders by status (pie)',
    spec: { type: 'pie' },
    query: { measures: ['orders.count'], dimensions: ['orders.status'], order: { 'orders.status': 'asc' } },
  },
  {
    id: 'c-revenue-country',
    name: 'Revenue by country and segment (table)',
    spec: { type: 'table' },
    query: {
      measures: ['order_items.revenue', 'order_items.quantity'],
      dimensions: ['customers.country', 'customers.segment'],
      order: { 'order_items.revenue': 'desc' },
      limit: 50,
    },
  },
];

async function must(promise, what) {
  const res = await promise;
  if (res.status >= 300) throw new Error(`live bench, ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * The demo model with every cube refreshed hourly: a cached round must not see an entry expire
 * mid-round (the demo's cubes refresh every 10 s, `orders` every minute), or the "warm" figure
 * would mix in cold loads at random. Without its rollups: the board's queries read the data, so
 * that each can be run on the engine itself (a rollup's SQL is the deployment store's, not
 * PostgreSQL's), as the semantic bench measures them.
 */
function hourlyModel(prefix) {
  return demoModel(prefix, { rollups: false })
    .replace(/ {4}refresh_key:\n {6}every: 1 minute\n/, '')
    .replace(/( {4}sql_table: \S+\n)/g, '$1    refresh_key:\n      every: 1 hour\n');
}

/** The layout both boards share: the two controls on top, the eight charts in two columns. */
function layout(title, reportIds) {
  return {
    kind: 'CLASSIC',
    title,
    widgets: [
      {
        id: FILTER_WIDGET,
        type: 'FILTER',
        position: { x: 0, y: 0, w: 6, h: 1 },
        config: { member: STATUS, label: 'Status' },
      },
      {
        id: GRAIN_WIDGET,
        type: 'TIME_GRAIN',
        position: { x: 6, y: 0, w: 6, h: 1 },
        config: { member: 'orders.created_at', grain: 'month', label: 'Grain' },
      },
      ...CHARTS.map((chart, i) => ({
        id: chart.id,
        type: 'CHART',
        position: { x: (i % 2) * 6, y: 1 + Math.floor(i / 2) * 3, w: 6, h: 3 },
        config: { reportId: reportIds[i], title: chart.name },
      })),
    ],
  };
}

/** A workbook with one report per chart (built by `reportOf`), its dashboard published and embeddable. */
async function publishBoard(ctx, deploymentId, title, reportOf) {
  const auth = ctx.world.admin;
  const base = `/api/v1/deployments/${deploymentId}`;
  const workbook = await must(
    ctx.api('POST', `${base}/workbooks`, { auth, body: { name: title } }),
    'workbook',
  );
  const reportIds = [];
  for (const [i, chart] of CHARTS.entries()) {
    const report = await must(
      ctx.api('POST', `${base}/reports`, {
        auth,
        body: { name: chart.name, title: chart.name, workbookId: workbook.id, ...reportOf(chart, i) },
      }),
      `report ${chart.name}`,
    );
    reportIds.push(report.id);
  }
  await must(
    ctx.api('PUT', `${base}/workbooks/${workbook.id}/dashboard`, {
      auth,
      body: { dashboardDraft: layout(title, reportIds) },
    }),
    'draft',
  );
  const published = await must(
    ctx.api('POST', `${base}/workbooks/${workbook.id}/publish`, { auth, body: { title } }),
    'publish',
  );
  await must(
    ctx.api('PATCH', `/api/v1/embed/dashboard/${published.publicId}`, { auth, body: { allowEmbed: true } }),
    'allowEmbed',
  );
  return { publicId: published.publicId, reportIds };
}

const filtersParam = (values) => encodeURIComponent(JSON.stringify([{ widgetId: FILTER_WIDGET, values }]));

/** One embed load from Node, its rows checked: every chart answered, none with an error. */
async function embedLoad(ctx, session, publicId, values) {
  const query = values ? `?filters=${filtersParam(values)}` : '';
  const res = await fetch(`${ctx.url}/api/v1/embed/dashboard/${publicId}${query}`, {
    headers: { authorization: `Session ${session}` },
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`live bench, embed load: ${res.status} ${JSON.stringify(body)}`);
  const failed = body.reportSnapshots.filter((s) => s.error);
  if (failed.length > 0) throw new Error(`live bench, charts failed: ${JSON.stringify(failed)}`);
  return body;
}

/** The rows of each chart of a load, in CHARTS' order. */
function chartRows(body, reportIds) {
  return reportIds.map((id) => {
    const snapshot = body.reportSnapshots.find((s) => s.reportId === id);
    return JSON.parse(snapshot?.spec ?? '{}').data ?? null;
  });
}

/** A chart's query as the live load runs it: bounded rows, and the status filter when set. */
function asLoaded(query, values) {
  const bounded = { ...query, limit: Math.min(query.limit ?? LIVE_LIMIT, LIVE_LIMIT) };
  return values
    ? { ...bounded, filters: [...(query.filters ?? []), { member: STATUS, operator: 'equals', values }] }
    : bounded;
}

async function cubeLoad(ctx, token, query) {
  const res = await fetch(
    `${ctx.url}/cubejs-api/v1/load?query=${encodeURIComponent(JSON.stringify(query))}`,
    { headers: { authorization: token } },
  );
  const body = await res.json();
  if (res.status !== 200) throw new Error(`live bench, /load: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** Requests answered per second over the whole round (short rounds make the per-second samples coarse). */
const rate = (result) => result.requests.total / result.duration;

function autocannonRun(url, path, headers, duration, connections) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `${url}${path}`, connections, duration, headers, timeout: 30 }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

/**
 * Live (cached) and static loads, interleaved: rounds alternate which goes first (live, static,
 * static, live, …) so a drift in the machine's load hits both alike; the ratio is the median of
 * the per-round ratios.
 */
async function cachedVsStatic(ctx, boards, session, warm) {
  const { rounds, connections } = ctx.settings;
  // A round must see many loads finish: at 32 connections one takes a few hundred ms here.
  const duration = Math.max(ctx.settings.duration, 3);
  const headers = { authorization: `Session ${session}` };
  // Unloaded latency first: one load at a time, live and static alternating.
  // For scale, one cached query alone through /load (what each chart adds, plus that route's own auth and reads).
  const single = `${ctx.url}/cubejs-api/v1/load?query=${encodeURIComponent(JSON.stringify(asLoaded(CHARTS[6].query)))}`;
  // And what a D1 round trip and eight Cache API hits side by side cost by themselves in this
  // runtime, in a trivial Worker: a cached live load adds one round of D1 reads (the serving build
  // and the data source settings, side by side) and eight cache hits to a static load.
  const one = { live: [], static: [], single: [], trivial: [], d1: [], cache8: [] };
  const urls = {
    live: [`${ctx.url}/api/v1/embed/dashboard/${boards.live.publicId}`, headers],
    static: [`${ctx.url}/api/v1/embed/dashboard/${boards.static.publicId}`, headers],
    single: [single, { authorization: warm.token }],
    trivial: [`${ctx.floorUrl}/`, {}],
    d1: [`${ctx.floorUrl}/d1`, {}],
    cache8: [`${ctx.floorUrl}/cache8`, {}],
  };
  await fetch(urls.cache8[0]).then((r) => r.arrayBuffer());
  const kinds = Object.keys(urls);
  for (let i = 0; i < (ctx.quick ? 30 : 100); i++) {
    for (const which of i % 2 === 0 ? kinds : [...kinds].reverse()) {
      const [url, auth] = urls[which];
      one[which].push((await timed(async () => (await fetch(url, { headers: auth })).arrayBuffer())).ms);
    }
  }
  const live = [];
  const statics = [];
  const ratios = [];
  let non2xx = 0;
  for (let round = 0; round < rounds * 2; round++) {
    const order = round % 2 === 0 ? ['live', 'static'] : ['static', 'live'];
    const results = {};
    for (const which of order) {
      results[which] = await autocannonRun(
        ctx.url,
        `/api/v1/embed/dashboard/${boards[which].publicId}`,
        headers,
        duration,
        connections,
      );
      non2xx += results[which].non2xx + results[which].errors;
    }
    live.push(results.live);
    statics.push(results.static);
    ratios.push(rate(results.live) / rate(results.static));
  }
  // Every load of the cached rounds must have been the dashboard's answer cache: a load served
  // by it still carries the warm-up's refresh times (the per-query entries were renewed since, so
  // a load that planned and read them would carry the later ones), and no query reached the store
  // (the per-query entries are still the renewed ones).
  const again = await embedLoad(ctx, session, boards.live.publicId);
  const together = again.dataTime === warm.dataTime;
  const after = await Promise.all(CHARTS.map((c) => cubeLoad(ctx, warm.token, asLoaded(c.query))));
  const untouched = after.filter((b, i) => b.lastRefreshTime === warm.refreshTimes[i]).length;
  const lines = [];
  const widths = [46, 10, 9, 9, 9];
  lines.push(['board', 'req/s', 'p50 ms', 'p99 ms', 'bytes'].map((h, i) => pad(h, widths[i])).join(''));
  for (const [label, runs, bytes] of [
    ['live, result cache warm (8 queries)', live, boards.live.bytes],
    ['static spec rows (same layout and rows)', statics, boards.static.bytes],
  ]) {
    lines.push(
      [
        label,
        median(runs.map(rate)).toFixed(0),
        ms(median(runs.map((r) => r.latency.p50))),
        ms(median(runs.map((r) => r.latency.p99))),
        bytes,
      ]
        .map((c, i) => pad(c, widths[i]))
        .join(''),
    );
  }
  lines.push(
    `one load at a time (${one.live.length} each, alternating): live cached p50 ${ms(pct(one.live, 50))} ms, ` +
      `p99 ${ms(pct(one.live, 99))} ms; static p50 ${ms(pct(one.static, 50))} ms, p99 ${ms(pct(one.static, 99))} ms; ` +
      `ratio p50 ${(pct(one.live, 50) / pct(one.static, 50)).toFixed(2)}x, p99 ${(pct(one.live, 99) / pct(one.static, 99)).toFixed(2)}x`,
  );
  lines.push(
    `one cached query alone (GET /cubejs-api/v1/load, ${CHARTS[6].name}), same loop: p50 ${ms(pct(one.single, 50))} ms, p99 ${ms(pct(one.single, 99))} ms`,
  );
  lines.push(
    `a trivial Worker, same loop: answering at once p50 ${ms(pct(one.trivial, 50))} ms; ` +
      `after one D1 round trip p50 ${ms(pct(one.d1, 50))} ms; ` +
      `after 8 Cache API hits side by side p50 ${ms(pct(one.cache8, 50))} ms, p99 ${ms(pct(one.cache8, 99))} ms`,
  );
  const ratio = median(ratios);
  lines.push(
    `throughput live cached / static: ${ratio.toFixed(2)} (median of ${ratios.length} interleaved rounds: ` +
      `${ratios.map((r) => r.toFixed(2)).join(', ')}), goal >= 0.5 ${ratio >= 0.5 ? 'MET' : 'NOT MET'}`,
  );
  const p50 = median(live.map((r) => r.latency.p50)) / median(statics.map((r) => r.latency.p50));
  const p99 = median(live.map((r) => r.latency.p99)) / median(statics.map((r) => r.latency.p99));
  lines.push(`latency under load, live cached / static: p50 ${p50.toFixed(2)}x, p99 ${p99.toFixed(2)}x`);
  lines.push(
    `${connections} connections, ${duration} s per round; non-2xx or errors: ${non2xx}; ` +
      `after the rounds: answered by the dashboard's answer cache of the warm-up ${together ? 'yes' : 'NO'}; ` +
      `per-query entries untouched ${untouched}/${CHARTS.length}`,
  );
  return lines;
}

/**
 * Cold loads against their slowest query alone. Each iteration takes a value list no earlier
 * request used (`completed` plus a value no row has): the SQL parameters differ, so every query
 * misses the result cache, while each reads the same rows as a filter on `completed` would.
 * The eight queries alone run through /load the same way (each with a list of its own), one after
 * the other, in the same iteration as the load.
 */
async function coldVsSlowest(ctx, boards, session, token, runs, server) {
  let n = 0;
  const fresh = () => ['completed', `bench-cold-${process.pid}-${Date.now()}-${n++}`];
  // Untimed first: the store's pages and the isolate's compiled model are warm for both paths.
  await embedLoad(ctx, session, boards.live.publicId, fresh());
  for (const chart of CHARTS) await cubeLoad(ctx, token, asLoaded(chart.query, fresh()));
  const loads = [];
  const alone = CHARTS.map(() => []);
  const engine = { together: [], alone: CHARTS.map(() => []) };
  const sums = [];
  for (let i = 0; i < runs; i++) {
    loads.push((await timed(() => embedLoad(ctx, session, boards.live.publicId, fresh()))).ms);
    let sum = 0;
    for (const [j, chart] of CHARTS.entries()) {
      const t = (await timed(() => cubeLoad(ctx, token, asLoaded(chart.query, fresh())))).ms;
      alone[j].push(t);
      sum += t;
    }
    sums.push(sum);
    if (server) {
      // The engine by itself on this machine: the eight statements of a load (a value list of
      // their own) from Node side by side, a fresh connection each as the data source opens
      // them, then each alone the same way.
      const statements = await Promise.all(CHARTS.map((c) => sqlOf(ctx, token, asLoaded(c.query, fresh()))));
      engine.together.push(
        (await timed(() => Promise.all(statements.map((st) => onFreshConnection(server, st))))).ms,
      );
      for (const [j, st] of statements.entries())
        engine.alone[j].push((await timed(() => onFreshConnection(server, st))).ms);
    }
  }
  const lines = [];
  const widths = [60, 11, 9];
  lines.push(['request (cold, sequential)', 'median ms', 'p90 ms'].map((h, i) => pad(h, widths[i])).join(''));
  const row = (cells) => lines.push(cells.map((c, i) => pad(c, widths[i])).join(''));
  const load50 = median(loads);
  row(['embed load, 8 charts (queries run concurrently)', ms(load50), ms(pct(loads, 90))]);
  const medians = alone.map(median);
  for (const [j, chart] of CHARTS.entries()) {
    row([`  /load alone: ${chart.name}`, ms(medians[j]), ms(pct(alone[j], 90))]);
  }
  row(['  the eight /load requests, summed per iteration', ms(median(sums)), ms(pct(sums, 90))]);
  const slowest = medians.indexOf(Math.max(...medians));
  const diff = load50 - medians[slowest];
  lines.push(
    `cold load - slowest query alone (${CHARTS[slowest].name}): ${diff >= 0 ? '+' : ''}${ms(diff)} ms ` +
      `(${(load50 / medians[slowest]).toFixed(2)}x), goal within 20 ms ${diff <= 20 ? 'MET' : 'NOT MET'}`,
  );
  lines.push(
    `cold load / the eight queries summed: ${(load50 / median(sums)).toFixed(2)}x ` +
      `(${runs} iterations; cache defeated by a fresh filter value list per request)`,
  );
  if (server) {
    const together50 = median(engine.together);
    const alone50 = engine.alone.map(median);
    const top = alone50.indexOf(Math.max(...alone50));
    lines.push(
      `PostgreSQL by itself (from Node, fresh connection + BEGIN READ ONLY each, same iterations): ` +
        `the eight side by side ${ms(together50)} ms vs the slowest alone (${CHARTS[top].name}) ${ms(alone50[top])} ms: ` +
        `+${ms(together50 - alone50[top])} ms; the eight alone summed ${ms(alone50.reduce((a, b) => a + b, 0))} ms`,
    );
    lines.push(
      `cold load over the engine's eight side by side: +${ms(load50 - together50)} ms; ` +
        `slowest query through /load over the engine alone: +${ms(medians[slowest] - alone50[slowest])} ms`,
    );
  }
  return lines;
}

/** The SQL and parameters a query runs with, from /cubejs-api/v1/sql. */
async function sqlOf(ctx, token, query) {
  const res = await fetch(`${ctx.url}/cubejs-api/v1/sql?query=${encodeURIComponent(JSON.stringify(query))}`, {
    headers: { authorization: token },
  });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`live bench, /sql: ${res.status} ${JSON.stringify(body)}`);
  const [sql, params] = body.sql.sql;
  return { sql, params };
}

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];

/**
 * A viewer changing the status filter in Chromium: the viewer page is opened on its own (not
 * framed), then each iteration picks a value in the FILTER control's list and times, inside the
 * page, from the control's `change` event to the moment every chart's section has been replaced
 * (the viewer fetches the content of the charts the filter can change and swaps their sections),
 * and to the next animation frame after it. Warm: the value alternates between two statuses
 * whose results are cached. Cold: `completed` plus a value no row has, new each time, as in the
 * cold load figure.
 */
async function filterInChromium(ctx, boards, session, runs) {
  if (!existsSync(CHROMIUM)) return [`skipped: ${CHROMIUM} is not installed (apt-get install chromium)`];
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(path.join(os.tmpdir(), 'live-bench-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = await browser.newPage();
    await page.goto(
      `${ctx.url}/embed/dashboard/${boards.live.publicId}?session=${encodeURIComponent(session)}`,
    );
    await page.waitForSelector('#eb-root[data-state="ready"]', { timeout: 30_000 });
    const charts = CHARTS.map((c) => c.id);
    /** One change of the filter list to `value` (JSON of a value or a list), timed in the page. */
    const change = (value) =>
      page.evaluate(
        async ({ value, charts, widget }) => {
          const select = document.querySelector(`select[data-eb-filter="${widget}"]`);
          if (!select) throw new Error('no filter control');
          const old = charts.map((id) => document.querySelector(`section[data-widget-id="${id}"]`));
          if (old.some((s) => !s)) throw new Error('a chart section is missing');
          let option = [...select.options].find((o) => o.value === value);
          if (!option) {
            option = document.createElement('option');
            option.value = value;
            option.textContent = value;
            select.append(option);
          }
          return new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error('charts not replaced within 30 s')), 30_000);
            const start = performance.now();
            const observer = new MutationObserver(() => {
              if (old.some((s) => s.isConnected)) return;
              const replaced = performance.now() - start;
              observer.disconnect();
              clearTimeout(timer);
              requestAnimationFrame(() => resolve({ replaced, frame: performance.now() - start }));
            });
            observer.observe(document.getElementById('eb-content'), { childList: true, subtree: true });
            select.value = value;
            select.dispatchEvent(new Event('change'));
          });
        },
        { value, charts, widget: FILTER_WIDGET },
      );
    const warmValues = [JSON.stringify('completed'), JSON.stringify('cancelled')];
    // Both warm values once, untimed: their results are then in the cache.
    for (const v of warmValues) await change(v);
    const warm = { replaced: [], frame: [] };
    const cold = { replaced: [], frame: [] };
    // The embed load API with the same cached values from Node, in the same loop: the server's share.
    const api = [];
    let n = 0;
    for (let i = 0; i < runs; i++) {
      const values = [JSON.parse(warmValues[i % 2])];
      api.push((await timed(() => embedLoad(ctx, session, boards.live.publicId, values))).ms);
      const w = await change(warmValues[i % 2]);
      const c = await change(
        JSON.stringify(['completed', `bench-browser-${process.pid}-${Date.now()}-${n++}`]),
      );
      for (const [into, t] of [
        [warm, w],
        [cold, c],
      ]) {
        into.replaced.push(t.replaced);
        into.frame.push(t.frame);
      }
    }
    const line = (label, t) =>
      `${pad(label, 44)} replaced p50 ${ms(pct(t.replaced, 50))} ms, p99 ${ms(pct(t.replaced, 99))} ms; ` +
      `next frame p50 ${ms(pct(t.frame, 50))} ms`;
    return [
      `${runs} changes each, alternating, 8 chart sections swapped per change (headless Chromium, ${CHROMIUM})`,
      line('warm (cached statuses)', warm),
      line('cold (a fresh value list each time)', cold),
      `cold / warm p50: ${(pct(cold.replaced, 50) / pct(warm.replaced, 50)).toFixed(2)}x; ` +
        `warm change - cached embed load API from Node (same values, p50 ${ms(pct(api, 50))} ms): ` +
        `+${ms(pct(warm.replaced, 50) - pct(api, 50))} ms (the viewer's content fetch, HTML and swap)`,
    ];
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * A store's boards: the live board and its session, a warm-up load (which fills the result
 * cache), the checks that make the figures fair, and the static board carrying the rows the
 * warm-up answered.
 */
async function boardsOn(ctx, store, deploymentId, token) {
  const liveBoard = await publishBoard(ctx, deploymentId, 'Live shop', (chart) => ({
    jsonQuery: JSON.stringify(chart.query),
    spec: JSON.stringify(chart.spec),
  }));
  const session = (
    await must(
      ctx.api('POST', '/api/v1/embed/generate-session', {
        auth: ctx.world.key,
        body: { deploymentId, externalId: `live-bench-viewer-${store}` },
      }),
      'session',
    )
  ).sessionId;

  // The warm-up fills the result cache; the static board then carries the very rows it answered.
  const warmBody = await embedLoad(ctx, session, liveBoard.publicId);
  const rows = chartRows(warmBody, liveBoard.reportIds);
  const empty = CHARTS.filter((_, i) => !rows[i] || rows[i].length === 0);
  if (empty.length > 0) throw new Error(`live bench: charts without rows: ${empty.map((c) => c.name)}`);
  // Fairness of the cold figure: the status filter must narrow every one of the eight queries.
  const narrowed = chartRows(
    await embedLoad(ctx, session, liveBoard.publicId, ['cancelled']),
    liveBoard.reportIds,
  );
  const unfiltered = CHARTS.filter((_, i) => JSON.stringify(narrowed[i]) === JSON.stringify(rows[i]));
  if (unfiltered.length > 0) {
    throw new Error(`live bench: the status filter does not narrow ${unfiltered.map((c) => c.name)}`);
  }
  const staticBoard = await publishBoard(ctx, deploymentId, 'Static shop', (_, i) => {
    const snapshot = warmBody.reportSnapshots.find((s) => s.reportId === liveBoard.reportIds[i]);
    return { spec: snapshot.spec };
  });
  const staticBody = await embedLoad(ctx, session, staticBoard.publicId);
  // The queries as /load runs them must hit the entries the embed loads filled (same SQL, same
  // parameters): the check after the cached rounds reads the cache through them.
  const before = new Date().toISOString();
  const shared = await Promise.all(CHARTS.map((c) => cubeLoad(ctx, token, asLoaded(c.query))));
  if (shared.some((b) => b.lastRefreshTime >= before)) {
    throw new Error("live bench: /load does not share the embed load's result cache entries");
  }
  // Then those entries are renewed: a load that planned and read them would now carry later
  // refresh times than the dashboard's answer cache the warm-up filled.
  const renewed = await Promise.all(
    CHARTS.map((c) => cubeLoad(ctx, token, { ...asLoaded(c.query), renewQuery: true })),
  );
  if (renewed.some((b) => b.lastRefreshTime < before))
    throw new Error('live bench: renewQuery did not renew');
  const repeat = await embedLoad(ctx, session, liveBoard.publicId);
  if (repeat.dataTime !== warmBody.dataTime) {
    throw new Error(`live bench (${store}): a repeated load is not answered by the dashboard's answer cache`);
  }
  return {
    session,
    token,
    rows,
    warm: { token, refreshTimes: renewed.map((b) => b.lastRefreshTime), dataTime: warmBody.dataTime },
    boards: {
      live: { ...liveBoard, bytes: JSON.stringify(warmBody).length },
      static: { ...staticBoard, bytes: JSON.stringify(staticBody).length },
    },
  };
}

/** Rows of two stores compared as values (PostgreSQL answers numerics as text, times with an offset). */
function sameRows(a, b) {
  const norm = (v) => {
    if (typeof v === 'number') return Number(v.toFixed(6));
    if (typeof v === 'string' && v !== '' && !Number.isNaN(Number(v))) return Number(Number(v).toFixed(6));
    if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v))
      return new Date(v.endsWith('Z') || /[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`).getTime();
    return v;
  };
  const canon = (rows) =>
    JSON.stringify(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, norm(v)]))));
  return canon(a) === canon(b);
}

export default async function live(ctx) {
  const orders = ctx.quick ? 10_000 : 40_000;
  const tables = demoTables({ orders });
  const rowCount = tables.reduce((n, t) => n + t.rows.length, 0);
  const size = `${orders.toLocaleString('en')} orders, ${rowCount.toLocaleString('en')} rows in all${ctx.quick ? ' (--quick scale)' : ' (the seed scale)'}`;
  console.log(`live bench: demo shop at ${size}, embedded store and PostgreSQL`);
  const create = async (name) =>
    (
      await must(
        ctx.api('POST', '/build/api/v1/deployments', { auth: ctx.world.admin, body: { name } }),
        'deployment',
      )
    ).id;
  const embeddedId = await create('Live embedded');
  let started = Date.now();
  await loadEmbedded(ctx, embeddedId, tables);
  const imported = Date.now() - started;
  const embedded = await boardsOn(
    ctx,
    'embedded',
    embeddedId,
    await deployModel(ctx, embeddedId, hourlyModel('')),
  );

  const server = await startPostgres();
  ctx.defer(() => server.stop());
  started = Date.now();
  await loadPostgres(server, tables);
  const copied = Date.now() - started;
  const pgId = await create('Live PostgreSQL');
  await usePostgres(ctx, pgId, server);
  const postgres = await boardsOn(ctx, 'postgres', pgId, await deployModel(ctx, pgId, hourlyModel('shop.')));
  const agree = CHARTS.filter((_, i) => sameRows(embedded.rows[i], postgres.rows[i])).length;

  const runs = ctx.quick ? 9 : 25;
  const stores = [
    ['embedded store', embedded, null],
    ['PostgreSQL', postgres, server],
  ];
  return [
    {
      name: 'live: dataset',
      run: async () => [
        `${size}; embedded import ${(imported / 1000).toFixed(1)} s, PostgreSQL COPY + indexes ${(copied / 1000).toFixed(1)} s; ` +
          `8 CHART widgets + FILTER (${STATUS}) + TIME_GRAIN (month); charts with the same rows on both stores: ${agree}/${CHARTS.length}`,
      ],
    },
    ...stores.flatMap(([label, s, engineServer]) => [
      {
        name: `live: cached embed load vs static embed load, ${label} (GET /api/v1/embed/dashboard/{publicId}, Session)`,
        run: () => cachedVsStatic(ctx, s.boards, s.session, s.warm),
      },
      {
        name: `live: cold embed load vs its slowest query alone, ${label} (${runs} iterations)`,
        run: () => coldVsSlowest(ctx, s.boards, s.session, s.token, runs, engineServer),
      },
    ]),
    {
      name: 'live: viewer filter change to redrawn charts, embedded store (Chromium, /embed/dashboard/{publicId})',
      run: () => filterInChromium(ctx, embedded.boards, embedded.session, ctx.quick ? 10 : 25),
    },
  ];
}
