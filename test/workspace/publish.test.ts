import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { countedD1, createDb } from '../../src/core/db';
import { findPublishedById, findPublishedByPublicId } from '../../src/dashboards/dashboards.repository';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { base, count, draft, folder, report, roundTrips, workbook } from './helpers';

let acme: SeededAccount;
let other: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  d = acme.deployments[0];
});

const saveDraft = (id: number, config: unknown, deploymentId = d) =>
  api('PUT', `${base(deploymentId)}/workbooks/${id}/dashboard`, {
    auth: acme.member,
    body: { dashboardDraft: config },
  });
const publish = (id: number, body?: unknown, deploymentId = d) =>
  api('POST', `${base(deploymentId)}/workbooks/${id}/publish`, { auth: acme.member, body });
const versions = (id: number, query = '') =>
  api('GET', `${base(d)}/workbooks/${id}/dashboard/versions${query}`, { auth: acme.member });

const version = (id: number, n: number | string, deploymentId = d) =>
  api('GET', `${base(deploymentId)}/workbooks/${id}/dashboard/versions/${n}`, { auth: acme.member });

/** A workbook with a saved draft and two reports (one of another workbook). */
async function publishable(name = 'Board') {
  const wb = await workbook(acme.member, d, { name });
  const elsewhere = await workbook(acme.member, d);
  const r1 = await report(acme.member, d, {
    name: 'Revenue',
    workbookId: wb.id,
    title: 'Revenue v1',
    sqlQuery: 'SELECT 1',
    fillMissingRows: { member: 'orders.day', excludedDimensions: [] },
    periodComparisons: [
      {
        measure: 'orders.total',
        timeDimension: 'orders.day',
        offset: { amount: 1, unit: 'month' },
        outputs: ['value'],
      },
    ],
    preferences: { columnFormats: { total: 'currency' } },
  });
  const r2 = await report(acme.member, d, { name: 'Orders', workbookId: wb.id });
  await report(acme.member, d, { name: 'Not mine', workbookId: elsewhere.id });
  expect((await saveDraft(wb.id, draft(3))).status).toBe(200);
  return { wb, r1, r2 };
}

const db = () => createDb(countedD1(env.DB, { queries: 0, roundTrips: 0 }));

describe('POST /workbooks/{id}/publish', () => {
  it('publishes the draft as version 1 with a URL-safe publicId and frozen report snapshots', async () => {
    const { wb, r1, r2 } = await publishable();
    const res = await publish(wb.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      deploymentId: d,
      workbookId: wb.id,
      versionNumber: 1,
      allowEmbed: false,
      allEmbedUsers: false,
      config: draft(3),
      title: 'Revenue',
      description: null,
      restrictDataDownload: false,
      createdBy: acme.memberUserId,
    });
    expect(res.body.publicId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(res.body.reportSnapshots.map((s: { reportId: number }) => s.reportId)).toEqual([r1.id, r2.id]);
    expect(res.body.reportSnapshots[0]).toMatchObject({
      reportId: r1.id,
      versionNumber: 1,
      name: 'Revenue',
      title: 'Revenue v1',
      description: '',
      spec: '',
      sqlQuery: 'SELECT 1',
      meta: {},
      fillMissingRows: { member: 'orders.day', excludedDimensions: [] },
      periodComparisons: [
        {
          measure: 'orders.total',
          timeDimension: 'orders.day',
          offset: { amount: 1, unit: 'month' },
          outputs: ['value'],
        },
      ],
      preferences: { columnFormats: { total: 'currency' } },
    });
    expect(roundTrips(res)).toBe(2);
    expect(
      await count('SELECT 1 FROM dashboard_versions WHERE published_dashboard_id = ?', res.body.id),
    ).toBe(1);
    const item = await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member });
    expect(item.body.dashboardPublished).toEqual(draft(3));
    // The workbook's publishedDashboard carries Cube's required `status` too.
    expect(item.body.publishedDashboard).toEqual({ ...res.body, status: 'published' });
  });

  it('republishing keeps the publicId, adds a version and keeps the old snapshots frozen', async () => {
    const { wb, r1 } = await publishable();
    const v1 = (await publish(wb.id)).body;
    // Edit the report and the draft after publishing: the published version does not move.
    await api('PUT', `${base(d)}/reports/${r1.id}`, { auth: acme.member, body: { title: 'Revenue v2' } });
    await saveDraft(wb.id, draft(5));
    const state = await api('GET', `${base(d)}/workbooks/${wb.id}/dashboard`, { auth: acme.member });
    expect(state.body).toEqual({ dashboardDraft: draft(5), dashboardPublished: draft(3) });
    const v2 = (await publish(wb.id)).body;
    expect(v2.publicId).toBe(v1.publicId);
    expect(v2.id).toBe(v1.id);
    expect(v2.versionNumber).toBe(2);
    expect(v2.versionId).not.toBe(v1.versionId);
    expect(v2.config).toEqual(draft(5));
    expect(v2.reportSnapshots[0]).toMatchObject({ reportId: r1.id, title: 'Revenue v2', versionNumber: 2 });
    // Deleting the report later leaves both versions' snapshots alone.
    await api('DELETE', `${base(d)}/reports/${r1.id}`, { auth: acme.member });
    const list = await versions(wb.id);
    expect(list.status).toBe(200);
    expect(list.body.items.map((v: { versionNumber: number }) => v.versionNumber)).toEqual([2, 1]);
    expect(list.body.items[0]).toMatchObject({ id: v2.versionId, isCurrent: true, publicId: v1.publicId });
    expect(list.body.items[1]).toMatchObject({ id: v1.versionId, isCurrent: false });
    // The list answers summaries: each version's body comes from …/versions/{n}.
    const one = (await version(wb.id, 1)).body;
    const two = (await version(wb.id, 2)).body;
    expect(one).toMatchObject({ id: v1.versionId, isCurrent: false, config: draft(3) });
    expect(one.reportSnapshots[0]).toMatchObject({ reportId: r1.id, title: 'Revenue v1' });
    expect(two.reportSnapshots[0]).toMatchObject({ reportId: r1.id, title: 'Revenue v2' });
  });

  it('keeps allowEmbed and allEmbedUsers across republishing', async () => {
    const { wb } = await publishable();
    const v1 = (await publish(wb.id)).body;
    // Embed access belongs to the embedding domain; it flips these columns of the published row.
    await env.DB.prepare('UPDATE published_dashboards SET allow_embed = 1, all_embed_users = 1 WHERE id = ?')
      .bind(v1.id)
      .run();
    const v2 = (await publish(wb.id)).body;
    expect(v2).toMatchObject({ allowEmbed: true, allEmbedUsers: true, versionNumber: 2 });
  });

  it('takes title, description and restrictDataDownload, and keeps them when omitted', async () => {
    const { wb } = await publishable('Named workbook');
    await saveDraft(wb.id, { widgets: [] });
    const first = await publish(wb.id);
    expect(first.body).toMatchObject({
      title: 'Named workbook',
      description: null,
      restrictDataDownload: false,
    });
    const second = await publish(wb.id, {
      title: 'Board',
      description: 'Quarterly',
      restrictDataDownload: true,
    });
    expect(second.body).toMatchObject({
      title: 'Board',
      description: 'Quarterly',
      restrictDataDownload: true,
    });
    const third = await publish(wb.id, {});
    expect(third.body).toMatchObject({
      title: 'Board',
      description: 'Quarterly',
      restrictDataDownload: true,
    });
    const cleared = await publish(wb.id, { description: null, restrictDataDownload: false });
    expect(cleared.body).toMatchObject({ title: 'Board', description: null, restrictDataDownload: false });
    expect(cleared.body.versionNumber).toBe(4);
  });

  it('answers 400 without a draft and stores nothing', async () => {
    const wb = await workbook(acme.member, d);
    const res = await publish(wb.id);
    expectError(res, 400, 'BAD_REQUEST');
    await saveDraft(wb.id, draft(1));
    await saveDraft(wb.id, null);
    expectError(await publish(wb.id), 400, 'BAD_REQUEST');
    expect(await count('SELECT 1 FROM published_dashboards WHERE workbook_id = ?', wb.id)).toBe(0);
    const list = await versions(wb.id);
    expect(list.body).toMatchObject({ items: [], pageInfo: { hasNextPage: false } });
  });

  it.each([
    [{ title: 5 }, 'title'],
    [{ title: 't'.repeat(501) }, 'title'],
    [{ description: 1 }, 'description'],
    [{ restrictDataDownload: 'yes' }, 'restrictDataDownload'],
    [{ allowEmbed: 'yes' }, 'allowEmbed'],
    [{ workbookId: '1' }, 'workbookId'],
    [{ dashboardId: 'x' }, 'dashboardId'],
    [{ config: [] }, 'config'],
    [
      { config: { widgets: [{ type: 'MAP', position: { x: 0, y: 0, w: 1, h: 1 } }] } },
      'config.widgets.0.type',
    ],
    [{ unknownField: 1 }, 'unknownField'],
    [[], '(body)'],
  ])('rejects %j naming %s', async (body, field) => {
    const { wb } = await publishable();
    const res = await publish(wb.id, body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe(field);
    expect(await count('SELECT 1 FROM published_dashboards WHERE workbook_id = ?', wb.id)).toBe(0);
  });

  it('answers 404 for a folder, an unknown id, or a workbook of another deployment', async () => {
    const f = await folder(acme.member, d, { name: 'f' });
    const foreign = await workbook(acme.member, acme.deployments[1]);
    await saveDraft(foreign.id, draft(1), acme.deployments[1]);
    for (const id of [f.id, 31337, foreign.id]) {
      expectError(await publish(id), 404, 'NOT_FOUND');
      expectError(await versions(id), 404, 'NOT_FOUND');
    }
    expect(await count('SELECT 1 FROM published_dashboards WHERE workbook_id = ?', foreign.id)).toBe(0);
  });
});

describe('publishing with Cube’s PublishDashboardInput', () => {
  it('answers 400 for ids that are not positive integers, and publishes nothing', async () => {
    const { wb } = await publishable();
    for (const raw of ['{"dashboardId":1e400}', '{"workbookId":1.5}', '{"dashboardId":-1}']) {
      const res = await api('POST', `${base(d)}/workbooks/${wb.id}/publish`, {
        auth: acme.member,
        rawBody: raw,
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
    expect(await count('SELECT 1 FROM published_dashboards WHERE workbook_id = ?', wb.id)).toBe(0);
  });

  it('answers status published; earlier versions read as archived', async () => {
    const { wb } = await publishable();
    const v1 = await publish(wb.id, { workbookId: wb.id });
    expect(v1.status).toBe(200);
    expect(v1.body.status).toBe('published');
    await publish(wb.id);
    const list = await versions(wb.id);
    expect(list.body.items.map((v: { status: string }) => v.status)).toEqual(['published', 'archived']);
    expect((await version(wb.id, 1)).body.status).toBe('archived');
    const item = await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member });
    expect(item.body.publishedDashboard.status).toBe('published');
  });

  it('publishes the config it is sent, leaving the draft alone, and sets allowEmbed', async () => {
    const wb = await workbook(acme.member, d, { name: 'Sent' });
    const config = {
      ...draft(1),
      title: 'From the request',
      widgets: [{ type: 'DIVIDER', position: { x: 0, y: 0, w: 12, h: 1 } }],
    };
    const res = await publish(wb.id, {
      workbookId: wb.id,
      allowEmbed: true,
      config,
      dashboardId: null,
      title: null,
      description: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ allowEmbed: true, title: null, status: 'published', versionNumber: 1 });
    expect(res.body.config.widgets).toEqual([{ ...config.widgets[0], id: 'divider-1' }]);
    expect(await count('SELECT 1 FROM workbooks WHERE item_id = ? AND dashboard_draft IS NULL', wb.id)).toBe(
      1,
    );
    expect(
      await count('SELECT 1 FROM published_dashboards WHERE workbook_id = ? AND allow_embed = 1', wb.id),
    ).toBe(1);
    // Omitted (or null) allowEmbed keeps it; the first publish's title came from the request.
    const again = await publish(wb.id, {
      workbookId: wb.id,
      config,
      allowEmbed: null,
      dashboardId: res.body.id,
    });
    expect(again.body).toMatchObject({ allowEmbed: true, versionNumber: 2, id: res.body.id });
    const off = await publish(wb.id, { config, allowEmbed: false });
    expect(off.body.allowEmbed).toBe(false);
    const titled = await workbook(acme.member, d, { name: 'Named' });
    expect((await publish(titled.id, { workbookId: titled.id, config })).body.title).toBe('From the request');
  });

  it('refuses another workbook’s id (400) and a dashboardId that is not this workbook’s (404), storing nothing', async () => {
    const { wb } = await publishable();
    const other = await publishable('Other');
    const mismatch = await publish(wb.id, { workbookId: other.wb.id });
    expectError(mismatch, 400, 'BAD_REQUEST');
    expect(mismatch.body.details[0].path).toBe('workbookId');
    const theirs = (await publish(other.wb.id)).body;
    expectError(await publish(wb.id, { workbookId: wb.id, dashboardId: theirs.id }), 404, 'NOT_FOUND');
    expect(await count('SELECT 1 FROM published_dashboards WHERE workbook_id = ?', wb.id)).toBe(0);
  });
});

describe('GET /workbooks/{id}/dashboard/versions', () => {
  it('pages newest first', async () => {
    const { wb } = await publishable();
    for (let i = 0; i < 5; i++) expect((await publish(wb.id)).status).toBe(200);
    const one = await versions(wb.id, '?first=2');
    expect(one.body.items.map((v: { versionNumber: number }) => v.versionNumber)).toEqual([5, 4]);
    expect(one.body.pageInfo.hasNextPage).toBe(true);
    const two = await versions(wb.id, `?first=2&after=${one.body.pageInfo.endCursor}`);
    expect(two.body.items.map((v: { versionNumber: number }) => v.versionNumber)).toEqual([3, 2]);
    const three = await versions(wb.id, `?first=2&after=${two.body.pageInfo.endCursor}`);
    expect(three.body.items.map((v: { versionNumber: number }) => v.versionNumber)).toEqual([1]);
    expect(three.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(roundTrips(three)).toBe(2);
    expectError(await versions(wb.id, '?after=nope'), 400, 'INVALID_CURSOR');
    expectError(await versions(wb.id, '?first=0'), 400, 'VALIDATION_FAILED');
  });

  it('answers summaries only, at most 100 a page', async () => {
    const { wb } = await publishable();
    const v1 = (await publish(wb.id)).body;
    const list = await versions(wb.id);
    expect(list.body.items).toEqual([
      {
        id: v1.versionId,
        publishedDashboardId: v1.id,
        publicId: v1.publicId,
        versionNumber: 1,
        isCurrent: true,
        status: 'published',
        publishedAt: v1.updatedAt,
        publishedBy: acme.memberUserId,
        createdAt: v1.updatedAt,
        createdBy: acme.memberUserId,
      },
    ]);
    expect((await versions(wb.id, '?first=100')).status).toBe(200);
    expectError(await versions(wb.id, '?first=101'), 400, 'VALIDATION_FAILED');
  });
});

describe('GET /workbooks/{id}/dashboard/versions/{versionNumber}', () => {
  it('answers one version with its config and report snapshots', async () => {
    const { wb, r1 } = await publishable();
    const v1 = (await publish(wb.id)).body;
    const res = await version(wb.id, 1);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: v1.versionId,
      versionNumber: 1,
      publicId: v1.publicId,
      isCurrent: true,
      config: v1.config,
      reportSnapshots: v1.reportSnapshots,
      publishedBy: acme.memberUserId,
    });
    expect(res.body.reportSnapshots[0].reportId).toBe(r1.id);
    expect(roundTrips(res)).toBe(2);
  });

  it('answers 404 for a version never published, another deployment’s workbook or an unknown id', async () => {
    const { wb } = await publishable();
    expectError(await version(wb.id, 1), 404, 'NOT_FOUND');
    await publish(wb.id);
    expectError(await version(wb.id, 2), 404, 'NOT_FOUND');
    const foreign = await workbook(acme.member, acme.deployments[1]);
    await saveDraft(foreign.id, draft(1), acme.deployments[1]);
    await publish(foreign.id, undefined, acme.deployments[1]);
    expectError(await version(foreign.id, 1), 404, 'NOT_FOUND');
    expectError(await version(31337, 1), 404, 'NOT_FOUND');
    expectError(await version(wb.id, 'x'), 400, 'VALIDATION_FAILED');
  });
});

describe('deleting a published workbook', () => {
  it('deletes the published dashboard, its versions and snapshots; the publicId is gone', async () => {
    const { wb } = await publishable();
    const published = (await publish(wb.id)).body;
    await publish(wb.id);
    expect(await findPublishedByPublicId(db(), published.publicId)).not.toBeNull();
    // Through the embedding routes: the embed access update and an embed session's load work before the delete …
    const allowEmbed = () =>
      api('PATCH', `/api/v1/embed/dashboard/${published.publicId}`, {
        auth: acme.admin,
        body: { allowEmbed: true },
      });
    expect((await allowEmbed()).status).toBe(200);
    const session = await api('POST', '/api/v1/embed/generate-session', {
      auth: acme.key,
      body: { deploymentId: d, externalId: 'viewer-1' },
    });
    expect([200, 201], JSON.stringify(session.body)).toContain(session.status);
    const load = () =>
      api(
        'GET',
        `/api/v1/embed/dashboard/${published.publicId}?session=${encodeURIComponent(session.body.sessionId)}`,
      );
    expect((await load()).status).toBe(200);
    expect((await api('DELETE', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member })).status).toBe(200);
    // … and answer 404 after it.
    expectError(await allowEmbed(), 404, 'NOT_FOUND');
    expectError(await load(), 404, 'NOT_FOUND');
    expect(await count('SELECT 1 FROM published_dashboards WHERE id = ?', published.id)).toBe(0);
    expect(
      await count('SELECT 1 FROM dashboard_versions WHERE published_dashboard_id = ?', published.id),
    ).toBe(0);
    expect(
      await count(
        'SELECT 1 FROM report_snapshots WHERE dashboard_version_id IN (?, ?)',
        published.versionId,
        published.versionId + 1,
      ),
    ).toBe(0);
    expect(await findPublishedByPublicId(db(), published.publicId)).toBeNull();
    expect(await findPublishedById(db(), acme.accountId, published.id)).toBeNull();
  });
});

describe('findPublishedByPublicId / findPublishedById (for embedding, rendering, notifications)', () => {
  it('answer the PublishedDashboard with its account in one query', async () => {
    const { wb } = await publishable();
    const published = (await publish(wb.id, { title: 'Shared' })).body;
    const counter = { queries: 0, roundTrips: 0 };
    const counted = createDb(countedD1(env.DB, counter));
    const byPublicId = await findPublishedByPublicId(counted, published.publicId);
    expect(byPublicId).toEqual({ ...published, accountId: acme.accountId });
    expect(counter).toEqual({ queries: 1, roundTrips: 1 });
    expect(await findPublishedById(counted, acme.accountId, published.id)).toEqual(byPublicId);
    expect(counter.queries).toBe(2);
  });

  it('answer null for an unknown publicId and for another account', async () => {
    const { wb } = await publishable();
    const published = (await publish(wb.id)).body;
    expect(await findPublishedByPublicId(db(), 'no-such-public-id')).toBeNull();
    expect(await findPublishedById(db(), other.accountId, published.id)).toBeNull();
    expect(await findPublishedById(db(), acme.accountId, 987654)).toBeNull();
  });
});
