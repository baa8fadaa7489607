// The embed viewer (its page and the embed load API) honours the account's app config as the
// render does: the time zone policy is the zone of its queries and of the times it shows (and
// decides how the session's own zone combines with it), the app theme (applied globally) is the
// default of the dashboard's own on the page, and a download restriction reaches the client as
// `settings.restrictDataDownload`. None of it leaks to another account, and none of it costs a
// D1 round trip: the settings are read in the load's one statement.
import { beforeAll, describe, expect, it } from 'vitest';
import { publishDashboard, roundTrips, setEmbed } from '../embedding/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { type ApiResponse, api } from '../helpers/http';
import { fetchBytes, type SeededDashboard, seedBusinessReview } from '../render/seed';
import { type MonthsBoard, monthsBoard } from './fixtures';

let acme: SeededAccount;
let other: SeededAccount;
let months: MonthsBoard;

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  months = await monthsBoard(acme);
  await setEmbed(acme, months.publicId, { allowEmbed: true });
});

async function patchConfig(account: SeededAccount, body: Record<string, unknown>) {
  const res = await api('PATCH', '/api/v1/app-config', { auth: account.admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A session of `account`'s deployment for an external viewer, with the given settings. */
async function mint(account: SeededAccount, deploymentId: number, settings: Record<string, unknown> = {}) {
  const res = await api('POST', '/api/v1/embed/generate-session', {
    auth: account.key,
    body: { deploymentId, externalId: 'viewer-1', settings },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.sessionId as string;
}

async function load(publicId: string, session: string): Promise<ApiResponse> {
  const res = await api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: { session } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

async function page(publicId: string, session: string) {
  const res = await fetchBytes(`/embed/dashboard/${publicId}?session=${encodeURIComponent(session)}`);
  expect(res.status).toBe(200);
  return { headers: res.headers, html: new TextDecoder().decode(res.bytes) };
}

/** The orders per month a load's report answered, in the order of its rows. */
function monthCounts(res: ApiResponse, reportId: number): number[] {
  const report = (res.body.reportSnapshots as { reportId: number; spec: string }[]).find(
    (r) => r.reportId === reportId,
  );
  expect(report, `report ${reportId} in the load`).toBeDefined();
  const data = JSON.parse(report?.spec ?? '{}').data as Record<string, unknown>[];
  return data.map((row) => Number(row['orders.count']));
}

/** The texts the viewer page's drawing of one widget writes (a table: its headers and cells). */
function widgetTexts(html: string, widgetId: string): string[] {
  const start = html.indexOf(`data-widget-id="${widgetId}"`);
  expect(start, `widget ${widgetId} on the page`).toBeGreaterThanOrEqual(0);
  const end = html.indexOf('</section>', start);
  const section = html.slice(start, end);
  // A table chart is an HTML table: its cells, in reading order.
  const table = /<table\b[\s\S]*?<\/table>/.exec(section)?.[0];
  if (table) return [...table.matchAll(/<t[hd]\b[^>]*>([^<]*)<\/t[hd]>/g)].map((m) => m[1] as string);
  const svg = /<svg\b[\s\S]*?<\/svg>/.exec(section)?.[0] ?? '';
  return [...svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] as string);
}

// The shop's orders per month over the first half of 2024 (test/settings/fixtures.ts): two sit
// near a month's end in UTC, so in Tokyo (UTC+9) they fall in the next month.
const UTC_COUNTS = [2, 2, 2, 2];
const TOKYO_COUNTS = [1, 3, 1, 3];

describe('the time zone policy in the embed load and the viewer page', () => {
  it('runs the queries that name no zone in the policy’s zone, whatever the session asks, unless it allows an override', async () => {
    const plain = await load(months.publicId, await mint(acme, months.deploymentId));
    expect(plain.body.settings.timezone).toBeNull();
    expect(monthCounts(plain, months.reportId)).toEqual(UTC_COUNTS);

    // Without a policy, the session's own zone is the viewer's.
    const asked = await load(
      months.publicId,
      await mint(acme, months.deploymentId, { timezone: 'Asia/Tokyo' }),
    );
    expect(asked.body.settings.timezone).toBe('Asia/Tokyo');
    expect(monthCounts(asked, months.reportId)).toEqual(TOKYO_COUNTS);
    // A query that names its own zone keeps it.
    expect(monthCounts(asked, months.utcReportId)).toEqual(UTC_COUNTS);

    // The policy, with no override allowed, wins over the session's zone.
    await patchConfig(acme, { timezoneSettings: { enabled: true, timezone: 'Asia/Tokyo' } });
    const forced = await load(months.publicId, await mint(acme, months.deploymentId, { timezone: 'UTC' }));
    expect(forced.body.settings.timezone).toBe('Asia/Tokyo');
    expect(monthCounts(forced, months.reportId)).toEqual(TOKYO_COUNTS);
    expect(monthCounts(forced, months.utcReportId)).toEqual(UTC_COUNTS);

    // With overrides allowed the session's zone wins; a session without one gets the policy's.
    await patchConfig(acme, { timezoneSettings: { allowUserOverride: true } });
    const overridden = await load(
      months.publicId,
      await mint(acme, months.deploymentId, { timezone: 'UTC' }),
    );
    expect(overridden.body.settings.timezone).toBe('UTC');
    expect(monthCounts(overridden, months.reportId)).toEqual(UTC_COUNTS);
    const unset = await load(months.publicId, await mint(acme, months.deploymentId));
    expect(unset.body.settings.timezone).toBe('Asia/Tokyo');
    expect(monthCounts(unset, months.reportId)).toEqual(TOKYO_COUNTS);

    // The account's embed default comes before the policy's zone when overrides are allowed.
    await patchConfig(acme, { embedding: { timezone: 'UTC', locale: 'es-ES' } });
    const embedDefault = await load(months.publicId, await mint(acme, months.deploymentId));
    expect(embedDefault.body.settings).toMatchObject({ timezone: 'UTC', locale: 'es-ES' });
    expect(monthCounts(embedDefault, months.reportId)).toEqual(UTC_COUNTS);
    await patchConfig(acme, { timezoneSettings: null, embedding: null });
  });

  it('draws the viewer page’s charts with the data bucketed in the policy’s zone', async () => {
    const session = await mint(acme, months.deploymentId, { timezone: 'UTC' });
    const before = widgetTexts((await page(months.publicId, session)).html, 't-zone');
    await patchConfig(acme, { timezoneSettings: { enabled: true, timezone: 'Asia/Tokyo' } });
    const after = widgetTexts((await page(months.publicId, session)).html, 't-zone');
    expect(before.join('|')).toContain('Jan 2024|2|Feb 2024|2|Mar 2024|2|Apr 2024|2');
    expect(after.join('|')).toContain('Jan 2024|1|Feb 2024|3|Mar 2024|1|Apr 2024|3');
    // The renewal's content runs in the same zone.
    const content = await api('GET', `/embed/dashboard/${months.publicId}/content`, {
      auth: { session },
    });
    expect(content.status, JSON.stringify(content.body)).toBe(200);
    expect(widgetTexts(content.body.html, 't-zone').join('|')).toContain(
      'Jan 2024|1|Feb 2024|3|Mar 2024|1|Apr 2024|3',
    );
    await patchConfig(acme, { timezoneSettings: null });
  });
});

/** The stylesheet of the dashboard on a viewer page (what its theme draws). */
const dashboardCss = (html: string) =>
  /<style nonce="[^"]+" id="eb-dashboard-style">([^<]*)<\/style>/.exec(html)?.[1] ?? '';

const THEME = {
  appTheme: {
    palette: { accent: { color: '#0f766e' } },
    light: { backgroundColor: '#123456', foregroundColor: '#223344' },
    typography: {
      fonts: [
        { id: 'brand', url: 'https://fonts.example.com/brand.woff2', format: 'woff2', family: 'Brand Sans' },
      ],
      body: { fontRef: 'brand' },
      heading: { fontRef: 'brand', fontWeight: 600 },
    },
  },
};

describe('the app theme on the viewer page', () => {
  let ownBackground: SeededDashboard;

  beforeAll(async () => {
    // The sample dashboard, whose own theme sets the page's background (#f3f4f8).
    ownBackground = await seedBusinessReview(acme, { deploymentId: acme.deployments[1] });
    await setEmbed(acme, ownBackground.publicId, { allowEmbed: true });
  });

  it('is the default of the dashboard’s theme when applied globally: colours and fonts; the dashboard’s own wins', async () => {
    const session = await mint(acme, months.deploymentId);
    const css = async () => dashboardCss((await page(months.publicId, session)).html);
    expect(await css()).not.toContain('#123456');

    await patchConfig(acme, THEME);
    expect(await css()).not.toContain('#123456');

    await patchConfig(acme, { applyThemeGlobally: true });
    const themed = await css();
    expect(themed).toContain('body{background:#123456;font-family:Brand Sans, ');
    expect(themed).toContain('.eb-avatar{background:#0f766e}');
    expect(themed).toMatch(
      /\.eb-widget-title\{color:#223344;font-family:Brand Sans, [^;]+;font-size:[^;]+;font-weight:600\}/,
    );
    // The theme's web font loads on the page, from its URL alone, and on the page of an address
    // without a session (the embed SDK's) too.
    const face =
      '@font-face{font-family:"Brand Sans";src:url("https://fonts.example.com/brand.woff2") format("woff2");font-display:swap}';
    const shown = await page(months.publicId, session);
    expect(shown.html).toContain(face);
    expect(shown.headers.get('content-security-policy')).toContain(
      'font-src https://fonts.example.com/brand.woff2;',
    );
    const shell = await fetchBytes(`/embed/dashboard/${months.publicId}`);
    expect(shell.status).toBe(200);
    expect(new TextDecoder().decode(shell.bytes)).toContain(face);
    expect(shell.headers.get('content-security-policy')).toContain(
      'font-src https://fonts.example.com/brand.woff2;',
    );
    // A font URL that could leave its CSS rule or the policy is never written.
    await patchConfig(acme, {
      appTheme: {
        typography: {
          fonts: [
            {
              id: 'brand',
              url: 'https://fonts.example.com/a.woff2?v=1;x',
              format: 'woff2',
              family: 'Brand Sans',
            },
          ],
        },
      },
    });
    const hostile = await page(months.publicId, session);
    expect(hostile.html).not.toContain('@font-face');
    expect(hostile.headers.get('content-security-policy')).not.toContain('font-src');
    await patchConfig(acme, THEME);
    // A renewal's content carries the same styles.
    const content = await api('GET', `/embed/dashboard/${months.publicId}/content`, { auth: { session } });
    expect(content.status, JSON.stringify(content.body)).toBe(200);
    expect(content.body.css).toContain('body{background:#123456;');
    // The embed load answers the dashboard's config as published.
    expect((await load(months.publicId, session)).body.config.theme ?? null).toBeNull();

    // The dashboard's own theme wins field by field: its background, the account's fonts.
    const own = dashboardCss(
      (await page(ownBackground.publicId, await mint(acme, ownBackground.deploymentId))).html,
    );
    expect(own).toContain('body{background:#f3f4f8;font-family:Brand Sans, ');
    expect(own).toContain('.eb-avatar{background:#4338ca}');
    expect(own).not.toContain('#123456');

    await patchConfig(acme, { appTheme: null, applyThemeGlobally: null });
    expect(await css()).not.toContain('#123456');
  });
});

describe('the download restriction', () => {
  it('tells the embed load’s client to offer no download; the viewer has no download action', async () => {
    const session = await mint(acme, months.deploymentId);
    expect((await load(months.publicId, session)).body.settings.restrictDataDownload).toBe(false);
    await patchConfig(acme, { restrictDataDownload: true });
    expect((await load(months.publicId, session)).body.settings.restrictDataDownload).toBe(true);
    // Viewing is no download: the page and its content still answer, and offer nothing to save.
    const shown = await page(months.publicId, session);
    expect(shown.html).toContain('data-widget-id="t-zone"');
    expect(shown.html).not.toMatch(/download|\.csv|\.pdf|\.png/i);
    const content = await api('GET', `/embed/dashboard/${months.publicId}/content`, { auth: { session } });
    expect(content.status).toBe(200);
    // The dashboard's file (the render endpoint) is refused as the render refuses it.
    const file = await fetchBytes(
      `/api/v1/deployments/${months.deploymentId}/workbooks/${months.workbookId}/dashboard/render`,
      acme.admin,
    );
    expect(file.status).toBe(403);
    expect(file.body.code).toBe('DOWNLOAD_RESTRICTED');
    await patchConfig(acme, { restrictDataDownload: null });
    expect((await load(months.publicId, session)).body.settings.restrictDataDownload).toBe(false);
  });
});

describe('isolation and cost', () => {
  const EVERYTHING = {
    ...THEME,
    applyThemeGlobally: true,
    restrictDataDownload: true,
    timezoneSettings: { enabled: true, timezone: 'Asia/Tokyo' },
    embedding: { timezone: 'Europe/Berlin', locale: 'es-ES' },
  };

  it('never lets one account’s settings reach another’s viewer', async () => {
    await patchConfig(acme, EVERYTHING);
    const theirs = await publishDashboard(other);
    await setEmbed(other, theirs.publicId, { allowEmbed: true });
    const session = await mint(other, other.deployments[0]);
    const loaded = await load(theirs.publicId, session);
    expect(loaded.body.settings).toMatchObject({
      timezone: null,
      locale: null,
      restrictDataDownload: false,
    });
    const shown = await page(theirs.publicId, session);
    expect(dashboardCss(shown.html)).not.toContain('#123456');
    expect(dashboardCss(shown.html)).not.toContain('Brand Sans');
    expect(shown.html).not.toContain('@font-face');
    expect(shown.headers.get('content-security-policy')).not.toContain('font-src');
    // acme's own load has them all.
    const ours = await load(months.publicId, await mint(acme, months.deploymentId));
    expect(ours.body.settings).toMatchObject({
      timezone: 'Asia/Tokyo',
      locale: 'es-ES',
      restrictDataDownload: true,
    });
    await patchConfig(acme, {
      appTheme: null,
      applyThemeGlobally: null,
      restrictDataDownload: null,
      timezoneSettings: null,
      embedding: null,
    });
  });

  it('reads the settings in the load’s one statement: no round trip more, for the load and the page', async () => {
    const board = await publishDashboard(acme);
    await setEmbed(acme, board.publicId, { allowEmbed: true });
    const session = await mint(acme, acme.deployments[0]);
    await load(board.publicId, session);
    const plainLoad = roundTrips(await load(board.publicId, session));
    const plainPage = Number((await page(board.publicId, session)).headers.get('x-d1-round-trips'));
    expect(plainLoad).toBe(1);

    await patchConfig(acme, EVERYTHING);
    const loaded = await load(board.publicId, session);
    expect(loaded.body.settings).toMatchObject({ timezone: 'Asia/Tokyo', restrictDataDownload: true });
    expect(roundTrips(loaded)).toBe(1);
    const shown = await page(board.publicId, session);
    expect(dashboardCss(shown.html)).toContain('#123456');
    expect(Number(shown.headers.get('x-d1-round-trips'))).toBe(plainPage);
    expect(plainPage).toBe(2);
    await patchConfig(acme, {
      appTheme: null,
      applyThemeGlobally: null,
      restrictDataDownload: null,
      timezoneSettings: null,
      embedding: null,
    });
  });
});
