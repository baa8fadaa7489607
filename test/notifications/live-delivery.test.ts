// Notifications send what they say: every chart of the delivered file runs its query under the
// notification's filters and time grains, as the recipient's identity; the email says what was
// filtered. Golden numbers come from SQL written by hand over the shop in PostgreSQL.
import { env } from 'cloudflare:test';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dashboardRenderer, type RenderRequest } from '../../src/notifications/delivery';
import { type LiveBoard, liveBoard, productLines, productsOf } from '../dashboards/live-fixtures';
import { pgRows } from '../data-api/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { pdfText } from '../helpers/pdf-text';
import { platform } from '../helpers/platform';
import { consume, recordingPorts } from './ports';

let acme: SeededAccount;
let board: LiveBoard;
let base: string;
let rec: ReturnType<typeof recordingPorts>;

beforeAll(async () => {
  acme = await seedAccount();
  board = await liveBoard(acme);
  base = `/api/v1/deployments/${board.deploymentId}/notifications`;
});

beforeEach(() => {
  rec = recordingPorts();
  // The real renderer, counted: each call is one render.
  rec.ports.renderer = {
    async render(request) {
      rec.renders.push(request);
      return dashboardRenderer.render(request);
    },
  };
  platform.deliveryPorts = rec.ports;
});

/** A notification of the live board with these recipients, run now and consumed; answers its run. */
async function deliver(recipients: unknown[], body: Record<string, unknown>) {
  const created = await api('POST', base, {
    auth: acme.admin,
    body: { dashboardPublicId: board.publicId, scheduleType: 'DAILY', hour: 7, minute: 0, ...body },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const url = `${base}/${created.body.id}`;
  const added = await api('POST', `${url}/recipients`, { auth: acme.admin, body: { recipients } });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  const run = await api('POST', `${url}/run`, { auth: acme.admin });
  expect(run.status, JSON.stringify(run.body)).toBe(202);
  const result = await consume([run.body.id]);
  expect(result.retryMessages).toEqual([]);
  const row = await env.DB.prepare('SELECT status, error FROM notification_runs WHERE id = ?')
    .bind(run.body.id)
    .first<{ status: string }>();
  const { results: deliveries } = await env.DB.prepare(
    'SELECT status, last_error FROM notification_deliveries WHERE run_id = ? ORDER BY id',
  )
    .bind(run.body.id)
    .all<{ status: string; last_error: string | null }>();
  return { runId: run.body.id as number, status: row?.status, deliveries };
}

const embed = (externalId: string, groups: string[], securityContext?: Record<string, unknown>) => ({
  externalId,
  email: `${externalId}@example.com`,
  groups,
  ...(securityContext ? { securityContext } : {}),
});

/** The rows a report's chart carried into a render. */
function chartRows(request: RenderRequest | undefined, reportId: number) {
  const snapshot = request?.dashboard.reportSnapshots.find((s) => s.reportId === reportId);
  expect(snapshot, `report ${reportId} rendered`).toBeDefined();
  const spec = JSON.parse(snapshot?.spec ?? '{}');
  return {
    data: (spec.data ?? []) as Record<string, unknown>[],
    error: (snapshot as { error?: string }).error,
  };
}

const textRows = (rows: Record<string, unknown>[]) =>
  rows.map((row) => Object.values(row).map((v) => (v === null ? null : String(Number(v)))));

const emailTo = (to: string) => {
  const email = rec.emails.find((e) => e.to === to);
  expect(email, `an email to ${to}`).toBeDefined();
  return email as NonNullable<typeof email>;
};

const productsSql = (where: string) => productsOf(board, where);

describe('a notification with filters and a time grain', () => {
  const controls = {
    filters: [{ member: 'orders.status', operator: 'equals', value: 'completed' }],
    timeGrains: [{ member: 'orders.created_at', grain: 'week' }],
  };

  it('delivers a PDF whose numbers are the filtered ones, and says what was filtered', async () => {
    const s = board.schema;
    const { status } = await deliver([embed('boss-pdf', ['managers'])], {
      notificationFormat: 'pdf',
      ...controls,
    });
    expect(status).toBe('delivered');
    const email = emailTo('boss-pdf@example.com');
    expect(email.attachment.contentType).toBe('application/pdf');
    const text = await pdfText(email.attachment.bytes);
    // The PDF's header names the controls in effect and when the data was read.
    expect(text).toMatch(
      /\nStatus: completed · Grain: Week · Data as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\n/,
    );

    const products = await productsSql(`o.status = 'completed'`);
    const unfiltered = await productsSql('true');
    expect(products).not.toEqual(unfiltered);
    expect(text).toContain(productLines(products));
    expect(text).not.toContain(productLines(unfiltered));
    // The line chart is by week: one point per week of a completed order in its range.
    const weeks = await pgRows(
      `SELECT to_char(date_trunc('week', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS week
        FROM ${s}.orders WHERE status = 'completed' AND created_at < '2024-07-01'
        GROUP BY 1 ORDER BY 1`,
    );
    expect(weeks.length).toBeGreaterThan(1);
    // Weeks are named by their first day; a month bucket would read "Feb 2024".
    for (const { week } of weeks) expect(text).toContain(`${week}\n`);
    expect(text).not.toContain('Feb 2024'); // a month bucket: the grain was not applied
    // The KPI's numbers, as the chart carried them.
    const [kpi] = await pgRows(
      `SELECT count(*) AS count, sum(amount) AS total FROM ${s}.orders WHERE status = 'completed'`,
    );
    const rendered = chartRows(rec.renders[0], board.reports.kpi);
    expect(rendered.error ?? null).toBeNull();
    expect(textRows(rendered.data)).toEqual(textRows([{ count: kpi?.count, total: kpi?.total }]));
    expect(text).toContain(`kpi\n${Number(kpi?.count)}\n`);

    expect(email.text).toContain('Filtered: Status is completed · Time grain: Week');
    expect(email.html).toContain('<p>Filtered: Status is completed · Time grain: Week</p>');
    // An embed recipient is linked to the embed viewer of the dashboard.
    expect(email.text).toMatch(
      new RegExp(`Open the dashboard: https://[a-z0-9-]+\\.[^/]+/embed/dashboard/${board.publicId}$`),
    );
  });

  it('delivers a PNG drawn from the same filtered rows', async () => {
    const { status } = await deliver([embed('boss-png', ['managers'])], {
      notificationFormat: 'png',
      ...controls,
    });
    expect(status).toBe('delivered');
    const email = emailTo('boss-png@example.com');
    expect(email.attachment.contentType).toBe('image/png');
    expect([...email.attachment.bytes.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(rec.renders).toHaveLength(1);
    const request = rec.renders[0];
    expect(textRows(chartRows(request, board.reports.byProduct).data)).toEqual(
      textRows(await productsSql(`o.status = 'completed'`)),
    );
    expect(request?.controls.filters).toEqual([
      expect.objectContaining({ member: 'orders.status', operator: 'equals', values: ['completed'] }),
    ]);
    expect(request?.controls.timeGrains).toEqual([expect.objectContaining({ grain: 'week' })]);
    expect(request?.dataTime).toEqual(expect.any(String));
  });
});

describe('recipients and their identities', () => {
  const notCancelled = { filters: [{ member: 'orders.status', operator: 'not_equals', value: 'cancelled' }] };

  it("gives each embed recipient the rows of its own policies, under the notification's filters", async () => {
    const { status } = await deliver(
      [
        embed('rep-fr', ['reps'], { country: 'FR' }),
        embed('rep-ie', ['reps'], { country: 'IE' }),
        embed('boss', ['managers']),
      ],
      { notificationFormat: 'pdf', ...notCancelled },
    );
    expect(status).toBe('delivered');
    expect(rec.renders).toHaveLength(3);
    const expected = {
      'rep-fr': await productsSql(`o.status <> 'cancelled' AND o.country = 'FR'`),
      'rep-ie': await productsSql(`o.status <> 'cancelled' AND o.country = 'IE'`),
      boss: await productsSql(`o.status <> 'cancelled'`),
    };
    expect(expected['rep-fr']).not.toEqual(expected['rep-ie']);
    for (const [who, rows] of Object.entries(expected)) {
      const email = emailTo(`${who}@example.com`);
      expect(await pdfText(email.attachment.bytes), who).toContain(productLines(rows));
      expect(email.text).toContain('Filtered: Status is not cancelled · Time grain: Month');
    }
    const fr = await pdfText(emailTo('rep-fr@example.com').attachment.bytes);
    expect(fr).not.toContain(productLines(expected['rep-ie']));
  });

  it('renders once per identity: embed recipients with the same identity share one render, account recipients another', async () => {
    const { status, deliveries } = await deliver(
      [
        { email: 'ana@example.com' },
        { email: 'bo@example.com' },
        embed('fr-one', ['reps'], { country: 'FR' }),
        embed('fr-two', ['reps'], { country: 'FR' }),
      ],
      { notificationFormat: 'pdf', ...notCancelled },
    );
    expect(status).toBe('delivered');
    expect(deliveries.map((d) => d.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(rec.emails).toHaveLength(4);
    expect(rec.renders).toHaveLength(2);
    const [account, fr] = rec.renders;
    // Account recipients run as an identity with no groups: the shop grants orders only to
    // its managers and reps, so their charts carry the policy's refusal, not everyone's rows.
    expect(account?.scope.identity.groups).toEqual([]);
    expect(chartRows(account, board.reports.byProduct)).toMatchObject({
      data: [],
      error: expect.any(String),
    });
    expect(textRows(chartRows(fr, board.reports.byProduct).data)).toEqual(
      textRows(await productsSql(`o.status <> 'cancelled' AND o.country = 'FR'`)),
    );
    // The same file to both embed recipients.
    const [one, two] = [emailTo('fr-one@example.com'), emailTo('fr-two@example.com')];
    expect(Buffer.from(one.attachment.bytes).equals(Buffer.from(two.attachment.bytes))).toBe(true);
    // Account recipients are linked to the render endpoint with the notification's controls.
    const link = new URL(emailTo('ana@example.com').text.split('Open the dashboard: ')[1] ?? '');
    expect(link.pathname).toBe(
      `/api/v1/deployments/${board.deploymentId}/workbooks/${board.workbookId}/dashboard/render`,
    );
    expect(link.searchParams.get('format')).toBe('pdf');
    expect(JSON.parse(link.searchParams.get('filters') ?? 'null')).toEqual([
      { member: 'orders.status', operator: 'not_equals', values: ['cancelled'] },
    ]);
  });
});

describe('controls that cannot be applied fail closed', () => {
  it.each([
    ['an unknown filter member', { filters: [{ member: 'orders.nope', value: 'x' }] }, 'orders.nope'],
    [
      'the custom operator',
      { filters: [{ member: 'orders.status', operator: 'custom', value: 'x' }] },
      'The filter on orders.status uses the operator custom, which edgeboard cannot apply',
    ],
    [
      'a case-sensitive contains',
      { filters: [{ member: 'orders.status', operator: 'contains', value: 'Comp', caseSensitive: true }] },
      'case-sensitive contains',
    ],
    [
      'a time grain on an unknown member',
      { timeGrains: [{ member: 'orders.shipped_at', grain: 'day' }] },
      'orders.shipped_at',
    ],
  ])('%s fails every delivery of the run, naming it, and sends nothing', async (_, body, message) => {
    const { status, deliveries } = await deliver(
      [{ email: 'ana@example.com' }, embed('boss-closed', ['managers'])],
      { notificationFormat: 'pdf', ...body },
    );
    expect(status).toBe('failed');
    expect(deliveries).toEqual([
      { status: 'failed', last_error: expect.stringContaining(message) },
      { status: 'failed', last_error: expect.stringContaining(message) },
    ]);
    expect(rec.renders).toEqual([]);
    expect(rec.emails).toEqual([]);
  });
});
