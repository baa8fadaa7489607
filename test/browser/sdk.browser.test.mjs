// The embed SDK (sdk/) in a real browser: a customer's host page on localhost embeds the seed's
// dashboard with `embedDashboard`, its backend mints sessions with the API key. Checks load,
// renewal without reload, resize, errors and destroy. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  call,
  ensureChromium,
  freePort,
  kpiText,
  root,
  SALES,
  seedLive,
  startServer,
} from './server.mjs';

const ADMIN_TOKEN = `sdk-${randomBytes(12).toString('hex')}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let server;
let host;
let context;
let userDataDir;
let env;
/** Every session the host's backend minted, to check none reaches a log. */
const minted = [];

/** The seed's `export NAME='value'` lines as an object. */
function seedExports(output) {
  const vars = {};
  for (const match of output.matchAll(/^export (\w+)='([^']*)'$/gm)) vars[match[1]] = match[2];
  return vars;
}

/**
 * The customer's site: `/` embeds with the SDK (served from sdk/dist at `/sdk/`), `/session` is its
 * backend minting a session with the API key (`?revoke=1`: one revoked before it is handed out),
 * `/stub/embed/dashboard/*` a stand-in viewer that posts a fixed height.
 */
async function startHost() {
  const port = await freePort();
  const sdk = readFileSync(path.join(root, 'sdk/dist/index.js'), 'utf8');
  const srv = http.createServer(async (req, res) => {
    const url = new URL(req.url, `http://localhost:${port}`);
    if (url.pathname === '/sdk/index.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk);
    } else if (url.pathname === '/session' && req.method === 'POST') {
      const session = await call(env.BASE_URL, 'POST', '/api/v1/embed/generate-session', {
        auth: `Api-Key ${env.API_KEY}`,
        body: {
          deploymentId: Number(env.DEPLOYMENT_ID),
          externalId: 'ada',
          userProfile: { displayName: 'Ada Lovelace' },
        },
      });
      minted.push(session.sessionId);
      if (url.searchParams.get('revoke') === '1') {
        await call(env.BASE_URL, 'POST', '/api/v1/embed/session/revoke', {
          auth: `Api-Key ${env.API_KEY}`,
          body: { sessionId: session.sessionId },
        });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(session));
    } else if (url.pathname.startsWith('/stub/embed/dashboard/')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><body>stub<script>
parent.postMessage({ type: 'edgeboard:ready' }, '*');
setTimeout(() => parent.postMessage({ type: 'edgeboard:resize', height: 1234 }, '*'), 100);
</script></body>`);
    } else if (url.pathname === '/') {
      const base = url.searchParams.get('base') ?? env.BASE_URL;
      const fail = url.searchParams.get('fail') === '1';
      const sessionUrl = url.searchParams.get('revoked') === '1' ? '/session?revoke=1' : '/session';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html><head><meta charset="utf-8"><title>Customer site</title></head><body style="margin:0">
<div id="board"></div>
<script type="module">
import { embedDashboard } from '/sdk/index.js';
window.events = [];
window.heights = [];
window.filterChanges = [];
window.fetches = 0;
window.embed = embedDashboard({
  container: document.getElementById('board'),
  baseUrl: ${JSON.stringify(base)},
  publicId: ${JSON.stringify(env.PUBLIC_ID)},
  fetchSession: async () => {
    window.fetches += 1;
    if (${fail}) throw new Error('backend down');
    return (await fetch(${JSON.stringify(sessionUrl)}, { method: 'POST' })).json();
  },
  theme: { border: '1px solid #ddd' },
  // Heights and filter values apart, so the events read as the session's story.
  onEvent: (e) =>
    e.type === 'resize'
      ? window.heights.push(e.height)
      : e.type === 'filters-changed'
        ? window.filterChanges.push(e.filters)
        : window.events.push(e.type === 'error' ? 'error: ' + e.error.message : e.type),
});
</script></body></html>`);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => srv.listen(port, '127.0.0.1', resolve));
  return { url: `http://localhost:${port}`, close: () => new Promise((r) => srv.close(r)) };
}

async function waitFor(check, what, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

const events = (page) => page.evaluate(() => window.events.slice());

before(async () => {
  ensureChromium();
  // The test serves what `npm run build:sdk` produces; build it so the test never runs a stale one.
  const build = spawnSync(
    process.execPath,
    [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'sdk'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  assert.equal(build.status, 0, 'npm run build:sdk');
  server = await startServer({ adminToken: ADMIN_TOKEN });
  env = seedExports(
    execFileSync(process.execPath, ['scripts/seed.mjs', '--url', server.url, '--token', ADMIN_TOKEN], {
      cwd: root,
      encoding: 'utf8',
    }),
  );
  // The shortest session edgeboard allows, so the viewer asks for a renewal within the test.
  await call(server.url, 'PATCH', `/admin/v1/accounts/${env.ACCOUNT_ID}`, {
    auth: `Bearer ${ADMIN_TOKEN}`,
    body: { embedSessionTtlSeconds: 60 },
  });
  await call(server.url, 'PATCH', `/api/v1/embed/dashboard/${env.PUBLIC_ID}`, {
    auth: `Bearer ${env.ACCESS_TOKEN}`,
    body: { allowEmbed: true },
  });
  host = await startHost();
  userDataDir = mkdtempSync(path.join(os.tmpdir(), 'edgeboard-sdk-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
});

after(async () => {
  await context?.close();
  await host?.close();
  server?.stop();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

test('loads the dashboard, renews its session without reloading, then destroys everything', async () => {
  const page = await context.newPage();
  await page.goto(`${host.url}/`);
  const viewer = page.frameLocator('#board iframe');
  await viewer.locator('h1.eb-title', { hasText: 'Sales overview' }).waitFor();
  await waitFor(async () => (await events(page)).includes('loaded'), 'loaded');

  // The session is in the fragment only: never sent to the server, and gone from the address.
  const src = await page.evaluate(() => window.embed.iframe.src);
  assert.match(src, /\/embed\/dashboard\/[^?#]+#session=/);
  const frame = page.frames().find((f) => f.url().includes('/embed/dashboard/'));
  assert.doesNotMatch(frame.url(), /session/);
  await frame.evaluate(() => {
    window.sameDocument = true;
  });

  // 60 s sessions: the viewer warns 30 s after load; the SDK fetches a session and sets it.
  await waitFor(async () => (await events(page)).includes('renewed'), 'renewed', 50_000);
  assert.equal(await page.evaluate(() => window.fetches), 2);
  assert.equal(await frame.evaluate(() => window.sameDocument), true, 'renewed without a reload');
  assert.ok(await viewer.locator('h1.eb-title', { hasText: 'Sales overview' }).isVisible());
  assert.deepEqual(await events(page), ['loaded', 'renewed']);
  for (const sessionId of minted) assert.ok(!server.output().includes(sessionId), 'no session id in the log');

  await page.evaluate(() => window.embed.destroy());
  assert.equal(await page.locator('#board iframe').count(), 0);
  // Nothing left listening: a message that looks like the viewer's changes nothing.
  await page.evaluate(() => window.postMessage({ type: 'edgeboard:session-expiring' }, '*'));
  await sleep(500);
  assert.equal(await page.evaluate(() => window.fetches), 2);
  assert.deepEqual(await events(page), ['loaded', 'renewed']);
  await page.close();
});

test('sizes the frame to the height the viewer posts', async () => {
  const page = await context.newPage();
  await page.goto(`${host.url}/?${new URLSearchParams({ base: `${host.url}/stub` })}`);
  await waitFor(async () => (await page.evaluate(() => window.heights)).includes(1234), 'resize');
  assert.equal(await page.evaluate(() => window.embed.iframe.style.height), '1234px');
  // The content box is the dashboard's height; the theme's border comes on top of it.
  assert.equal(await page.evaluate(() => window.embed.iframe.clientHeight), 1234);
  await page.close();
});

test('reports a session the backend cannot give as an error, and frames nothing', async () => {
  const page = await context.newPage();
  await page.goto(`${host.url}/?fail=1`);
  await waitFor(async () => (await events(page)).length > 0, 'an event');
  assert.deepEqual(await events(page), ['error: backend down']);
  assert.equal(await page.locator('#board iframe').count(), 0);
  await page.close();
});

/** The viewer's dashboard root, measured inside the frame. */
const rootHeight = (frame) =>
  frame.evaluate(() => Math.ceil(document.getElementById('eb-root').getBoundingClientRect().height));

test('follows the real viewer’s height: the frame fits the dashboard at every width', async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1300, height: 900 });
  await page.goto(`${host.url}/`);
  await waitFor(async () => (await events(page)).includes('loaded'), 'loaded');
  const frame = page.frames().find((f) => f.url().includes('/embed/dashboard/'));
  const wide = await rootHeight(frame);
  await waitFor(async () => (await page.evaluate(() => window.heights.at(-1))) === wide, 'the wide height');
  // Not the SDK's 600 px default: the seed's dashboard is two rows of widgets.
  assert.notEqual(wide, 600);
  assert.equal(await page.evaluate(() => window.embed.iframe.style.height), `${wide}px`);
  // The frame shows the whole dashboard without a scroll bar inside it.
  assert.equal(await frame.evaluate(() => document.documentElement.scrollHeight), wide);

  // Narrower: the dashboard stacks its widgets, grows, and the frame follows.
  await page.setViewportSize({ width: 420, height: 900 });
  await waitFor(async () => (await rootHeight(frame)) > wide, 'the narrow layout');
  const narrow = await rootHeight(frame);
  await waitFor(
    async () => (await page.evaluate(() => window.heights.at(-1))) === narrow,
    'the narrow height',
  );
  assert.equal(await page.evaluate(() => window.embed.iframe.clientHeight), narrow);
  assert.equal(await frame.evaluate(() => document.documentElement.scrollHeight), narrow);
  // Only changes are posted: never the same height twice in a row.
  const heights = await page.evaluate(() => window.heights);
  assert.ok(
    heights.every((h, i) => i === 0 || h !== heights[i - 1]),
    `heights ${heights}`,
  );
  assert.deepEqual(await events(page), ['loaded']);
  await page.close();
});

test('reports a revoked session as an error with its code', async () => {
  const page = await context.newPage();
  await page.goto(`${host.url}/?revoked=1`);
  await waitFor(async () => (await events(page)).length > 0, 'an event');
  assert.deepEqual(await events(page), ['error: The dashboard could not be shown: SESSION_REVOKED']);
  const viewer = page.frameLocator('#board iframe');
  assert.equal(await viewer.locator('#eb-notice h1').textContent(), 'Access to this dashboard was withdrawn');
  // The frame still fits what it shows: the notice.
  const frame = page.frames().find((f) => f.url().includes('/embed/dashboard/'));
  const height = await rootHeight(frame);
  await waitFor(
    async () => (await page.evaluate(() => window.heights.at(-1))) === height,
    'the notice height',
  );
  await page.close();
});

test('the host page sets a filter through the SDK: the charts are narrowed and filters-changed fires', async () => {
  const live = await seedLive(server.url, ADMIN_TOKEN);
  const sdk = readFileSync(path.join(root, 'sdk/dist/index.js'), 'utf8');
  const port = await freePort();
  const site = http.createServer(async (req, res) => {
    if (req.url === '/sdk/index.js')
      return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(sdk);
    if (req.url === '/session') {
      const sessionId = await live.mint({
        externalId: 'rep-north',
        groups: ['reps'],
        securityContext: { region: 'north' },
      });
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sessionId }));
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html><head><meta charset="utf-8"><title>Live host</title></head><body>
<div id="board"></div>
<script type="module">
import { embedDashboard } from '/sdk/index.js';
window.changes = [];
window.embed = embedDashboard({
  container: document.getElementById('board'),
  baseUrl: ${JSON.stringify(server.url)},
  publicId: ${JSON.stringify(live.publicId)},
  fetchSession: () => fetch('/session', { method: 'POST' }).then((r) => r.json()),
  filters: [{ member: 'sales.product', values: ['plum'] }],
  onEvent: (e) => { if (e.type === 'filters-changed') window.changes.push(e.filters); },
});
</script></body></html>`);
  });
  await new Promise((resolve) => site.listen(port, '127.0.0.1', resolve));
  try {
    const page = await context.newPage();
    await page.goto(`http://localhost:${port}/`);
    const frame = page.frameLocator('iframe');
    const kpi = (id) => frame.locator(`[data-widget-id="${id}"] svg text`).first().textContent();
    const north = SALES.filter((r) => r.region === 'north');
    const total = (product) =>
      kpiText(north.filter((r) => r.product === product).reduce((t, r) => t + r.amount, 0));

    // The first load is already filtered (the filters travel in the fragment).
    await waitFor(async () => (await kpi('w-total')) === total('plum'), 'the plum total');
    const first = await waitFor(() => page.evaluate(() => window.changes[0]), 'filters-changed on ready');
    assert.deepEqual(
      first.find((f) => f.member === 'sales.product'),
      { member: 'sales.product', values: ['plum'] },
    );

    await page.evaluate(() => window.embed.setFilters([{ member: 'sales.product', values: ['apple'] }]));
    await waitFor(async () => (await kpi('w-total')) === total('apple'), 'the apple total');
    assert.equal(await kpi('w-count'), kpiText(north.filter((r) => r.product === 'apple').length));
    const last = await waitFor(
      () =>
        page.evaluate(
          () => window.changes.at(-1)?.find((f) => f.member === 'sales.product')?.values[0] === 'apple',
        ),
      'filters-changed after setFilters',
    );
    assert.ok(last);
    assert.deepEqual(
      (await page.evaluate(() => window.embed.getFilters())).find((f) => f.member === 'sales.product'),
      { member: 'sales.product', values: ['apple'] },
    );
    // The viewer's own control follows.
    assert.equal(
      await frame
        .getByRole('combobox', { name: 'Product', exact: true })
        .locator('option:checked')
        .textContent(),
      'apple',
    );
    await page.close();
  } finally {
    await new Promise((r) => site.close(r));
  }
});
