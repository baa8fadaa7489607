import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { base, count, folder, itemRow, report, roundTrips, workbook } from './helpers';

let acme: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
});

describe('POST /folders', () => {
  it('creates a root folder and answers the Folder with its path and owner', async () => {
    const res = await api('POST', `${base(d)}/folders`, { auth: acme.member, body: { name: '  Finance  ' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'FOLDER',
      deploymentId: d,
      name: 'Finance',
      parentId: null,
      folderPath: [],
      createdBy: acme.memberUserId,
      updatedBy: acme.memberUserId,
      userId: acme.memberUserId,
      user: { id: acme.memberUserId, email: expect.stringContaining('@') },
      isFavorite: false,
      viewerLastViewedAt: null,
    });
    expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const row = await itemRow(res.body.id);
    expect(row).toMatchObject({ type: 'FOLDER', name: 'Finance', name_key: 'finance', folder_id: null });
    expect(roundTrips(res)).toBe(2);
  });

  it('nests folders and computes folderPath root first', async () => {
    const a = await folder(acme.member, d, { name: 'A' });
    const b = await folder(acme.member, d, { name: 'B', parentId: a.id });
    const c = await folder(acme.member, d, { name: 'C', parentId: b.id });
    expect(c.parentId).toBe(b.id);
    expect(c.folderPath).toEqual([
      { id: a.id, name: 'A' },
      { id: b.id, name: 'B' },
    ]);
  });

  it('places a folder after its sibling folders unless a position is given', async () => {
    const parent = await folder(acme.member, d, { name: 'Positions' });
    const first = await folder(acme.member, d, { name: 'p1', parentId: parent.id });
    const second = await folder(acme.member, d, { name: 'p2', parentId: parent.id });
    const explicit = await folder(acme.member, d, { name: 'p3', parentId: parent.id, position: 42 });
    const after = await folder(acme.member, d, { name: 'p4', parentId: parent.id });
    expect([first.position, second.position, explicit.position, after.position]).toEqual([0, 1, 42, 43]);
  });

  it('refuses a folder deeper than 10 levels with 400, and 10 levels is fine', async () => {
    let parentId: number | null = null;
    for (let level = 1; level <= 10; level++) {
      const f: { id: number } = await folder(acme.member, d, { name: `L${level}`, parentId });
      parentId = f.id;
    }
    const tooDeep = await api('POST', `${base(d)}/folders`, {
      auth: acme.member,
      body: { name: 'L11', parentId },
    });
    expectError(tooDeep, 400, 'BAD_REQUEST');
    expect(tooDeep.body.details[0].path).toBe('parentId');
    expect(await count('SELECT 1 FROM workspace_items WHERE name = ?', 'L11')).toBe(0);
    // Workbooks may still live in the deepest folder.
    const wb = await workbook(acme.member, d, { folderId: parentId });
    expect(wb.folderPath).toHaveLength(10);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: 7 }, 'name'],
    [{ name: 'ok', position: -1 }, 'position'],
    [{ name: 'ok', position: 1.5 }, 'position'],
    [{ name: 'ok', position: '1' }, 'position'],
    [{ name: 'ok', parentId: 0 }, 'parentId'],
    [{ name: 'ok', parentId: 'x' }, 'parentId'],
    [{ name: 'ok', surprise: 1 }, 'surprise'],
  ])('rejects %j naming %s', async (body, field) => {
    const res = await api('POST', `${base(d)}/folders`, { auth: acme.member, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((x: { path: string }) => x.path)).toContain(field);
  });

  it('accepts a name of exactly 255 characters', async () => {
    const f = await folder(acme.member, d, { name: 'n'.repeat(255) });
    expect(f.name).toHaveLength(255);
  });

  it('answers 404 for a parent that is not a folder of this deployment', async () => {
    const wb = await workbook(acme.member, d);
    const elsewhere = await folder(acme.member, acme.deployments[1], { name: 'Other deployment' });
    for (const parentId of [wb.id, elsewhere.id, 999999]) {
      const res = await api('POST', `${base(d)}/folders`, {
        auth: acme.member,
        body: { name: 'x', parentId },
      });
      expectError(res, 404, 'NOT_FOUND');
    }
  });
});

describe('GET /folders/{id}', () => {
  it('answers the folder and records the caller’s view', async () => {
    const f = await folder(acme.member, d, { name: 'Viewed' });
    const res = await api('GET', `${base(d)}/folders/${f.id}`, { auth: acme.admin });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(f.id);
    expect(res.body.viewerLastViewedAt).toMatch(/Z$/);
    expect(
      await count('SELECT 1 FROM workspace_views WHERE item_id = ? AND user_id = ?', f.id, acme.adminUserId),
    ).toBe(1);
    // Another user has not viewed it.
    const mine = await api('GET', `${base(d)}/workspace?types=FOLDER&first=100`, { auth: acme.member });
    expect(mine.body.items.find((i: { id: number }) => i.id === f.id).viewerLastViewedAt).toBeNull();
  });

  it('answers 404 for a workbook id, an unknown id and an id of the other deployment', async () => {
    const wb = await workbook(acme.member, d);
    const other = await folder(acme.member, acme.deployments[1], { name: 'x' });
    for (const id of [wb.id, 424242, other.id]) {
      expectError(await api('GET', `${base(d)}/folders/${id}`, { auth: acme.member }), 404, 'NOT_FOUND');
    }
    expectError(await api('GET', `${base(d)}/folders/abc`, { auth: acme.member }), 400, 'VALIDATION_FAILED');
  });
});

describe('PUT /folders/{id}', () => {
  it('renames and repositions, changing only what is sent', async () => {
    const f = await folder(acme.member, d, { name: 'Before', position: 3 });
    const renamed = await api('PUT', `${base(d)}/folders/${f.id}`, {
      auth: acme.admin,
      body: { name: 'After' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'After', position: 3, updatedBy: acme.adminUserId });
    const moved = await api('PUT', `${base(d)}/folders/${f.id}`, {
      auth: acme.member,
      body: { position: 0 },
    });
    expect(moved.body).toMatchObject({ name: 'After', position: 0 });
    expect(await itemRow(f.id)).toMatchObject({ name: 'After', name_key: 'after', position: 0 });
    expect(roundTrips(moved)).toBe(2);
  });

  // `{}` is not refused (Cube requires nothing): test/cube/workspace.test.ts.
  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'y'.repeat(256) }, 'name'],
    [{ position: -5 }, 'position'],
    [{ position: 2.5 }, 'position'],
    [{ parentId: 1 }, 'parentId'],
  ])('rejects %j naming %s', async (body, field) => {
    const f = await folder(acme.member, d, { name: 'Stable' });
    const res = await api('PUT', `${base(d)}/folders/${f.id}`, { auth: acme.member, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((x: { path: string }) => x.path)).toContain(field);
    expect((await itemRow(f.id))?.name).toBe('Stable');
  });

  it('answers 404 for a workbook id or an unknown folder', async () => {
    const wb = await workbook(acme.member, d, { name: 'not a folder' });
    for (const id of [wb.id, 777777]) {
      const res = await api('PUT', `${base(d)}/folders/${id}`, { auth: acme.member, body: { name: 'x' } });
      expectError(res, 404, 'NOT_FOUND');
    }
    expect((await itemRow(wb.id))?.name).toBe('not a folder');
  });
});

describe('DELETE /folders/{id}', () => {
  it('moves the folder’s workbooks and reports to its parent, then deletes it', async () => {
    const parent = await folder(acme.member, d, { name: 'Parent' });
    const doomed = await folder(acme.member, d, { name: 'Doomed', parentId: parent.id });
    const wb = await workbook(acme.member, d, { folderId: doomed.id });
    const rp = await report(acme.member, d, { name: 'R', folderId: doomed.id });
    const res = await api('DELETE', `${base(d)}/folders/${doomed.id}`, { auth: acme.member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: doomed.id, deleted: true });
    expect(await itemRow(doomed.id)).toBeNull();
    expect((await itemRow(wb.id))?.folder_id).toBe(parent.id);
    expect((await itemRow(rp.id))?.folder_id).toBe(parent.id);
    const got = await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member });
    expect(got.body.folderPath).toEqual([{ id: parent.id, name: 'Parent' }]);
  });

  it('moves the contents of a root-level folder to the root', async () => {
    const doomed = await folder(acme.member, d, { name: 'Root doomed' });
    const wb = await workbook(acme.member, d, { folderId: doomed.id });
    expect((await api('DELETE', `${base(d)}/folders/${doomed.id}`, { auth: acme.member })).status).toBe(200);
    expect((await itemRow(wb.id))?.folder_id).toBeNull();
  });

  it('answers 409 for a folder holding sub-folders and changes nothing', async () => {
    const top = await folder(acme.member, d, { name: 'Top' });
    const sub = await folder(acme.member, d, { name: 'Sub', parentId: top.id });
    const wb = await workbook(acme.member, d, { folderId: top.id });
    const res = await api('DELETE', `${base(d)}/folders/${top.id}`, { auth: acme.member });
    expectError(res, 409, 'CONFLICT');
    expect(await itemRow(top.id)).not.toBeNull();
    expect((await itemRow(sub.id))?.folder_id).toBe(top.id);
    expect((await itemRow(wb.id))?.folder_id).toBe(top.id);
  });

  it('answers 404 for a workbook id, an unknown id, and a second delete', async () => {
    const wb = await workbook(acme.member, d);
    expectError(await api('DELETE', `${base(d)}/folders/${wb.id}`, { auth: acme.member }), 404, 'NOT_FOUND');
    expect(await itemRow(wb.id)).not.toBeNull();
    const f = await folder(acme.member, d, { name: 'twice' });
    expect((await api('DELETE', `${base(d)}/folders/${f.id}`, { auth: acme.member })).status).toBe(200);
    expectError(await api('DELETE', `${base(d)}/folders/${f.id}`, { auth: acme.member }), 404, 'NOT_FOUND');
  });
});
