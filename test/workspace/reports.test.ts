import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { base, folder, itemRow, report, roundTrips, workbook } from './helpers';

let acme: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
});

const reportRow = (id: number) =>
  env.DB.prepare('SELECT * FROM reports WHERE item_id = ?').bind(id).first<Record<string, any>>();

const full = {
  title: 'Monthly revenue',
  description: 'By region',
  spec: '{"measures":["orders.revenue"]}',
  sqlQuery: 'SELECT 1',
  meta: { chart: 'bar' },
  fillMissingRows: { member: 'orders.created_at', excludedDimensions: ['orders.region'] },
  periodComparisons: [
    {
      measure: 'orders.revenue',
      timeDimension: 'orders.created_at',
      offset: { amount: 1, unit: 'year' },
      outputs: ['value', 'change'],
    },
  ],
  preferences: { columnFormats: { 'orders.revenue': { type: 'currency' } } },
};

describe('POST /reports', () => {
  it('creates a report with every ReportSnapshot field and stores them', async () => {
    const wb = await workbook(acme.member, d);
    const f = await folder(acme.member, d, { name: 'Reports' });
    const res = await api('POST', `${base(d)}/reports`, {
      auth: acme.member,
      body: { name: 'Revenue', workbookId: wb.id, folderId: f.id, ...full },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'REPORT',
      name: 'Revenue',
      workbookId: wb.id,
      folderId: f.id,
      folderPath: [{ id: f.id, name: 'Reports' }],
      versionNumber: 1,
      ...full,
      user: { id: acme.memberUserId },
    });
    const row = await reportRow(res.body.id);
    expect(JSON.parse(row?.fill_missing_rows)).toEqual(full.fillMissingRows);
    expect(JSON.parse(row?.period_comparisons)).toEqual(full.periodComparisons);
    expect(JSON.parse(row?.preferences)).toEqual(full.preferences);
    expect(row).toMatchObject({ workbook_id: wb.id, title: full.title, sql_query: 'SELECT 1' });
    expect(roundTrips(res)).toBe(2);
  });

  it('defaults the optional fields', async () => {
    const res = await api('POST', `${base(d)}/reports`, { auth: acme.member, body: { name: 'Bare' } });
    expect(res.body).toMatchObject({
      workbookId: null,
      folderId: null,
      title: '',
      description: '',
      spec: '',
      sqlQuery: '',
      meta: {},
      fillMissingRows: null,
      periodComparisons: [],
      preferences: { columnFormats: {} },
    });
  });

  const comparison = full.periodComparisons[0] as Record<string, any>;
  // `{}` creates "Untitled report" (Cube requires nothing): test/cube/workspace.test.ts.
  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x', title: 5 }, 'title'],
    [{ name: 'x', description: null }, 'description'],
    [{ name: 'x', spec: {} }, 'spec'],
    [{ name: 'x', sqlQuery: 1 }, 'sqlQuery'],
    [{ name: 'x', meta: [] }, 'meta'],
    [{ name: 'x', fillMissingRows: {} }, 'fillMissingRows.member'],
    [{ name: 'x', fillMissingRows: { member: '', excludedDimensions: [] } }, 'fillMissingRows.member'],
    [{ name: 'x', fillMissingRows: { member: 'm' } }, 'fillMissingRows.excludedDimensions'],
    [
      { name: 'x', fillMissingRows: { member: 'm', excludedDimensions: [1] } },
      'fillMissingRows.excludedDimensions.0',
    ],
    [
      { name: 'x', fillMissingRows: { member: 'm', excludedDimensions: [], extra: 1 } },
      'fillMissingRows.extra',
    ],
    [{ name: 'x', periodComparisons: {} }, 'periodComparisons'],
    [
      { name: 'x', periodComparisons: [{ ...comparison, measure: undefined }] },
      'periodComparisons.0.measure',
    ],
    [
      { name: 'x', periodComparisons: [{ ...comparison, timeDimension: 3 }] },
      'periodComparisons.0.timeDimension',
    ],
    [
      { name: 'x', periodComparisons: [{ ...comparison, offset: { amount: 1.5, unit: 'day' } }] },
      'periodComparisons.0.offset.amount',
    ],
    [
      { name: 'x', periodComparisons: [{ ...comparison, offset: { amount: 1, unit: 'fortnight' } }] },
      'periodComparisons.0.offset.unit',
    ],
    [
      { name: 'x', periodComparisons: [{ ...comparison, offset: { amount: 1 } }] },
      'periodComparisons.0.offset.unit',
    ],
    [{ name: 'x', periodComparisons: [{ ...comparison, outputs: 'value' }] }, 'periodComparisons.0.outputs'],
    [{ name: 'x', periodComparisons: [{ ...comparison, color: 'red' }] }, 'periodComparisons.0.color'],
    [{ name: 'x', preferences: {} }, 'preferences.columnFormats'],
    [{ name: 'x', preferences: { columnFormats: [] } }, 'preferences.columnFormats'],
    [{ name: 'x', preferences: { columnFormats: {}, theme: 'x' } }, 'preferences.theme'],
    [{ name: 'x', workbookId: 0 }, 'workbookId'],
    [{ name: 'x', versionNumber: 3 }, 'versionNumber'],
  ])('rejects %j naming %s', async (body, field) => {
    const res = await api('POST', `${base(d)}/reports`, { auth: acme.member, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((x: { path: string }) => x.path)).toContain(field);
  });

  it('answers 404 for a workbookId or folderId that is not of this deployment', async () => {
    const f = await folder(acme.member, d, { name: 'f' });
    const foreignWb = await workbook(acme.member, acme.deployments[1]);
    for (const [body, field] of [
      [{ workbookId: f.id }, 'workbookId'],
      [{ workbookId: foreignWb.id }, 'workbookId'],
      [{ folderId: foreignWb.id }, 'folderId'],
    ] as const) {
      const res = await api('POST', `${base(d)}/reports`, {
        auth: acme.member,
        body: { name: 'x', ...body },
      });
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body.details[0].path).toBe(field);
    }
  });
});

describe('GET, PUT and DELETE /reports/{id}', () => {
  it('GET answers the report and records the view', async () => {
    const rp = await report(acme.member, d, { name: 'Seen', ...full });
    const res = await api('GET', `${base(d)}/reports/${rp.id}`, { auth: acme.member });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: rp.id, ...full });
    expect(res.body.viewerLastViewedAt).not.toBeNull();
  });

  it('PUT replaces the fields sent, may null fillMissingRows and workbookId, and bumps versionNumber', async () => {
    const wb = await workbook(acme.member, d);
    const rp = await report(acme.member, d, { name: 'Editable', workbookId: wb.id, ...full });
    const res = await api('PUT', `${base(d)}/reports/${rp.id}`, {
      auth: acme.admin,
      body: {
        name: 'Edited',
        title: 'New title',
        fillMissingRows: null,
        workbookId: null,
        periodComparisons: [],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Edited',
      title: 'New title',
      description: full.description,
      fillMissingRows: null,
      workbookId: null,
      periodComparisons: [],
      preferences: full.preferences,
      versionNumber: 2,
      updatedBy: acme.adminUserId,
    });
    expect(await reportRow(rp.id)).toMatchObject({
      fill_missing_rows: null,
      workbook_id: null,
      version_number: 2,
    });
    expect((await itemRow(rp.id))?.name).toBe('Edited');
  });

  it('PUT rejects bad fields and an empty body, changing nothing', async () => {
    const rp = await report(acme.member, d, { name: 'Fixed', ...full });
    // `{}` answers the report unchanged (Cube requires nothing).
    for (const [body, field] of [
      [{ periodComparisons: [{ measure: 'm' }] }, 'periodComparisons.0.timeDimension'],
      [{ preferences: null }, 'preferences'],
      [{ name: '' }, 'name'],
    ] as const) {
      const res = await api('PUT', `${base(d)}/reports/${rp.id}`, { auth: acme.member, body });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details.map((x: { path: string }) => x.path)).toContain(field);
    }
    expect(await reportRow(rp.id)).toMatchObject({ version_number: 1, title: full.title });
  });

  it('PUT answers 404 for a workbook of another deployment and for a workbook id', async () => {
    const rp = await report(acme.member, d, { name: 'R' });
    const foreignWb = await workbook(acme.member, acme.deployments[1]);
    expectError(
      await api('PUT', `${base(d)}/reports/${rp.id}`, {
        auth: acme.member,
        body: { workbookId: foreignWb.id },
      }),
      404,
      'NOT_FOUND',
    );
    expect((await reportRow(rp.id))?.version_number).toBe(1);
    const wb = await workbook(acme.member, d);
    expectError(
      await api('PUT', `${base(d)}/reports/${wb.id}`, { auth: acme.member, body: { name: 'x' } }),
      404,
      'NOT_FOUND',
    );
  });

  it('DELETE removes the report; then it is a 404', async () => {
    const rp = await report(acme.member, d, { name: 'Gone' });
    const res = await api('DELETE', `${base(d)}/reports/${rp.id}`, { auth: acme.member });
    expect(res.body).toEqual({ id: rp.id, deleted: true });
    expect(await reportRow(rp.id)).toBeNull();
    expect(await itemRow(rp.id)).toBeNull();
    expectError(await api('GET', `${base(d)}/reports/${rp.id}`, { auth: acme.member }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', `${base(d)}/reports/${rp.id}`, { auth: acme.member }), 404, 'NOT_FOUND');
  });
});
