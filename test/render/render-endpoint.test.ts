import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededAccount, seedWorld } from '../helpers/harness';
import { api } from '../helpers/http';
import { pngSize } from './helpers';
import { fetchBytes, type SeededDashboard, seedBusinessReview } from './seed';

let acme: SeededAccount;
let other: SeededAccount;
let board: SeededDashboard;
const path = (d: number, id: number, query = '') =>
  `/api/v1/deployments/${d}/workbooks/${id}/dashboard/render${query}`;

function expectErrorBody(res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.code).toBe(code);
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
}

beforeAll(async () => {
  ({ acme, other } = await seedWorld());
  board = await seedBusinessReview(acme);
});

describe('GET …/workbooks/{id}/dashboard/render', () => {
  it('answers the published dashboard as a PNG by default', async () => {
    const res = await fetchBytes(path(board.deploymentId, board.workbookId), acme.member);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('content-disposition')).toBe(
      `inline; filename="dashboard-${board.workbookId}-published.png"`,
    );
    const size = pngSize(res.bytes);
    expect(size.width).toBe(1280);
    expect(size.height).toBeGreaterThan(1000);
  });

  it('draws at the width asked for', async () => {
    const res = await fetchBytes(path(board.deploymentId, board.workbookId, '?width=800'), acme.member);
    expect(res.status).toBe(200);
    expect(pngSize(res.bytes).width).toBe(800);
  });

  it('answers a PDF that parses, titled with the published title, two pages for the sample', async () => {
    const res = await fetchBytes(path(board.deploymentId, board.workbookId, '?format=pdf'), acme.admin);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const doc = await PDFDocument.load(res.bytes);
    expect(doc.getTitle()).toBe('Business review');
    expect(doc.getPageCount()).toBe(2);
  });

  it('renders the draft with the live reports, the published version with its snapshots', async () => {
    const base = `/api/v1/deployments/${board.deploymentId}`;
    // A short draft: one page of PDF where the published sample has two.
    const short = { title: 'Draft', widgets: board.config.widgets.slice(0, 3) };
    const put = await api('PUT', `${base}/workbooks/${board.workbookId}/dashboard`, {
      auth: acme.admin,
      body: { dashboardDraft: short },
    });
    expect(put.status).toBe(200);
    const draft = await fetchBytes(
      path(board.deploymentId, board.workbookId, '?format=pdf&version=draft'),
      acme.admin,
    );
    expect(draft.status).toBe(200);
    const draftDoc = await PDFDocument.load(draft.bytes);
    expect(draftDoc.getPageCount()).toBe(1);
    expect(draftDoc.getTitle()).toBe('Draft');

    // Same config as published, but one report changed since: only the draft render sees it.
    const full = { ...board.config };
    await api('PUT', `${base}/workbooks/${board.workbookId}/dashboard`, {
      auth: acme.admin,
      body: { dashboardDraft: full },
    });
    const reportId = board.reportIds.get(101) as number;
    const before = await fetchBytes(path(board.deploymentId, board.workbookId, '?version=draft'), acme.admin);
    const changed = await api('PUT', `${base}/reports/${reportId}`, {
      auth: acme.admin,
      body: { spec: JSON.stringify({ type: 'bar', data: [] }) },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const after = await fetchBytes(path(board.deploymentId, board.workbookId, '?version=draft'), acme.admin);
    const published = await fetchBytes(path(board.deploymentId, board.workbookId), acme.admin);
    const publishedAgain = await fetchBytes(
      path(board.deploymentId, board.workbookId, '?version=published'),
      acme.admin,
    );
    expect(Buffer.from(after.bytes).equals(Buffer.from(before.bytes))).toBe(false);
    expect(Buffer.from(published.bytes).equals(Buffer.from(publishedAgain.bytes))).toBe(true);
  });

  it('is a 404 when the version asked for does not exist', async () => {
    const base = `/api/v1/deployments/${acme.deployments[0]}`;
    const wb = await api('POST', `${base}/workbooks`, { auth: acme.admin, body: { name: 'Empty' } });
    const noPublished = await fetchBytes(path(acme.deployments[0], wb.body.id), acme.admin);
    expectErrorBody(noPublished, 404, 'NOT_FOUND');
    const noDraft = await fetchBytes(path(acme.deployments[0], wb.body.id, '?version=draft'), acme.admin);
    expectErrorBody(noDraft, 404, 'NOT_FOUND');
    const missing = await fetchBytes(path(acme.deployments[0], 999_999), acme.admin);
    expectErrorBody(missing, 404, 'NOT_FOUND');
    // The workbook lives in deployments[0], not [1].
    const wrongDeployment = await fetchBytes(path(acme.deployments[1], board.workbookId), acme.admin);
    expectErrorBody(wrongDeployment, 404, 'NOT_FOUND');
  });

  it('rejects bad query parameters by name', async () => {
    for (const [query, field] of [
      ['?format=gif', 'format'],
      ['?version=latest', 'version'],
      ['?width=100', 'width'],
      ['?width=wide', 'width'],
      ['?width=99999', 'width'],
      ['?size=2', 'size'],
    ] as const) {
      const res = await fetchBytes(path(board.deploymentId, board.workbookId, query), acme.admin);
      expectErrorBody(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details[0].path, query).toBe(field);
    }
    const badId = await fetchBytes(
      `/api/v1/deployments/${board.deploymentId}/workbooks/abc/dashboard/render`,
      acme.admin,
    );
    expectErrorBody(badId, 400, 'VALIDATION_FAILED');
  });

  it('needs a Bearer token of the account', async () => {
    const p = path(board.deploymentId, board.workbookId);
    expectErrorBody(await fetchBytes(p), 401, 'UNAUTHORIZED');
    // A valid API key is accepted on these routes too (test/foundation/api-key-credentials.test.ts); an unknown one is a 401.
    expectErrorBody(await fetchBytes(p, { apiKey: 'eb_ak_unknown' }), 401, 'UNAUTHORIZED');
    expectErrorBody(await fetchBytes(p, { bearer: 'eb_at_unknown' }), 401, 'UNAUTHORIZED');
    // Another account's deployment and workbook are unknown to acme, and acme's to the other.
    expectErrorBody(await fetchBytes(p, other.admin), 404, 'NOT_FOUND');
    expectErrorBody(
      await fetchBytes(path(other.deployments[0], board.workbookId), acme.admin),
      404,
      'NOT_FOUND',
    );
  });
});
