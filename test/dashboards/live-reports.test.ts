// Live dashboards: reports are Cube queries, checked on write, frozen (not their data) by a
// publish, and run for each viewer under the dashboard's filter and time-grain controls.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { deployModel, pgRows, shopModel } from '../data-api/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf } from '../helpers/shards';
import {
  chartOf,
  createQueryReport,
  type LiveBoard,
  liveBoard,
  liveBoardWithViewers,
  mintViewer,
  REPORTS,
  shopDeployment,
  WIDGETS,
} from './live-fixtures';

let acme: SeededAccount;
let board: LiveBoard;
let manager: string;
let repIe: string;

beforeAll(async () => {
  ({ account: acme, board, manager, repIe } = await liveBoardWithViewers());
});

const base = () => `/api/v1/deployments/${board.deploymentId}`;

function embedLoad(sessionId: string, params: Record<string, unknown> = {}) {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  const qs = query.size > 0 ? `?${query}` : '';
  return api('GET', `/api/v1/embed/dashboard/${board.publicId}${qs}`, { auth: { session: sessionId } });
}

/** Rows as arrays of text in the order of `keys` (numbers from either side compare as text). */
const rowsOf = (data: Record<string, unknown>[], keys: string[]) =>
  data.map((row) => keys.map((k) => (row[k] === null || row[k] === undefined ? null : String(row[k]))));
const textRows = (rows: Record<string, unknown>[]) =>
  rows.map((row) => Object.values(row).map((v) => (v === null ? null : String(v))));

describe('a report is a query', () => {
  it('is checked against the model on write: an unknown member or a bad field is a 400 naming it', async () => {
    const auth = acme.admin;
    const post = (body: Record<string, unknown>) => api('POST', `${base()}/reports`, { auth, body });
    const unknown = await post({ jsonQuery: JSON.stringify({ measures: ['orders.nope'] }) });
    expectError(unknown, 400, 'BAD_REQUEST');
    expect(unknown.body.error).toContain('orders.nope');
    expect(unknown.body.details).toEqual([
      { path: 'jsonQuery', message: expect.stringContaining('orders.nope') },
    ]);
    expectError(await post({ jsonQuery: 'measures=orders.count' }), 400, 'BAD_REQUEST');
    expectError(await post({ jsonQuery: '[1]' }), 400, 'BAD_REQUEST');
    const grain = await post({
      jsonQuery: JSON.stringify({
        measures: ['orders.count'],
        timeDimensions: [{ dimension: 'orders.created_at', granularity: 'fortnight' }],
      }),
    });
    expectError(grain, 400, 'BAD_REQUEST');
    expect(grain.body.error).toContain('fortnight');
    const comparison = await post({
      jsonQuery: JSON.stringify(REPORTS.byMonth.jsonQuery),
      periodComparisons: [
        {
          measure: 'orders.count',
          timeDimension: 'orders.created_at',
          offset: { amount: 1, unit: 'month' },
          outputs: ['previousValue', 'delta'],
        },
      ],
    });
    expectError(comparison, 400, 'BAD_REQUEST');
    expect(comparison.body.error).toContain('delta');
    const fill = await post({
      jsonQuery: JSON.stringify(REPORTS.byStatus.jsonQuery),
      fillMissingRows: { member: 'orders.created_at', excludedDimensions: [] },
    });
    expectError(fill, 400, 'BAD_REQUEST');
    expect(fill.body.error).toContain('orders.created_at');
  });

  it('answers as its sqlQuery the SQL its query compiles to, whatever the body said', async () => {
    const res = await api('POST', `${base()}/reports`, {
      auth: acme.admin,
      body: { jsonQuery: JSON.stringify(REPORTS.byStatus.jsonQuery), sqlQuery: 'SELECT 1' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.sqlQuery).toContain(`${board.schema}.orders`);
    expect(res.body.sqlQuery).not.toBe('SELECT 1');
    // Another account's deployment is a 404, not a model check.
    const other = await seedAccount();
    expectError(
      await api('POST', `/api/v1/deployments/${other.deployments[0]}/reports`, {
        auth: acme.admin,
        body: { jsonQuery: JSON.stringify(REPORTS.kpi.jsonQuery) },
      }),
      404,
    );
  });

  it('is frozen by a publish with its chart settings, not its data; an unchanged republish stores nothing new', async () => {
    const contents = await env.DB.prepare(
      `SELECT sc.report_id, sc.json_query, sc.spec FROM snapshot_contents sc
       WHERE sc.report_id IN (${Object.values(board.reports).join(',')}) ORDER BY sc.report_id`,
    ).all<{ report_id: number; json_query: string; spec: string }>();
    expect(contents.results.map((r) => JSON.parse(r.json_query))).toEqual(
      Object.values(REPORTS).map((r) => r.jsonQuery),
    );
    for (const row of contents.results) expect(JSON.parse(row.spec)).not.toHaveProperty('data');
    const again = await api('POST', `${base()}/workbooks/${board.workbookId}/publish`, {
      auth: acme.admin,
      body: {},
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.reportSnapshots.map((s: { jsonQuery: string }) => JSON.parse(s.jsonQuery))).toEqual(
      Object.values(REPORTS).map((r) => r.jsonQuery),
    );
    const after = await env.DB.prepare(
      `SELECT count(*) AS n FROM snapshot_contents WHERE report_id IN (${Object.values(board.reports).join(',')})`,
    ).first<{ n: number }>();
    expect(after?.n).toBe(contents.results.length);
  });
});

describe('an embed load runs the queries for its viewer', () => {
  it('answers every chart with the rows the same aggregation written in SQL gives', async () => {
    const res = await embedLoad(manager);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const s = board.schema;
    const status = chartOf(res.body, board.reports.byStatus);
    expect(status.error).toBeNull();
    expect(rowsOf(status.data, ['orders.status', 'orders.total_amount'])).toEqual(
      textRows(await pgRows(`SELECT status, sum(amount) FROM ${s}.orders GROUP BY status ORDER BY status`)),
    );
    expect(status.spec).toMatchObject({ type: 'bar', x: 'orders.status', y: ['orders.total_amount'] });
    expect(status.spec.labels['orders.total_amount']).toEqual(expect.any(String));
    const kpi = chartOf(res.body, board.reports.kpi);
    expect(rowsOf(kpi.data, ['orders.count', 'orders.total_amount'])).toEqual(
      textRows(await pgRows(`SELECT count(*), sum(amount) FROM ${s}.orders`)),
    );
    const products = chartOf(res.body, board.reports.byProduct);
    expect(rowsOf(products.data, ['line_items.product', 'line_items.quantity'])).toEqual(
      textRows(
        await pgRows(`SELECT product, sum(quantity) FROM ${s}.line_items GROUP BY product ORDER BY product`),
      ),
    );
    expect(res.body.dataTime).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/));
    expect(res.body.controls).toEqual({
      filters: [{ widgetId: WIDGETS.statusFilter, member: 'orders.status', operator: 'equals', values: [] }],
      timeGrains: [{ widgetId: WIDGETS.grain, member: 'orders.created_at', grain: 'month' }],
    });
  });

  it('applies the viewer’s data access policies: a rep sees only their country’s rows', async () => {
    const res = await embedLoad(repIe);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const kpi = chartOf(res.body, board.reports.kpi);
    expect(rowsOf(kpi.data, ['orders.count', 'orders.total_amount'])).toEqual(
      textRows(await pgRows(`SELECT count(*), sum(amount) FROM ${board.schema}.orders WHERE country = 'IE'`)),
    );
  });

  it('narrows every chart the filter can narrow, by widget id or by member', async () => {
    const s = board.schema;
    for (const filters of [
      [{ widgetId: WIDGETS.statusFilter, values: ['completed'] }],
      [{ member: 'orders.status', values: ['completed'] }],
    ]) {
      const res = await embedLoad(manager, { filters });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const kpi = chartOf(res.body, board.reports.kpi);
      expect(rowsOf(kpi.data, ['orders.count', 'orders.total_amount'])).toEqual(
        textRows(await pgRows(`SELECT count(*), sum(amount) FROM ${s}.orders WHERE status = 'completed'`)),
      );
      // Line items join their orders: the filter reaches them too.
      const products = chartOf(res.body, board.reports.byProduct);
      expect(rowsOf(products.data, ['line_items.product', 'line_items.quantity'])).toEqual(
        textRows(
          await pgRows(
            `SELECT li.product, sum(li.quantity) FROM ${s}.line_items li JOIN ${s}.orders o ON o.id = li.order_id
             WHERE o.status = 'completed' GROUP BY li.product ORDER BY li.product`,
          ),
        ),
      );
      expect(res.body.controls.filters[0]).toMatchObject({ member: 'orders.status', values: ['completed'] });
    }
    // A filter and a policy together: the rep's Irish rows that are pending.
    const rep = await embedLoad(repIe, { filters: [{ member: 'orders.status', values: ['pending'] }] });
    expect(rowsOf(chartOf(rep.body, board.reports.kpi).data, ['orders.count'])).toEqual(
      textRows(await pgRows(`SELECT count(*) FROM ${s}.orders WHERE country = 'IE' AND status = 'pending'`)),
    );
  });

  it('changes the grain of the charts on the time dimension', async () => {
    const res = await embedLoad(manager, { timeGrains: [{ widgetId: WIDGETS.grain, grain: 'quarter' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const chart = chartOf(res.body, board.reports.byMonth);
    expect(chart.spec.x).toBe('orders.created_at.quarter');
    expect(rowsOf(chart.data, ['orders.created_at.quarter', 'orders.count'])).toEqual(
      textRows(
        await pgRows(
          `SELECT to_char(date_trunc('quarter', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:MI:SS.MS'), count(*)
           FROM ${board.schema}.orders WHERE created_at >= '2024-01-01' AND created_at < '2024-07-01'
           GROUP BY 1 ORDER BY 1`,
        ),
      ),
    );
  });

  it('refuses malformed control values with a 400 naming them', async () => {
    expectError(await embedLoad(manager, { filters: 'not json' }), 400, 'VALIDATION_FAILED');
    expectError(await embedLoad(manager, { filters: [{ values: ['x'] }] }), 400, 'VALIDATION_FAILED');
    expectError(
      await embedLoad(manager, { timeGrains: [{ member: 'orders.created_at', grain: 'fortnight' }] }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await embedLoad(manager, {
        filters: Array.from({ length: 51 }, () => ({ member: 'orders.status', values: [] })),
      }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('never answers unfiltered when a filter’s values are no values of its member', async () => {
    // `created_at` takes dates: the charts it narrows say why instead of showing every order.
    const res = await embedLoad(manager, {
      filters: [{ member: 'orders.created_at', operator: 'between', values: ['soon', 'later'] }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const report of [board.reports.kpi, board.reports.byStatus, board.reports.byMonth]) {
      const chart = chartOf(res.body, report);
      expect(chart.error).toContain('orders.created_at');
      expect(chart.data).toEqual([]);
    }
  });

  it('refuses control values their operator cannot take, naming them', async () => {
    const one = await embedLoad(manager, {
      filters: [{ member: 'orders.status', operator: 'between', values: ['a'] }],
    });
    expectError(one, 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(one.body.details)).toContain('between');
    expectError(
      await embedLoad(manager, {
        filters: [{ member: 'orders.status', operator: 'is_null', values: ['x'] }],
      }),
      400,
      'VALIDATION_FAILED',
    );
    // Clearing a between control is allowed.
    const cleared = await embedLoad(manager, {
      filters: [{ member: 'orders.status', operator: 'between', values: [] }],
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
  });

  it('shows a failing query as its chart’s error, the other charts still answering', async () => {
    // A filter on a member the model lacks narrows nothing; a query whose member was dropped
    // from the model after publishing fails alone.
    const res = await embedLoad(manager, { filters: [{ member: 'orders.nope', values: ['x'] }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(chartOf(res.body, board.reports.kpi).error).toBeNull();
  });
});

describe('computed report fields', () => {
  it('fills missing months and adds the previous period to each row', async () => {
    const auth = acme.admin;
    const id = await createQueryReport(auth, board.deploymentId, board.workbookId, 'filled', {
      ...REPORTS.byMonth,
      fillMissingRows: { member: 'orders.created_at', excludedDimensions: [] },
      periodComparisons: [
        {
          measure: 'orders.count',
          timeDimension: 'orders.created_at',
          offset: { amount: 1, unit: 'month' },
          outputs: ['previousValue', 'change', 'percentChange'],
        },
      ],
    });
    const draft = await api('GET', `${base()}/workbooks/${board.workbookId}/dashboard`, { auth });
    const config = draft.body.dashboardDraft;
    config.widgets.push({
      id: 'w-filled',
      type: 'CHART',
      position: { x: 0, y: 9, w: 12, h: 2 },
      config: { reportId: id },
    });
    expect(
      (
        await api('PUT', `${base()}/workbooks/${board.workbookId}/dashboard`, {
          auth,
          body: { dashboardDraft: config },
        })
      ).status,
    ).toBe(200);
    expect(
      (await api('POST', `${base()}/workbooks/${board.workbookId}/publish`, { auth, body: {} })).status,
    ).toBe(200);
    const res = await embedLoad(manager);
    const chart = chartOf(res.body, id);
    expect(chart.error).toBeNull();
    // Orders per month in the shop: Jan 2, Feb 2, Mar 2, Apr 2; May and June have none.
    expect(
      chart.data.map((r) => [
        r['orders.created_at.month'],
        r['orders.count'],
        r['orders.count.previousValue'],
        r['orders.count.change'],
        r['orders.count.percentChange'],
      ]),
    ).toEqual([
      ['2024-01-01T00:00:00.000', '2', null, null, null],
      ['2024-02-01T00:00:00.000', '2', '2', 0, 0],
      ['2024-03-01T00:00:00.000', '2', '2', 0, 0],
      ['2024-04-01T00:00:00.000', '2', '2', 0, 0],
      ['2024-05-01T00:00:00.000', '0', '2', -2, -100],
      ['2024-06-01T00:00:00.000', '0', null, null, null],
    ]);
    expect(chart.spec.labels['orders.count.percentChange']).toContain('% change');
  });
});

describe('the render endpoint', () => {
  it('renders live data under the filters it is given, and refuses malformed ones', async () => {
    const url = `${base()}/workbooks/${board.workbookId}/dashboard/render`;
    const filters = encodeURIComponent(JSON.stringify([{ member: 'orders.status', values: ['completed'] }]));
    const res = await api('GET', `${url}?format=png&filters=${filters}`, { auth: acme.admin });
    expect(res.status).toBe(200);
    expectError(await api('GET', `${url}?filters=%5B1%5D`, { auth: acme.admin }), 400, 'VALIDATION_FAILED');
    const lone = encodeURIComponent('[{"member":"orders.status","values":["a\\ud800"]}]');
    const refused = await api('GET', `${url}?format=png&filters=${lone}`, { auth: acme.admin });
    expectError(refused, 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(refused.body.details)).toContain('not well-formed Unicode');
  });
});

describe('answers cached together', () => {
  it('are never served past a new build of the model or a change of the data source', async () => {
    const other = await seedAccount();
    const own = await liveBoard(other, { schema: board.schema });
    const boss = await mintViewer(other, own.deploymentId, { externalId: 'boss', groups: ['managers'] });
    const load = () => api('GET', `/api/v1/embed/dashboard/${own.publicId}`, { auth: { session: boss } });
    const total = async () => {
      const res = await load();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return Number(chartOf(res.body, own.reports.kpi).data[0]?.['orders.total_amount']);
    };
    const [expected] = await pgRows(`SELECT sum(amount) AS total FROM ${board.schema}.orders`);
    expect(await total()).toBeCloseTo(Number(expected?.total), 6);
    expect(await total()).toBeCloseTo(Number(expected?.total), 6);
    // The same member now sums twice the amount: the next load answers from the new build.
    await deployModel(
      other.admin,
      own.deploymentId,
      shopModel(`${board.schema}.`).replace(
        'sql: amount\n        type: sum',
        'sql: amount * 2\n        type: sum',
      ),
    );
    expect(await total()).toBeCloseTo(2 * Number(expected?.total), 6);
    // A data source the deployment can no longer reach: the load says so, not a cached answer.
    const broken = await api('PUT', `/api/v1/deployments/${own.deploymentId}/env-vars`, {
      auth: other.admin,
      body: { env_variables: [{ name: 'CUBEJS_DB_PORT', value: '1' }] },
    });
    expect(broken.status, JSON.stringify(broken.body)).toBe(200);
    const res = await load();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(chartOf(res.body, own.reports.kpi).error).toEqual(expect.any(String));
  });
});

describe('reports written before the first build', () => {
  it('takes a query of Cube’s shape, checks it once a model is built, and a load shows a misfit as its chart’s error', async () => {
    const fresh = await seedAccount();
    const deploymentId = fresh.deployments[0] as number;
    const auth = fresh.admin;
    const at = `/api/v1/deployments/${deploymentId}`;
    const workbook = await api('POST', `${at}/workbooks`, { auth, body: { name: 'Early' } });
    expect(workbook.status, JSON.stringify(workbook.body)).toBe(200);
    const workbookId = workbook.body.id as number;

    // No build yet: a query of Cube's shape is taken as it is, with no SQL compiled for it (Cube's
    // `sqlQuery` is a string: empty).
    const fits = await createQueryReport(auth, deploymentId, workbookId, 'fits', REPORTS.kpi);
    const misfit = await createQueryReport(auth, deploymentId, workbookId, 'misfit', {
      jsonQuery: { measures: ['orders.nope'] },
      spec: { type: 'kpi' },
    });
    const early = await api('GET', `${at}/reports/${misfit}`, { auth });
    expect(early.body).toMatchObject({ jsonQuery: '{"measures":["orders.nope"]}', sqlQuery: '' });
    const stored = await dbOf(fresh.accountId)
      .prepare('SELECT json_query, sql_query FROM reports WHERE item_id = ?')
      .bind(misfit)
      .first<{ json_query: string; sql_query: string | null }>();
    expect(stored).toEqual({ json_query: '{"measures":["orders.nope"]}', sql_query: '' });
    // What is not Cube's query shape is still a 400 naming the field.
    for (const [jsonQuery, path] of [
      ['{"measures":"orders.count"}', 'jsonQuery.measures'],
      ['{"filters":[{"member":"orders.status","values":["x"]}]}', 'jsonQuery.filters.0.operator'],
      [
        '{"timeDimensions":[{"dimension":"orders.created_at","dateRange":[1,2]}]}',
        'jsonQuery.timeDimensions.0.dateRange',
      ],
      ['[{"measures":["orders.count"]}]', 'jsonQuery'],
      // Escaped inside the text, a lone surrogate passes the body's own check but not the query's.
      [
        '{"filters":[{"member":"orders.status","operator":"equals","values":["a\\ud800"]}]}',
        'jsonQuery.filters.0.values.0',
      ],
    ] as const) {
      const bad = await api('POST', `${at}/reports`, { auth, body: { workbookId, jsonQuery } });
      expectError(bad, 400);
      expect(bad.body.details.map((d: { path: string }) => d.path).join(' '), jsonQuery).toContain(path);
    }

    // Built: a new query is checked against the model again.
    await shopDeployment(fresh, deploymentId, board.schema);
    const refused = await api('POST', `${at}/reports`, {
      auth,
      body: { workbookId, jsonQuery: '{"measures":["orders.nope"]}' },
    });
    expectError(refused, 400);
    expect(refused.body.error).toContain('orders.nope');

    const chart = (id: string, reportId: number, y: number) => ({
      id,
      type: 'CHART',
      position: { x: 0, y, w: 6, h: 2 },
      config: { reportId, title: id },
    });
    const draft = await api('PUT', `${at}/workbooks/${workbookId}/dashboard`, {
      auth,
      body: {
        dashboardDraft: { title: 'Early', widgets: [chart('w-fits', fits, 0), chart('w-misfit', misfit, 2)] },
      },
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    const published = await api('POST', `${at}/workbooks/${workbookId}/publish`, { auth, body: {} });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const publicId = published.body.publicId as string;
    const allowed = await api('PATCH', `/api/v1/embed/dashboard/${publicId}`, {
      auth,
      body: { allowEmbed: true },
    });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    const viewer = await mintViewer(fresh, deploymentId, { externalId: 'early', groups: ['managers'] });
    const res = await api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: { session: viewer } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [expected] = await pgRows(`SELECT count(*) AS c FROM ${board.schema}.orders`);
    const shown = chartOf(res.body, fits);
    expect(shown.error).toBeNull();
    expect(shown.data[0]?.['orders.count']).toBe(String(expected?.c));
    const failed = chartOf(res.body, misfit);
    expect(failed.error).toContain('orders.nope');
    expect(failed.data).toEqual([]);
  });
});

describe('Cube’s date operators in a dashboard’s report', () => {
  it('compare with the start of the given date in the viewer too, as SQL written on the tie instants', async () => {
    const auth = acme.admin;
    // Order 2 is the last second of 31 January (UTC); order 3 is 1 February's first instant.
    const cases = [
      ['afterDate', '2024-01-31', '>'],
      ['beforeOrOnDate', '2024-01-31', '<='],
      ['afterDate', '2024-02-01', '>'],
      ['beforeOrOnDate', '2024-02-01', '<='],
    ] as const;
    const ids: number[] = [];
    for (const [operator, date] of cases) {
      ids.push(
        await createQueryReport(auth, board.deploymentId, board.workbookId, `${operator} ${date}`, {
          jsonQuery: {
            dimensions: ['orders.id'],
            filters: [{ member: 'orders.created_at', operator, values: [date] }],
            order: { 'orders.id': 'asc' },
          },
          spec: { type: 'table' },
        }),
      );
    }
    const draft = await api('GET', `${base()}/workbooks/${board.workbookId}/dashboard`, { auth });
    const config = draft.body.dashboardDraft;
    ids.forEach((reportId, i) => {
      config.widgets.push({
        id: `w-date-${i}`,
        type: 'CHART',
        position: { x: 0, y: 12 + 2 * i, w: 12, h: 2 },
        config: { reportId },
      });
    });
    const put = await api('PUT', `${base()}/workbooks/${board.workbookId}/dashboard`, {
      auth,
      body: { dashboardDraft: config },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const published = await api('POST', `${base()}/workbooks/${board.workbookId}/publish`, {
      auth,
      body: {},
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const res = await embedLoad(manager);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const [i, [operator, date, sign]] of cases.entries()) {
      const chart = chartOf(res.body, ids[i] as number);
      expect(chart.error, `${operator} ${date}`).toBeNull();
      const expected = await pgRows(
        `SELECT id FROM ${board.schema}.orders WHERE created_at ${sign} $1::date::timestamp AT TIME ZONE 'UTC' ORDER BY id`,
        [date],
      );
      expect(
        chart.data.map((row) => String(row['orders.id'])),
        `${operator} ${date}`,
      ).toEqual(expected.map((row) => String(row.id)));
    }
  });
});
