#!/usr/bin/env node
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { BENCH_BINDINGS, bundledModules, bundleWorker, OPERATOR_TOKEN } from '../bench/helpers/bundle.mjs';
import { migrateFolder, shardBindings } from '../bench/helpers/migrations.mjs';
import { idFloorStatements, shardOfId } from '../src/core/shard-schema.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outDir = path.join(root, '.bench', 'dist');
const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const QUICK = argv.includes('--quick');
/** Seconds of each round of a scenario (and of its floor), and rounds per scenario. */
const DURATION = Number(flag('--duration', QUICK ? 1 : 2));
const ROUNDS = Number(flag('--rounds', QUICK ? 2 : 3));
const CONNECTIONS = Number(flag('--connections', 32));
const ONLY = flag('--only', undefined);
/** The geography model: delays per primary round trip, replica round trip and KV read (ms). */
const GEO = {
  primary: Number(flag('--geo-primary', 120)),
  replica: Number(flag('--geo-replica', 8)),
  kv: Number(flag('--geo-kv', 2)),
};
const GEO_CONNECTIONS = 4;
const GEO_DURATION = Number(flag('--geo-duration', QUICK ? 3 : 6));
const NO_GEO = argv.includes('--no-geo');

const ENTRY = 'bench-geo-entry.js';

/** Every file of the bundle as a module, the bench's entry (which wraps index.js) first. */
function modules() {
  copyFileSync(path.join(root, 'bench', 'geo-entry.js'), path.join(outDir, ENTRY));
  return bundledModules(outDir, ENTRY);
}

/**
 * Where the Worker's outbound fetches go: nowhere, except the chat host a scenario points at a
 * local server (webhook URLs must be https to a public host, so the Worker is given one and
 * this routes it to loopback).
 */
const outbound = { chatHost: 'chat.bench.example.com', chatTarget: null };

async function routeOutbound(request) {
  const url = new URL(request.url);
  if (url.hostname !== outbound.chatHost || !outbound.chatTarget) {
    return new Response(`the bench sends nothing to ${url.hostname}`, { status: 599 });
  }
  return fetch(`${outbound.chatTarget}${url.pathname}`, {
    method: request.method,
    headers: request.headers,
    body: await request.arrayBuffer(),
  });
}

async function startWorker() {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, 'wrangler.toml'));
  const { modulesRules: _rules, ...options } = workerOptions;
  const worker = {
    ...options,
    name: 'edgeboard',
    modulesRoot: outDir,
    modules: modules(),
    outboundService: routeOutbound,
    bindings: {
      ...workerOptions.bindings,
      ...BENCH_BINDINGS,
      // The semantic scenarios point a deployment at a throwaway PostgreSQL server on loopback.
      DATA_SOURCES_ALLOW_PRIVATE: '1',
    },
  };
  // wrangler describes the Worker in Miniflare 4's option shape; Miniflare 5 converts it.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers: [worker],
      cf: false,
      port: 0,
      host: '127.0.0.1',
      // A DevTools inspector on this port (BENCH_INSPECTOR_PORT): to profile the Worker's CPU.
      ...(process.env.BENCH_INSPECTOR_PORT && { inspectorPort: Number(process.env.BENCH_INSPECTOR_PORT) }),
    }),
  );
  const url = await mf.ready;
  return { mf, url: url.toString().replace(/\/$/, '') };
}

/** The shard bindings, in shard order, as wrangler.toml lists them (docs/sharding.md). */
const SHARDS = shardBindings(root);

/** The control database and every shard, each shard's ids in its range, as `npm run db:migrate` does. */
async function migrate(mf) {
  await migrateFolder(root, await mf.getD1Database('CONTROL_DB'), 'control-migrations');
  for (const [shard, name] of SHARDS.entries()) {
    const d1 = await mf.getD1Database(name);
    await migrateFolder(root, d1, 'migrations');
    await d1.batch(idFloorStatements(shard).map((s) => d1.prepare(s)));
  }
}

function makeApi(url) {
  return async (method, route, { auth, body, headers } = {}) => {
    const authHeader = auth?.bearer
      ? `Bearer ${auth.bearer}`
      : auth?.apiKey
        ? `Api-Key ${auth.apiKey}`
        : auth?.session
          ? `Session ${auth.session}`
          : undefined;
    const res = await fetch(`${url}${route}`, {
      method,
      headers: {
        ...(authHeader ? { authorization: authHeader } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers, bytes: text.length };
  };
}

/** A customer account as the test harness seeds one, through HTTP. */
async function seedWorld(api) {
  const created = await api('POST', '/admin/v1/accounts', {
    auth: { bearer: OPERATOR_TOKEN },
    body: { name: 'Bench account', plan: 'enterprise', useCreatorMode: true },
  });
  if (created.status !== 201) throw new Error(`seeding failed: ${JSON.stringify(created.body)}`);
  const admin = { bearer: created.body.accessToken };
  const deployments = [];
  for (const name of ['Bench production', 'Bench staging']) {
    deployments.push(
      (await api('POST', '/build/api/v1/deployments', { auth: admin, body: { name } })).body.id,
    );
  }
  const user = await api('POST', '/api/v1/users', {
    auth: admin,
    body: { email: 'bench@example.com', username: 'bench' },
  });
  const token = await api('POST', `/api/v1/users/${user.body.id}/access-tokens`, { auth: admin });
  const scoped = await api('POST', '/api/v1/api-keys', {
    auth: admin,
    body: { name: 'scoped', deploymentIds: [deployments[0]] },
  });
  return {
    accountId: created.body.account.id,
    adminUserId: created.body.user.id,
    admin,
    member: { bearer: token.body.token },
    key: { apiKey: created.body.apiKey },
    scopedKey: { apiKey: scoped.body.key },
    deployments,
  };
}

function autocannonRun(url, scenario, duration, connections = CONNECTIONS, extraHeaders = {}) {
  return new Promise((resolve, reject) => {
    const request = {
      method: scenario.method,
      path: scenario.path,
      headers: { ...(scenario.headers ?? {}), ...extraHeaders },
      body: scenario.body,
    };
    if (scenario.setupRequest) {
      request.setupRequest = (req) => {
        const next = scenario.setupRequest(req) ?? req;
        return { ...next, headers: { ...next.headers, ...extraHeaders } };
      };
    }
    autocannon({ url, connections, duration, requests: [request], timeout: 30 }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

/** What one request of the scenario costs in D1, from the metrics headers (see src/core/db.ts). */
async function sampleCost(url, scenario) {
  let req = {
    method: scenario.method,
    path: scenario.path,
    headers: { ...(scenario.headers ?? {}) },
    body: scenario.body,
  };
  if (scenario.setupRequest) req = scenario.setupRequest(req) ?? req;
  const res = await fetch(`${url}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
  const bytes = (await res.arrayBuffer()).byteLength;
  const h = (name) => res.headers.get(`x-d1-${name}`) ?? '?';
  const unmetered = Number(h('unmetered'));
  return {
    status: res.status,
    bytes,
    queries: h('queries'),
    roundTrips: h('round-trips'),
    primary: h('primary-round-trips'),
    replica: h('replica-round-trips'),
    // Statements D1 answered without metadata (joins read with raw()): a lower bound then.
    rowsRead: `${h('rows-read')}${unmetered > 0 ? `+${unmetered}?` : ''}`,
    rowsWritten: h('rows-written'),
  };
}

const pad = (s, n) => String(s).padEnd(n);
const num = (n, d = 0) =>
  n === Number.POSITIVE_INFINITY ? 'none done' : Number.isFinite(n) ? n.toFixed(d) : '-';
const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * The floors a route is measured against (the floor Worker, bench/floor-entry.js; its `POST /pg`,
 * a cold PostgreSQL read, is paired with cold loads in bench/semantic.mjs): a trivial Worker in the same emulator answering
 * after the same kinds of storage calls. `kv`: one KV read; `d1`: one D1 round trip (SELECT 1);
 * `kv+d1`: one KV read, then one D1 round trip; `2d1+cache`: two D1 round trips side by side,
 * then a Cache API hit read to the end (what a cached Cube `/load` cost while it read the serving
 * build and the data source from D1 first); `cache`: one Cache API hit read to the end.
 */
const FLOORS = {
  none: { path: '/', what: 'answering at once' },
  kv: { path: '/kv', what: 'one KV read' },
  d1: { path: '/d1', what: 'one D1 round trip' },
  'kv+d1': { path: '/both', what: 'one KV read + one D1 round trip' },
  '2d1+cache': { path: '/cached', what: 'two parallel D1 round trips + one Cache API hit' },
  cache: { path: '/cache', what: 'one Cache API hit' },
};

async function startFloor() {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers: [
        {
          name: 'floor',
          modulesRoot: path.join(root, 'bench'),
          modules: ['floor-entry.js', 'floor-pg.js'].map((f) => ({
            type: 'ESModule',
            path: path.join(root, 'bench', f),
          })),
          compatibilityDate: '2026-10-01',
          kvNamespaces: ['KV'],
          d1Databases: ['DB'],
        },
      ],
      cf: false,
      port: 0,
      host: '127.0.0.1',
    }),
  );
  const url = (await mf.ready).toString().replace(/\/$/, '');
  return { mf, url };
}

/**
 * A scenario and its floor, interleaved: A B A B … for ROUNDS rounds of DURATION seconds each,
 * so both see the same machine load. The ratio is the median of the per-round ratios.
 */
async function interleaved(url, floorUrl, scenario) {
  const floor = FLOORS[scenario.floor ?? 'd1'];
  const ratios = [];
  const rps = [];
  const p50 = [];
  const p99 = [];
  let non2xx = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const duration = scenario.duration ?? DURATION;
    const connections = scenario.connections ?? CONNECTIONS;
    const a = await autocannonRun(url, scenario, duration, connections);
    const b = await autocannonRun(floorUrl, { method: 'GET', path: floor.path }, duration, connections);
    ratios.push(a.requests.average / b.requests.average);
    rps.push(a.requests.average);
    // A round in which no request finished has no latency: it reads as "slower than the round".
    if (a.requests.total > 0) {
      p50.push(a.latency.p50);
      p99.push(a.latency.p99);
    }
    non2xx += a.non2xx;
  }
  return {
    rps: median(rps),
    p50: p50.length > 0 ? median(p50) : Number.POSITIVE_INFINITY,
    p99: p99.length > 0 ? median(p99) : Number.POSITIVE_INFINITY,
    ratio: median(ratios),
    floor,
    non2xx,
  };
}

/**
 * `--only <file>` naming a file that needs no Worker (it exports `needsWorker = false`: a model
 * run in Node): its scenarios run alone, without bundling, seeding or the floors. False otherwise.
 */
async function runStandalone(group) {
  const file = path.join(root, 'bench', `${group}.mjs`);
  if (!existsSync(file)) return false;
  const mod = await import(pathToFileURL(file).href);
  if (mod.needsWorker !== false) return false;
  const started = Date.now();
  const ctx = { quick: QUICK, settings: { duration: DURATION, rounds: ROUNDS, connections: CONNECTIONS } };
  for (const scenario of await mod.default(ctx)) {
    console.log(`\n${scenario.name}:`);
    for (const line of await scenario.run(ctx)) console.log(line ? `  ${line}` : '');
  }
  console.log(`\nBench time: ${num((Date.now() - started) / 1000)} s`);
  return true;
}

async function main() {
  if (ONLY && (await runStandalone(ONLY))) return;
  console.log('Bundling the Worker (wrangler deploy --dry-run)…');
  bundleWorker(root, outDir);
  const { mf, url } = await startWorker();
  const floor = await startFloor();
  const started = Date.now();
  // Teardowns scenario files register (ctx.defer): run at the end, even when the bench fails.
  const deferred = [];
  try {
    await migrate(mf);
    // The seeded account is the first, so on shard 0 (DB); `shardD1(id)` is the shard of any id.
    const d1 = await mf.getD1Database('DB');
    const shardD1 = (id) => mf.getD1Database(SHARDS[shardOfId(id)]);
    const api = makeApi(url);
    const world = await seedWorld(api);
    const ctx = {
      api,
      d1,
      shardD1,
      world,
      url,
      mf,
      outbound,
      operatorToken: OPERATOR_TOKEN,
      quick: QUICK,
      // Round length, rounds and connections, for files that drive autocannon themselves.
      settings: { duration: DURATION, rounds: ROUNDS, connections: CONNECTIONS },
      // The floor Worker (see startFloor): its paths time platform calls alone.
      floorUrl: floor.url,
      defer: (fn) => deferred.push(fn),
    };

    const scenarios = [];
    const files = readdirSync(path.join(root, 'bench'))
      .filter((f) => f.endsWith('.mjs'))
      .sort();
    for (const file of files) {
      const group = file.replace(/\.mjs$/, '');
      // `--only <file>` loads (and seeds) that file alone; `--only <scenario>` loads every file.
      const groups = files.map((f) => f.replace(/\.mjs$/, ''));
      if (ONLY === 'floor' || (groups.includes(ONLY) && ONLY !== group)) continue;
      const mod = await import(pathToFileURL(path.join(root, 'bench', file)).href);
      const list = await mod.default(ctx);
      for (const s of list) scenarios.push({ ...s, group });
    }
    const selected = ONLY ? scenarios.filter((s) => s.name.includes(ONLY) || s.group === ONLY) : scenarios;

    console.log(
      `\nMeasured path: workerd via Miniflare at ${url} (no wrangler dev proxy), ${CONNECTIONS} connections, ` +
        `${ROUNDS} rounds of ${DURATION}s per scenario, each round followed by a round of its platform floor.\n`,
    );
    const rows = [];
    const byName = new Map();
    const notes = [];
    const baseline = await interleaved(url, floor.url, {
      name: 'GET /healthz (baseline)',
      method: 'GET',
      path: '/healthz',
      floor: 'none',
    });
    rows.push(['GET /healthz (baseline)', baseline, { primary: 0, replica: 0, rowsRead: 0, roundTrips: 0 }]);
    for (const scenario of selected) {
      if (scenario.run) {
        const lines = await scenario.run(ctx);
        notes.push(`${scenario.name}:`, ...lines.map((l) => (l ? `  ${l}` : '')));
        continue;
      }
      const cost = await sampleCost(url, scenario);
      if (cost.status >= 400) notes.push(`${scenario.name}: sample request answered ${cost.status}`);
      const result = await interleaved(url, floor.url, scenario);
      rows.push([scenario.name, result, cost]);
      byName.set(scenario.name, { scenario, result, cost });
    }
    const header = [
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'floor',
      'vs floor',
      'prim',
      'repl',
      'rows read',
      'non-2xx',
      'bytes',
    ];
    const widths = [76, 8, 8, 8, 17, 9, 5, 5, 10, 8, 8];
    console.log(header.map((h, i) => pad(h, widths[i])).join(''));
    for (const [name, r, c] of rows) {
      console.log(
        [
          name,
          num(r.rps),
          num(r.p50, 1),
          num(r.p99, 1),
          Object.keys(FLOORS)
            .find((k) => FLOORS[k] === r.floor)
            .replace('none', 'trivial'),
          num(r.ratio, 2),
          c.primary,
          c.replica,
          c.rowsRead,
          r.non2xx,
          c.bytes ?? '-',
        ]
          .map((v, i) => pad(v, widths[i]))
          .join(''),
      );
    }
    const comparisons = selected.filter((s) => s.compare && byName.has(s.name));
    if (comparisons.length > 0) {
      console.log('\nComparisons (against the goals the scenarios set):');
      for (const s of comparisons) {
        const mine = byName.get(s.name);
        const other = byName.get(s.compare.with);
        if (!other) continue;
        const { metric, goal } = s.compare;
        const ratio = mine.result[metric] / other.result[metric];
        console.log(
          `  ${pad(s.name, 76)} ${metric} ${num(mine.result[metric], 1)} ms vs ${num(other.result[metric], 1)} ms (${s.compare.with}): ` +
            `${num(ratio, 2)}x, goal <= ${goal}x ${ratio <= goal ? 'MET' : 'NOT MET'}; rows read ${mine.cost.rowsRead} vs ${other.cost.rowsRead}`,
        );
      }
    }
    const geo = selected.filter((s) => s.geo && !s.run);
    if (geo.length > 0 && !NO_GEO) {
      console.log(
        `\nGeography model (a viewer far from the primary): +${GEO.primary} ms per primary round trip, ` +
          `+${GEO.replica} ms per replica round trip, +${GEO.kv} ms per KV read; ${GEO_CONNECTIONS} connections, ${GEO_DURATION}s each.`,
      );
      const geoHeader = { 'x-bench-geo': `${GEO.primary},${GEO.replica},${GEO.kv}` };
      console.log(
        ['scenario', 'p50 ms', 'p99 ms', 'req/s', 'prim', 'repl', 'goal']
          .map((h, i) => pad(h, [76, 8, 8, 8, 5, 5, 30][i]))
          .join(''),
      );
      for (const s of geo) {
        const r = await autocannonRun(url, s, GEO_DURATION, GEO_CONNECTIONS, geoHeader);
        const c = byName.get(s.name)?.cost ?? {};
        const goal = typeof s.geo === 'object' ? s.geo : {};
        const limit = goal.p50 === 'primary' ? GEO.primary + 40 : goal.p50;
        const verdict =
          limit === undefined ? '' : `p50 <= ${limit} ms ${r.latency.p50 <= limit ? 'MET' : 'NOT MET'}`;
        console.log(
          [
            s.geoName ?? s.name,
            num(r.latency.p50, 1),
            num(r.latency.p99, 1),
            num(r.requests.average),
            c.primary ?? '?',
            c.replica ?? '?',
            verdict,
          ]
            .map((v, i) => pad(v, [76, 8, 8, 8, 5, 5, 30][i]))
            .join(''),
        );
      }
    }
    if (notes.length > 0) console.log(`\n${notes.join('\n')}`);
    if (!ONLY || ONLY === 'floor') await printFloors(floor.url);
    console.log(`\nBench time (after bundling): ${num((Date.now() - started) / 1000)} s`);
  } finally {
    for (const fn of deferred.reverse()) {
      await Promise.resolve()
        .then(fn)
        .catch((err) => console.error(`bench teardown failed: ${err?.stack ?? err}`));
    }
    await mf.dispose();
    await floor.mf.dispose();
  }
}

/** The floors on their own, for reference: what local storage costs by itself. */
async function printFloors(floorUrl) {
  const base = (await autocannonRun(floorUrl, { method: 'GET', path: '/' }, DURATION)).requests.average;
  console.log(
    `\nPlatform floor (a trivial Worker in the same emulator; ${num(base)} req/s answering at once):`,
  );
  for (const key of ['kv', 'd1', 'kv+d1', '2d1+cache', 'cache']) {
    const { path: p, what } = FLOORS[key];
    const rps = (await autocannonRun(floorUrl, { method: 'GET', path: p }, DURATION)).requests.average;
    console.log(`  ${pad(what, 50)} ${pad(num(rps), 7)} req/s  ${num(rps / base, 2)} of the trivial Worker`);
  }
}

await main();
