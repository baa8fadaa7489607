#!/usr/bin/env node
// `npm run bench:mint [-- <checkout> …]`: generate-session for a returning and a new external
// user against `/healthz`, as ratios taken in the same round, in this checkout and in any other
// checkouts named (a worktree of an older commit, to compare: `git worktree add ../old <commit>`,
// with its node_modules linked to this one's). Each checkout's Worker is bundled as
// `wrangler deploy` would, run in its own workerd through Miniflare and seeded as
// bench/embedding.mjs seeds it (3 groups, 3 attributes, 100 API keys, 200 returning users). Then
// every round runs, per checkout (the order alternating between rounds, so machine load falls
// on all alike): /healthz, the returning-user mint, the new-user mint, for `--duration` seconds
// each at `--connections` connections. Ratios are per round; the medians and ranges are printed.
//
// `--breakdown` adds, per checkout, the same mints with platform calls answered without storage
// (see bench/mint-entry.js): which share of the gap to /healthz each call takes.
//
// Every round also runs the mint's platform floor (bench/mint-floor.js, in a workerd of its own):
// a Worker making only the platform calls a mint cannot do without (the limiter, one D1 read
// batch, a new user's one write batch, the KV put), as ratios to its own trivial route. No mint
// of any Worker reaches more than that here.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { ATTRIBUTES, GROUPS, KEYS, SESSION_STATE } from '../bench/embedding.mjs';
import { BENCH_BINDINGS, bundledModules, bundleWorker, OPERATOR_TOKEN } from '../bench/helpers/bundle.mjs';
import { migrateFolder, shardBindings } from '../bench/helpers/migrations.mjs';

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const valued = new Set(['--duration', '--rounds', '--connections', '--profile', '--inspector-port']);
const roots = [
  here,
  ...argv.filter((a, i) => !a.startsWith('--') && !valued.has(argv[i - 1])).map((r) => path.resolve(r)),
];
const DURATION = Number(flag('--duration', 3));
const ROUNDS = Number(flag('--rounds', 5));
const CONNECTIONS = Number(flag('--connections', 32));
const BREAKDOWN = argv.includes('--breakdown');
/** `--profile <n>`: n mints of each kind one at a time under the CPU profiler, per checkout. */
const PROFILE = Number(flag('--profile', 0));
const INSPECTOR_PORT = Number(flag('--inspector-port', 9229));
/** `--sql`: no Worker; the mint's statement building alone, per checkout, in this process. */
const SQL_ONLY = argv.includes('--sql');
const ENTRY = 'bench-mint-entry.js';

/** The checkout at `root` bundled with this checkout's wrangler, and the bench's entry added. */
function bundle(root) {
  const outDir = path.join(root, '.bench', 'mint-dist');
  bundleWorker(root, outDir, path.join(here, 'node_modules', 'wrangler', 'bin', 'wrangler.js'));
  copyFileSync(path.join(here, 'bench', 'mint-entry.js'), path.join(outDir, ENTRY));
  return outDir;
}

/** The workerd processes this process runs (each Miniflare instance starts one). */
function workerdChildren() {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]).toString();
  return out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter(([, comm]) => comm?.startsWith('workerd'))
    .map(([pid]) => Number(pid));
}

/** CPU seconds (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function start(root, outDir, inspectorPort) {
  const before = new Set(workerdChildren());
  const { workerOptions } = unstable_getMiniflareWorkerOptions(path.join(root, 'wrangler.toml'));
  const { modulesRules: _rules, ...options } = workerOptions;
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers: [
        {
          ...options,
          name: 'edgeboard',
          modulesRoot: outDir,
          modules: bundledModules(outDir, ENTRY),
          outboundService: () => new Response('the bench sends nothing', { status: 599 }),
          bindings: {
            ...workerOptions.bindings,
            ...BENCH_BINDINGS,
          },
        },
      ],
      cf: false,
      port: 0,
      host: '127.0.0.1',
      ...(inspectorPort && { inspectorPort }),
    }),
  );
  const url = (await mf.ready).toString().replace(/\/$/, '');
  const pid = workerdChildren().find((p) => !before.has(p));
  return { mf, url, pid };
}

/** As `npm run db:migrate` does in the checkout: with shards and a control database when it has them. */
async function migrate(root, mf) {
  if (!existsSync(path.join(root, 'schema', 'control-migrations'))) {
    await migrateFolder(root, await mf.getD1Database('DB'), 'migrations');
    return;
  }
  const { idFloorStatements } = await import(pathToFileURL(path.join(root, 'src/core/shard-schema.ts')).href);
  await migrateFolder(root, await mf.getD1Database('CONTROL_DB'), 'control-migrations');
  for (const [shard, name] of shardBindings(root).entries()) {
    const d1 = await mf.getD1Database(name);
    await migrateFolder(root, d1, 'migrations');
    await d1.batch(idFloorStatements(shard).map((s) => d1.prepare(s)));
  }
}

function client(url) {
  return async (method, route, { auth, body } = {}) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: {
        ...(auth?.bearer ? { authorization: `Bearer ${auth.bearer}` } : {}),
        ...(auth?.apiKey ? { authorization: `Api-Key ${auth.apiKey}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
}

const RETURNING = 200;

/** The account, catalogue, keys and returning users of bench/embedding.mjs. */
async function seed(url) {
  const api = client(url);
  const created = await api('POST', '/admin/v1/accounts', {
    auth: { bearer: OPERATOR_TOKEN },
    body: { name: 'Bench account', plan: 'enterprise', useCreatorMode: true },
  });
  const admin = { bearer: created.accessToken };
  await api('PATCH', `/admin/v1/accounts/${created.account.id}`, {
    auth: { bearer: OPERATOR_TOKEN },
    body: { externalUserLimit: 10_000_000 },
  });
  const deploymentId = (
    await api('POST', '/build/api/v1/deployments', { auth: admin, body: { name: 'Bench' } })
  ).id;
  for (const name of GROUPS) await api('POST', '/api/v1/groups', { auth: admin, body: { name } });
  for (const [name, type] of ATTRIBUTES) {
    await api('POST', '/api/v1/user-attributes', { auth: admin, body: { name, type } });
  }
  const keys = [];
  for (let i = 0; i < KEYS; i++) {
    keys.push((await api('POST', '/api/v1/api-keys', { auth: admin, body: { name: `bench-${i}` } })).key);
  }
  const body = (externalId) => JSON.stringify({ deploymentId, externalId, ...SESSION_STATE });
  for (let i = 0; i < RETURNING; i++) {
    await api('POST', '/api/v1/embed/generate-session', {
      auth: { apiKey: keys[i % KEYS] },
      body: JSON.parse(body(`r-${i}`)),
    });
  }
  return { keys, body };
}

function scenarios(world, tag) {
  let n = 0;
  const mint = (externalId) => ({
    method: 'POST',
    path: '/api/v1/embed/generate-session',
    headers: { 'content-type': 'application/json' },
    setupRequest: (req) => {
      n += 1;
      return {
        ...req,
        headers: { ...req.headers, authorization: `Api-Key ${world.keys[n % KEYS]}` },
        body: world.body(externalId(n)),
      };
    },
  });
  return {
    healthz: { method: 'GET', path: '/healthz' },
    returning: mint((i) => `r-${i % RETURNING}`),
    new: mint((i) => `new-${tag}-${i}`),
  };
}

/** A load of `scenario`, with the workerd CPU milliseconds each answered request cost. */
async function load(run, scenario, headers = {}) {
  const cpu = run.pid ? cpuSeconds(run.pid) : Number.NaN;
  const result = await cannon(run.url, scenario, headers);
  result.cpuMs = ((cpuSeconds(run.pid) - cpu) * 1000) / Math.max(1, result.requests.total);
  return result;
}

function cannon(url, scenario, headers = {}) {
  const request = { ...scenario, headers: { ...scenario.headers, ...headers } };
  if (scenario.setupRequest) {
    request.setupRequest = (req) => {
      const next = scenario.setupRequest(req);
      return { ...next, headers: { ...next.headers, ...headers } };
    };
  }
  return new Promise((resolve, reject) =>
    autocannon(
      { url, connections: CONNECTIONS, duration: DURATION, requests: [request], timeout: 30 },
      (err, result) => (err ? reject(err) : resolve(result)),
    ),
  );
}

/** One request's D1 figures, from the metrics headers. */
async function sample(url, scenario) {
  const req = scenario.setupRequest({
    method: scenario.method,
    path: scenario.path,
    headers: scenario.headers,
  });
  const res = await fetch(`${url}${req.path}`, { method: req.method, headers: req.headers, body: req.body });
  await res.arrayBuffer();
  const h = (name) => res.headers.get(`x-d1-${name}`) ?? '?';
  return `status ${res.status}, ${h('queries')} statements, ${h('round-trips')} round trips (${h('primary-round-trips')} primary, ${h('replica-round-trips')} replica), ${h('rows-written')} rows written`;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (xs) => `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;

/**
 * What `--breakdown` switches off (bench/mint-entry.js reads the header): the session's KV put,
 * the rate limiter's call, and both; each line is the mint's ratio with those calls gone.
 */
const ABLATIONS = ['kv', 'limiter', 'kv,limiter'];

/** A DevTools-protocol session with the edgeboard Worker's isolate (workerd's inspector). */
async function inspect(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const target = targets.find((t) => t.title?.includes('edgeboard')) ?? targets[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  };
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        id += 1;
        pending.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/**
 * Self and total CPU time per function over `PROFILE` mints of each kind sent one at a time:
 * where the Worker's own JavaScript spends a mint (storage calls run outside the isolate and
 * show only as the time their bindings' JavaScript wrappers take).
 */
async function profile(run, port) {
  const session = await inspect(port);
  await session.send('Profiler.enable');
  await session.send('Profiler.setSamplingInterval', { interval: 50 });
  for (const which of ['returning', 'new']) {
    const scenario = run.list[which];
    const send = async () => {
      const req = scenario.setupRequest({
        method: scenario.method,
        path: scenario.path,
        headers: scenario.headers,
      });
      const res = await fetch(`${run.url}${req.path}`, {
        method: req.method,
        headers: req.headers,
        body: req.body,
      });
      await res.arrayBuffer();
    };
    for (let i = 0; i < 50; i++) await send();
    await session.send('Profiler.start');
    const started = performance.now();
    for (let i = 0; i < PROFILE; i++) await send();
    const wall = performance.now() - started;
    const { result } = await session.send('Profiler.stop');
    const nodes = new Map(result.profile.nodes.map((n) => [n.id, n]));
    const self = new Map();
    const dt = result.profile.timeDeltas;
    const samples = result.profile.samples;
    for (let i = 0; i < samples.length; i++) {
      const node = nodes.get(samples[i]);
      node.hits = (node.hits ?? 0) + (dt[i + 1] ?? 0) / 1000;
    }
    const parents = new Map();
    for (const n of result.profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
    const name = (n) =>
      `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
    const total = new Map();
    let busy = 0;
    for (const n of result.profile.nodes) {
      const ms = n.hits ?? 0;
      if (!ms) continue;
      const own = name(n);
      if (!['(idle)', '(program)', '(garbage collector)'].includes(n.callFrame.functionName)) busy += ms;
      self.set(own, (self.get(own) ?? 0) + ms);
      const seen = new Set();
      for (let at = n; at; at = nodes.get(parents.get(at.id))) {
        const key = name(at);
        if (seen.has(key)) continue;
        seen.add(key);
        total.set(key, (total.get(key) ?? 0) + ms);
      }
    }
    const per = (ms) => (ms / PROFILE).toFixed(3);
    console.log(
      `\n${run.label} ${which}-user mint: ${PROFILE} sent one at a time, ${per(wall)} ms wall each, ` +
        `${per(busy)} ms of JavaScript each (${per(self.get('(garbage collector)  :0') ?? 0)} ms GC)`,
    );
    const top = (m, n) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
    console.log('  total ms per mint (inclusive):');
    for (const [k, ms] of top(total, 45)) console.log(`    ${per(ms).padStart(7)}  ${k}`);
    console.log('  self ms per mint:');
    for (const [k, ms] of top(self, 25)) console.log(`    ${per(ms).padStart(7)}  ${k}`);
  }
  session.close();
}

/**
 * `--sql`: what building the mint's SQL costs, with no storage: each checkout's read and write
 * of a mint (as the new-user scenario sends them) bundled with its own drizzle, run against a D1
 * stand-in that answers at once, the checkouts alternating, in µs per call.
 */
async function sqlOnly() {
  const { build } = await import('esbuild');
  const subjects = [];
  for (const root of roots) {
    const fresh = path.join(root, 'src/embedding/generate-session.repository.ts');
    const module = existsSync(fresh) ? fresh : path.join(root, 'src/embedding/embed-sessions.repository.ts');
    const entry = path.join(root, '.bench', 'mint-sql.ts');
    const out = path.join(root, '.bench', 'mint-sql.mjs');
    mkdirSync(path.dirname(entry), { recursive: true });
    writeFileSync(
      entry,
      `import { drizzle } from 'drizzle-orm/d1';\nexport * as repo from ${JSON.stringify(module)};\n` +
        'export const open = (d1) => drizzle(d1, { casing: "snake_case" });\n',
    );
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: out,
      logLevel: 'error',
    });
    subjects.push({ root, ...(await import(pathToFileURL(out).href)), read: [], write: [] });
  }
  const head = {
    key_id: 1,
    key_hash: 'h',
    deployment_ids: null,
    account_id: 1,
    plan: 'enterprise',
    use_creator_mode: 1,
    external_user_limit: 10,
    external_user_count: 1,
    session_rate_limit: 600,
    embed_session_ttl_seconds: 3600,
    show_dashboard_chat: 0,
    frozen_at: null,
    deployment_found: 1,
    tenant_id: 1,
  };
  const d1 = {
    prepare: (text) => ({ bind: (...values) => ({ text, values }) }),
    batch: async (stmts) =>
      stmts.map((_, i) => ({
        results: i === 0 ? [head] : i === stmts.length - 1 ? [{ tenant_id: 1, user_id: 2 }] : [],
      })),
  };
  const read = {
    keyHash: 'a'.repeat(64),
    deploymentId: 1,
    tenantName: 'default',
    creatorMode: false,
    externalId: 'new-1',
    groupNames: GROUPS,
    attributeNames: ATTRIBUTES.map(([name]) => name),
  };
  const write = {
    accountId: 1,
    tenantName: 'default',
    creatorMode: false,
    createTenant: false,
    groupDefinitions: [],
    attributeDefinitions: [],
    keyHash: 'a'.repeat(64),
    definitionTypes: [],
    user: {
      externalId: 'new-1',
      isNew: true,
      set: {
        displayName: 'Bench User',
        picture: 'https://cdn.example.com/a.png',
        securityContext: '{"orgId":42}',
      },
      groups: GROUPS,
      values: ATTRIBUTES.map(([name, , value]) => ({ name, value })),
      clear: [],
      expectedFingerprint: null,
    },
  };
  const time = async (fn) => {
    const n = 3000;
    const t = performance.now();
    for (let i = 0; i < n; i++) await fn();
    return ((performance.now() - t) / n) * 1000;
  };
  for (let round = 0; round <= ROUNDS; round++) {
    for (const s of round % 2 ? [...subjects].reverse() : subjects) {
      const db = s.open(d1);
      // A Date for both: the stand-in binds nothing, so the older signature (an ISO string) costs the same.
      const r = await time(() => s.repo.readMintState(db, read));
      const w = await time(() => s.repo.writeMintState(db, write, new Date()));
      // Round 0 warms the code up.
      if (round > 0) {
        s.read.push(r);
        s.write.push(w);
      }
    }
  }
  console.log(`Building a mint's SQL (no storage), µs per call, median (range) of ${ROUNDS} rounds:`);
  for (const s of subjects) console.log(`  ${s.root}: read ${fmt(s.read)}, write ${fmt(s.write)}`);
}

/** The mint's platform floor (bench/mint-floor.js) in a workerd of its own, set up as `world` is. */
async function startMintFloor(world) {
  const before = new Set(workerdChildren());
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      workers: [
        {
          name: 'mint-floor',
          modulesRoot: path.join(here, 'bench'),
          modules: [{ type: 'ESModule', path: path.join(here, 'bench', 'mint-floor.js') }],
          compatibilityDate: '2026-10-01',
          d1Databases: ['DB'],
          kvNamespaces: ['SESSIONS'],
          // As wrangler.toml's SESSION_RATE_LIMITER.
          ratelimits: { LIMITER: { namespace_id: '1', simple: { limit: 10, period: 10 } } },
        },
      ],
      cf: false,
      port: 0,
      host: '127.0.0.1',
    }),
  );
  const url = (await mf.ready).toString().replace(/\/$/, '');
  const pid = workerdChildren().find((p) => !before.has(p));
  const api = client(url);
  await api('POST', '/setup', { body: { keys: world.keys, groups: GROUPS, attributes: ATTRIBUTES } });
  for (let i = 0; i < RETURNING; i++) {
    await api('POST', '/new', {
      auth: { apiKey: world.keys[i % KEYS] },
      body: JSON.parse(world.body(`r-${i}`)),
    });
  }
  const list = scenarios(world, `floor-${process.pid}`);
  return {
    mf,
    url,
    pid,
    list: {
      healthz: { method: 'GET', path: '/' },
      returning: { ...list.returning, path: '/returning' },
      new: { ...list.new, path: '/new' },
    },
    ratios: { returning: [], new: [] },
    cpu: { healthz: [], returning: [], new: [] },
    rps: { healthz: [], returning: [], new: [] },
  };
}

/** One round of `run`: its trivial route, then both mints, as ratios to it and CPU per request. */
async function roundOf(run) {
  const base = await load(run, run.list.healthz);
  run.cpu.healthz.push(base.cpuMs);
  for (const which of ['returning', 'new']) {
    const r = await load(run, run.list[which]);
    if (r.non2xx > 0) console.log(`  ${run.label} ${which}: ${r.non2xx} answers not 2xx`);
    run.ratios[which].push(r.requests.average / base.requests.average);
    run.cpu[which].push(r.cpuMs);
    run.rps[which].push(r.requests.average);
  }
  run.rps.healthz.push(base.requests.average);
  return base;
}

/** The medians of a run's ratios and CPU per request, as printed lines. */
function summaryOf(run) {
  const cpu = (xs) => median(xs).toFixed(2);
  return [
    `  returning-user mint: ${fmt(run.ratios.returning)}`,
    `  new-user mint:       ${fmt(run.ratios.new)}`,
    `  workerd CPU ms per request: /healthz ${cpu(run.cpu.healthz)}, returning ${cpu(run.cpu.returning)}, new ${cpu(run.cpu.new)}` +
      ` (as ratios: returning ${(median(run.cpu.healthz) / median(run.cpu.returning)).toFixed(2)}, new ${(median(run.cpu.healthz) / median(run.cpu.new)).toFixed(2)})`,
  ];
}

async function main() {
  if (SQL_ONLY) return sqlOnly();
  const runs = [];
  // Stopped early: the workerd processes go too.
  let floor;
  process.once('SIGTERM', () =>
    Promise.allSettled([...runs, ...(floor ? [floor] : [])].map((r) => r.mf.dispose())).then(() =>
      process.exit(1),
    ),
  );
  for (const root of roots) {
    const label = execFileSync('git', ['log', '-1', '--format=%h %ad', '--date=short'], { cwd: root })
      .toString()
      .trim()
      .concat(
        execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root }).length > 0
          ? ' +changes'
          : '',
      );
    console.log(`Bundling ${root} (${label})…`);
    const outDir = bundle(root);
    const { mf, url, pid } = await start(root, outDir, PROFILE ? INSPECTOR_PORT + runs.length : undefined);
    await migrate(root, mf);
    const world = await seed(url);
    const list = scenarios(world, `${process.pid}-${runs.length}`);
    console.log(`  returning: ${await sample(url, list.returning)}`);
    console.log(`  new:       ${await sample(url, list.new)}`);
    runs.push({
      root,
      label,
      mf,
      url,
      pid,
      list,
      world,
      ratios: { returning: [], new: [] },
      cpu: { healthz: [], returning: [], new: [] },
      rps: { healthz: [], returning: [], new: [] },
      ablated: {},
      ablatedCpu: {},
    });
  }
  try {
    if (PROFILE) {
      for (const [i, run] of runs.entries()) await profile(run, INSPECTOR_PORT + i);
      return;
    }
    floor = { ...(await startMintFloor(runs[0].world)), label: 'platform floor' };
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? [...runs].reverse() : runs;
      for (const run of round % 2 ? [...order, floor] : [floor, ...order]) {
        const base = await roundOf(run);
        if (BREAKDOWN && run !== floor) {
          for (const off of ABLATIONS) {
            for (const which of ['returning', 'new']) {
              const r = await load(run, run.list[which], { 'x-bench-off': off });
              const key = `${which} without ${off}`;
              run.ablated[key] ??= [];
              run.ablated[key].push(r.requests.average / base.requests.average);
              run.ablatedCpu[key] ??= [];
              run.ablatedCpu[key].push(r.cpuMs);
            }
          }
        }
        console.log(
          `  round ${round + 1} ${run.label}: ${run.list.healthz.path} ${base.requests.average.toFixed(0)} req/s; returning ${run.ratios.returning.at(-1).toFixed(2)}, new ${run.ratios.new.at(-1).toFixed(2)}; CPU ms ${run.cpu.healthz.at(-1).toFixed(2)} / ${run.cpu.returning.at(-1).toFixed(2)} / ${run.cpu.new.at(-1).toFixed(2)}`,
        );
      }
    }
    console.log(
      `\nRatios to /healthz, median (range) of ${ROUNDS} rounds of ${DURATION} s, ${CONNECTIONS} connections:`,
    );
    for (const run of runs) {
      console.log(`${run.label} (${run.root})`);
      const [returning, fresh, cpu] = summaryOf(run);
      console.log(`${returning}\n${fresh}`);
      for (const [key, xs] of Object.entries(run.ablated)) {
        console.log(
          `  ${key}: ${fmt(xs)}; workerd CPU ms per request ${median(run.ablatedCpu[key]).toFixed(2)}`,
        );
      }
      console.log(cpu);
    }
    console.log(
      "The platform floor (bench/mint-floor.js: the limiter, one D1 read batch, a new user's one write batch, the KV put), to its own trivial route:",
    );
    for (const line of summaryOf(floor)) console.log(line);
    // The goal's measure: a mint's throughput over edgeboard's /healthz in the same round.
    const against = (which) => floor.rps[which].map((rps, i) => rps / runs[0].rps.healthz[i]);
    console.log(
      `  as ratios to ${runs[0].label}'s /healthz in the same rounds: returning ${fmt(against('returning'))}, new ${fmt(against('new'))}`,
    );
  } finally {
    for (const run of runs) await run.mf.dispose();
    await floor?.mf.dispose();
  }
}

await main();
