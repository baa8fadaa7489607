import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { base, count, folder, itemRow, roundTrips, workbook } from './helpers';

let acme: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
});

const workbookRow = (id: number) =>
  env.DB.prepare('SELECT * FROM workbooks WHERE item_id = ?').bind(id).first<Record<string, any>>();

describe('POST /workbooks', () => {
  it('creates a workbook with defaults and answers the full workspace item', async () => {
    const res = await api('POST', `${base(d)}/workbooks`, { auth: acme.member });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'WORKBOOK',
      deploymentId: d,
      name: 'Untitled workbook',
      folderId: null,
      folderPath: [],
      meta: {},
      calculatedFields: {},
      dashboardDraft: null,
      dashboardPublished: null,
      publishedDashboard: null,
      isFavorite: false,
      userId: acme.memberUserId,
      user: { id: acme.memberUserId, firstName: '', picture: '' },
    });
    expect(res.body.slug).toMatch(/^untitled-workbook-[a-z0-9]{8}$/);
    expect(await workbookRow(res.body.id)).toMatchObject({ slug: res.body.slug, deployment_id: d });
    expect(roundTrips(res)).toBe(2);
  });

  it('stores name, folder, slug, meta and calculated fields as given', async () => {
    const f = await folder(acme.member, d, { name: 'Sales' });
    const res = await api('POST', `${base(d)}/workbooks`, {
      auth: acme.member,
      body: {
        name: 'Pipeline',
        folderId: f.id,
        slug: 'pipeline-2026',
        meta: { color: 'red', nested: { a: [1, 2] } },
        calculatedFields: { margin: 'revenue - cost' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Pipeline',
      folderId: f.id,
      folderPath: [{ id: f.id, name: 'Sales' }],
      slug: 'pipeline-2026',
      meta: { color: 'red', nested: { a: [1, 2] } },
      calculatedFields: { margin: 'revenue - cost' },
    });
  });

  it('answers 409 for a slug another workbook of the deployment holds; other deployments may reuse it', async () => {
    await workbook(acme.member, d, { slug: 'taken' });
    expectError(
      await api('POST', `${base(d)}/workbooks`, { auth: acme.member, body: { slug: 'taken' } }),
      409,
      'CONFLICT',
    );
    expect(await count('SELECT 1 FROM workbooks WHERE slug = ?', 'taken')).toBe(1);
    const elsewhere = await workbook(acme.member, acme.deployments[1], { slug: 'taken' });
    expect(elsewhere.slug).toBe('taken');
  });

  it.each([
    [{ slug: 'Upper' }, 'slug'],
    [{ slug: 'with space' }, 'slug'],
    [{ slug: 'ümlaut' }, 'slug'],
    [{ slug: 'under_score' }, 'slug'],
    [{ slug: '' }, 'slug'],
    [{ slug: 'a'.repeat(101) }, 'slug'],
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(256) }, 'name'],
    [{ meta: [] }, 'meta'],
    [{ meta: 'x' }, 'meta'],
    [{ calculatedFields: 3 }, 'calculatedFields'],
    [{ folderId: -1 }, 'folderId'],
    [{ other: true }, 'other'],
  ])('rejects %j naming %s (slugs are never rewritten)', async (body, field) => {
    const res = await api('POST', `${base(d)}/workbooks`, { auth: acme.member, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((x: { path: string }) => x.path)).toContain(field);
  });

  it('rejects a body that is an array, not an object', async () => {
    const res = await api('POST', `${base(d)}/workbooks`, { auth: acme.member, body: [] });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe('(body)');
  });

  it('answers 404 for a folderId that is not a folder of the deployment', async () => {
    const wb = await workbook(acme.member, d);
    const otherDeploymentFolder = await folder(acme.member, acme.deployments[1], { name: 'f' });
    for (const folderId of [wb.id, otherDeploymentFolder.id, 99999]) {
      const res = await api('POST', `${base(d)}/workbooks`, { auth: acme.member, body: { folderId } });
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body.details[0].path).toBe('folderId');
    }
  });
});

describe('GET /workbooks/{id}', () => {
  it('answers the workbook and records the caller’s view time, per user', async () => {
    const wb = await workbook(acme.member, d);
    platform.clock = clockAt('2026-05-01T10:00:00.000Z');
    const first = await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member });
    expect(first.status).toBe(200);
    expect(first.body.viewerLastViewedAt).toBe('2026-05-01T10:00:00.000Z');
    expect(roundTrips(first)).toBe(2);
    platform.clock = clockAt('2026-05-02T10:00:00.000Z');
    const again = await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member });
    expect(again.body.viewerLastViewedAt).toBe('2026-05-02T10:00:00.000Z');
    const views = await env.DB.prepare('SELECT user_id, viewed_at FROM workspace_views WHERE item_id = ?')
      .bind(wb.id)
      .all();
    expect(views.results).toEqual([{ user_id: acme.memberUserId, viewed_at: '2026-05-02T10:00:00.000Z' }]);
    // Viewing does not count as an edit.
    expect(again.body.updatedAt).toBe(wb.updatedAt);
  });

  it('answers 404 for a folder id or unknown id and records no view', async () => {
    const f = await folder(acme.member, d, { name: 'f' });
    for (const id of [f.id, 5555555]) {
      expectError(await api('GET', `${base(d)}/workbooks/${id}`, { auth: acme.member }), 404, 'NOT_FOUND');
    }
    expect(await count('SELECT 1 FROM workspace_views WHERE item_id = ?', f.id)).toBe(0);
  });
});

describe('PUT /workbooks/{id}', () => {
  it('changes only the fields sent; meta replaces the stored object', async () => {
    const wb = await workbook(acme.member, d, { name: 'Old', meta: { a: 1, b: 2 }, slug: 'e3-old' });
    platform.clock = clockAt('2030-01-01T00:00:00.000Z');
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.admin,
      body: { meta: { c: 3 } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Old',
      slug: 'e3-old',
      meta: { c: 3 },
      updatedAt: '2030-01-01T00:00:00.000Z',
      updatedBy: acme.adminUserId,
      createdBy: acme.memberUserId,
    });
    expect(JSON.parse((await workbookRow(wb.id))?.meta)).toEqual({ c: 3 });
    const renamed = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { name: 'New', slug: 'e3-new' },
    });
    expect(renamed.body).toMatchObject({ name: 'New', slug: 'e3-new', meta: { c: 3 } });
    expect(await itemRow(wb.id)).toMatchObject({ name: 'New', name_key: 'new' });
    expect(roundTrips(renamed)).toBe(2);
  });

  it('moves to a folder and back to the root with folderId null', async () => {
    const f = await folder(acme.member, d, { name: 'Dest' });
    const wb = await workbook(acme.member, d);
    const moved = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { folderId: f.id },
    });
    expect(moved.body).toMatchObject({ folderId: f.id, folderPath: [{ id: f.id, name: 'Dest' }] });
    const root = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { folderId: null },
    });
    expect(root.body).toMatchObject({ folderId: null, folderPath: [] });
    expect((await itemRow(wb.id))?.folder_id).toBeNull();
  });

  it('keeping its own slug is not a conflict', async () => {
    const wb = await workbook(acme.member, d, { slug: 'mine' });
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { slug: 'mine' },
    });
    expect(res.status).toBe(200);
  });

  it('answers 409 for a slug another workbook holds, and changes nothing else', async () => {
    await workbook(acme.member, d, { slug: 'holder-slug' });
    const wb = await workbook(acme.member, d, { name: 'Keep me', slug: 'wants-it' });
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { slug: 'holder-slug', name: 'Renamed' },
    });
    expectError(res, 409, 'CONFLICT');
    expect(res.body.details[0].path).toBe('slug');
    expect((await itemRow(wb.id))?.name).toBe('Keep me');
    expect((await workbookRow(wb.id))?.slug).toBe('wants-it');
    const explicitNo = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { slug: 'holder-slug', slugTakeover: false },
    });
    expectError(explicitNo, 409, 'CONFLICT');
  });

  it('with slugTakeover takes the slug and gives the holder a new one, atomically', async () => {
    const holder = await workbook(acme.member, d, { slug: 'prized' });
    const wb = await workbook(acme.member, d, { slug: 'taker' });
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { slug: 'prized', slugTakeover: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.slug).toBe('prized');
    const holderSlug = (await workbookRow(holder.id))?.slug;
    expect(holderSlug).toMatch(/^prized-[a-z0-9]{8}$/);
    const got = await api('GET', `${base(d)}/workbooks/${holder.id}`, { auth: acme.member });
    expect(got.body.slug).toBe(holderSlug);
  });

  it('with slugTakeover and a free slug simply sets it', async () => {
    const wb = await workbook(acme.member, d);
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { slug: 'free-one', slugTakeover: true },
    });
    expect(res.body.slug).toBe('free-one');
  });

  // `{}`, `{slugTakeover: true}` and `{meta: null}` are not refused (Cube requires
  // nothing; null is "not sent"): they answer the workbook unchanged, see test/cube/workspace.test.ts.
  it.each([
    [{ slug: 'Bad Slug' }, 'slug'],
    [{ name: '' }, 'name'],
    [{ meta: [1] }, 'meta'],
    [{ folderId: 'root' }, 'folderId'],
    [{ slugTakeover: 'yes', slug: 'x' }, 'slugTakeover'],
    [{ calculatedFields: {} }, 'calculatedFields'],
  ])('rejects %j naming %s', async (body, field) => {
    const wb = await workbook(acme.member, d, { name: 'Untouched' });
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((x: { path: string }) => x.path)).toContain(field);
    expect((await itemRow(wb.id))?.name).toBe('Untouched');
  });

  it('answers 404 for an unknown workbook, a folder id, or a folder of another deployment', async () => {
    const f = await folder(acme.member, d, { name: 'x' });
    expectError(
      await api('PUT', `${base(d)}/workbooks/${f.id}`, { auth: acme.member, body: { name: 'y' } }),
      404,
      'NOT_FOUND',
    );
    expect((await itemRow(f.id))?.name).toBe('x');
    const wb = await workbook(acme.member, d);
    const foreign = await folder(acme.member, acme.deployments[1], { name: 'foreign' });
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}`, {
      auth: acme.member,
      body: { folderId: foreign.id, name: 'moved?' },
    });
    expectError(res, 404, 'NOT_FOUND');
    expect(await itemRow(wb.id)).toMatchObject({ folder_id: null, name: 'Untitled workbook' });
  });
});

describe('favourites', () => {
  it('PUT and DELETE set the caller’s isFavorite, idempotently and per user', async () => {
    const wb = await workbook(acme.member, d);
    const on = await api('PUT', `${base(d)}/workbooks/${wb.id}/favorite`, { auth: acme.member });
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: wb.id, isFavorite: true });
    expect(
      (await api('PUT', `${base(d)}/workbooks/${wb.id}/favorite`, { auth: acme.member })).body.isFavorite,
    ).toBe(true);
    expect(await count('SELECT 1 FROM workspace_favorites WHERE item_id = ?', wb.id)).toBe(1);
    const adminView = await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.admin });
    expect(adminView.body.isFavorite).toBe(false);
    const off = await api('DELETE', `${base(d)}/workbooks/${wb.id}/favorite`, { auth: acme.member });
    expect(off.body.isFavorite).toBe(false);
    expect(
      (await api('DELETE', `${base(d)}/workbooks/${wb.id}/favorite`, { auth: acme.member })).status,
    ).toBe(200);
    expect(await count('SELECT 1 FROM workspace_favorites WHERE item_id = ?', wb.id)).toBe(0);
    // Favouring is not an edit.
    expect(off.body.updatedAt).toBe(wb.updatedAt);
  });

  it('answers 404 for a folder or unknown id and stores nothing', async () => {
    const f = await folder(acme.member, d, { name: 'not a workbook' });
    for (const id of [f.id, 8888888]) {
      expectError(
        await api('PUT', `${base(d)}/workbooks/${id}/favorite`, { auth: acme.member }),
        404,
        'NOT_FOUND',
      );
      expectError(
        await api('DELETE', `${base(d)}/workbooks/${id}/favorite`, { auth: acme.member }),
        404,
        'NOT_FOUND',
      );
    }
    expect(await count('SELECT 1 FROM workspace_favorites WHERE item_id = ?', f.id)).toBe(0);
  });
});

describe('DELETE /workbooks/{id}', () => {
  it('deletes the workbook with its detail, favourites and views; its reports stay, detached', async () => {
    const wb = await workbook(acme.member, d);
    await api('PUT', `${base(d)}/workbooks/${wb.id}/favorite`, { auth: acme.member });
    await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member });
    const rp = await api('POST', `${base(d)}/reports`, {
      auth: acme.member,
      body: { name: 'R', workbookId: wb.id },
    });
    const res = await api('DELETE', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: wb.id, deleted: true });
    expect(await itemRow(wb.id)).toBeNull();
    expect(await workbookRow(wb.id)).toBeNull();
    expect(await count('SELECT 1 FROM workspace_favorites WHERE item_id = ?', wb.id)).toBe(0);
    expect(await count('SELECT 1 FROM workspace_views WHERE item_id = ?', wb.id)).toBe(0);
    const r = await api('GET', `${base(d)}/reports/${rp.body.id}`, { auth: acme.member });
    expect(r.body.workbookId).toBeNull();
    expectError(await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member }), 404, 'NOT_FOUND');
    expectError(
      await api('DELETE', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member }),
      404,
      'NOT_FOUND',
    );
  });

  it('answers 404 for a folder id and keeps the folder', async () => {
    const f = await folder(acme.member, d, { name: 'stay' });
    expectError(await api('DELETE', `${base(d)}/workbooks/${f.id}`, { auth: acme.member }), 404, 'NOT_FOUND');
    expect(await itemRow(f.id)).not.toBeNull();
  });
});
