// The seed's demo dashboard (scripts/demo-data.mjs) built the way `npm run seed` builds it, over
// HTTP, on a smaller demo shop: every chart answers live rows through the embed load, and its
// country filter and time grain reach every query. Expected values are arithmetic on the demo
// rows, not the semantic layer's.
import { beforeAll, describe, expect, it } from 'vitest';
import { csvChunks, demoDashboard, demoModel, demoReports, demoTables } from '../../scripts/demo-data.mjs';
import { deployModel } from '../data-api/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';

type Row = Record<string, unknown>;

const tables = Object.fromEntries(demoTables({ orders: 2000 }).map((t) => [t.name, t]));
const rowsOf = (name: string): Row[] => {
  const table = tables[name];
  if (!table) throw new Error(`no demo table ${name}`);
  return table.rows.map((r) => Object.fromEntries(table.columns.map((c, i) => [c, r[i]])));
};

/** The demo shop's figures for the orders of customers in `country` (all countries: null). */
function expected(country: string | null) {
  const countryOf = new Map(rowsOf('customers').map((c) => [c.id, c.country]));
  const orders = rowsOf('orders').filter((o) => country === null || countryOf.get(o.customer_id) === country);
  const ids = new Set(orders.map((o) => o.id));
  const revenue = rowsOf('order_items')
    .filter((i) => ids.has(i.order_id))
    .reduce((sum, i) => sum + Number(i.quantity) * Number(i.unit_price) * (1 - Number(i.discount)), 0);
  const byStatus: Record<string, number> = {};
  for (const o of orders) byStatus[String(o.status)] = (byStatus[String(o.status)] ?? 0) + 1;
  const quarters = new Set(
    orders.map((o) => {
      const at = new Date(String(o.created_at));
      return `${at.getUTCFullYear()}-Q${Math.floor(at.getUTCMonth() / 3)}`;
    }),
  );
  return {
    count: orders.length,
    revenue,
    byStatus,
    completed: byStatus.completed ?? 0,
    quarters: quarters.size,
  };
}

let acme: SeededAccount;
let publicId: string;
let sessionId: string;

beforeAll(async () => {
  acme = await seedAccount();
  const auth = acme.admin;
  const deploymentId = acme.deployments[0];
  const d = `/api/v1/deployments/${deploymentId}`;
  for (const table of Object.values(tables)) {
    for (const chunk of csvChunks(table)) {
      const res = await api('POST', `${d}/data/tables/${table.name}/import?mode=replace`, {
        auth,
        rawBody: chunk,
        headers: { 'content-type': 'text/csv' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
  }
  await deployModel(auth, deploymentId, demoModel());
  const wb = await api('POST', `${d}/workbooks`, { auth, body: { name: 'Sales overview' } });
  const ids: Record<string, number> = {};
  for (const report of demoReports()) {
    const res = await api('POST', `${d}/reports`, {
      auth,
      body: {
        name: report.name,
        workbookId: wb.body.id,
        jsonQuery: JSON.stringify(report.query),
        spec: JSON.stringify(report.spec),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids[report.key] = res.body.id;
  }
  const put = await api('PUT', `${d}/workbooks/${wb.body.id}/dashboard`, {
    auth,
    body: { dashboardDraft: demoDashboard(ids) },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const pub = await api('POST', `${d}/workbooks/${wb.body.id}/publish`, {
    auth,
    body: { title: 'Sales overview', allowEmbed: true },
  });
  expect(pub.status, JSON.stringify(pub.body)).toBe(200);
  publicId = pub.body.publicId;
  const minted = await api('POST', '/api/v1/embed/generate-session', {
    auth: acme.key,
    body: { deploymentId, externalId: 'demo-viewer' },
  });
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  sessionId = minted.body.sessionId;
});

/** The embed load with control values; each chart's rows by its widget id. */
async function load(controls: { filters?: unknown; timeGrains?: unknown } = {}) {
  const query = new URLSearchParams(
    Object.entries(controls).map(([k, v]) => [k, JSON.stringify(v)] as [string, string]),
  );
  const res = await api('GET', `/api/v1/embed/dashboard/${publicId}?${query}`, {
    auth: { session: sessionId },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.allowEmbed).toBe(true);
  const byReport = new Map<number, Row>(res.body.reportSnapshots.map((s: Row) => [s.reportId, s]));
  const charts: Record<string, { spec: Row; data: Row[]; error: unknown }> = {};
  for (const widget of res.body.config.widgets) {
    if (widget.type !== 'CHART') continue;
    const snapshot = byReport.get(widget.config.reportId) as Row;
    const spec = JSON.parse(String(snapshot.spec));
    charts[widget.id] = { spec, data: spec.data ?? [], error: snapshot.error ?? null };
  }
  return { charts, controls: res.body.controls };
}

describe("the seed's demo dashboard, live", () => {
  it('answers every chart with rows from the demo shop', async () => {
    const { charts, controls } = await load();
    const all = expected(null);
    for (const [id, chart] of Object.entries(charts)) {
      expect(chart.error, id).toBeNull();
      expect(chart.data.length, id).toBeGreaterThan(0);
    }
    expect(Number(charts.orders?.data[0]?.['orders.count'])).toBe(2000);
    expect(Number(charts.revenue?.data[0]?.['order_items.revenue'])).toBeCloseTo(all.revenue, 2);
    expect(Number(charts.completion?.data[0]?.['orders.completion_rate'])).toBeCloseTo(
      (100 * all.completed) / all.count,
      6,
    );
    const statuses = Object.fromEntries(
      (charts.status?.data ?? []).map((r) => [r['orders.status'], Number(r['orders.count'])]),
    );
    expect(statuses).toEqual(all.byStatus);
    expect(charts.countries?.data).toHaveLength(8);
    expect(charts.products?.data).toHaveLength(10);
    // Every month of the three years the shop has orders in, by month until a grain says otherwise.
    expect(charts.trend?.data).toHaveLength(36);
    expect(Object.keys(charts.trend?.data[0] ?? {})).toContain('orders.created_at.month');
    expect(controls.timeGrains).toEqual([{ widgetId: 'grain', member: 'orders.created_at', grain: 'month' }]);
  });

  it('narrows every chart to a country and regroups the trend by the chosen grain', async () => {
    const france = expected('France');
    expect(france.count).toBeGreaterThan(0);
    expect(france.count).toBeLessThan(2000);
    const { charts } = await load({
      filters: [{ member: 'customers.country', values: ['France'] }],
      timeGrains: [{ member: 'orders.created_at', grain: 'quarter' }],
    });
    expect(Number(charts.orders?.data[0]?.['orders.count'])).toBe(france.count);
    expect(Number(charts.revenue?.data[0]?.['order_items.revenue'])).toBeCloseTo(france.revenue, 2);
    expect(charts.countries?.data.map((r) => r['customers.country'])).toEqual(['France']);
    const statuses = Object.fromEntries(
      (charts.status?.data ?? []).map((r) => [r['orders.status'], Number(r['orders.count'])]),
    );
    expect(statuses).toEqual(france.byStatus);
    expect(charts.trend?.data).toHaveLength(france.quarters);
    expect(Object.keys(charts.trend?.data[0] ?? {})).toContain('orders.created_at.quarter');
  });
});
