// Pre-aggregations on the demo shop (scripts/demo-data.mjs) at 1,000,000 orders (about 3.5
// million rows; 20,000 orders with --quick, any size with --preagg-orders <n>), on both stores:
// a throwaway PostgreSQL server and a deployment's embedded store, each behind a deployment
// serving the demo model and its rollups. One store after the other, each:
//
// - before: the category-by-month revenue query cold (renewQuery) through /cubejs-api/v1/load, and
//   the demo dashboard "Sales overview" (eight charts) loaded cold and cached through the embed
//   load API, while no rollup is built (a matched rollup not built yet falls back to the source);
// - the full build of the demo's rollups, triggered as the platform does: the Worker's scheduled
//   handler (the Cron Trigger) plans the partitions and enqueues them, the queue consumer builds
//   one per message; the bench waits for every partition through the partition listing
//   (`GET /api/v1/deployments/{id}/pre-aggregations`), which also gives rows, bytes and build time;
// - after: the same query and the same board, now served from the rollups (`usedPreAggregations`
//   checked for the query and for each chart's query);
// - an incremental refresh: the scheduled handler an hour later rebuilds the partitions due (the
//   last partition of each incremental rollup, and the hourly rollups that are not partitioned).
//
// A cold board load needs every chart to miss the answer cache while every chart still matches a
// rollup. The dashboard's country filter cannot do it (on PostgreSQL the completion rate, a `number`
// measure, is served from a rollup only at the rollup's own dimensions), so each cold load follows a new
// build of the same model (a comment changes): answers are cached per build, so every chart
// misses, and the rollups, whose definitions did not change, keep serving. A query on another
// cube first loads the new build's model into the isolate, so the cold load is the queries'.
import { demoDashboard, demoModel, demoReports, demoTables } from '../scripts/demo-data.mjs';
import { startPostgres } from '../scripts/postgres.mjs';
import { medianPhases, ms, pad, pct, phasesOf, timed } from './helpers/figures.mjs';
import { deployModel, loadEmbedded, loadPostgres, SCHEMA, usePostgres } from './helpers/stores.mjs';

const argv = process.argv.slice(2);
const ordersFlag = argv.includes('--preagg-orders')
  ? Number(argv[argv.indexOf('--preagg-orders') + 1])
  : null;

/** The issue's category-by-month query, through the view; a partitioned rollup needs a date range. */
const CATEGORY_MONTH = {
  measures: ['sales.revenue'],
  dimensions: ['sales.products_category'],
  timeDimensions: [
    { dimension: 'sales.created_at', granularity: 'month', dateRange: ['2023-01-01', '2025-12-31'] },
  ],
  order: { 'sales.created_at': 'asc' },
};
/** A query no rollup of the demo answers, on a small table: it loads a new build's model. */
const WARM_MODEL = { measures: ['products.count'], renewQuery: true };
const HOUR = 3_600_000;
const DAY = 86_400_000;

async function must(promise, what) {
  const res = await promise;
  if (res.status >= 300)
    throw new Error(`pre-aggregations bench, ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function cubeLoad(ctx, token, query, phases) {
  const res = await fetch(
    `${ctx.url}/cubejs-api/v1/load?query=${encodeURIComponent(JSON.stringify(query))}`,
    { headers: { authorization: token } },
  );
  const body = await res.json();
  if (res.status !== 200)
    throw new Error(`pre-aggregations bench, /load: ${res.status} ${JSON.stringify(body)}`);
  phases?.push(phasesOf(res.headers.get('server-timing')));
  return body;
}

const usedOf = (body) => Object.keys(body.usedPreAggregations ?? {});
/** Partition tables named by their rollup: `prod_pre_aggregations.order_items_revenue_by_day (36 partitions)`. */
const servedBy = (tables) => {
  const counts = new Map();
  for (const table of tables) {
    const rollup = table.replace(/\d{8,10}$/, '');
    counts.set(rollup, (counts.get(rollup) ?? 0) + 1);
  }
  return [...counts].map(([rollup, n]) => (n > 1 ? `${rollup} (${n} partitions)` : rollup)).join(', ');
};

/**
 * The demo model as the bench deploys it. The demo's data ends on 2025-12-31, so on the day of a
 * run the last partitions would be outside the incremental rollups' 7-day update windows and never
 * refreshed again; the windows are widened to reach those partitions (and no earlier ones), as it
 * would for data that is still coming in. `stamp` is a comment: a new build of the same rollups.
 */
function benchModel(prefix, stamp) {
  const days = Math.ceil((Date.now() - Date.UTC(2026, 0, 1)) / DAY) + 30;
  const yaml = demoModel(prefix);
  if (!yaml.includes('update_window: 7 days')) throw new Error('the demo model has no incremental rollup');
  return `# bench build ${stamp}\n${yaml.replaceAll('update_window: 7 days', `update_window: ${days} days`)}`;
}

/** Bytes of values as the store counts a rollup's (their text, one more each): the raw side. */
function textBytes(tables) {
  const encoder = new TextEncoder();
  let bytes = 0;
  for (const table of tables) {
    for (const row of table.rows) {
      for (const value of row) {
        bytes += (typeof value === 'string' ? encoder.encode(value).length : String(value).length) + 1;
      }
    }
  }
  return bytes;
}

async function listPartitions(ctx, deploymentId) {
  const items = [];
  let after = null;
  for (;;) {
    const qs = new URLSearchParams({ first: '100', ...(after ? { after } : {}) });
    const page = await must(
      ctx.api('GET', `/api/v1/deployments/${deploymentId}/pre-aggregations?${qs}`, { auth: ctx.world.admin }),
      'partitions',
    );
    items.push(...page.items);
    if (!page.pageInfo.hasNextPage) return items;
    after = page.pageInfo.endCursor;
  }
}

/** Runs the scheduled handler at `at` (the Cron Trigger's per-minute tick). */
async function tick(ctx, at) {
  const worker = await ctx.mf.getWorker();
  const result = await worker.scheduled({ scheduledTime: new Date(at), cron: '* * * * *' });
  if (result.outcome !== 'ok') throw new Error(`pre-aggregations bench: the tick answered ${result.outcome}`);
}

/**
 * Ticks once a second (the first at `first`, then at the real time) until `done(partitions)`:
 * the first tick plans, a later one enqueues the partitions the plan registered.
 */
async function tickUntil(ctx, deploymentId, first, done, what) {
  const deadline = Date.now() + 30 * 60_000;
  let at = first;
  for (;;) {
    await tick(ctx, at);
    at = Date.now();
    await new Promise((r) => setTimeout(r, 1_000));
    const partitions = await listPartitions(ctx, deploymentId);
    const failed = partitions.filter((p) => p.state === 'failed');
    if (failed.length > 0) {
      throw new Error(
        `pre-aggregations bench: ${failed.map((p) => `${p.tableName}: ${p.lastError}`).join('; ')}`,
      );
    }
    if (partitions.length > 0 && done(partitions)) return partitions;
    if (Date.now() > deadline) throw new Error(`pre-aggregations bench: ${what} not done after 30 minutes`);
  }
}

/** The demo dashboard "Sales overview", published and embeddable, and a viewer's session. */
async function publishDemoBoard(ctx, deploymentId) {
  const auth = ctx.world.admin;
  const d = `/api/v1/deployments/${deploymentId}`;
  const workbook = await must(
    ctx.api('POST', `${d}/workbooks`, { auth, body: { name: 'Sales overview' } }),
    'workbook',
  );
  const reportIds = {};
  for (const report of demoReports()) {
    const created = await must(
      ctx.api('POST', `${d}/reports`, {
        auth,
        body: {
          name: report.name,
          title: report.name,
          workbookId: workbook.id,
          jsonQuery: JSON.stringify(report.query),
          spec: JSON.stringify(report.spec),
        },
      }),
      `report ${report.name}`,
    );
    reportIds[report.key] = created.id;
  }
  await must(
    ctx.api('PUT', `${d}/workbooks/${workbook.id}/dashboard`, {
      auth,
      body: { dashboardDraft: demoDashboard(reportIds) },
    }),
    'draft',
  );
  const published = await must(
    ctx.api('POST', `${d}/workbooks/${workbook.id}/publish`, {
      auth,
      body: { title: 'Sales overview', allowEmbed: true },
    }),
    'publish',
  );
  const { sessionId } = await must(
    ctx.api('POST', '/api/v1/embed/generate-session', {
      auth: ctx.world.key,
      body: { deploymentId, externalId: `preagg-bench-viewer-${deploymentId}` },
    }),
    'session',
  );
  return { publicId: published.publicId, session: sessionId };
}

async function embedLoad(ctx, board, phases) {
  const res = await fetch(`${ctx.url}/api/v1/embed/dashboard/${board.publicId}`, {
    headers: { authorization: `Session ${board.session}` },
  });
  const body = await res.json();
  phases?.push(phasesOf(res.headers.get('server-timing')));
  if (res.status !== 200)
    throw new Error(`pre-aggregations bench, embed load: ${res.status} ${JSON.stringify(body)}`);
  const failed = body.reportSnapshots.filter((s) => s.error);
  if (failed.length > 0) throw new Error(`pre-aggregations bench, charts failed: ${JSON.stringify(failed)}`);
  return body;
}

/**
 * A store's deployment: `deploy()` builds the model again (a new stamp), answering its Cube API
 * token. The first build is the one of the run.
 */
function deployer(ctx, deploymentId, prefix) {
  let builds = 0;
  return async () => {
    builds += 1;
    return deployModel(ctx, deploymentId, benchModel(prefix, builds));
  };
}

/** The category-by-month query cold (renewQuery), `runs` times after one untimed run. */
async function coldQuery(ctx, token, runs) {
  const query = { ...CATEGORY_MONTH, renewQuery: true };
  const first = await cubeLoad(ctx, token, query);
  const times = [];
  const phases = [];
  for (let i = 0; i < runs; i++) times.push((await timed(() => cubeLoad(ctx, token, query, phases))).ms);
  return { times, rows: first.data.length, used: usedOf(first), phases: medianPhases(phases) };
}

/**
 * The board cold (after a new build of the same model, its model loaded by another query) and
 * then cached (the same load again), `runs` times.
 */
async function boardLoads(ctx, deploy, board, runs) {
  const cold = [];
  const cached = [];
  const coldPhases = [];
  const cachedPhases = [];
  for (let i = 0; i < runs; i++) {
    const token = await deploy();
    await cubeLoad(ctx, token, WARM_MODEL);
    cold.push((await timed(() => embedLoad(ctx, board, coldPhases))).ms);
    for (let j = 0; j < 3; j++) cached.push((await timed(() => embedLoad(ctx, board, cachedPhases))).ms);
  }
  return { cold, cached, coldPhases: medianPhases(coldPhases), cachedPhases: medianPhases(cachedPhases) };
}

/** Which of the board's chart queries (as /load runs them) a built rollup serves. */
async function chartsServed(ctx, token) {
  const served = [];
  for (const report of demoReports()) {
    const body = await cubeLoad(ctx, token, { ...report.query, renewQuery: true });
    if (usedOf(body).length > 0) served.push(report.key);
  }
  return served;
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const sec = (x) => `${(x / 1000).toFixed(1)} s`;

/** One store, start to end: before, the full build, after, the incremental refresh. */
async function measureStore(ctx, store, runs, boardRuns) {
  const deploy = deployer(ctx, store.id, store.prefix);
  let token = await deploy();
  const board = await publishDemoBoard(ctx, store.id);
  console.log(`pre-aggregations bench (${store.label}): from the source…`);
  const sourceQuery = await coldQuery(ctx, token, runs);
  if (sourceQuery.used.length > 0)
    throw new Error('pre-aggregations bench: a rollup served before any build');
  const sourceBoard = await boardLoads(ctx, deploy, board, boardRuns);

  console.log(`pre-aggregations bench (${store.label}): full build of the rollups…`);
  const buildStart = Date.now();
  const built = await tickUntil(
    ctx,
    store.id,
    buildStart,
    (ps) => ps.every((p) => p.state === 'built' && p.builtVersion > 0),
    'the full build',
  );
  const buildWall = Date.now() - buildStart;

  console.log(`pre-aggregations bench (${store.label}): from the rollups…`);
  token = await deploy();
  const rollupQuery = await coldQuery(ctx, token, runs);
  if (rollupQuery.used.length === 0) throw new Error('pre-aggregations bench: no rollup served the query');
  const served = await chartsServed(ctx, token);
  const rollupBoard = await boardLoads(ctx, deploy, board, boardRuns);

  // An hour later the cron refreshes what is due: the last partition of each incremental rollup
  // (the others are final) and the rollups that are not partitioned (hourly).
  console.log(`pre-aggregations bench (${store.label}): incremental refresh…`);
  const before = new Map(built.map((p) => [p.id, p.builtVersion]));
  const refreshStart = Date.now();
  const refreshed = await tickUntil(
    ctx,
    store.id,
    refreshStart + HOUR + 60_000,
    (ps) =>
      ps.every((p) => p.state === 'built') &&
      ps.some((p) => p.nextRefreshAt !== null && p.builtVersion > (before.get(p.id) ?? 0)),
    'the refresh',
  );
  const refreshWall = Date.now() - refreshStart;
  const rebuilt = refreshed.filter((p) => p.builtVersion > (before.get(p.id) ?? 0));
  return {
    sourceQuery,
    sourceBoard,
    built,
    buildWall,
    rollupQuery,
    served,
    rollupBoard,
    rebuilt,
    refreshWall,
  };
}

function report(m) {
  const lines = [];
  const row = (cells, widths) => lines.push(cells.map((c, i) => pad(c, widths[i])).join(''));
  const w = [58, 11, 9, 9, 10];
  row(['', 'p50 ms', 'p90 ms', 'rows', 'served by'], w);
  const q50 = pct(m.sourceQuery.times, 50);
  const r50 = pct(m.rollupQuery.times, 50);
  row(
    [
      'category-by-month, cold, from the source',
      ms(q50),
      ms(pct(m.sourceQuery.times, 90)),
      m.sourceQuery.rows,
      'source',
    ],
    w,
  );
  row(
    [
      'category-by-month, cold, from the rollup',
      ms(r50),
      ms(pct(m.rollupQuery.times, 90)),
      m.rollupQuery.rows,
      servedBy(m.rollupQuery.used),
    ],
    w,
  );
  lines.push(`  phases (median ms), from the rollup: ${m.rollupQuery.phases}`);
  lines.push(
    `  rollup vs source: ${(q50 / r50).toFixed(1)}x faster (goal >= 20x: ${q50 / r50 >= 20 ? 'MET' : 'NOT MET'})`,
  );
  const bw = [58, 11, 9, 9];
  row(['"Sales overview" (8 charts), embed load', 'p50 ms', 'p90 ms', 'loads'], bw);
  for (const [label, times] of [
    ['cold, from the source', m.sourceBoard.cold],
    ['cached, from the source', m.sourceBoard.cached],
    ['cold, from the rollups', m.rollupBoard.cold],
    ['cached, from the rollups', m.rollupBoard.cached],
  ]) {
    row([label, ms(pct(times, 50)), ms(pct(times, 90)), times.length], bw);
  }
  lines.push(`  phases (median ms), cold from the rollups: ${m.rollupBoard.coldPhases}`);
  lines.push(`  phases (median ms), cached from the rollups: ${m.rollupBoard.cachedPhases}`);
  const gap = pct(m.rollupBoard.cold, 50) - pct(m.rollupBoard.cached, 50);
  lines.push(
    `  cold from the rollups vs cached: +${ms(gap)} ms at p50 (goal <= 50 ms: ${gap <= 50 ? 'MET' : 'NOT MET'}); ` +
      `cold from the source vs from the rollups: ${(pct(m.sourceBoard.cold, 50) / pct(m.rollupBoard.cold, 50)).toFixed(1)}x; ` +
      `charts whose query a rollup served: ${m.served.length}/8 (${m.served.join(', ')})`,
  );
  const buildSum = sum(m.built.map((p) => p.buildMs ?? 0));
  lines.push(
    `full build: ${m.built.length} partitions in ${sec(m.buildWall)} from the first tick to the last partition built ` +
      `(the partitions' own build times add up to ${sec(buildSum)})`,
  );
  const byRollup = new Map();
  for (const p of m.built) {
    const r = byRollup.get(p.preAggregation) ?? { partitions: 0, rows: 0, bytes: 0, ms: 0 };
    byRollup.set(p.preAggregation, {
      partitions: r.partitions + 1,
      rows: r.rows + (p.rows ?? 0),
      bytes: r.bytes + (p.bytes ?? 0),
      ms: r.ms + (p.buildMs ?? 0),
    });
  }
  for (const [name, r] of byRollup) {
    lines.push(
      `  ${pad(name, 30)}${pad(`${r.partitions} partition${r.partitions === 1 ? '' : 's'}`, 15)}` +
        `${pad(`${r.rows.toLocaleString('en')} rows`, 15)}${pad(`${r.bytes.toLocaleString('en')} bytes`, 18)}built in ${ms(r.ms)} ms`,
    );
  }
  const incremental = m.rebuilt.filter((p) => p.range);
  const last = incremental.reduce((a, p) => a + (p.buildMs ?? 0), 0);
  lines.push(
    `refresh an hour later: ${m.rebuilt.length} partitions rebuilt in ${sec(m.refreshWall)} (${m.rebuilt
      .map((p) => `${p.preAggregation}${p.range ? ` ${p.range.start.slice(0, 7)}` : ''} ${p.buildMs} ms`)
      .join(', ')})`,
  );
  lines.push(
    `  the incremental rollups' last partitions: ${ms(last)} ms, ${(last / buildSum).toFixed(3)} of the full build's ` +
      `${sec(buildSum)} (goal <= 0.1: ${last / buildSum <= 0.1 ? 'MET' : 'NOT MET'}); of its wall time ${(last / m.buildWall).toFixed(3)}`,
  );
  return {
    lines,
    rollupBytes: sum(m.built.map((p) => p.bytes ?? 0)),
    rollupRows: sum(m.built.map((p) => p.rows ?? 0)),
  };
}

export default async function preAggregations(ctx) {
  const orders = ordersFlag ?? (ctx.quick ? 20_000 : 1_000_000);
  let started = Date.now();
  const tables = demoTables({ orders });
  const rowCount = tables.reduce((n, t) => n + t.rows.length, 0);
  const rawBytes = textBytes(tables);
  const size = `${orders.toLocaleString('en')} orders, ${rowCount.toLocaleString('en')} rows in all`;
  console.log(`pre-aggregations bench: demo shop at ${size}, generated in ${sec(Date.now() - started)}`);

  const server = await startPostgres();
  ctx.defer(() => server.stop());
  started = Date.now();
  await loadPostgres(server, tables);
  const pgLoad = Date.now() - started;
  const create = async (name) =>
    (
      await must(
        ctx.api('POST', '/build/api/v1/deployments', { auth: ctx.world.admin, body: { name } }),
        'deployment',
      )
    ).id;
  const pgId = await create('Pre-aggregations PostgreSQL');
  const embeddedId = await create('Pre-aggregations embedded');
  await usePostgres(ctx, pgId, server);
  started = Date.now();
  await loadEmbedded(ctx, embeddedId, tables);
  const embeddedLoad = Date.now() - started;
  console.log(
    `pre-aggregations bench: loaded (PostgreSQL ${sec(pgLoad)}, embedded store ${sec(embeddedLoad)})`,
  );

  const runs = ctx.quick ? 5 : 9;
  const boardRuns = ctx.quick ? 3 : 7;
  const stores = [
    { label: 'PostgreSQL', id: pgId, prefix: `${SCHEMA}.` },
    { label: 'embedded', id: embeddedId, prefix: '' },
  ];
  return [
    {
      name: 'pre-aggregations: both stores, one after the other (the machine is shared: read the ratios)',
      run: async () => {
        const lines = [`${size}; raw data ${rawBytes.toLocaleString('en')} bytes as text`];
        for (const store of stores) {
          const m = await measureStore(ctx, store, runs, boardRuns);
          const { lines: mine, rollupBytes, rollupRows } = report(m);
          lines.push('', `${store.label}:`, ...mine.map((l) => `  ${l}`));
          lines.push(
            `  rollups: ${rollupRows.toLocaleString('en')} rows, ${rollupBytes.toLocaleString('en')} bytes: ` +
              `${((rollupBytes / rawBytes) * 100).toFixed(2)}% of the raw data's ${rawBytes.toLocaleString('en')} (1/${Math.round(rawBytes / rollupBytes)})`,
          );
          console.log(`pre-aggregations bench (${store.label}): done`);
        }
        return lines;
      },
    },
  ];
}
