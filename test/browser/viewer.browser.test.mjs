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
  call,
  ensureChromium,
  freePort,
  kpiText,
  SALES,
  seed,
  seedDemo,
  seedLive,
  startExample,
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
  // The table is an HTML table, the same at every width.
  assert.equal(await frame.locator('svg.eb-chart:visible').count(), 8);
  assert.equal(await frame.locator('table.eb-table:visible').count(), 1);
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
  assert.equal(await frame.locator('svg.eb-chart:visible').count(), 8);
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

/** The comments of a live dashboard as a session reads them through the API. */
const threadsOf = async (live, session, query = '') =>
  (
    await call(server.url, 'GET', `/api/v1/embed/dashboard/${live.publicId}/comments${query}`, {
      auth: `Session ${session}`,
    })
  ).items;

/** A thread of the panel, by a text of its root. */
const threadIn = (frame, text) => frame.locator('li.eb-thread', { hasText: text });

test('the comments panel shows a thread, posts a thread with a mention and a reply, edits and resolves', async () => {
  const live = await seedLive(server.url, ADMIN_TOKEN);
  const as = (externalId, displayName) =>
    live.mint({ externalId, groups: ['managers'], userProfile: { displayName } });
  const ada = await as('ada', 'Ada Lovelace');
  const bob = await as('bob', 'Bob Stone');
  // Bob started a thread before Ada came; its text holds markup, which must stay text.
  await call(server.url, 'POST', `/api/v1/embed/dashboard/${live.publicId}/comments`, {
    auth: `Session ${bob}`,
    body: { body: 'Why did <b>pears</b> drop in March?' },
  });
  const [bobUser] = (
    await call(
      server.url,
      'GET',
      `/api/v1/embed/dashboard/${live.publicId}/comments/mentionable-users?search=bob`,
      { auth: `Session ${ada}` },
    )
  ).items;

  const page = await openHost({ publicId: live.publicId, session: ada });
  const frame = viewer(page);
  await frame.locator('[data-widget-id="w-total"] svg text').first().waitFor();
  const toggle = frame.locator('#eb-comments-toggle');
  await toggle.waitFor();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await frame.locator('#eb-comments').isVisible(), false);
  await waitFor(async () => (await page.evaluate(() => window.heights.length)) > 0, 'a first height');
  const closedHeight = await page.evaluate(() => window.heights.at(-1));

  // Open: Bob's thread, his markup as text, no action on it but a reply.
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  const panel = frame.getByRole('complementary', { name: 'Comments' });
  const bobs = threadIn(frame, 'Why did');
  await bobs.waitFor();
  assert.equal(
    await bobs.locator('.eb-comment-body').first().textContent(),
    'Why did <b>pears</b> drop in March?',
  );
  assert.equal(await bobs.locator('b').count(), 0);
  assert.equal(await bobs.locator('.eb-comment-author').first().textContent(), 'Bob Stone');
  for (const name of ['Edit', 'Remove', 'Resolve']) {
    assert.equal(await bobs.getByRole('button', { name, exact: true }).count(), 0, name);
  }
  // The panel grows the page: the host hears the new height.
  await waitFor(
    async () => (await page.evaluate(() => window.heights.at(-1))) > closedHeight,
    'a taller height with the panel open',
  );
  await screenshot(page, 'viewer-comments');

  // A new thread with a mention chosen in the picker.
  const text = panel.getByRole('textbox', { name: 'New comment' });
  await text.fill('Pears look fine to me, ');
  await panel.getByRole('button', { name: '@ Mention' }).first().click();
  await panel.getByRole('searchbox', { name: 'Search people to mention' }).fill('bob');
  await panel.locator(`button.eb-mention-option[data-user-id="${bobUser.id}"]`).click();
  assert.equal(await text.inputValue(), `Pears look fine to me, <@${bobUser.id}> `);
  await panel.getByRole('button', { name: 'Post', exact: true }).click();
  const adas = threadIn(frame, 'Pears look fine');
  await adas.waitFor();
  assert.equal(
    await adas.locator('.eb-comment-body').first().textContent(),
    'Pears look fine to me, @Bob Stone',
  );
  assert.equal(await adas.locator('.eb-mention').textContent(), '@Bob Stone');
  assert.equal(await text.inputValue(), '');
  let stored = await threadsOf(live, ada);
  assert.equal(stored[0].root.body, `Pears look fine to me, <@${bobUser.id}>`);
  assert.deepEqual(
    stored[0].root.mentions.map((m) => m.username),
    ['bob'],
  );
  assert.equal(stored[0].root.author.username, 'ada');

  // A reply to Bob's thread.
  await bobs.getByRole('button', { name: 'Reply to Bob Stone' }).click();
  await bobs.getByRole('textbox', { name: 'Reply to Bob Stone' }).fill('Returns, mostly.');
  await bobs.getByRole('button', { name: 'Reply', exact: true }).click();
  const reply = bobs.locator('.eb-replies article');
  await reply.waitFor();
  assert.equal(await reply.locator('.eb-comment-body').textContent(), 'Returns, mostly.');
  stored = await threadsOf(live, bob);
  const bobsThread = stored.find((t) => t.root.body.startsWith('Why did'));
  assert.deepEqual(
    bobsThread.replies.map((r) => [r.body, r.author.username]),
    [['Returns, mostly.', 'ada']],
  );

  // Edit the reply: the text is saved and marked edited.
  await reply.getByRole('button', { name: 'Edit' }).click();
  const editor = bobs.getByRole('textbox', { name: 'Edit the comment of Ada Lovelace' });
  assert.equal(await editor.inputValue(), 'Returns, mostly.');
  await editor.fill('Returns, mostly: see the April figures.');
  await bobs.getByRole('button', { name: 'Save' }).click();
  await bobs.locator('.eb-comment-edited').waitFor();
  assert.equal(
    await bobs.locator('.eb-replies .eb-comment-body').textContent(),
    'Returns, mostly: see the April figures.',
  );
  stored = await threadsOf(live, ada);
  const edited = stored.find((t) => t.root.id === bobsThread.root.id).replies[0];
  assert.equal(edited.body, 'Returns, mostly: see the April figures.');
  assert.ok(edited.editedAt);

  // A mention of someone who may not be mentioned is refused: the panel says why, the text stays.
  await text.fill('Ask <@999999> too');
  await panel.getByRole('button', { name: 'Post', exact: true }).click();
  const alert = panel.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.textContent(), /<@999999> is not an embed user/);
  assert.equal(await text.inputValue(), 'Ask <@999999> too');
  assert.equal((await threadsOf(live, ada)).length, 2);
  await text.fill('');

  // Resolve Ada's thread: the answer replaces it in place.
  await adas.getByRole('button', { name: 'Resolve' }).click();
  await adas.locator('.eb-badge', { hasText: 'Resolved' }).waitFor();
  assert.equal(await adas.getByRole('button', { name: 'Re-open' }).count(), 1);
  assert.equal(await alert.isVisible(), false, 'the error is cleared by the next success');
  stored = await threadsOf(live, ada, '?includeResolved=true');
  assert.ok(stored.find((t) => t.root.body.startsWith('Pears')).resolvedAt);
  assert.equal((await threadsOf(live, ada)).length, 1, 'open threads: Bob’s only');
  // Listed again: resolved threads only with the toggle.
  await toggle.click();
  await toggle.click();
  await waitFor(
    async () => (await threadIn(frame, 'Pears look fine').count()) === 0,
    'the resolved thread left out of the list read again',
  );
  assert.equal(await bobs.count(), 1);
  await panel.getByRole('checkbox', { name: 'Show resolved' }).check();
  await threadIn(frame, 'Pears look fine').locator('.eb-badge').waitFor();

  // Remove the reply: a placeholder stays in Bob's thread.
  await bobs.locator('.eb-replies').getByRole('button', { name: 'Remove' }).click();
  await bobs.locator('.eb-replies').getByRole('button', { name: 'Remove' }).click();
  await bobs.locator('.eb-comment-body--removed').waitFor();
  assert.equal(await bobs.locator('.eb-comment-body--removed').textContent(), 'This comment was removed.');
  stored = await threadsOf(live, bob);
  assert.ok(stored.find((t) => t.root.id === bobsThread.root.id).replies[0].removedAt);

  // Hidden again: the host hears the page shrink back.
  await toggle.click();
  assert.equal(await frame.locator('#eb-comments').isVisible(), false);
  await waitFor(
    async () => (await page.evaluate(() => window.heights.at(-1))) === closedHeight,
    'the height without the panel',
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test('the comments panel follows a renewed session, and a reader’s session only reads', async () => {
  const live = await seedLive(server.url, ADMIN_TOKEN);
  const as = (externalId, extra = {}) => live.mint({ externalId, groups: ['managers'], ...extra });
  const ada = await as('ada', { userProfile: { displayName: 'Ada Lovelace' } });
  await call(server.url, 'POST', `/api/v1/embed/dashboard/${live.publicId}/comments`, {
    auth: `Session ${ada}`,
    body: { body: 'First look at the sales' },
  });
  const page = await openHost({ publicId: live.publicId, session: ada });
  const frame = viewer(page);
  await frame.locator('#eb-comments-toggle').click();
  const first = threadIn(frame, 'First look');
  await first.getByRole('button', { name: 'Edit' }).waitFor();
  // The host renews with another user's session: what the panel writes then is theirs.
  const carol = await as('carol', { userProfile: { displayName: 'Carol Diaz' } });
  await page.evaluate(
    ([sessionId, origin]) =>
      document
        .getElementById('edgeboard')
        .contentWindow.postMessage({ type: 'edgeboard:set-session', sessionId }, origin),
    [carol, new URL(server.url).origin],
  );
  await waitFor(
    async () => (await messages(page)).includes('edgeboard:session-renewed'),
    'edgeboard:session-renewed',
  );
  // Read again with Carol's session: Ada's thread is no longer the viewer's own.
  await waitFor(
    async () => (await first.getByRole('button', { name: 'Edit' }).count()) === 0,
    'Ada’s actions gone',
  );
  await first.getByRole('button', { name: 'Reply to Ada Lovelace' }).click();
  await first.getByRole('textbox', { name: 'Reply to Ada Lovelace' }).fill('Carol here.');
  await first.getByRole('button', { name: 'Reply', exact: true }).click();
  await first.locator('.eb-replies article').waitFor();
  const [thread] = await threadsOf(live, ada);
  assert.deepEqual(
    thread.replies.map((r) => [r.body, r.author.username]),
    [['Carol here.', 'carol']],
  );
  await page.close();

  // An ephemeral user's session reads the conversation and is told it cannot write.
  const reader = await openHost({
    publicId: live.publicId,
    session: await as('passing-by', { isEphemeral: true }),
  });
  const readerFrame = viewer(reader);
  await readerFrame.locator('#eb-comments-toggle').click();
  await threadIn(readerFrame, 'First look').waitFor();
  assert.match(
    await readerFrame.locator('.eb-comments-note').textContent(),
    /this session cannot write them/,
  );
  assert.equal(await readerFrame.getByRole('textbox').count(), 0);
  assert.equal(await readerFrame.getByRole('button', { name: /^Reply/ }).count(), 0);
  await reader.close();
  assert.deepEqual(problems, []);
});

// The first screen a new user sees: `npm start`, `npm run seed`, the URL it prints, and the demo's
// "Sales overview" at a desktop's and a phone's width.

test('npm start prints the bindings once, with no warning that the types are out of date', () => {
  const output = server.output();
  assert.equal(output.match(/Your Worker has access to the following bindings/g)?.length, 1, output);
  assert.doesNotMatch(output, /types might be out of date/);
});

test('the bare origin leads to the docs, and it and the host-page example have an icon', async () => {
  const root = await fetch(`${server.url}/`, { redirect: 'manual' });
  await root.arrayBuffer();
  assert.equal(root.status, 302);
  assert.equal(root.headers.get('location'), '/docs');
  const icon = await fetch(`${server.url}/favicon.ico`);
  assert.equal(icon.status, 200);
  assert.equal(icon.headers.get('content-type'), 'image/x-icon');
  assert.ok((await icon.arrayBuffer()).byteLength > 22);
  const vars = await demo();
  const example = await startExample(vars);
  try {
    const hosted = await fetch(`${example.url}/favicon.ico`);
    assert.equal(hosted.status, 200);
    assert.equal(hosted.headers.get('content-type'), 'image/x-icon');
    await hosted.arrayBuffer();
  } finally {
    example.stop();
  }
});

let demoVars;
/** The demo, seeded once by `npm run seed` (scripts/seed.mjs) for the tests that need it. */
async function demo() {
  demoVars ??= await seedDemo(server.url, ADMIN_TOKEN);
  return demoVars;
}

test('the seeded demo deployment serves the shop’s model alone', async () => {
  const vars = await demo();
  const meta = await call(server.url, 'GET', '/cubejs-api/v1/meta', { auth: vars.CUBE_API_TOKEN });
  const names = meta.cubes.map((c) => c.name);
  assert.deepEqual(
    names.filter((n) => !['customers', 'products', 'orders', 'order_items', 'sales'].includes(n)),
    [],
  );
  assert.ok(!names.includes('example'), names.join(', '));
});

/** The demo's dashboard opened in a page `width` px wide, ready. */
async function openDemo(width) {
  const vars = await demo();
  const { sessionId } = await call(server.url, 'POST', '/api/v1/embed/generate-session', {
    auth: `Api-Key ${vars.API_KEY}`,
    body: { deploymentId: Number(vars.DEPLOYMENT_ID), externalId: 'first-screen' },
  });
  const page = watch(await context.newPage());
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${server.url}/embed/dashboard/${vars.PUBLIC_ID}#session=${sessionId}`);
  await page.locator('#eb-root[data-state="ready"]').waitFor();
  await page.locator('table.eb-table').waitFor();
  return page;
}

/** What the page shows of a widget: its visible drawing's texts with their boxes, and its box. */
function widgetView(page, id) {
  return page.evaluate((widgetId) => {
    const section = document.querySelector(`section[data-widget-id="${widgetId}"]`);
    const svg = [...section.querySelectorAll('svg.eb-chart')].find(
      (s) => s.getBoundingClientRect().width > 0,
    );
    const box = (el) => el.getBoundingClientRect().toJSON();
    return {
      section: box(section),
      svg: svg ? box(svg) : null,
      texts: svg ? [...svg.querySelectorAll('text')].map((t) => ({ text: t.textContent, ...box(t) })) : [],
      titles: svg ? [...svg.querySelectorAll('title')].map((t) => t.textContent) : [],
    };
  }, id);
}

const CATEGORIES = ['Books', 'Electronics', 'Garden', 'Home', 'Sports', 'Toys'];
const COUNTRIES = [
  'Brazil',
  'France',
  'Germany',
  'India',
  'Japan',
  'Spain',
  'United Kingdom',
  'United States',
];
const MONEY = /^\$\d{1,3}(,\d{3})*\.\d{2}$/;

for (const width of [1280, 360]) {
  test(`the demo at ${width} px labels every bar, in full, without overlaps, inside its chart`, async () => {
    const page = await openDemo(width);
    await screenshot(page, `demo-${width}`);
    for (const [id, names] of [
      ['categories', CATEGORIES],
      ['countries', COUNTRIES],
    ]) {
      const view = await widgetView(page, id);
      const labels = view.texts.filter((t) => names.includes(t.text));
      assert.deepEqual(
        labels.map((t) => t.text).sort(),
        names,
        `${id}: ${view.texts.map((t) => t.text).join('|')}`,
      );
      assert.ok(!view.texts.some((t) => t.text.endsWith('…')), `${id} cuts a label`);
      for (const t of labels) {
        assert.ok(
          t.left >= view.svg.left - 1 && t.right <= view.svg.right + 1,
          `${id}: ${t.text} leaves the chart`,
        );
        assert.ok(t.bottom <= view.svg.bottom + 1, `${id}: ${t.text} below the chart`);
      }
      // No two labels cover each other: level ones side by side; turned ones (parallel, each
      // ending under its bar) a bar's pitch apart where they end.
      const turned = labels.some((t) => t.height >= 16);
      const key = (t) => (turned ? t.right : t.left);
      const sorted = [...labels].sort((a, b) => key(a) - key(b));
      for (let i = 1; i < sorted.length; i++) {
        const [a, b] = [sorted[i - 1], sorted[i]];
        if (turned)
          assert.ok(b.right - a.right >= 10, `${id}: ${a.text} and ${b.text} are on top of each other`);
        else assert.ok(b.left >= a.right, `${id}: ${a.text} overlaps ${b.text}`);
      }
    }
    // The line's last month label ends inside its chart, whole.
    const trend = await widgetView(page, 'trend');
    const months = trend.texts.filter((t) => / 20\d\d$/.test(t.text));
    const last = months[months.length - 1];
    assert.ok(
      last.right <= trend.svg.right + 0.5,
      `${last.text} ends at ${last.right}, the chart at ${trend.svg.right}`,
    );
    if (width === 360) assert.equal(last.text, 'Dec 2025');
    await page.close();
  });

  test(`the demo at ${width} px writes money one way and captions KPIs without repeating their title`, async () => {
    const page = await openDemo(width);
    const revenue = await widgetView(page, 'revenue');
    assert.equal(revenue.texts.length, 1, revenue.texts.map((t) => t.text).join('|'));
    assert.match(revenue.texts[0].text, MONEY);
    const orders = await widgetView(page, 'orders');
    assert.deepEqual(
      orders.texts.map((t) => t.text),
      ['40,000'],
    );
    const trend = await widgetView(page, 'trend');
    const amounts = trend.titles.map((t) => t.split(': ')[1]);
    assert.ok(amounts.length >= 36);
    for (const a of amounts) assert.match(a, MONEY);
    const cells = await page.locator('table.eb-table tbody tr td:nth-child(3)').allTextContents();
    assert.equal(cells.length, 10);
    for (const c of cells) assert.match(c, MONEY);
    await page.close();
  });

  test(`the demo's table at ${width} px spans its card, fills it, and shows every product name`, async () => {
    const page = await openDemo(width);
    const layout = await page.evaluate(() => {
      const section = document.querySelector('section[data-widget-id="products"]');
      const body = section.querySelector('.eb-widget-body').getBoundingClientRect();
      const wrap = section.querySelector('.eb-table-wrap');
      const table = wrap.querySelector('table').getBoundingClientRect();
      const names = [...wrap.querySelectorAll('tbody td:first-child')].map((td) => ({
        text: td.textContent,
        cut: td.scrollWidth > td.clientWidth + 1,
      }));
      return {
        body: body.toJSON(),
        table: table.toJSON(),
        scrolls: wrap.scrollHeight > wrap.clientHeight + 1,
        names,
      };
    });
    assert.ok(
      layout.table.width >= layout.body.width - 1,
      `table ${layout.table.width} of ${layout.body.width} px`,
    );
    // No empty band below: the rows fill the card, or there are more than it holds and they scroll.
    assert.ok(layout.scrolls || layout.table.height >= layout.body.height - 1, JSON.stringify(layout));
    assert.equal(layout.names.length, 10);
    for (const n of layout.names) {
      assert.ok(!n.cut && !n.text.endsWith('…'), `${n.text} cut`);
      assert.match(n.text, /^\S+ \S+ \d+$/);
    }
    await page.close();
  });
}

// The sessions minted in `before` run out 60 s after it: the tests that need them expired, and
// the one that reads the page renewed after that, come last, so the tests above run while the
// sessions age instead of after a wait.

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
