import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dashboardRenderer, type RenderRequest } from '../../src/notifications/delivery';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { pdfText } from '../helpers/pdf-text';
import { platform } from '../helpers/platform';
import { routedDb } from '../helpers/shards';
import { consume, recordingPorts } from '../notifications/ports';
import { MONTHS_TOKYO, MONTHS_UTC, type MonthsBoard, monthsBoard, tableText } from './fixtures';

let acme: SeededAccount;
let months: MonthsBoard;
let rec: ReturnType<typeof recordingPorts>;

beforeAll(async () => {
  acme = await seedAccount();
  months = await monthsBoard(acme);
});

beforeEach(() => {
  rec = recordingPorts();
  // The real renderer, recorded: what it was asked for, and the file it made.
  rec.ports.renderer = {
    async render(request) {
      rec.renders.push(request);
      return dashboardRenderer.render(request);
    },
  };
  platform.deliveryPorts = rec.ports;
});

const ADDRESS = 'ana@example.com';
const EMBED = { type: 'EMBED_USER', externalId: 'viewer-1', email: 'viewer-1@example.com' };

/** A PDF notification of the months board to an address and an embed user, run now and consumed. */
async function deliver() {
  const base = `/api/v1/deployments/${months.deploymentId}/notifications`;
  const created = await api('POST', base, {
    auth: acme.admin,
    body: {
      dashboardPublicId: months.publicId,
      scheduleType: 'DAILY',
      hour: 7,
      minute: 0,
      notificationFormat: 'pdf',
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  // Cube's default zone of a schedule stays UTC, whatever the account's policy.
  expect(created.body.timezone).toBe('UTC');
  const url = `${base}/${created.body.id}`;
  const added = await api('POST', `${url}/recipients`, {
    auth: acme.admin,
    body: { recipients: [{ email: ADDRESS }, EMBED] },
  });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  const run = await api('POST', `${url}/run`, { auth: acme.admin });
  expect(run.status, JSON.stringify(run.body)).toBe(202);
  expect((await consume([run.body.id])).retryMessages).toEqual([]);
  const row = await routedDb
    .prepare('SELECT status FROM notification_runs WHERE id = ?')
    .bind(run.body.id)
    .first<{ status: string }>();
  expect(row?.status).toBe('delivered');
  const email = (to: string) => {
    const found = rec.emails.find((e) => e.to === to);
    expect(found, `an email to ${to}`).toBeDefined();
    return found as NonNullable<typeof found>;
  };
  return { address: email(ADDRESS), embed: email(EMBED.email) };
}

/** The rows one report's table carried into a render. */
function rowsOf(request: RenderRequest | undefined, reportId: number) {
  const snapshot = request?.dashboard.reportSnapshots.find((s) => s.reportId === reportId);
  expect(snapshot, `report ${reportId} rendered`).toBeDefined();
  const data = (JSON.parse(snapshot?.spec ?? '{}').data ?? []) as Record<string, unknown>[];
  return data.map((row) => Number(row['orders.count']));
}

async function patchConfig(body: Record<string, unknown>) {
  const res = await api('PATCH', '/api/v1/app-config', { auth: acme.admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('a notification of an account with no settings', () => {
  it('renders in UTC with the dashboard’s own theme and links account recipients to the render endpoint', async () => {
    const { address, embed } = await deliver();
    expect(rec.renders).toHaveLength(2);
    for (const request of rec.renders) {
      expect(request.timeZone).toBe('UTC');
      expect(request.dashboard.config.theme).toBeUndefined();
      expect(rowsOf(request, months.reportId)).toEqual([2, 2, 2, 2]);
    }
    const text = await pdfText(address.attachment.bytes);
    expect(text).toMatch(/\nData as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\n/);
    expect(tableText(text, 'By month', 'By month in UTC')).toContain(MONTHS_UTC);
    expect(address.text).toMatch(/\nOpen the dashboard: https:\/\/\S+\/dashboard\/render\?format=pdf$/);
    expect(address.html).toContain('Open the dashboard</a>');
    expect(embed.text).toContain(`/embed/dashboard/${months.publicId}`);
  });
});

describe('a notification of an account with a time zone policy, a global theme and restricted downloads', () => {
  beforeAll(async () => {
    await patchConfig({
      timezoneSettings: { enabled: true, timezone: 'Asia/Tokyo' },
      appTheme: { palette: { accent: { color: '#123456' } }, light: { foregroundColor: '#222222' } },
      applyThemeGlobally: true,
      restrictDataDownload: true,
    });
  });

  it('computes and dates the file in the account’s zone, a query naming its own zone keeping it', async () => {
    const { address, embed } = await deliver();
    for (const request of rec.renders) {
      expect(request.timeZone).toBe('Asia/Tokyo');
      expect(rowsOf(request, months.reportId)).toEqual([1, 3, 1, 3]);
      expect(rowsOf(request, months.utcReportId)).toEqual([2, 2, 2, 2]);
    }
    for (const email of [address, embed]) {
      const text = await pdfText(email.attachment.bytes);
      expect(text).toMatch(/\nData as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} Asia\/Tokyo\n/);
      expect(tableText(text, 'By month', 'By month in UTC')).toContain(MONTHS_TOKYO);
      expect(tableText(text, 'By month in UTC', null)).toContain(MONTHS_UTC);
    }
  });

  it('draws with the account’s theme as the dashboard’s default', async () => {
    await deliver();
    for (const request of rec.renders) {
      expect(request.dashboard.config.theme).toEqual({
        primaryColor: '#123456',
        widgets: { title: { color: '#222222' }, text: { color: '#222222' } },
      });
    }
  });

  it('still delivers the files, without the link to the render endpoint; embed users keep the viewer’s', async () => {
    const { address, embed } = await deliver();
    expect(address.attachment.contentType).toBe('application/pdf');
    expect(address.attachment.bytes.length).toBeGreaterThan(1000);
    expect(address.text).not.toContain('Open the dashboard');
    expect(address.text).not.toContain('/render');
    expect(address.html).not.toContain('<a ');
    expect(address.text).toContain('Your scheduled dashboard "Months"');
    expect(embed.attachment.contentType).toBe('application/pdf');
    expect(embed.text).toMatch(
      new RegExp(`Open the dashboard: https://\\S+/embed/dashboard/${months.publicId}$`),
    );
    // The render endpoint itself refuses the file the link would have asked for.
    const render = await api(
      'GET',
      `/api/v1/deployments/${months.deploymentId}/workbooks/${months.workbookId}/dashboard/render?format=pdf`,
      { auth: acme.admin },
    );
    expect(render.status).toBe(403);
    expect(render.body.code).toBe('DOWNLOAD_RESTRICTED');
  });
});
