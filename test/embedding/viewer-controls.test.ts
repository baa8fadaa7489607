// The viewer's controls over HTTP: a FILTER widget's values (bounded, searchable, under the
// viewer's policies), content re-rendered for some widgets under the controls' values, and a
// session's locked filters on every load and on the Cube API with its embed token.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  chartOf,
  createQueryReport,
  type LiveBoard,
  liveBoardWithViewers,
  mintViewer,
  WIDGETS,
} from '../dashboards/live-fixtures';
import { deployModel, load, loadShopIntoStore, pgRows } from '../data-api/fixtures';
import { expectError, type SeededAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { claimsOf } from './fixtures';

let acme: SeededAccount;
let board: LiveBoard;
let manager: string;
let repIe: string;

beforeAll(async () => {
  ({ account: acme, board, manager, repIe } = await liveBoardWithViewers());
});

const qs = (params: Record<string, unknown>) => {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return query.size > 0 ? `?${query}` : '';
};

const filterValues = (sessionId: string, params: Record<string, string>, publicId = board.publicId) =>
  api('GET', `/embed/dashboard/${publicId}/filter-values${qs(params)}`, { auth: { session: sessionId } });

const content = (sessionId: string, params: Record<string, unknown> = {}) =>
  api('GET', `/embed/dashboard/${board.publicId}/content${qs(params)}`, { auth: { session: sessionId } });

/** The `<section>` of a widget in a content answer's markup. */
function sectionOf(html: string, widgetId: string): string {
  const start = html.indexOf(`data-widget-id="${widgetId}"`);
  expect(start, `section of ${widgetId}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('</section>', start));
}

/** The numbers a chart section draws (its SVG text), as they read. */
const drawn = (section: string) => [...section.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

const column = (rows: Record<string, unknown>[], key: string) => rows.map((r) => r[key]);

describe('GET /embed/dashboard/{publicId}/filter-values', () => {
  it('lists the member’s values in order, for the viewer’s policies', async () => {
    const all = await filterValues(manager, { widgetId: WIDGETS.statusFilter });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const expected = await pgRows(
      `SELECT DISTINCT status FROM ${board.schema}.orders WHERE status IS NOT NULL ORDER BY status`,
    );
    expect(all.body.member).toBe('orders.status');
    expect(all.body.values.filter((v: unknown) => v !== null)).toEqual(column(expected, 'status'));
    expect(all.body.truncated).toBe(false);

    // The rep's policy keeps the rows of their country: only the statuses of Irish orders.
    const rep = await filterValues(repIe, { widgetId: WIDGETS.statusFilter });
    expect(rep.status, JSON.stringify(rep.body)).toBe(200);
    const irish = await pgRows(
      `SELECT DISTINCT status FROM ${board.schema}.orders WHERE country = 'IE' ORDER BY status`,
    );
    expect(rep.body.values).toEqual(column(irish, 'status'));
    expect(rep.body.values.length).toBeLessThan(all.body.values.length);
  });

  it('searches: values containing the text', async () => {
    const res = await filterValues(manager, { widgetId: WIDGETS.statusFilter, search: 'pen' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.values).toEqual(['pending']);
    // The text is a bound value: a LIKE wildcard in it matches itself only.
    const literal = await filterValues(manager, { widgetId: WIDGETS.statusFilter, search: '%_' });
    expect(literal.body.values).toEqual(['100%_done']);
  });

  it('refuses what is not a FILTER widget, a long search, and a missing session', async () => {
    expectError(await filterValues(manager, { widgetId: WIDGETS.kpi }), 404, 'NOT_FOUND');
    expectError(
      await filterValues(manager, { widgetId: WIDGETS.statusFilter, search: 'x'.repeat(201) }),
      400,
      'VALIDATION_FAILED',
    );
    const bare = await api('GET', `/embed/dashboard/${board.publicId}/filter-values?widgetId=f-status`);
    expectError(bare, 401);
  });

  it('offers at most 100 values, and says there are more', async () => {
    // 130 codes in the embedded store: c000 … c129.
    const deploymentId = acme.deployments[1] as number;
    const codes = Array.from({ length: 130 }, (_, i) => `c${String(i).padStart(3, '0')}`);
    await loadShopIntoStore(acme.admin, deploymentId);
    const imported = await api(
      'POST',
      `/api/v1/deployments/${deploymentId}/data/tables/codes/import?mode=replace`,
      {
        auth: acme.admin,
        rawBody: ['code', ...codes.reverse()].join('\n'),
        headers: { 'content-type': 'text/csv' },
      },
    );
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    codes.reverse();
    await deployModel(
      acme.admin,
      deploymentId,
      `cubes:
  - name: codes
    sql_table: codes
    dimensions:
      - name: code
        sql: code
        type: string
        primary_key: true
    measures:
      - name: count
        type: count
`,
    );
    const base = `/api/v1/deployments/${deploymentId}`;
    const workbook = await api('POST', `${base}/workbooks`, { auth: acme.admin, body: { name: 'Codes' } });
    const reportId = await createQueryReport(acme.admin, deploymentId, workbook.body.id, 'codes', {
      jsonQuery: { measures: ['codes.count'] },
      spec: { type: 'kpi' },
    });
    await api('PUT', `${base}/workbooks/${workbook.body.id}/dashboard`, {
      auth: acme.admin,
      body: {
        dashboardDraft: {
          widgets: [
            {
              id: 'f-code',
              type: 'FILTER',
              position: { x: 0, y: 0, w: 6, h: 1 },
              config: { member: 'codes.code' },
            },
            { id: 'w-count', type: 'CHART', position: { x: 0, y: 1, w: 6, h: 2 }, config: { reportId } },
          ],
        },
      },
    });
    const published = await api('POST', `${base}/workbooks/${workbook.body.id}/publish`, {
      auth: acme.admin,
      body: { title: 'Codes' },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    await api('PATCH', `/api/v1/embed/dashboard/${published.body.publicId}`, {
      auth: acme.admin,
      body: { allowEmbed: true },
    });
    const session = await mintViewer(acme, deploymentId, { externalId: 'coder', groups: [] });
    const first = await filterValues(session, { widgetId: 'f-code' }, published.body.publicId);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.values).toEqual(codes.slice(0, 100));
    expect(first.body.truncated).toBe(true);
    const narrowed = await filterValues(
      session,
      { widgetId: 'f-code', search: 'c12' },
      published.body.publicId,
    );
    expect(narrowed.body.values).toEqual(codes.filter((c) => c.includes('c12')));
    expect(narrowed.body.truncated).toBe(false);
  });
});

describe('GET /embed/dashboard/{publicId}/content with controls', () => {
  it('answers the controls, with the charts each can change', async () => {
    const res = await content(manager);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const widgets = res.body.controls.widgets as { widgetId: string; targets: string[] }[];
    const status = widgets.find((w) => w.widgetId === WIDGETS.statusFilter);
    const grain = widgets.find((w) => w.widgetId === WIDGETS.grain);
    expect(status).toMatchObject({ kind: 'filter', member: 'orders.status', label: 'Status', locked: false });
    // Every chart reads orders or a cube joined to it; only the monthly chart has the time dimension.
    expect(status?.targets.sort()).toEqual(
      [WIDGETS.kpi, WIDGETS.byStatus, WIDGETS.byMonth, WIDGETS.byProduct].sort(),
    );
    expect(grain).toMatchObject({ kind: 'timeGrain', grain: 'month', targets: [WIDGETS.byMonth] });
    expect(res.body.widgets).toBeNull();
  });

  it('runs only the named widgets, under the filters, and answers their sections', async () => {
    const filters = [{ member: 'orders.status', values: ['completed'] }];
    const res = await content(manager, { filters, widgets: [WIDGETS.byStatus] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.widgets).toEqual([WIDGETS.byStatus]);
    const bars = sectionOf(res.body.html, WIDGETS.byStatus);
    expect(bars).toContain('<svg');
    expect(drawn(bars).join(' ')).toContain('completed');
    expect(drawn(bars).join(' ')).not.toContain('pending');
    // The widgets not asked for were not run: they are drawn without data.
    expect(sectionOf(res.body.html, WIDGETS.kpi)).toContain('No data');
    expect(res.body.controls.filters).toContainEqual({ member: 'orders.status', values: ['completed'] });
  });

  it('changes a chart’s grain', async () => {
    const res = await content(manager, {
      timeGrains: [{ member: 'orders.created_at', grain: 'quarter' }],
      widgets: [WIDGETS.byMonth],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.controls.timeGrains).toEqual([{ member: 'orders.created_at', grain: 'quarter' }]);
    // January to June 2024 by quarter: two points.
    const line = sectionOf(res.body.html, WIDGETS.byMonth);
    expect(line).toContain('<svg');
  });

  it('refuses malformed control parameters', async () => {
    expectError(await content(manager, { filters: 'not json' }), 400, 'VALIDATION_FAILED');
    expectError(await content(manager, { widgets: '{"a":1}' }), 400, 'VALIDATION_FAILED');
    expectError(
      await content(manager, { timeGrains: [{ member: 'orders.created_at', grain: 'fortnight' }] }),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('generate-session lockedFilters', () => {
  const mintLocked = (body: Record<string, unknown>) =>
    api('POST', '/api/v1/embed/generate-session', {
      auth: { bearer: acme.key.apiKey },
      body: { deploymentId: board.deploymentId, externalId: 'locked-boss', groups: ['managers'], ...body },
    });
  const embedLoad = (sessionId: string, params: Record<string, unknown> = {}) =>
    api('GET', `/api/v1/embed/dashboard/${board.publicId}${qs(params)}`, { auth: { session: sessionId } });

  it('narrows every load, cannot be overridden, and survives a KV miss', async () => {
    const minted = await mintLocked({ lockedFilters: [{ member: 'orders.status', values: ['completed'] }] });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const sessionId = minted.body.sessionId as string;
    const [expected] = await pgRows(
      `SELECT count(*)::int AS n FROM ${board.schema}.orders WHERE status = 'completed'`,
    );
    const check = async (params: Record<string, unknown> = {}) => {
      const res = await embedLoad(sessionId, params);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const kpi = chartOf(res.body, board.reports.kpi);
      expect(Number(kpi.data[0]?.['orders.count'])).toBe(expected?.n);
      const control = res.body.controls.filters.find(
        (f: { widgetId?: string }) => f.widgetId === WIDGETS.statusFilter,
      );
      expect(control).toMatchObject({ values: ['completed'], locked: true });
    };
    await check();
    await check({ filters: [{ member: 'orders.status', values: ['pending'] }] });
    await check({ filters: [{ widgetId: WIDGETS.statusFilter, values: [] }] });
    await env.SESSIONS.delete(`session:${claimsOf(sessionId).jti}`);
    await check();

    // The viewer shows it fixed.
    const page = await content(sessionId, { filters: [{ member: 'orders.status', values: ['pending'] }] });
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    const widget = page.body.controls.widgets.find(
      (w: { widgetId: string }) => w.widgetId === WIDGETS.statusFilter,
    );
    expect(widget).toMatchObject({ locked: true, values: ['completed'] });
    const values = await filterValues(sessionId, { widgetId: WIDGETS.statusFilter });
    expect(values.body.values).toEqual(['completed']);
  });

  it('binds the Cube API called with the session’s embed token', async () => {
    const minted = await mintLocked({ lockedFilters: [{ member: 'orders.country', values: ['FR'] }] });
    const exchanged = await api('POST', '/api/v1/embed/session/token', {
      body: { sessionId: minted.body.sessionId },
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const token = exchanged.body.token as string;
    const res = await load(token, { measures: ['orders.count'], dimensions: ['orders.country'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [fr] = await pgRows(`SELECT count(*)::int AS n FROM ${board.schema}.orders WHERE country = 'FR'`);
    expect(res.body.data).toEqual([{ 'orders.country': 'FR', 'orders.count': expect.anything() }]);
    expect(Number(res.body.data[0]['orders.count'])).toBe(fr?.n);
    // A filter of its own cannot widen it.
    const widened = await load(token, {
      measures: ['orders.count'],
      filters: [{ member: 'orders.country', operator: 'equals', values: ['JP'] }],
    });
    expect(widened.status, JSON.stringify(widened.body)).toBe(200);
    expect(Number(widened.body.data[0]?.['orders.count'] ?? 0)).toBe(0);

    // A locked member the query's cube cannot be narrowed by refuses the query (fails closed).
    const broken = await mintLocked({ lockedFilters: [{ member: 'orders.nope', values: ['x'] }] });
    const brokenToken = await api('POST', '/api/v1/embed/session/token', {
      body: { sessionId: broken.body.sessionId },
    });
    expectError(await load(brokenToken.body.token, { measures: ['orders.count'] }), 400);
    const users = await load(brokenToken.body.token, { measures: ['users.count'] });
    expect(users.status, JSON.stringify(users.body)).toBe(200);
  });

  it('is bounded', async () => {
    const filter = (i: number) => ({ member: `orders.m${i}`, values: ['x'] });
    for (const lockedFilters of [
      Array.from({ length: 11 }, (_, i) => filter(i)),
      [{ member: 'orders.status', values: Array.from({ length: 51 }, (_, i) => `v${i}`) }],
      [{ member: 'x'.repeat(256), values: ['a'] }],
      [{ member: 'orders.status', values: [] }],
      [{ member: 'orders.status', operator: 'like', values: ['a'] }],
      [{ member: 'orders.status', values: [{ nested: true }] }],
    ]) {
      const res = await mintLocked({ lockedFilters });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(JSON.stringify(res.body.details)).toContain('lockedFilters');
    }
    const valueless = await mintLocked({
      lockedFilters: [{ member: 'orders.country', operator: 'is_not_null', values: [] }],
    });
    expect(valueless.status, JSON.stringify(valueless.body)).toBe(200);
  });
});
