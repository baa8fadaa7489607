// Helpers of the browser test: Debian's chromium, a free port, the API under `npm start`, HTTP
// seeding with the operator token, and the customer's host page that embeds the viewer.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM = '/usr/bin/chromium';

/** Debian's chromium, so the test needs no browser download; installed with apt-get when missing. */
export function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  const asRoot = process.getuid?.() === 0;
  const run = (args) => {
    const res = spawnSync(asRoot ? args[0] : 'sudo', asRoot ? args.slice(1) : args, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (res.status !== 0) throw new Error(`${args.join(' ')} failed (${res.status})`);
  };
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', '--no-install-recommends', 'chromium']);
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is still missing after apt-get install chromium`);
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Where `freePort` looks: below the range the kernel hands out for `listen(0)` and outgoing
 * connections (Linux: 32768–60999). A port taken from that range was free only until some other
 * process's own socket took it: the other browser test file's `npm start` (wrangler and workerd
 * open several) did, in the seconds before this file's server listened on it.
 */
const PORTS = { from: 20_000, to: 32_000 };

/** Whether nothing listens on `port` of 127.0.0.1 now. */
function bindable(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.on('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port of 127.0.0.1 nothing listens on, picked at random below the ephemeral range. */
export async function freePort() {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = PORTS.from + Math.floor(Math.random() * (PORTS.to - PORTS.from));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${PORTS.from} and ${PORTS.to}`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * `npm start -- --port N --var ADMIN_TOKEN:<token>` with its own fresh local state, in its own
 * process group (so stopping it stops wrangler and workerd too). Output is kept for the report.
 */
export async function startServer({ adminToken }) {
  // Another process may still take the port before wrangler listens on it: then another port.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServerOnce({ adminToken, port: await freePort() });
    } catch (error) {
      if (attempt >= 3 || !/Address already in use/.test(String(error))) throw error;
    }
  }
}

async function startServerOnce({ adminToken, port }) {
  const state = mkdtempSync(path.join(os.tmpdir(), 'edgeboard-browser-'));
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const child = spawn(
    npm,
    [
      'start',
      '--',
      '--port',
      String(port),
      '--ip',
      '127.0.0.1',
      '--var',
      `ADMIN_TOKEN:${adminToken}`,
      '--persist-to',
      state,
    ],
    { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true' } },
  );
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (exited) {
      rmSync(state, { recursive: true, force: true });
      throw new Error(`npm start exited early:\n${output}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      stop();
      throw new Error(`npm start did not answer /healthz in time:\n${output}`);
    }
    await sleep(500);
  }
  function stop() {
    if (!exited) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
    }
    rmSync(state, { recursive: true, force: true });
  }
  return { url, port, stop, output: () => output, exited: () => exited };
}

/** A JSON request to the API; throws on an unexpected status. */
export async function call(base, method, route, { auth, body, expect = [200, 201] } = {}) {
  const headers = {};
  if (auth) headers.authorization = auth;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${route}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : null;
  if (!expect.includes(res.status)) throw new Error(`${method} ${route} → ${res.status} ${text}`);
  return json;
}

/**
 * Seeds, over HTTP as a customer would: an account (60 s sessions, the shortest allowed), a
 * deployment, the 20-widget sample dashboard with its reports, published and embeddable.
 */
export async function seed(base, adminToken, { allowedEmbedOrigins = null } = {}) {
  const fixture = JSON.parse(
    readFileSync(path.join(root, 'test/render/fixtures/business-review.json'), 'utf8'),
  );
  const created = await call(base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${adminToken}`,
    // The account turns the embedded chat on (it is off unless asked for), so its place is checked.
    body: {
      name: 'Browser test',
      plan: 'enterprise',
      embedSessionTtlSeconds: 60,
      allowedEmbedOrigins,
      showDashboardChat: true,
    },
  });
  const accountId = created.account.id;
  const setAllowedOrigins = (origins) =>
    call(base, 'PATCH', `/admin/v1/accounts/${accountId}`, {
      auth: `Bearer ${adminToken}`,
      body: { allowedEmbedOrigins: origins },
    });
  const admin = `Bearer ${created.accessToken}`;
  const apiKey = `Api-Key ${created.apiKey}`;
  const deployment = await call(base, 'POST', '/build/api/v1/deployments', {
    auth: admin,
    body: { name: 'Production' },
  });
  const d = `/api/v1/deployments/${deployment.id}`;
  const workbook = await call(base, 'POST', `${d}/workbooks`, {
    auth: admin,
    body: { name: 'Business review' },
  });
  const ids = new Map();
  for (const s of fixture.reportSnapshots) {
    const report = await call(base, 'POST', `${d}/reports`, {
      auth: admin,
      body: { name: s.name, title: s.title, spec: s.spec, workbookId: workbook.id },
    });
    ids.set(s.reportId, report.id);
  }
  const config = structuredClone(fixture.config);
  for (const w of config.widgets) if (w.config?.reportId) w.config.reportId = ids.get(w.config.reportId);
  await call(base, 'PUT', `${d}/workbooks/${workbook.id}/dashboard`, {
    auth: admin,
    body: { dashboardDraft: config },
  });
  const published = await call(base, 'POST', `${d}/workbooks/${workbook.id}/publish`, {
    auth: admin,
    body: { title: 'Business review' },
  });
  await call(base, 'PATCH', `/api/v1/embed/dashboard/${published.publicId}`, {
    auth: admin,
    body: { allowEmbed: true },
  });
  const minted = [];
  const mint = async (userProfile = {}) => {
    const { sessionId } = await call(base, 'POST', '/api/v1/embed/generate-session', {
      auth: apiKey,
      body: { deploymentId: deployment.id, externalId: 'ada', userProfile },
    });
    minted.push(sessionId);
    return sessionId;
  };
  const revoke = (sessionId) =>
    call(base, 'POST', '/api/v1/embed/session/revoke', { auth: apiKey, body: { sessionId } });
  return { publicId: published.publicId, config, mint, minted, revoke, setAllowedOrigins };
}

/**
 * The customer's site: a page that frames the viewer and answers its messages, and a backend
 * route (`/session`) that mints a fresh session with the customer's API key, as in the docs.
 */
export async function startHost({ apiUrl, publicId, mint }) {
  const port = await freePort();
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, `http://localhost:${port}`);
    if (url.pathname === '/session') {
      const sessionId = await mint({ displayName: 'Ada Lovelace' });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sessionId }));
      return;
    }
    if (url.pathname === '/') {
      const session = url.searchParams.get('session') ?? '';
      const dashboard = url.searchParams.get('publicId') ?? publicId;
      const width = Number(url.searchParams.get('width') ?? 1300);
      const autoRenew = url.searchParams.get('autoRenew') === '1';
      const inFragment = url.searchParams.get('in') === 'fragment';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(hostPage({ apiUrl, publicId: dashboard, session, width, autoRenew, inFragment }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://localhost:${port}`, close: () => new Promise((r) => server.close(r)) };
}

function hostPage({ apiUrl, publicId, session, width, autoRenew, inFragment }) {
  const viewerUrl = `${apiUrl}/embed/dashboard/${encodeURIComponent(publicId)}`;
  const src = `${viewerUrl}${inFragment ? '#' : '?'}session=${encodeURIComponent(session)}`;
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Customer site</title></head>
<body style="margin:0">
<iframe id="edgeboard" src="${src}" width="${width}" height="900" style="border:0"></iframe>
<script>
const frame = document.getElementById('edgeboard');
const viewerOrigin = ${JSON.stringify(new URL(apiUrl).origin)};
window.messages = [];
// Heights and error codes apart, so the message sequence reads as the renewal protocol.
window.heights = [];
window.filterChanges = [];
window.errors = [];
window.autoRenew = ${autoRenew};
window.renew = async () => {
  const { sessionId } = await (await fetch('/session')).json();
  frame.contentWindow.postMessage({ type: 'edgeboard:set-session', sessionId }, viewerOrigin);
};
window.addEventListener('message', (event) => {
  if (event.source !== frame.contentWindow || event.origin !== viewerOrigin) return;
  if (event.data.type === 'edgeboard:resize') return void window.heights.push(event.data.height);
  if (event.data.type === 'edgeboard:filters-changed') return void window.filterChanges.push(event.data.filters);
  if (event.data.type === 'edgeboard:error') window.errors.push(event.data.code);
  window.messages.push(event.data.type);
  if (window.autoRenew && (event.data.type === 'edgeboard:session-expiring' || event.data.type === 'edgeboard:session-expired')) {
    window.renew();
  }
});
</script>
</body></html>`;
}

/** The sales of the live dashboard's embedded store, as its CSV holds them. */
export const SALES = [
  { id: 1, region: 'north', product: 'apple', amount: 10, day: '2024-01-05' },
  { id: 2, region: 'north', product: 'pear', amount: 20, day: '2024-01-20' },
  { id: 3, region: 'south', product: 'apple', amount: 5, day: '2024-02-03' },
  { id: 4, region: 'south', product: 'plum', amount: 7, day: '2024-02-10' },
  { id: 5, region: 'north', product: 'apple', amount: 3, day: '2024-03-01' },
  { id: 6, region: 'east', product: 'pear', amount: 11, day: '2024-03-15' },
  { id: 7, region: 'north', product: 'plum', amount: 4, day: '2024-04-02' },
];

const SALES_MODEL = `cubes:
  - name: sales
    sql_table: sales
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: region
        sql: region
        type: string
      - name: product
        sql: product
        type: string
      - name: day
        sql: day
        type: time
    measures:
      - name: total
        sql: amount
        type: sum
      - name: count
        type: count
    access_policy:
      - group: managers
      - group: reps
        row_level:
          filters:
            - member: region
              operator: equals
              values: ["{ securityContext.region }"]
`;

/**
 * A live dashboard over HTTP, as a customer builds one: SALES imported as CSV into the embedded
 * store, a model whose policy lets `managers` see every row and `reps` their region's, KPI charts
 * of the total and the count (`w-total`, `w-count`), a monthly line (`w-month`), a FILTER on
 * `sales.product` (`f-product`) and a TIME_GRAIN on `sales.day` (`g-day`); published, embeddable.
 * `mint(viewer)` mints a session for `{externalId, groups, securityContext}`.
 */
export async function seedLive(base, adminToken) {
  const created = await call(base, 'POST', '/admin/v1/accounts', {
    auth: `Bearer ${adminToken}`,
    body: { name: 'Live browser test', plan: 'enterprise' },
  });
  const admin = `Bearer ${created.accessToken}`;
  const apiKey = `Api-Key ${created.apiKey}`;
  const deployment = await call(base, 'POST', '/build/api/v1/deployments', {
    auth: admin,
    body: { name: 'Live' },
  });
  const d = `/api/v1/deployments/${deployment.id}`;
  const columns = ['id', 'region', 'product', 'amount', 'day'];
  const csv = [columns.join(','), ...SALES.map((r) => columns.map((c) => r[c]).join(','))].join('\n');
  const imported = await fetch(`${base}${d}/data/tables/sales/import?mode=replace`, {
    method: 'POST',
    headers: { authorization: admin, 'content-type': 'text/csv' },
    body: csv,
  });
  if (!imported.ok) throw new Error(`import → ${imported.status} ${await imported.text()}`);
  await call(base, 'PUT', `/build/api/v1/deployments/${deployment.id}/data-model/files`, {
    auth: admin,
    body: { files: [{ path: 'model/cubes/sales.yml', content: SALES_MODEL }] },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await call(base, 'GET', `${d}/build-status`, { auth: admin });
    if (status.status === 'built') break;
    if (status.status === 'failed' || Date.now() > deadline) {
      throw new Error(`model build: ${JSON.stringify(status)}`);
    }
    await sleep(300);
  }
  for (const name of ['managers', 'reps']) {
    await call(base, 'POST', '/api/v1/groups', { auth: admin, body: { name } });
  }
  const workbook = await call(base, 'POST', `${d}/workbooks`, { auth: admin, body: { name: 'Sales' } });
  const report = async (name, jsonQuery, spec) =>
    (
      await call(base, 'POST', `${d}/reports`, {
        auth: admin,
        body: {
          name,
          title: name,
          workbookId: workbook.id,
          jsonQuery: JSON.stringify(jsonQuery),
          spec: JSON.stringify(spec),
        },
      })
    ).id;
  const total = await report('Total', { measures: ['sales.total'] }, { type: 'kpi' });
  const count = await report('Sales', { measures: ['sales.count'] }, { type: 'kpi' });
  const monthly = await report(
    'By month',
    { measures: ['sales.count'], timeDimensions: [{ dimension: 'sales.day', granularity: 'month' }] },
    { type: 'line' },
  );
  const chart = (id, reportId, x, y) => ({
    id,
    type: 'CHART',
    position: { x, y, w: 4, h: 3 },
    config: { reportId },
  });
  await call(base, 'PUT', `${d}/workbooks/${workbook.id}/dashboard`, {
    auth: admin,
    body: {
      dashboardDraft: {
        title: 'Sales',
        widgets: [
          {
            id: 'f-product',
            type: 'FILTER',
            position: { x: 0, y: 0, w: 6, h: 1 },
            config: { member: 'sales.product', label: 'Product' },
          },
          {
            id: 'g-day',
            type: 'TIME_GRAIN',
            position: { x: 6, y: 0, w: 6, h: 1 },
            config: { member: 'sales.day', grain: 'month', label: 'Grain' },
          },
          chart('w-total', total, 0, 1),
          chart('w-count', count, 4, 1),
          chart('w-month', monthly, 8, 1),
        ],
      },
    },
  });
  const published = await call(base, 'POST', `${d}/workbooks/${workbook.id}/publish`, {
    auth: admin,
    body: { title: 'Sales' },
  });
  await call(base, 'PATCH', `/api/v1/embed/dashboard/${published.publicId}`, {
    auth: admin,
    body: { allowEmbed: true },
  });
  const mint = async (viewer) =>
    (
      await call(base, 'POST', '/api/v1/embed/generate-session', {
        auth: apiKey,
        body: { deploymentId: deployment.id, ...viewer },
      })
    ).sessionId;
  return { publicId: published.publicId, mint };
}

/** What a KPI shows for a number (en-US, up to two decimals, like the renderer). */
export const kpiText = (value) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }).format(value);

/**
 * `npm run seed` as the README has a new user run it, against the test's server: the demo shop
 * in the embedded store, its model built, the "Sales overview" dashboard published. Returns the
 * variables it prints (BASE_URL, API_KEY, DEPLOYMENT_ID, CUBE_API_TOKEN, PUBLIC_ID, …).
 */
export async function seedDemo(base, adminToken) {
  const stdout = await new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(root, 'scripts', 'seed.mjs'), '--url', base, '--token', adminToken],
      { cwd: root, timeout: 180_000 },
      (err, out, errOut) =>
        err ? reject(new Error(`seed failed: ${err.message}\n${errOut}`)) : resolve(out),
    );
  });
  const vars = {};
  for (const m of stdout.matchAll(/^export ([A-Z_]+)='(.*)'$/gm)) vars[m[1]] = m[2].replaceAll(`'\\''`, "'");
  return vars;
}

/**
 * `npm run example`, the host-page example, on a free port for the seeded demo; stop() ends it.
 */
export async function startExample(vars) {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, 'examples', 'host-page', 'server.mjs')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...vars, EXAMPLE_PORT: String(port) },
  });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/config.json`);
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {}
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`the host-page example did not start:\n${output}`);
    }
    await sleep(250);
  }
  return { url, stop: () => child.kill() };
}
