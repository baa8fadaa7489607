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
  const svg = /<svg\b[\s\S]*?<\/svg>/.exec(html.slice(start, end))?.[0] ?? '';
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
