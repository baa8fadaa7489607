// The embed viewer in a real browser: Debian's headless Chromium drives a customer's host page on
// localhost that frames the viewer served by `npm start`. Run with `npm run test:browser`.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  ensureChromium,
  freePort,
  kpiText,
  SALES,
  seed,
  seedLive,
  startHost,
  startServer,
} from './server.mjs';

const ADMIN_TOKEN = `browser-${randomBytes(12).toString('hex')}`;
const TTL_MS = 60_000;

let server;
let host;
let context;
let world;
let userDataDir;
/** A session minted at the start, expired by the time the expiry tests run. */
let staleSession;
let staleMintedAt;
/** A page opened at the start whose session runs out while it is open. */
let livePage;
const problems = [];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function watch(page) {
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (msg) => {
    if (/Content Security Policy|Refused to/i.test(msg.text())) problems.push(`csp: ${msg.text()}`);
  });
  return page;
}

async function openHost(query) {
  const page = watch(await context.newPage());
  await page.goto(`${host.url}/?${new URLSearchParams(query)}`);
  return page;
}

const viewer = (page) => page.frameLocator('#edgeboard');
const messages = (page) => page.evaluate(() => window.messages.slice());

async function waitFor(check, what, timeout = 15_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** With EDGEBOARD_SCREENSHOTS=<dir>, keeps what the browser showed, to look at. */
async function screenshot(page, name) {
  const dir = process.env.EDGEBOARD_SCREENSHOTS;
  if (dir) await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
}

/** The widget's width as a share of the dashboard grid's width. */
async function widthShare(page, widgetId) {
  const frame = viewer(page);
  const widget = await frame.locator(`[data-widget-id="${widgetId}"]`).boundingBox();
  const grid = await frame.locator('main.eb-grid').boundingBox();
  return widget.width / grid.width;
}

before(async () => {
  ensureChromium();
  server = await startServer({ adminToken: ADMIN_TOKEN });
  world = await seed(server.url, ADMIN_TOKEN);
  host = await startHost({ apiUrl: server.url, publicId: world.publicId, mint: world.mint });
  userDataDir = mkdtempSync(path.join(os.tmpdir(), 'edgeboard-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  staleMintedAt = Date.now();
  staleSession = await world.mint({ displayName: 'Ada Lovelace' });
  livePage = await openHost({ session: await world.mint({ displayName: 'Ada Lovelace' }), width: '1300' });
});

after(async () => {
  await context?.close();
  await host?.close();
  server?.stop();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

/** The chat button sits in the header row: its box overlaps no widget's. */
async function assertChatCoversNothing(frame) {
  // Both boxes in the frame's own coordinates.
  const chat = await frame.locator('button.eb-chat').evaluate((el) => el.getBoundingClientRect().toJSON());
  assert.ok(chat.width > 0 && chat.height > 0, 'chat button laid out');
  for (const box of await frame
    .locator('section.eb-widget')
    .evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON()))) {
    const overlaps =
      box.width > 0 &&
      chat.x < box.x + box.width &&
      box.x < chat.x + chat.width &&
      chat.y < box.y + box.height &&
      box.y < chat.y + chat.height;
    assert.ok(!overlaps, `chat button ${JSON.stringify(chat)} over a widget ${JSON.stringify(box)}`);
  }
}

test('shows the widgets’ titles and text, laid out for the iframe’s width', async () => {
  const page = await openHost({ session: await world.mint({ displayName: 'Ada Lovelace' }), width: '1300' });
  const frame = viewer(page);
  await frame.locator('h2.eb-widget-title', { hasText: 'Revenue vs cost' }).waitFor();
  const titles = await frame.locator('h2.eb-widget-title').allTextContents();
  for (const title of [
    'Welcome',
    'Country',
    'Time grain',
    'Revenue vs cost',
    'Active users',
    'MRR',
    'Plan mix',
    'Top accounts',
    'Churn',
    'About',
  ]) {
    assert.ok(titles.includes(title), `title ${title} in ${titles.join(', ')}`);
  }
  assert.equal(await frame.locator('h1.eb-title').textContent(), 'Business review');
  assert.match(
    await frame.locator('[data-widget-id="intro"] .eb-text').textContent(),
    /^Monthly business review\./,
  );
  assert.ok(await frame.locator('[data-widget-id="intro"] .eb-text').isVisible());
  assert.equal(
    await frame.locator('[data-widget-id="country"] .eb-control-value').textContent(),
    'France, Germany',
  );
  assert.equal(await frame.locator('[data-widget-id="grain"] .eb-control-value').textContent(), 'Month');
  // Each chart has a drawing per distinct box; the breakpoint's media query shows one of them.
  assert.equal(await frame.locator('svg.eb-chart:visible').count(), 9);
  assert.equal(await frame.locator('[data-widget-id="revenue"] svg.eb-chart--lg:visible').count(), 1);
  assert.equal(await frame.locator('[data-widget-id="churn"] .eb-caption').textContent(), 'No data');
  assert.ok(
    await frame.locator('button.eb-chat').isVisible(),
    'chat button shown (the account turned it on)',
  );
  await assertChatCoversNothing(frame);

  await screenshot(page, 'viewer-lg');
  // lg at 1300 px: the revenue chart spans 6 of 12 columns; xs (481–768 px): its own entry, 4 of 4.
  const wide = await widthShare(page, 'revenue');
  assert.ok(wide > 0.45 && wide < 0.52, `lg share ${wide}`);
  await page.evaluate(() => {
    document.getElementById('edgeboard').width = '600';
  });
  await waitFor(async () => (await widthShare(page, 'revenue')) > 0.9, 'the xs layout');
  await screenshot(page, 'viewer-xs');
  // The xs drawing is shown, drawn for (at most) the box it gets: text is never scaled down.
  const xsChart = frame.locator('[data-widget-id="revenue"] svg.eb-chart--xs:visible');
  assert.equal(await xsChart.count(), 1);
  assert.equal(await frame.locator('svg.eb-chart:visible').count(), 9);
  const drawnWidth = Number((await xsChart.getAttribute('viewBox')).split(' ')[2]);
  const shownWidth = (await xsChart.boundingBox()).width;
  assert.ok(shownWidth >= drawnWidth - 1, `xs chart drawn ${drawnWidth} px, shown ${shownWidth} px`);
  await assertChatCoversNothing(frame);
  const users = await frame.locator('[data-widget-id="users"]').boundingBox();
  const revenue = await frame.locator('[data-widget-id="revenue"]').boundingBox();
  assert.ok(users.y !== revenue.y || users.x === revenue.x, 'widgets stacked in the narrow layout');
  assert.ok((await messages(page)).includes('edgeboard:ready'));
  await page.close();
});

test('a picture that fails to load falls back to the initials, without an error', async () => {
  const deadPort = await freePort();
  const session = await world.mint({
    displayName: 'Ada Lovelace',
    picture: `http://127.0.0.1:${deadPort}/ada.png`,
  });
  const page = await openHost({ session });
  const frame = viewer(page);
  await frame.locator('.eb-viewer').waitFor();
  await waitFor(
    async () => (await frame.locator('img.eb-avatar-img').count()) === 0,
    'the broken picture to be removed',
  );
  assert.equal(await frame.locator('.eb-initials').textContent(), 'AL');
  await screenshot(page, 'viewer-initials');
  assert.ok(await frame.locator('.eb-initials').isVisible());
  assert.equal(await frame.locator('.eb-viewer-name').textContent(), 'Ada Lovelace');
  assert.ok(await frame.locator('h2.eb-widget-title', { hasText: 'Welcome' }).isVisible());
  assert.deepEqual(problems, []);
  await page.close();
});

test('an expired session shows its message, posts session-expired, and set-session recovers it', async () => {
  // The stale session was minted at the start with a 60 s lifetime.
  await sleep(Math.max(0, staleMintedAt + TTL_MS + 2_000 - Date.now()));
  const page = await openHost({ session: staleSession });
  const frame = viewer(page);
  const notice = frame.locator('#eb-notice h1');
  await notice.waitFor();
  assert.equal(await notice.textContent(), 'This session has expired');
  await screenshot(page, 'viewer-expired');
  assert.ok(await notice.isVisible());
  assert.equal(await frame.locator('h2.eb-widget-title').count(), 0);
  await waitFor(
    async () => (await messages(page)).includes('edgeboard:session-expired'),
    'edgeboard:session-expired',
  );

  // The same document carries on: a mark set now must survive the renewal.
  await frame.locator('body').evaluate(() => {
    window.edgeboardMark = 'same-document';
  });
  await page.evaluate(() => window.renew());
  await frame.locator('h2.eb-widget-title', { hasText: 'Revenue vs cost' }).waitFor();
  assert.ok(await frame.locator('h2.eb-widget-title', { hasText: 'Revenue vs cost' }).isVisible());
  assert.equal(await frame.locator('#eb-notice').isVisible(), false);
  assert.equal(await frame.locator('body').evaluate(() => window.edgeboardMark), 'same-document');
  await waitFor(
    async () => (await messages(page)).includes('edgeboard:session-renewed'),
    'edgeboard:session-renewed',
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('a session running out while open warns, then hides the dashboard until set-session', async () => {
  const page = livePage;
  const frame = viewer(page);
  await waitFor(
    async () => (await messages(page)).includes('edgeboard:session-expired'),
    'expiry of the open page',
    20_000,
  );
  const seen = await messages(page);
  assert.deepEqual(
    seen.filter((m) => m !== 'edgeboard:session-renewed'),
    ['edgeboard:ready', 'edgeboard:session-expiring', 'edgeboard:session-expired'],
  );
  assert.equal(await frame.locator('#eb-notice h1').textContent(), 'This session has expired');
  assert.equal(await frame.locator('h2.eb-widget-title').count(), 0);
  await frame.locator('body').evaluate(() => {
    window.edgeboardMark = 'kept';
  });
  await page.evaluate(() => window.renew());
  await frame.locator('h2.eb-widget-title', { hasText: 'Active users' }).waitFor();
  assert.equal(await frame.locator('body').evaluate(() => window.edgeboardMark), 'kept');
  assert.deepEqual(problems, []);
});

/** How many viewer pages the server refused so far (its log records paths and statuses). */
const refusedPages = () => server.output().match(/GET \/embed\/dashboard\/[\w-]+ 401/g)?.length ?? 0;

test('a session given in the URL fragment loads the dashboard and leaves the address', async () => {
  const refusedBefore = refusedPages();
  const page = await openHost({ session: await world.mint({ displayName: 'Ada Lovelace' }), in: 'fragment' });
  const frame = viewer(page);
  await frame.locator('h2.eb-widget-title', { hasText: 'Plan mix' }).waitFor();
  assert.equal(await frame.locator('#eb-notice').isVisible(), false);
  assert.equal(await frame.locator('body').evaluate(() => location.hash), '');
  await waitFor(async () => (await messages(page)).includes('edgeboard:ready'), 'edgeboard:ready');
  // The address without ?session= is a 200 page: the view logged no refusal on its way.
  assert.equal(refusedPages(), refusedBefore);
  assert.deepEqual(problems, []);
  await page.close();
});

test('an address with no session anywhere shows that the link is not valid and posts its code', async () => {
  const page = await openHost({ session: '', in: 'fragment' });
  const frame = viewer(page);
  const notice = frame.locator('#eb-notice h1');
  await notice.waitFor();
  assert.equal(await notice.textContent(), 'This dashboard link is not valid');
  await waitFor(async () => (await page.evaluate(() => window.errors.length)) > 0, 'edgeboard:error');
  assert.deepEqual(await page.evaluate(() => window.errors), ['SESSION_INVALID']);
  assert.equal(await frame.locator('#eb-root').getAttribute('data-state'), 'invalid');
  assert.equal(await frame.locator('h2.eb-widget-title').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a revoked session shows its page and posts edgeboard:error with its code, and its height', async () => {
  const session = await world.mint({ displayName: 'Ada Lovelace' });
  await world.revoke(session);
  const page = await openHost({ session });
  const frame = viewer(page);
  const notice = frame.locator('#eb-notice h1');
  await notice.waitFor();
  assert.equal(await notice.textContent(), 'Access to this dashboard was withdrawn');
  await waitFor(async () => (await page.evaluate(() => window.errors.length)) > 0, 'edgeboard:error');
  assert.deepEqual(await page.evaluate(() => window.errors), ['SESSION_REVOKED']);
  assert.ok(!(await messages(page)).includes('edgeboard:ready'));
  // The notice's own height (the root element's), not the frame's 900 px.
  const root = await frame.locator('#eb-root').evaluate((el) => Math.ceil(el.getBoundingClientRect().height));
  await waitFor(async () => (await page.evaluate(() => window.heights.at(-1))) === root, 'the height');
  assert.ok(root > 100 && root < 900, `notice height ${root}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('only the origins the account allows may frame the viewer (CSP frame-ancestors)', async () => {
  const strict = await seed(server.url, ADMIN_TOKEN, { allowedEmbedOrigins: ['https://app.example.com'] });
  const open = async () => {
    const page = await context.newPage();
    const refusals = [];
    page.on('console', (msg) => {
      if (/frame-ancestors/.test(msg.text())) refusals.push(msg.text());
    });
    await page.goto(
      `${host.url}/?${new URLSearchParams({ publicId: strict.publicId, session: await strict.mint() })}`,
    );
    return { page, refusals };
  };
  const blocked = await open();
  await waitFor(() => blocked.refusals.length > 0, 'the browser to refuse the frame');
  assert.equal(await viewer(blocked.page).locator('h2.eb-widget-title').count(), 0);
  await blocked.page.close();

  await strict.setAllowedOrigins(['https://app.example.com', new URL(host.url).origin]);
  const allowed = await open();
  await viewer(allowed.page).locator('h2.eb-widget-title', { hasText: 'Welcome' }).waitFor();
  assert.deepEqual(allowed.refusals, []);
  await allowed.page.close();
});

test('no session id reaches the page markup or the server’s log', async () => {
  const html = await viewer(livePage)
    .locator('html')
    .evaluate((el) => el.outerHTML);
  const log = server.output();
  assert.ok(world.minted.length >= 6, `${world.minted.length} sessions minted`);
  for (const session of world.minted) {
    assert.ok(!html.includes(session), 'session id in the page');
    assert.ok(!log.includes(session), 'session id in the npm start output');
  }
  // The log does record the viewer's requests (paths only), so the check above means something.
  assert.match(log, /GET \/embed\/dashboard\/[\w-]+ 401/);
});

/** The number a KPI widget of the viewer shows. */
const kpiOf = (frame, widgetId) =>
  frame.locator(`[data-widget-id="${widgetId}"] svg text`).first().textContent();

test('a filter control re-runs the charts it narrows, with each viewer’s policy applied', async () => {
  const live = await seedLive(server.url, ADMIN_TOKEN);
  const viewers = [
    { viewer: { externalId: 'boss', groups: ['managers'] }, rows: SALES },
    {
      viewer: { externalId: 'rep-north', groups: ['reps'], securityContext: { region: 'north' } },
      rows: SALES.filter((r) => r.region === 'north'),
    },
  ];
  for (const { viewer: who, rows } of viewers) {
    const session = await live.mint(who);
    const page = watch(await context.newPage());
    await page.goto(`${server.url}/embed/dashboard/${live.publicId}#session=${encodeURIComponent(session)}`);
    const sum = (list) => list.reduce((total, r) => total + r.amount, 0);
    await waitFor(
      async () => (await kpiOf(page, 'w-total')) === kpiText(sum(rows)),
      `${who.externalId}: total`,
    );

    // The list offers the products this viewer's rows have, from the filter-values endpoint.
    const select = page.getByRole('combobox', { name: 'Product', exact: true });
    await page.locator('select[data-eb-filter][data-eb-loaded="true"]').waitFor();
    const offered = (await select.locator('option').allTextContents()).slice(1);
    assert.deepEqual(offered, [...new Set(rows.map((r) => r.product))].sort(), who.externalId);

    // Keyboard: focus the list and pick apple.
    await select.focus();
    await select.selectOption({ label: 'apple' });
    const apples = rows.filter((r) => r.product === 'apple');
    await waitFor(
      async () => (await kpiOf(page, 'w-total')) === kpiText(sum(apples)),
      `${who.externalId}: apples`,
    );
    assert.equal(await kpiOf(page, 'w-count'), kpiText(apples.length));
    assert.match(
      await page.locator('[role="status"][aria-live="polite"]').first().textContent(),
      /charts? updated/,
    );

    // A time grain re-runs only the monthly chart: the KPIs' sections stay the same elements.
    await page.evaluate(() => {
      document.querySelector('[data-widget-id="w-total"]').dataset.mark = 'kept';
      document.querySelector('[data-widget-id="w-month"]').dataset.mark = 'kept';
    });
    await page.getByRole('combobox', { name: 'Grain', exact: true }).selectOption('quarter');
    await waitFor(
      () => page.evaluate(() => !document.querySelector('[data-widget-id="w-month"]').dataset.mark),
      'the monthly chart redrawn',
    );
    assert.equal(
      await page.evaluate(() => document.querySelector('[data-widget-id="w-total"]').dataset.mark),
      'kept',
    );
    // Still filtered: the grain change kept the product.
    assert.equal(await kpiOf(page, 'w-total'), kpiText(sum(apples)));

    // All again.
    await select.selectOption({ label: 'All' });
    await waitFor(
      async () => (await kpiOf(page, 'w-total')) === kpiText(sum(rows)),
      `${who.externalId}: all`,
    );
    await page.close();
  }
  assert.deepEqual(problems, []);
});

test('a locked filter shows as a fixed control', async () => {
  const live = await seedLive(server.url, ADMIN_TOKEN);
  const session = await live.mint({
    externalId: 'locked',
    groups: ['managers'],
    lockedFilters: [{ member: 'sales.product', values: ['pear'] }],
  });
  const page = watch(await context.newPage());
  await page.goto(`${server.url}/embed/dashboard/${live.publicId}#session=${encodeURIComponent(session)}`);
  const pears = SALES.filter((r) => r.product === 'pear');
  await waitFor(
    async () => (await kpiOf(page, 'w-total')) === kpiText(pears.reduce((t, r) => t + r.amount, 0)),
    'the locked total',
  );
  const select = page.getByRole('combobox', { name: 'Product', exact: true });
  assert.equal(await select.isDisabled(), true);
  const hint = await select.getAttribute('aria-describedby');
  assert.match(await page.locator(`#${hint}`).textContent(), /Fixed/);
  await page.close();
});
