// Cube compatibility of the workspace group (Cube tags Folders, Workbooks, Reports, Workspace),
// written from Cube's published OpenAPI document: Cube-shaped requests (every field Cube defines,
// null where Cube allows it, each enum value) and answers carrying every field Cube marks required
// with Cube's type. Clients call with `Authorization: Bearer <API key>`.
import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { runLatestBuild } from '../data-api/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { holdAnswersToCube } from './cube-openapi';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

let acme: SeededAccount;
let other: SeededAccount;
let key: { bearer: string };
let d: number;
const base = () => `/api/v1/deployments/${d}`;

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  key = { bearer: acme.key.apiKey };
  d = acme.deployments[0];
  // A report's jsonQuery is checked against the deployment's model: build its starter project.
  expect((await runLatestBuild(key, d)).status).toBe('built');
});

/** A Cube query over the starter model, padded with a filter value to `bytes` when asked. */
const starterQuery = (pad = '') =>
  JSON.stringify({
    measures: ['example.count'],
    ...(pad ? { filters: [{ member: 'example.label', operator: 'equals', values: [pad] }] } : {}),
  });

async function call(method: string, path: string, body?: unknown, auth: { bearer: string } = key) {
  return api(method, `${base()}${path}`, { auth, body });
}

async function ok(method: string, path: string, body?: unknown) {
  const res = await call(method, path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

const DATE = /^\d{4}-\d{2}-\d{2}(T[\d:.]+Z)?$/;
const isObject = (x: unknown) => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Cube's WorkspaceFolderPathEntry[]. */
function expectFolderPath(path: unknown) {
  expect(Array.isArray(path)).toBe(true);
  for (const entry of path as Record<string, unknown>[]) {
    expect(entry).toEqual({ id: expect.any(Number), name: expect.any(String) });
  }
}

/** Cube's required fields of every workspace object (Folder, Workbook, Report). */
function expectBase(item: Record<string, any>, type: string) {
  expect(item.id).toEqual(expect.any(Number));
  expect(item.deploymentId).toBe(d);
  expect(item.name).toEqual(expect.any(String));
  expect(item.createdAt).toMatch(DATE);
  expect(item.updatedAt).toMatch(DATE);
  expect(item.type).toBe(type);
  expectFolderPath(item.folderPath);
}

/** Cube's Folder: name, position, id, deploymentId, createdAt, updatedAt, type. */
function expectFolder(item: Record<string, any>) {
  expectBase(item, 'FOLDER');
  expect(item.position).toEqual(expect.any(Number));
  expect(item.parentId === null || typeof item.parentId === 'number').toBe(true);
  // Issue 12: objects on every item, folders included.
  expect(isObject(item.meta) && isObject(item.calculatedFields)).toBe(true);
}

/** Cube's Workbook (also every workspace item): name, meta, calculatedFields objects, … */
function expectWorkbook(item: Record<string, any>, type = 'WORKBOOK') {
  expectBase(item, type);
  expect(isObject(item.meta)).toBe(true);
  expect(isObject(item.calculatedFields)).toBe(true);
  expect(item.folderId === null || typeof item.folderId === 'number').toBe(true);
  expect(typeof item.isFavorite).toBe('boolean');
}

const OWNER = { id: expect.any(Number), email: expect.any(String) };

/** Cube's Report: publicId (12 of [0-9A-Za-z]), userId, user, refreshedByUser, name, … */
function expectReport(item: Record<string, any>) {
  expectBase(item, 'REPORT');
  expect(item.publicId).toMatch(/^[0-9A-Za-z]{12}$/);
  expect(item.userId).toEqual(expect.any(Number));
  expect(item.user).toMatchObject(OWNER);
  expect(item.refreshedByUser).toMatchObject(OWNER);
  expect(item.name.length).toBeLessThanOrEqual(255);
  expect(isObject(item.meta)).toBe(true);
}

/** Cube's *ListResponse: items and the deprecated data (the same), pageInfo. */
function expectList(body: Record<string, any>) {
  expect(Array.isArray(body.items)).toBe(true);
  expect(body.data).toEqual(body.items);
  expect(body.pageInfo).toMatchObject({
    hasNextPage: expect.any(Boolean),
    hasPreviousPage: expect.any(Boolean),
  });
}

const row = (sql: string, ...params: unknown[]) =>
  env.DB.prepare(sql)
    .bind(...params)
    .first<Record<string, any>>();

describe('Folders', () => {
  it('createFolder: CreateFolderInput with nulls answers 200 Folder', async () => {
    const root = await ok('POST', '/folders', { name: 'Cube root', parentId: null, position: null });
    expectFolder(root);
    expect(root.parentId).toBeNull();
    const child = await ok('POST', '/folders', { name: 'Cube child', parentId: root.id, position: 3 });
    expectFolder(child);
    expect(child).toMatchObject({
      parentId: root.id,
      position: 3,
      folderPath: [{ id: root.id, name: 'Cube root' }],
    });
    expect(await row('SELECT folder_id, position FROM workspace_items WHERE id = ?', child.id)).toEqual({
      folder_id: root.id,
      position: 3,
    });
  });

  it('updateFolder: nulls and an empty body leave the folder unchanged', async () => {
    const f = await ok('POST', '/folders', { name: 'Stay' });
    for (const body of [{ name: null, position: null }, {}, undefined]) {
      const res = await ok('PUT', `/folders/${f.id}`, body);
      expectFolder(res);
      expect(res).toMatchObject({ name: 'Stay', position: f.position, updatedAt: f.updatedAt });
    }
    const renamed = await ok('PUT', `/folders/${f.id}`, { name: 'Moved on', position: null });
    expect(renamed).toMatchObject({ name: 'Moved on', position: f.position });
    expect((await row('SELECT name FROM workspace_items WHERE id = ?', f.id))?.name).toBe('Moved on');
  });

  it('getFolders: one level by parentId (omitted or 0: the root), paginated, with data', async () => {
    const parent = await ok('POST', '/folders', { name: 'Lister' });
    for (const name of ['c', 'a', 'b']) await ok('POST', '/folders', { name, parentId: parent.id });
    const page1 = await ok('GET', `/folders?parentId=${parent.id}&first=2`);
    expectList(page1);
    for (const x of page1.items) expectFolder(x);
    expect(page1.items.map((f: { name: string }) => f.name)).toEqual(['a', 'b']);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const page2 = await ok('GET', `/folders?parentId=${parent.id}&first=2&after=${page1.pageInfo.endCursor}`);
    expect(page2.items.map((f: { name: string }) => f.name)).toEqual(['c']);
    const root = await ok('GET', '/folders');
    const rootZero = await ok('GET', '/folders?parentId=0');
    expect(rootZero.items).toEqual(root.items);
    expect(root.items.every((f: { parentId: unknown }) => f.parentId === null)).toBe(true);
    expect(root.items.map((f: { id: number }) => f.id)).toContain(parent.id);
    expectError(await call('GET', '/folders?first=101'), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/folders?parentId=777777'), 404, 'NOT_FOUND');
  });

  it('getFolderAncestors: root first, down to the folder itself', async () => {
    const a = await ok('POST', '/folders', { name: 'A' });
    const b = await ok('POST', '/folders', { name: 'B', parentId: a.id });
    const c = await ok('POST', '/folders', { name: 'C', parentId: b.id });
    const res = await call('GET', `/folders/${c.id}/ancestors`);
    expect(res.status).toBe(200);
    expect(res.body.map((f: { id: number }) => f.id)).toEqual([a.id, b.id, c.id]);
    for (const x of res.body) expectFolder(x);
    expect((await ok('GET', `/folders/${a.id}/ancestors`)).map((f: { id: number }) => f.id)).toEqual([a.id]);
    const wb = await ok('POST', '/workbooks', { name: 'not a folder' });
    expectError(await call('GET', `/folders/${wb.id}/ancestors`), 404, 'NOT_FOUND');
    expectError(
      await api('GET', `/api/v1/deployments/${d}/folders/${c.id}/ancestors`, { auth: other.admin }),
      404,
      'NOT_FOUND',
    );
  });

  it('deleteFolder: 200 with a body Cube clients may ignore', async () => {
    const f = await ok('POST', '/folders', { name: 'Gone' });
    expect(await ok('DELETE', `/folders/${f.id}`)).toEqual({ id: f.id, deleted: true });
  });
});

describe('Workbooks', () => {
  it('createWorkbook: CreateWorkbookInput with nulls answers 200 Workbook', async () => {
    const wb = await ok('POST', '/workbooks', { name: null, meta: null, folderId: null });
    expectWorkbook(wb);
    expect(wb).toMatchObject({ name: 'Untitled workbook', meta: {}, folderId: null });
    const f = await ok('POST', '/folders', { name: 'Books' });
    const inFolder = await ok('POST', '/workbooks', {
      name: 'Sales',
      meta: { color: 'red' },
      folderId: f.id,
    });
    expect(inFolder).toMatchObject({ meta: { color: 'red' }, folderId: f.id });
  });

  it('updateWorkbook: UpdateWorkbookInput nulls mean unchanged, folderId null the root', async () => {
    const f = await ok('POST', '/folders', { name: 'Shelf' });
    const wb = await ok('POST', '/workbooks', { name: 'Keep', meta: { a: 1 }, folderId: f.id });
    for (const body of [
      {},
      { name: null, meta: null, slug: null, slugTakeover: null },
      { slugTakeover: true },
    ]) {
      const res = await ok('PUT', `/workbooks/${wb.id}`, body);
      expectWorkbook(res);
      expect(res).toMatchObject({
        name: 'Keep',
        meta: { a: 1 },
        slug: wb.slug,
        folderId: f.id,
        updatedAt: wb.updatedAt,
      });
    }
    const moved = await ok('PUT', `/workbooks/${wb.id}`, { folderId: null, meta: { b: 2 }, name: 'Kept' });
    expect(moved).toMatchObject({ folderId: null, meta: { b: 2 }, name: 'Kept' });
    expect((await row('SELECT folder_id FROM workspace_items WHERE id = ?', wb.id))?.folder_id).toBeNull();
  });

  it('getWorkbook and deleteWorkbook answer Cube’s shapes', async () => {
    const wb = await ok('POST', '/workbooks', { name: 'Read me' });
    expectWorkbook(await ok('GET', `/workbooks/${wb.id}`));
    const dashboardDraft = {
      kind: 'CLASSIC',
      title: 'T',
      widgets: [{ id: 'w1', type: 'TEXT', position: { x: 0, y: 0, w: 4, h: 2 }, config: { text: 'Hi' } }],
    };
    await ok('PUT', `/workbooks/${wb.id}/dashboard`, { dashboardDraft });
    await ok('POST', `/workbooks/${wb.id}/publish`, {});
    const published = await ok('GET', `/workbooks/${wb.id}`);
    expectWorkbook(published);
    // Cube's Dashboard requires `status`.
    expect(published.publishedDashboard).toMatchObject({
      status: 'published',
      workbookId: wb.id,
      allowEmbed: false,
    });
    const listed = await ok('GET', `/workspace?types=WORKBOOK&first=100`);
    expect(listed.items.find((i: { id: number }) => i.id === wb.id).publishedDashboard.status).toBe(
      'published',
    );
    expect(await ok('DELETE', `/workbooks/${wb.id}`)).toMatchObject({ id: wb.id });
  });

  it('duplicateWorkbook: "Copy of", same folder, its reports copied; shared is a 403', async () => {
    const f = await ok('POST', '/folders', { name: 'Dup shelf' });
    const wb = await ok('POST', '/workbooks', { name: 'Original', folderId: f.id, meta: { m: 1 } });
    const r1 = await ok('POST', '/reports', { name: 'R1', workbookId: wb.id, jsonQuery: starterQuery() });
    const r2 = await ok('POST', '/reports', { name: 'R2', workbookId: wb.id, title: 'T2' });
    for (const body of [undefined, { shared: null }, { shared: false }]) {
      const copy = await ok('POST', `/workbooks/${wb.id}/duplicate`, body);
      expectWorkbook(copy);
      expect(copy).toMatchObject({
        name: 'Copy of Original',
        folderId: f.id,
        meta: { m: 1 },
        publishedDashboard: null,
      });
      expect(copy.id).not.toBe(wb.id);
      const copies = await ok('GET', `/reports?workbookId=${copy.id}&sortBy=name&sortDirection=ASC`);
      expect(copies.items.map((r: Record<string, any>) => [r.name, r.jsonQuery, r.title, r.version])).toEqual(
        [
          ['R1', starterQuery(), '', 1],
          ['R2', null, 'T2', 1],
        ],
      );
      for (const r of copies.items) {
        expectReport(r);
        expect([r1.publicId, r2.publicId]).not.toContain(r.publicId);
      }
    }
    const originals = await ok('GET', `/reports?workbookId=${wb.id}`);
    expect(originals.items.map((r: { id: number }) => r.id).sort()).toEqual([r1.id, r2.id].sort());
    expectError(await call('POST', `/workbooks/${wb.id}/duplicate`, { shared: true }), 403, 'FORBIDDEN');
    expectError(await call('POST', `/workbooks/${f.id}/duplicate`, {}), 404, 'NOT_FOUND');
    expectError(
      await api('POST', `/api/v1/deployments/${d}/workbooks/${wb.id}/duplicate`, { auth: other.admin }),
      404,
      'NOT_FOUND',
    );
  });

  it('getWorkbooks: every workbook, or one folder’s (0: the root), with data', async () => {
    const f = await ok('POST', '/folders', { name: 'Listed books' });
    const inside = await ok('POST', '/workbooks', { name: 'Inside', folderId: f.id });
    const atRoot = await ok('POST', '/workbooks', { name: 'At root' });
    const all = await ok('GET', '/workbooks?first=100');
    expectList(all);
    for (const w of all.items as Record<string, any>[]) expectWorkbook(w);
    const ids = all.items.map((w: { id: number }) => w.id);
    expect(ids).toEqual(expect.arrayContaining([inside.id, atRoot.id]));
    expect((await ok('GET', `/workbooks?folderId=${f.id}`)).items.map((w: { id: number }) => w.id)).toEqual([
      inside.id,
    ]);
    const root = (await ok('GET', '/workbooks?folderId=0&first=100')).items.map((w: { id: number }) => w.id);
    expect(root).toContain(atRoot.id);
    expect(root).not.toContain(inside.id);
    const first = await ok('GET', '/workbooks?first=1');
    expect(first.items).toHaveLength(1);
    const next = await ok('GET', `/workbooks?first=1&after=${first.pageInfo.endCursor}`);
    expect(next.items[0].id).not.toBe(first.items[0].id);
  });

  it('upsertWorkbookBySlug: creates with the normalised slug, then updates and merges meta', async () => {
    const created = await ok('PUT', '/workbooks/by-slug/%20Quarterly-Plan%20', {
      name: 'Quarterly',
      meta: { a: 1, keep: true },
      folderId: null,
    });
    expectWorkbook(created);
    expect(created).toMatchObject({ slug: 'quarterly-plan', name: 'Quarterly', meta: { a: 1, keep: true } });
    const updated = await ok('PUT', '/workbooks/by-slug/quarterly-plan', {
      meta: { a: 2, b: 3 },
      name: null,
    });
    expect(updated).toMatchObject({ id: created.id, name: 'Quarterly', meta: { a: 2, b: 3, keep: true } });
    const again = await ok('PUT', '/workbooks/by-slug/quarterly-plan', { meta: { a: 2, b: 3 } });
    expect(again.meta).toEqual(updated.meta);
    const stored = await row(
      'SELECT count(*) AS n FROM workbooks WHERE deployment_id = ? AND slug = ?',
      d,
      'quarterly-plan',
    );
    expect(stored?.n).toBe(1);
    const defaulted = await ok('PUT', '/workbooks/by-slug/empty-one', undefined);
    expect(defaulted).toMatchObject({ slug: 'empty-one', name: 'Untitled workbook', meta: {} });
    expectError(await call('PUT', '/workbooks/by-slug/bad%20slug', {}), 400, 'BAD_REQUEST');
    expectError(await call('PUT', '/workbooks/by-slug/x', { folderId: 777777 }), 404, 'NOT_FOUND');
    expectError(await call('PUT', '/workbooks/by-slug/x', { slug: 'y' }), 400, 'VALIDATION_FAILED');
  });
});

describe('Reports', () => {
  const pivotItems = {
    columns: ['orders.status'],
    measures: ['orders.count'],
    rows: ['orders.city'],
    filters: [],
    displayScale: 'thousands',
    measuresAxis: 'columns',
    measuresPosition: 'before',
    showAppliedFilters: true,
    showColumnTotals: false,
    showRowTotals: null,
  };

  it('createReport: every CreateReportInput field, each source and host', async () => {
    const wb = await ok('POST', '/workbooks', { name: 'Host' });
    const f = await ok('POST', '/folders', { name: 'Report shelf' });
    const sources = ['GOOGLE_SHEETS', 'EXCEL', 'PLAYGROUND', 'D3'];
    for (const [i, source] of sources.entries()) {
      const body = {
        name: `Cube report ${i}`,
        title: 'Revenue',
        jsonQuery: starterQuery(),
        sqlQuery: 'SELECT 1',
        meta: { v: i },
        folderId: f.id,
        workbookId: wb.id,
        publicId: `CubeReport0${i}`.slice(0, 12),
        source,
        host: i % 2 === 0 ? 'GOOGLE_SHEETS' : 'EXCEL',
        externalWorkbookId: 'sheet-abc',
        workbookName: 'Budget.xlsx',
        sheetId: 'Sheet1',
        resultLocation: 'A1',
        endResultCell: 'D20',
        resultChecksum: { v: 1, chunks: [{ from: 0, hash: 'abc', to: null }] },
        pivotItems,
      };
      const rp = await ok('POST', '/reports', body);
      expectReport(rp);
      expect(rp).toMatchObject({
        publicId: body.publicId,
        source,
        jsonQuery: body.jsonQuery,
        externalWorkbookId: 'sheet-abc',
        resultLocation: 'A1',
        endResultCell: 'D20',
        pivotItems: { ...pivotItems },
        workbookId: wb.id,
        folderId: f.id,
        title: 'Revenue',
      });
      const stored = await row(
        'SELECT public_id, source, json_query, addin FROM reports WHERE item_id = ?',
        rp.id,
      );
      expect(stored).toMatchObject({ public_id: body.publicId, source, json_query: body.jsonQuery });
      expect(JSON.parse(stored?.addin)).toMatchObject({ sheetId: 'Sheet1', workbookName: 'Budget.xlsx' });
    }
  });

  it('createReport with a jsonQuery answers 200 before the deployment’s first build, as Cube does', async () => {
    // The second deployment's starter build is queued, never run: it has no model yet.
    const unbuilt = acme.deployments[1];
    const query = JSON.stringify({ measures: ['orders.count'], dimensions: ['orders.status'] });
    const res = await api('POST', `/api/v1/deployments/${unbuilt}/reports`, {
      auth: key,
      body: { name: 'Before the build', jsonQuery: query },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.deploymentId).toBe(unbuilt);
    expect(res.body).toMatchObject({ name: 'Before the build', jsonQuery: query, sqlQuery: '' });
    // An update before the build keeps no SQL of the query it replaces, even SQL the client sent.
    const updated = await api('PUT', `/api/v1/deployments/${unbuilt}/reports/${res.body.id}`, {
      auth: key,
      body: { jsonQuery: query, sqlQuery: 'SELECT 1 AS stale' },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.sqlQuery).toBe('');
    const stored = await row('SELECT json_query FROM reports WHERE item_id = ?', res.body.id);
    expect(stored).toEqual({ json_query: query });
    // Not Cube's query shape: a 400 naming the field, build or no build.
    const bad = await api('POST', `/api/v1/deployments/${unbuilt}/reports`, {
      auth: key,
      body: { jsonQuery: '{"measures":[1]}' },
    });
    expectError(bad, 400, 'BAD_REQUEST');
    expect(bad.body.details[0].path).toBe('jsonQuery.measures.0');
  });

  it('createReport: nothing required, nulls mean not sent, a publicId is generated', async () => {
    const rp = await ok('POST', '/reports', {
      name: null,
      title: null,
      jsonQuery: null,
      sqlQuery: null,
      meta: null,
      folderId: null,
      workbookId: null,
      publicId: null,
      source: null,
      host: null,
      pivotItems: null,
    });
    expectReport(rp);
    expect(rp).toMatchObject({
      name: 'Untitled report',
      title: '',
      jsonQuery: null,
      source: null,
      folderId: null,
    });
    expectReport(await ok('POST', '/reports', {}));
    expectError(await call('POST', '/reports', { publicId: 'short' }), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/reports', { source: 'WORD' }), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/reports', { unknownToBoth: 1 }), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/reports', { publicId: rp.publicId }), 409, 'CONFLICT');
  });

  it('updateReport: UpdateReportInput, publicId write-once, an empty body changes nothing', async () => {
    const rp = await ok('POST', '/reports', { name: 'Editable' });
    for (const body of [{}, { name: null, title: null, sqlQuery: null, meta: null, jsonQuery: null }]) {
      const same = await ok('PUT', `/reports/${rp.id}`, body);
      expect(same).toMatchObject({ name: 'Editable', version: 1, updatedAt: rp.updatedAt });
    }
    const edited = await ok('PUT', `/reports/${rp.id}`, {
      jsonQuery: starterQuery(),
      publicId: rp.publicId,
      pivotItems,
      placementId: 'p1',
      resultLocation: 'B2',
      title: 'New',
    });
    expectReport(edited);
    expect(edited).toMatchObject({
      jsonQuery: starterQuery(),
      resultLocation: 'B2',
      title: 'New',
      version: 2,
    });
    expectError(await call('PUT', `/reports/${rp.id}`, { publicId: 'ZZZZZZZZZZZZ' }), 400, 'BAD_REQUEST');
    expectError(await call('PUT', `/reports/${rp.id}`, { source: 'D3' }), 400, 'VALIDATION_FAILED');
    expect((await row('SELECT public_id FROM reports WHERE item_id = ?', rp.id))?.public_id).toBe(
      rp.publicId,
    );
    expectReport(await ok('GET', `/reports/${rp.id}`));
  });

  it('upsertReportByPublicId: creates, then updates the same report', async () => {
    const created = await ok('PUT', '/reports/by-public-id/Upsert000001', {
      name: 'Up',
      source: 'PLAYGROUND',
    });
    expectReport(created);
    expect(created).toMatchObject({ publicId: 'Upsert000001', name: 'Up', source: 'PLAYGROUND' });
    const updated = await ok('PUT', '/reports/by-public-id/Upsert000001', { name: 'Up 2', source: 'D3' });
    expect(updated).toMatchObject({ id: created.id, name: 'Up 2', source: 'PLAYGROUND' });
    const other = await api(
      'PUT',
      `/api/v1/deployments/${acme.deployments[1]}/reports/by-public-id/Upsert000001`,
      {
        auth: key,
        body: {},
      },
    );
    expectError(other, 409, 'CONFLICT');
    expectError(await call('PUT', '/reports/by-public-id/bad', {}), 400, 'VALIDATION_FAILED');
  });

  it('upsertReportByPublicId: a missing folder is a 404 naming it, not a concurrent change to retry', async () => {
    const created = await ok('PUT', '/reports/by-public-id/Upsert000002', { name: 'Placed' });
    const res = await call('PUT', '/reports/by-public-id/Upsert000002', { folderId: 999_999 });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.body.details).toEqual([expect.objectContaining({ path: 'folderId' })]);
    expect(
      (await row('SELECT folder_id FROM workspace_items WHERE id = ?', created.id))?.folder_id,
    ).toBeNull();
  });

  it('getReports: filters, each sortBy and sortDirection, legacy limit/page, data', async () => {
    const wb = await ok('POST', '/workbooks', { name: 'Filter book' });
    const f = await ok('POST', '/folders', { name: 'Filter shelf' });
    const a = await ok('POST', '/reports', { name: 'Alpha filter', workbookId: wb.id });
    const b = await ok('POST', '/reports', { name: 'Beta filter', workbookId: wb.id, folderId: f.id });
    await ok('POST', '/reports', { name: 'Gamma', externalWorkbookId: 'sheet-xyz' });
    const byWorkbook = await ok('GET', `/reports?workbookId=${wb.id}&sortBy=name&sortDirection=ASC`);
    expectList(byWorkbook);
    for (const x of byWorkbook.items) expectReport(x);
    expect(byWorkbook.items.map((r: { id: number }) => r.id)).toEqual([a.id, b.id]);
    const desc = await ok('GET', `/reports?workbookId=${wb.id}&sortBy=name&sortDirection=DESC`);
    expect(desc.items.map((r: { id: number }) => r.id)).toEqual([b.id, a.id]);
    for (const sortBy of ['name', 'createdAt', 'updatedAt', 'lastViewedAt']) {
      expectList(await ok('GET', `/reports?sortBy=${sortBy}&first=5`));
    }
    expect((await ok('GET', `/reports?folderId=${f.id}`)).items.map((r: { id: number }) => r.id)).toEqual([
      b.id,
    ]);
    expect(
      (await ok('GET', '/reports?externalWorkbookId=sheet-xyz')).items.map((r: { name: string }) => r.name),
    ).toEqual(['Gamma']);
    expect(
      (await ok('GET', '/reports?search=filter&sortBy=name&sortDirection=ASC')).items.map(
        (r: { id: number }) => r.id,
      ),
    ).toEqual([a.id, b.id]);
    const legacy = await ok('GET', `/reports?workbookId=${wb.id}&limit=1&page=1`);
    expect(legacy.items).toHaveLength(1);
    const paged = await ok('GET', `/reports?workbookId=${wb.id}&first=1&after=${legacy.pageInfo.endCursor}`);
    expect(paged.items).toHaveLength(1);
    expectError(await call('GET', '/reports?page=2'), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/reports?sortBy=title'), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/reports?offset=3'), 400, 'VALIDATION_FAILED');
  });

  it('connect, disconnect and refresh store the spreadsheet placement (no other effect)', async () => {
    const rp = await ok('POST', '/reports', { name: 'Placed', title: 'Keep' });
    const placement = {
      externalWorkbookId: 'book-1',
      resultLocation: 'Sheet1!A1',
      addressOnly: false,
      anchorCell: 'A1',
      endResultCell: 'C9',
      host: 'EXCEL',
      placementId: 'p-1',
      resultChecksum: { v: 1, chunks: [{ from: 0, hash: 'h' }] },
      sheetId: '1',
      sheetName: 'Sheet1',
      workbookName: 'Book.xlsx',
    };
    const connected = await ok('PUT', `/reports/${rp.id}/connect-workbook`, placement);
    expectReport(connected);
    expect(connected).toMatchObject({
      externalWorkbookId: 'book-1',
      resultLocation: 'Sheet1!A1',
      endResultCell: 'C9',
      title: 'Keep',
      version: 1,
      updatedAt: rp.updatedAt,
    });
    expectError(
      await call('PUT', `/reports/${rp.id}/connect-workbook`, { resultLocation: 'A1' }),
      400,
      'VALIDATION_FAILED',
    );
    const refreshed = await ok('PUT', `/reports/${rp.id}/refresh`, {
      resultChecksum: { v: 2, chunks: [] },
      sheetName: null,
    });
    expectReport(refreshed);
    const stored = await row('SELECT addin FROM reports WHERE item_id = ?', rp.id);
    expect(JSON.parse(stored?.addin).resultChecksum).toEqual({ v: 2, chunks: [] });
    const untouched = await ok('DELETE', `/reports/${rp.id}/connect-workbook`, {
      externalWorkbookId: 'another',
    });
    expect(untouched.externalWorkbookId).toBe('book-1');
    const disconnected = await ok('DELETE', `/reports/${rp.id}/connect-workbook`, {
      externalWorkbookId: 'book-1',
    });
    expect(disconnected).toMatchObject({
      externalWorkbookId: null,
      resultLocation: null,
      endResultCell: null,
      title: 'Keep',
    });
    expectReport(await ok('DELETE', `/reports/${rp.id}/connect-workbook`));
    expectError(await call('PUT', '/reports/777777/refresh', {}), 404, 'NOT_FOUND');
  });

  it('jsonQuery and the add-in fields count towards the account’s stored bytes', async () => {
    const stored = async () =>
      (await row('SELECT stored_bytes FROM accounts WHERE id = ?', acme.accountId))?.stored_bytes;
    const before = await stored();
    const rp = await ok('POST', '/reports', { jsonQuery: starterQuery('q'.repeat(1000)) });
    const created = await stored();
    expect(created - before).toBeGreaterThanOrEqual(1000);
    await ok('PUT', `/reports/${rp.id}`, {
      jsonQuery: starterQuery('q'.repeat(3000)),
      sheetId: 's'.repeat(100),
    });
    expect((await stored()) - created).toBeGreaterThanOrEqual(2100);
    await ok('DELETE', `/reports/${rp.id}`);
    expect(await stored()).toBe(before);
  });

  it('deleteReport answers 200', async () => {
    const rp = await ok('POST', '/reports', {});
    expect(await ok('DELETE', `/reports/${rp.id}`)).toMatchObject({ id: rp.id });
  });
});

describe('Workspace', () => {
  it('workspaceObjects: every query parameter, items as Workbook, folderId 0 the root', async () => {
    const f = await ok('POST', '/folders', { name: 'Objects' });
    await ok('POST', '/workbooks', { name: 'Object book', folderId: f.id });
    for (const orderByField of ['updated_at', 'created_at', 'name', 'viewer_last_viewed_at']) {
      for (const orderByDirection of ['ASC', 'DESC']) {
        const res = await ok(
          'GET',
          `/workspace?folderId=${f.id}&types=FOLDER&types=WORKBOOK&types=REPORT&orderByField=${orderByField}&orderByDirection=${orderByDirection}&search=obj&first=10`,
        );
        expect(res.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
        expect(res.items.map((i: { name: string }) => i.name)).toEqual(['Object book']);
        for (const i of res.items as Record<string, any>[]) expectWorkbook(i, i.type);
      }
    }
    const root = await ok('GET', '/workspace?folderId=0&first=100');
    for (const i of root.items as Record<string, any>[]) expectWorkbook(i, i.type);
    expect(root.items.map((i: { id: number }) => i.id)).toContain(f.id);
  });

  it('moveWorkspaceObject: each type, folderId null the root; folders and reports carry objects', async () => {
    const target = await ok('POST', '/folders', { name: 'Target' });
    const items = [
      await ok('POST', '/folders', { name: 'Mover' }),
      await ok('POST', '/workbooks', { name: 'Mover' }),
      await ok('POST', '/reports', { name: 'Mover' }),
    ];
    for (const item of items) {
      const moved = await ok('POST', '/workspace/move', {
        type: item.type,
        id: item.id,
        folderId: target.id,
      });
      expectWorkbook(moved, item.type);
      expect(moved.folderId).toBe(target.id);
      const back = await ok('POST', '/workspace/move', { type: item.type, id: item.id, folderId: null });
      expect(back.folderId).toBeNull();
    }
  });

  it('bulkMoveWorkspaceObjects: movable items move together, the others fail with their status', async () => {
    const target = await ok('POST', '/folders', { name: 'Bulk target' });
    const inner = await ok('POST', '/folders', { name: 'Inner', parentId: target.id });
    const wb = await ok('POST', '/workbooks', { name: 'Bulk book' });
    const rp = await ok('POST', '/reports', { name: 'Bulk report' });
    const res = await ok('POST', '/workspace/bulk-move', {
      folderId: inner.id,
      items: [
        { type: 'WORKBOOK', id: wb.id },
        { type: 'REPORT', id: rp.id },
        { type: 'WORKBOOK', id: wb.id },
        { type: 'FOLDER', id: target.id },
        { type: 'FOLDER', id: wb.id },
        { type: 'REPORT', id: 777777 },
      ],
    });
    expect(res.moved.map((m: { id: number }) => m.id).sort()).toEqual([wb.id, rp.id].sort());
    for (const m of res.moved as Record<string, any>[]) expectWorkbook(m, m.type);
    expect(res.failed).toEqual([
      { type: 'FOLDER', id: target.id, error: { status: 400, message: expect.any(String) } },
      { type: 'FOLDER', id: wb.id, error: { status: 404, message: expect.any(String) } },
      { type: 'REPORT', id: 777777, error: { status: 404, message: expect.any(String) } },
    ]);
    for (const id of [wb.id, rp.id]) {
      expect((await row('SELECT folder_id FROM workspace_items WHERE id = ?', id))?.folder_id).toBe(inner.id);
    }
    expect(
      (await row('SELECT folder_id FROM workspace_items WHERE id = ?', target.id))?.folder_id,
    ).toBeNull();
    const toRoot = await ok('POST', '/workspace/bulk-move', {
      folderId: null,
      items: [{ type: 'WORKBOOK', id: wb.id }],
    });
    expect(toRoot.moved[0].folderId).toBeNull();
    const foreign = await ok('POST', '/workspace/bulk-move', {
      items: [{ type: 'WORKBOOK', id: wb.id }],
      folderId: 777777,
    });
    expect(foreign).toEqual({
      moved: [],
      failed: [{ type: 'WORKBOOK', id: wb.id, error: { status: 404, message: expect.any(String) } }],
    });
  });

  it('bulk operations are bounded (1–100 items) and scoped to the caller’s deployment', async () => {
    const items = Array.from({ length: 101 }, (_, i) => ({ type: 'WORKBOOK', id: i + 1 }));
    expectError(await call('POST', '/workspace/bulk-move', { items }), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/workspace/bulk-delete', { items }), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/workspace/bulk-delete', { items: [] }), 400, 'VALIDATION_FAILED');
    const wb = await ok('POST', '/workbooks', { name: 'Not theirs' });
    const theirs = await api('POST', `/api/v1/deployments/${d}/workspace/bulk-delete`, {
      auth: other.admin,
      body: { items: [{ type: 'WORKBOOK', id: wb.id }] },
    });
    expectError(theirs, 404, 'NOT_FOUND');
    const fromTheirDeployment = await api(
      'POST',
      `/api/v1/deployments/${other.deployments[0]}/workspace/bulk-delete`,
      {
        auth: other.admin,
        body: { items: [{ type: 'WORKBOOK', id: wb.id }] },
      },
    );
    expect(fromTheirDeployment.body.failed[0].error.status).toBe(404);
    expect(await row('SELECT id FROM workspace_items WHERE id = ?', wb.id)).not.toBeNull();
  });

  it('bulkDeleteWorkspaceObjects: a folder goes with its whole sub-tree; contents move to the root', async () => {
    const top = await ok('POST', '/folders', { name: 'Top' });
    const sub = await ok('POST', '/folders', { name: 'Sub', parentId: top.id });
    const kept = await ok('POST', '/folders', { name: 'Kept top' });
    await ok('POST', '/folders', { name: 'Kept sub', parentId: kept.id });
    const content = await ok('POST', '/workbooks', { name: 'Survivor', folderId: sub.id });
    const doomed = await ok('POST', '/reports', { name: 'Doomed', folderId: sub.id });
    const res = await ok('POST', '/workspace/bulk-delete', {
      items: [
        { type: 'FOLDER', id: top.id },
        { type: 'FOLDER', id: sub.id },
        { type: 'REPORT', id: doomed.id },
        { type: 'REPORT', id: doomed.id },
        { type: 'FOLDER', id: kept.id },
        { type: 'WORKBOOK', id: 777777 },
      ],
    });
    expect(res.deleted).toEqual([
      { type: 'FOLDER', id: top.id },
      { type: 'FOLDER', id: sub.id },
      { type: 'REPORT', id: doomed.id },
    ]);
    expect(res.failed).toEqual([
      { type: 'FOLDER', id: kept.id, error: { status: 400, message: expect.any(String) } },
      { type: 'WORKBOOK', id: 777777, error: { status: 404, message: expect.any(String) } },
    ]);
    for (const id of [top.id, sub.id, doomed.id]) {
      expect(await row('SELECT id FROM workspace_items WHERE id = ?', id)).toBeNull();
    }
    expect(
      (await row('SELECT folder_id FROM workspace_items WHERE id = ?', content.id))?.folder_id,
    ).toBeNull();
    expect(await row('SELECT id FROM workspace_items WHERE id = ?', kept.id)).not.toBeNull();
  });
});
