import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mintOk } from '../embedding/fixtures';
import { OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { dbOf } from '../helpers/shards';
import { fetchBytes, type SeededDashboard, seedBusinessReview } from './seed';

const T0 = Date.parse('2031-05-01T10:00:00.000Z');
const TTL = 3600;

let acme: SeededAccount;
let board: SeededDashboard;

async function enableEmbed(account: SeededAccount, publicId: string, allowEmbed = true) {
  const res = await api('PATCH', `/api/v1/embed/dashboard/${publicId}`, {
    auth: account.admin,
    body: { allowEmbed },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function mint(account: SeededAccount, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', '/api/v1/embed/generate-session', {
    auth: account.key,
    body: { deploymentId: account.deployments[0], externalId: 'ada', ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.sessionId;
}

async function page(publicId: string, session?: string, headers: Record<string, string> = {}) {
  const query = session === undefined ? '' : `?session=${encodeURIComponent(session)}`;
  const res = await fetchBytes(`/embed/dashboard/${publicId}${query}`, null, headers);
  return { ...res, html: new TextDecoder().decode(res.bytes) };
}

/** The JSON the page boots from. */
function bootOf(html: string): Record<string, any> {
  const match = /<script type="application\/json" id="eb-boot" nonce="[^"]+">([^<]*)<\/script>/.exec(html);
  expect(match, 'boot script').not.toBeNull();
  return JSON.parse(match?.[1] as string);
}

function expectPageHeaders(res: { headers: Headers; html: string }, frameAncestors: string) {
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('cache-control')).toBe('no-store');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain(`frame-ancestors ${frameAncestors}`);
  expect(csp).toContain("default-src 'none'");
  // Every script and style of the page carries the nonce of its policy, and nothing else runs.
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1] as string;
  expect(nonce).toBeTruthy();
  expect(csp).toContain(`style-src 'nonce-${nonce}'`);
  const tags = res.html.match(/<(script|style)\b[^>]*>/g) ?? [];
  expect(tags.length).toBe(4);
  for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);
  expect(res.html).not.toMatch(/\son[a-z]+=/i);
  expect(res.html).not.toMatch(/\sstyle=/i);
}

beforeAll(async () => {
  platform.clock = clockAt(T0);
  acme = await seedAccount({ embedSessionTtlSeconds: TTL });
  board = await seedBusinessReview(acme, { title: 'Quarterly <review> & "more"' });
  await enableEmbed(acme, board.publicId);
  platform.clock = undefined;
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('GET /embed/dashboard/{publicId}', () => {
  it('shows the dashboard: titles, text, control values, charts, avatar, chat', async () => {
    platform.clock = clockAt(T0);
    const session = await mint(acme, {
      userProfile: { displayName: 'Ada Lovelace', picture: 'https://images.example.com/ada.png' },
      settings: { showDashboardChat: true },
    });
    const res = await page(board.publicId, session);
    expect(res.status).toBe(200);
    expectPageHeaders(res, '*');
    const html = res.html;
    expect(html).toContain('<title>Quarterly &#60;review&#62; &#38; &#34;more&#34;</title>');
    expect(html).toContain('<h1 class="eb-title">Quarterly &#60;review&#62; &#38; &#34;more&#34;</h1>');
    for (const title of ['Welcome', 'Revenue vs cost', 'Active users', 'Plan mix', 'Top accounts', 'Churn']) {
      expect(html).toContain(`<h2 class="eb-widget-title">${title}</h2>`);
    }
    expect(html).toContain('Monthly business review. Figures are as of the last publish');
    expect(html).toContain('<span>France, Germany</span>');
    expect(html).toContain('<span>Month</span>');
    // Nine charts with data: eight drawn inline for every breakpoint, the table as one HTML table
    // for all of them; the two without data are titled frames.
    for (const bp of ['lg', 'md', 'sm', 'xs', 'xxs']) {
      expect(html.match(new RegExp(`<svg class="eb-chart[^"]* eb-chart--${bp}[ "]`, 'g'))?.length).toBe(8);
    }
    expect(html.match(/<table class="eb-table">/g)?.length).toBe(1);
    expect(html.match(/<div class="eb-caption">No data<\/div>/g)?.length).toBe(2);
    expect(html).toContain('src="https://images.example.com/ada.png"');
    expect(html).toContain('<span class="eb-initials" aria-hidden="true">AL</span>');
    expect(html).toContain('<span class="eb-viewer-name">Ada Lovelace</span>');
    expect(html).toContain('<button class="eb-chat"');
    // The session id is a credential: it is not written into the page.
    expect(html).not.toContain(session);
    const boot = bootOf(html);
    expect(boot).toMatchObject({
      state: 'ready',
      code: null,
      expiresInMs: TTL * 1000,
      contentUrl: `/embed/dashboard/${board.publicId}/content`,
      allowedOrigins: null,
    });
  });

  it('lays widgets out per breakpoint in CSS, so the iframe width picks the layout', async () => {
    const session = await mint(acme);
    const { html } = await page(board.publicId, session);
    const revenue = board.config.widgets.findIndex((w: { id: string }) => w.id === 'revenue');
    // xs (the narrowest given) from its responsiveLayouts entry, lg from its position.
    const xs = new RegExp(
      `@media \\(min-width:481px\\)\\{[^@]*#eb-w${revenue}\\{display:flex;grid-column:1/span 4;grid-row:4/span 2\\}`,
    );
    const lg = new RegExp(
      `@media \\(min-width:1201px\\)\\{\\.eb-grid\\{grid-template-columns:repeat\\(12,minmax\\(0,1fr\\)\\)\\}[^@]*#eb-w${revenue}\\{display:flex;grid-column:1/span 6;grid-row:2/span 2\\}`,
    );
    expect(html).toMatch(xs);
    expect(html).toMatch(lg);
    expect(html).toContain('.eb-grid{display:grid;grid-auto-rows:120px;gap:12px 12px;padding:16px 16px}');
    // The theme's colours.
    expect(html).toContain('body{background:#f3f4f8;');
    expect(html).toContain('border:1px solid #d9dce3;border-radius:10px');
  });

  it('falls back to initials without a picture, and escapes what the viewer brings', async () => {
    const session = await mint(acme, {
      externalId: 'grace',
      userProfile: { displayName: 'Grace <img src=x onerror=alert(1)> Hopper' },
    });
    const { status, html } = await page(board.publicId, session);
    expect(status).toBe(200);
    expect(html).not.toContain('class="eb-avatar-img"');
    expect(html).toContain('eb-avatar eb-avatar--initials');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).not.toContain('<img src=x');
  });

  it('shows or hides the chat from the session settings, the account default when unset', async () => {
    const shown = await page(board.publicId, await mint(acme, { settings: { showDashboardChat: true } }));
    expect(shown.html).toContain('<button class="eb-chat"');
    // An account provisioned without the toggle has no chat button.
    const unset = await page(board.publicId, await mint(acme));
    expect(unset.html).not.toContain('<button class="eb-chat"');
    const forcedOff = await page(
      board.publicId,
      await mint(acme, { settings: { showDashboardChat: false } }),
    );
    expect(forcedOff.html).not.toContain('<button class="eb-chat"');

    const quiet = await seedAccount({ showDashboardChat: false });
    const quietBoard = await seedBusinessReview(quiet);
    await enableEmbed(quiet, quietBoard.publicId);
    const byDefault = await page(quietBoard.publicId, await mint(quiet));
    expect(byDefault.status).toBe(200);
    expect(byDefault.html).not.toContain('<button class="eb-chat"');
    const forcedOn = await page(
      quietBoard.publicId,
      await mint(quiet, { settings: { showDashboardChat: true } }),
    );
    expect(forcedOn.html).toContain('<button class="eb-chat"');
  });

  it('lets only the account’s allowed origins frame the page', async () => {
    const strict = await seedAccount({
      allowedEmbedOrigins: ['https://app.example.com', 'https://*.example.org'],
    });
    const strictBoard = await seedBusinessReview(strict);
    await enableEmbed(strict, strictBoard.publicId);
    const session = await mint(strict);
    const res = await page(strictBoard.publicId, session);
    expect(res.status).toBe(200);
    expectPageHeaders(res, 'https://app.example.com https://*.example.org');
    expect(bootOf(res.html).allowedOrigins).toEqual(['https://app.example.com', 'https://*.example.org']);
    // Error pages of that account's dashboards are framed by the same origins.
    const invalid = await page(strictBoard.publicId, 'not-a-session');
    expect(invalid.status).toBe(401);
    expectPageHeaders(invalid, 'https://app.example.com https://*.example.org');

    // A stored value that is not an origin never reaches the header; none left means no framing.
    await dbOf(strict.accountId)
      .prepare('UPDATE accounts SET allowed_embed_origins = ? WHERE id = ?')
      .bind(JSON.stringify(["https://a.example.com; script-src 'unsafe-inline'"]), strict.accountId)
      .run();
    const hostile = await page(strictBoard.publicId, session);
    expectPageHeaders(hostile, "'none'");
    expect(hostile.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  });
});

describe('viewer error pages', () => {
  it('says the session expired (401), with its own frame-ancestors and the renewal script', async () => {
    platform.clock = clockAt(T0);
    const session = await mint(acme);
    platform.clock = clockAt(T0 + TTL * 1000 + 1_000);
    const res = await page(board.publicId, session);
    expect(res.status).toBe(401);
    expectPageHeaders(res, '*');
    expect(res.html).toContain('<h1>This session has expired</h1>');
    expect(res.html).toContain('data-state="expired"');
    expect(bootOf(res.html).state).toBe('expired');
    expect(res.html).toContain('"edgeboard:session-expired"');
    expect(res.html).not.toContain('Revenue vs cost');
  });

  it('says access was withdrawn for a revoked session (401)', async () => {
    const session = await mint(acme);
    const revoked = await api('POST', '/api/v1/embed/session/revoke', {
      auth: acme.key,
      body: { sessionId: session },
    });
    expect(revoked.body).toEqual({ revoked: true });
    const res = await page(board.publicId, session);
    expect(res.status).toBe(401);
    expect(res.html).toContain('<h1>Access to this dashboard was withdrawn</h1>');
    expect(bootOf(res.html).state).toBe('revoked');
    // What the page posts to its parent (edgeboard:error): the API's code for the same refusal.
    expect(bootOf(res.html).code).toBe('SESSION_REVOKED');
  });

  it('says embedding is off (403) while allowEmbed is false', async () => {
    const session = await mint(acme);
    await enableEmbed(acme, board.publicId, false);
    try {
      const res = await page(board.publicId, session);
      expect(res.status).toBe(403);
      expect(res.html).toContain('<h1>Embedding is turned off for this dashboard</h1>');
      expect(res.html).not.toContain('Revenue vs cost');
    } finally {
      await enableEmbed(acme, board.publicId, true);
    }
  });

  it('says not found (404) for an unknown dashboard or one outside the session’s deployment', async () => {
    const session = await mint(acme);
    for (const publicId of ['unknown-dashboard', 'bad%20id', 'x'.repeat(65)]) {
      const res = await page(publicId, session);
      expect(res.status, publicId).toBe(404);
      expect(res.html).toContain('<h1>Dashboard not found</h1>');
      expect(bootOf(res.html).code).toBe('NOT_FOUND');
      expectPageHeaders(res, '*');
    }
    const elsewhere = await seedBusinessReview(acme, { deploymentId: acme.deployments[1] });
    await enableEmbed(acme, elsewhere.publicId);
    const res = await page(elsewhere.publicId, session);
    expect(res.status).toBe(404);
  });

  it('says the link is not valid (401) with a forged session', async () => {
    for (const session of ['garbage', 'a.b.c', 'x'.repeat(5000)]) {
      const res = await page(board.publicId, session);
      expect(res.status, session.slice(0, 20)).toBe(401);
      expect(res.html).toContain('<h1>This dashboard link is not valid</h1>');
      expect(res.html).not.toMatch(/id="eb-notice"[^>]*hidden/);
    }
  });

  it('answers an address without a session with a 200 shell that holds no dashboard data', async () => {
    // The embed SDK's session travels in the fragment, which the server never sees: the page's
    // script reads it, so refusing here would log a 401 for every view that then succeeds.
    for (const session of [undefined, '']) {
      const res = await page(board.publicId, session);
      expect(res.status, String(session)).toBe(200);
      expectPageHeaders(res, '*');
      expect(res.html).not.toContain('Quarterly');
      expect(res.html).not.toContain('Revenue vs cost');
      expect(res.html).toContain('<div id="eb-content" hidden></div>');
      expect(res.html).toContain('data-state="loading"');
      expect(res.html).toContain('<title>Dashboard</title>');
      // Without a fragment either, the script shows this notice and posts its code.
      expect(res.html).toMatch(
        /<div id="eb-notice" class="eb-notice" role="alert" hidden><h1>This dashboard link is not valid<\/h1>/,
      );
      const boot = bootOf(res.html);
      expect(boot).toMatchObject({ state: 'invalid', code: 'SESSION_INVALID', expiresInMs: null });
      expect(boot.contentUrl).toBe(`/embed/dashboard/${board.publicId}/content`);
    }
    // The shell is framed by the dashboard's account's origins like every page of it, and an
    // address that cannot name a dashboard is still a 404.
    const strict = await seedAccount({ allowedEmbedOrigins: ['https://app.example.com'] });
    const strictBoard = await seedBusinessReview(strict);
    const framed = await page(strictBoard.publicId);
    expect(framed.status).toBe(200);
    expectPageHeaders(framed, 'https://app.example.com');
    expect(bootOf(framed.html).allowedOrigins).toEqual(['https://app.example.com']);
    const malformed = await page('bad%20id');
    expect(malformed.status).toBe(404);
    expect(malformed.html).toContain('<h1>Dashboard not found</h1>');
  });

  it('never logs the session id', async () => {
    const lines: string[] = [];
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        lines.push(args.map(String).join(' '));
      });
    }
    platform.clock = clockAt(T0);
    const session = await mint(acme);
    await page(board.publicId, session);
    await fetchBytes(`/embed/dashboard/${board.publicId}/content`, { session });
    platform.clock = clockAt(T0 + TTL * 1000 + 1_000);
    await page(board.publicId, session);
    await fetchBytes(`/embed/dashboard/${board.publicId}/content`, { session });
    for (const line of lines) expect(line).not.toContain(session);
  });
});

describe('GET /embed/dashboard/{publicId}/content (renewal)', () => {
  it('answers the dashboard markup for a new session, with its expiry', async () => {
    platform.clock = clockAt(T0);
    const session = await mint(acme, { userProfile: { displayName: 'Ada Lovelace' } });
    platform.clock = clockAt(T0 + 1_000);
    const res = await fetchBytes(`/embed/dashboard/${board.publicId}/content`, { session });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.body.title).toBe('Quarterly <review> & "more"');
    expect(res.body.expiresInMs).toBe(TTL * 1000 - 1_000);
    expect(res.body.html).toContain('<h2 class="eb-widget-title">Revenue vs cost</h2>');
    expect(res.body.html).toContain('<span class="eb-viewer-name">Ada Lovelace</span>');
    expect(res.body.css).toContain('.eb-grid{display:grid;');
  });

  it('answers the API error envelope when the session cannot be used', async () => {
    platform.clock = clockAt(T0);
    const session = await mint(acme);
    platform.clock = clockAt(T0 + TTL * 1000 + 1);
    const expired = await fetchBytes(`/embed/dashboard/${board.publicId}/content`, { session });
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe('SESSION_EXPIRED');
    expect(expired.body.requestId).toBe(expired.headers.get('x-request-id'));
    platform.clock = undefined;
    const missing = await fetchBytes(`/embed/dashboard/${board.publicId}/content`);
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('UNAUTHORIZED');
    const wrongScheme = await fetchBytes(`/embed/dashboard/${board.publicId}/content`, acme.admin);
    expect(wrongScheme.status).toBe(401);
    // The renewal takes the header only, never a session in the URL.
    const inUrl = await fetchBytes(`/embed/dashboard/${board.publicId}/content?session=${await mint(acme)}`);
    expect(inUrl.status).toBe(401);
    const unknown = await fetchBytes('/embed/dashboard/nope/content', { session: await mint(acme) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
  });
});

describe('the comments panel of the viewer page', () => {
  const commentsUrl = (publicId: string) => `/api/v1/embed/dashboard/${publicId}/comments`;
  const content = (publicId: string, session: string) =>
    fetchBytes(`/embed/dashboard/${publicId}/content`, { session });

  it('is offered with the dashboard’s comments address, and writing to the users who may write', async () => {
    platform.clock = undefined;
    const writer = await page(board.publicId, await mint(acme));
    expect(writer.status).toBe(200);
    expectPageHeaders(writer, '*');
    expect(bootOf(writer.html)).toMatchObject({ commentsUrl: commentsUrl(board.publicId), canComment: true });
    // The panel's rules come with it, inside the page's nonce'd style element.
    expect(writer.html).toContain('.eb-comments{display:flex;');
    expect((await content(board.publicId, await mint(acme))).body.canComment).toBe(true);
    // An ephemeral user (not stored) and an internal user read the conversation but cannot write in it.
    const readers = [
      await mint(acme, { externalId: 'passing-by', isEphemeral: true }),
      await mintOk(acme.key, { deploymentId: acme.deployments[0], internalId: 'admin' }),
    ];
    for (const session of readers) {
      const res = await page(board.publicId, session);
      expect(res.status).toBe(200);
      expect(bootOf(res.html)).toMatchObject({ commentsUrl: commentsUrl(board.publicId), canComment: false });
      const renewed = await content(board.publicId, session);
      expect(renewed.status).toBe(200);
      expect(renewed.body.canComment).toBe(false);
    }
  });

  it('is offered by the shell and the notice pages too, whose script may load a dashboard', async () => {
    platform.clock = clockAt(T0);
    const session = await mint(acme);
    platform.clock = clockAt(T0 + TTL * 1000 + 1_000);
    const expired = await page(board.publicId, session);
    expect(expired.status).toBe(401);
    // Nobody may write before a load said who the viewer is.
    expect(bootOf(expired.html)).toMatchObject({
      commentsUrl: commentsUrl(board.publicId),
      canComment: false,
    });
    platform.clock = undefined;
    const shell = await page(board.publicId);
    expect(shell.status).toBe(200);
    expect(bootOf(shell.html)).toMatchObject({ commentsUrl: commentsUrl(board.publicId), canComment: false });
    // No published dashboard: no conversation to offer.
    const unknown = await page('no-such-dashboard', await mint(acme));
    expect(unknown.status).toBe(404);
    expect(bootOf(unknown.html)).toMatchObject({ commentsUrl: null, canComment: false });
    expect(unknown.html).not.toContain('.eb-comments{');
  });

  it('follows the app config’s embedding.enableDashboardComments, per account', async () => {
    const quiet = await seedAccount({ embedSessionTtlSeconds: TTL });
    const quietBoard = await seedBusinessReview(quiet);
    await enableEmbed(quiet, quietBoard.publicId);
    const setComments = async (enableDashboardComments: boolean | null) => {
      const res = await api('PATCH', '/api/v1/app-config', {
        auth: quiet.admin,
        body: { embedding: { enableDashboardComments } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await setComments(false);
    const session = await mint(quiet);
    const off = await page(quietBoard.publicId, session);
    expect(off.status).toBe(200);
    expectPageHeaders(off, '*');
    expect(bootOf(off.html)).toMatchObject({ commentsUrl: null, canComment: true });
    expect(off.html).not.toContain('.eb-comments{');
    expect(bootOf((await page(quietBoard.publicId)).html).commentsUrl).toBeNull();
    // Another account's switch changes nothing here.
    expect(bootOf((await page(board.publicId, await mint(acme))).html).commentsUrl).toBe(
      commentsUrl(board.publicId),
    );
    await setComments(true);
    expect(bootOf((await page(quietBoard.publicId, session)).html).commentsUrl).toBe(
      commentsUrl(quietBoard.publicId),
    );
    // null resets it to its default: offered.
    await setComments(null);
    expect(bootOf((await page(quietBoard.publicId, session)).html).commentsUrl).toBe(
      commentsUrl(quietBoard.publicId),
    );
  });
});

it('is listed in the OpenAPI document', async () => {
  const res = await api('GET', '/api/v1/openapi.json', { auth: OPERATOR });
  expect(res.status).toBe(200);
  expect(res.body.paths['/embed/dashboard/{publicId}']?.get?.operationId).toBe('embedViewerPage');
  expect(res.body.paths['/embed/dashboard/{publicId}/content']?.get?.operationId).toBe('embedViewerContent');
  expect(
    res.body.paths['/api/v1/deployments/{deploymentId}/workbooks/{id}/dashboard/render']?.get?.operationId,
  ).toBe('renderWorkbookDashboard');
});
