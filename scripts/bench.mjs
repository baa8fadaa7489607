#!/usr/bin/env node
// `npm run bench`: bundles the Worker as `wrangler deploy` would, runs it in workerd through
// Miniflare (no `wrangler dev` proxy in front, so the figures are edgeboard's, not the proxy's),
// seeds data, and drives each scenario over loopback with autocannon. It prints figures; it
// asserts nothing. Scenarios live in bench/*.mjs (see bench/README.md).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outDir = path.join(root, '.bench', 'dist');
const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const DURATION = Number(flag('--duration', 5));
const CONNECTIONS = Number(flag('--connections', 32));
const ONLY = flag('--only', undefined);
const OPERATOR_TOKEN = 'bench-operator-token';

function bundle() {
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      path.join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
      'deploy',
      '--dry-run',
      '--outdir',
      outDir,
    ],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
    },
  );
}

/** Every file of the bundle as a module, typed by its extension. */
function bundledModules() {
  const type = (file) =>
    /\.m?js$/.test(file)
      ? 'ESModule'
      : file.endsWith('.wasm')
        ? 'CompiledWasm'
        : file.endsWith('.map')
          ? null
          : 'Data';
  const files = readdirSync(outDir, { recursive: true }).map(String);
  // The entry module must come first.
  files.sort((a, b) => (a === 'index.js' ? -1 : b === 'index.js' ? 1 : a.localeCompare(b)));
  return files
    .filter((f) => type(f) !== null && !statSync(path.join(outDir, f)).isDirectory())
    .map((f) => ({ type: type(f), path: path.join(outDir, f) }));
}

async function startWorker() {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, 'wrangler.toml'));
  const { modulesRules: _rules, ...options } = workerOptions;
  const worker = {
    ...options,
    name: 'edgeboard',
    modulesRoot: outDir,
    modules: bundledModules(),
    bindings: {
      ...workerOptions.bindings,
      ADMIN_TOKEN: OPERATOR_TOKEN,
      SESSION_SIGNING_KEY: 'bench-session-signing-key-0123456789abcdef',
      EXPOSE_DB_METRICS: '1',
    },
  };
  // wrangler describes the Worker in Miniflare 4's option shape; Miniflare 5 converts it.
  const mf = new Miniflare(
    convertV4MiniflareOptions({ workers: [worker], cf: false, port: 0, host: '127.0.0.1' }),
  );
  const url = await mf.ready;
  return { mf, url: url.toString().replace(/\/$/, '') };
}

async function migrate(d1) {
  const dir = path.join(root, 'schema', 'migrations');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const statements = readFileSync(path.join(dir, file), 'utf8')
      .split('--> statement-breakpoint')
      .map((s) => s.trim())
      .filter(Boolean);
    await d1.batch(statements.map((s) => d1.prepare(s)));
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

function autocannonRun(url, scenario, duration) {
  return new Promise((resolve, reject) => {
    const request = {
      method: scenario.method,
      path: scenario.path,
      headers: scenario.headers ?? {},
      body: scenario.body,
    };
    if (scenario.setupRequest) request.setupRequest = scenario.setupRequest;
    autocannon(
      { url, connections: CONNECTIONS, duration, requests: [request], timeout: 30 },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
  });
}

/** D1 statements and round trips of one request of the scenario, from the metrics headers. */
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
  return {
    status: res.status,
    bytes,
    queries: res.headers.get('x-d1-queries') ?? '?',
    roundTrips: res.headers.get('x-d1-round-trips') ?? '?',
  };
}

const pad = (s, n) => String(s).padEnd(n);
const num = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : '-');

async function main() {
  console.log('Bundling the Worker (wrangler deploy --dry-run)…');
  bundle();
  const { mf, url } = await startWorker();
  try {
    const d1 = await mf.getD1Database('DB');
    await migrate(d1);
    const api = makeApi(url);
    const world = await seedWorld(api);
    const ctx = { api, d1, world, url, mf, operatorToken: OPERATOR_TOKEN };

    const scenarios = [];
    const files = readdirSync(path.join(root, 'bench'))
      .filter((f) => f.endsWith('.mjs'))
      .sort();
    for (const file of files) {
      const mod = await import(pathToFileURL(path.join(root, 'bench', file)).href);
      const list = await mod.default(ctx);
      for (const s of list) scenarios.push({ ...s, group: file.replace(/\.mjs$/, '') });
    }
    const selected = ONLY ? scenarios.filter((s) => s.name.includes(ONLY) || s.group === ONLY) : scenarios;

    console.log(
      `\nMeasured path: workerd via Miniflare at ${url} (no wrangler dev proxy), ${CONNECTIONS} connections, ${DURATION}s per scenario.\n`,
    );
    const baseline = await autocannonRun(url, { method: 'GET', path: '/healthz' }, DURATION);
    const baseRps = baseline.requests.average;
    const rows = [
      [
        'GET /healthz (baseline)',
        baseRps,
        baseline.latency.p50,
        baseline.latency.p99,
        1,
        0,
        0,
        baseline.non2xx,
        '-',
      ],
    ];
    const notes = [];
    for (const scenario of selected) {
      if (scenario.run) {
        const lines = await scenario.run(ctx);
        notes.push(`${scenario.name}:`, ...lines.map((l) => `  ${l}`));
        continue;
      }
      const cost = await sampleCost(url, scenario);
      if (cost.status >= 400) notes.push(`${scenario.name}: sample request answered ${cost.status}`);
      const result = await autocannonRun(url, scenario, scenario.duration ?? DURATION);
      rows.push([
        scenario.name,
        result.requests.average,
        result.latency.p50,
        result.latency.p99,
        result.requests.average / baseRps,
        cost.queries,
        cost.roundTrips,
        result.non2xx,
        cost.bytes,
      ]);
    }
    const header = [
      'scenario',
      'req/s',
      'p50 ms',
      'p99 ms',
      'vs healthz',
      'D1 queries',
      'D1 round trips',
      'non-2xx',
      'bytes',
    ];
    const widths = [58, 9, 8, 8, 11, 11, 15, 8, 8];
    console.log(header.map((h, i) => pad(h, widths[i])).join(''));
    for (const r of rows) {
      console.log(
        [r[0], num(r[1]), num(r[2], 1), num(r[3], 1), num(r[4], 2), r[5], r[6], r[7], r[8]]
          .map((v, i) => pad(v, widths[i]))
          .join(''),
      );
    }
    if (notes.length > 0) console.log(`\n${notes.join('\n')}`);
  } finally {
    await mf.dispose();
  }
  if (!ONLY || ONLY === 'floor') await platformFloor();
}

/**
 * What local storage costs by itself: a trivial Worker answering at once, after one KV read,
 * after one D1 `SELECT 1`, and after both at the same time, in the same emulator. Read the
 * scenarios' "vs healthz" against these: a route cannot beat the floor of the storage it needs.
 */
async function platformFloor() {
  const script = `export default { async fetch(req, env) {
    const p = new URL(req.url).pathname;
    const kv = () => env.KV.get('k');
    const d1 = () => env.DB.prepare('SELECT 1 AS x').first();
    if (p === '/kv') await kv();
    else if (p === '/d1') await d1();
    else if (p === '/both') await Promise.all([kv(), d1()]);
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  } };`;
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers: [
        {
          name: 'floor',
          modules: true,
          script,
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
  try {
    const url = (await mf.ready).toString().replace(/\/$/, '');
    const base = (await autocannonRun(url, { method: 'GET', path: '/' }, DURATION)).requests.average;
    console.log(
      `\nPlatform floor (a trivial Worker in the same emulator; ${num(base)} req/s answering at once):`,
    );
    for (const [path, what] of [
      ['/kv', 'one KV read'],
      ['/d1', 'one D1 round trip (SELECT 1)'],
      ['/both', 'one KV read and one D1 round trip, side by side'],
    ]) {
      const rps = (await autocannonRun(url, { method: 'GET', path }, DURATION)).requests.average;
      console.log(
        `  ${pad(what, 50)} ${pad(num(rps), 7)} req/s  ${num(rps / base, 2)} of the trivial Worker`,
      );
    }
  } finally {
    await mf.dispose();
  }
}

await main();
