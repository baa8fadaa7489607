import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { base, folder, itemRow, report, roundTrips, workbook } from './helpers';

let acme: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
});

const move = (body: unknown) => api('POST', `${base(d)}/workspace/move`, { auth: acme.member, body });

describe('POST /workspace/move', () => {
  it('moves a workbook into a folder and answers the workspace item with its new path', async () => {
    const f = await folder(acme.member, d, { name: 'Dest' });
    const wb = await workbook(acme.member, d, { name: 'Mover' });
    platform.clock = clockAt('2031-02-03T04:05:06.000Z');
    const res = await move({ id: wb.id, folderId: f.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: wb.id,
      type: 'WORKBOOK',
      folderId: f.id,
      folderPath: [{ id: f.id, name: 'Dest' }],
      slug: wb.slug,
      updatedAt: '2031-02-03T04:05:06.000Z',
      updatedBy: acme.memberUserId,
    });
    expect((await itemRow(wb.id))?.folder_id).toBe(f.id);
    expect(roundTrips(res)).toBe(2);
  });

  it('moves reports and folders (with their contents) by id, with or without a matching type', async () => {
    const a = await folder(acme.member, d, { name: 'A' });
    const b = await folder(acme.member, d, { name: 'B' });
    const inner = await workbook(acme.member, d, { folderId: b.id });
    const rp = await report(acme.member, d, { name: 'R' });
    const movedReport = await move({ id: rp.id, folderId: a.id, type: 'REPORT' });
    expect(movedReport.body).toMatchObject({ type: 'REPORT', folderId: a.id });
    const movedFolder = await move({ id: b.id, folderId: a.id, type: 'FOLDER' });
    expect(movedFolder.body).toMatchObject({
      type: 'FOLDER',
      folderId: a.id,
      folderPath: [{ id: a.id, name: 'A' }],
    });
    const got = await api('GET', `${base(d)}/workbooks/${inner.id}`, { auth: acme.member });
    expect(got.body.folderPath).toEqual([
      { id: a.id, name: 'A' },
      { id: b.id, name: 'B' },
    ]);
  });

  it('moves to the root when folderId is null or omitted', async () => {
    const f = await folder(acme.member, d, { name: 'Src' });
    const one = await workbook(acme.member, d, { folderId: f.id });
    const two = await report(acme.member, d, { name: 'R', folderId: f.id });
    expect((await move({ id: one.id, folderId: null })).body).toMatchObject({
      folderId: null,
      folderPath: [],
    });
    expect((await move({ id: two.id })).body).toMatchObject({ folderId: null, folderPath: [] });
    expect((await itemRow(one.id))?.folder_id).toBeNull();
    expect((await itemRow(two.id))?.folder_id).toBeNull();
  });

  it('answers 400 when the type does not match the item, and moves nothing', async () => {
    const f = await folder(acme.member, d, { name: 'T' });
    const wb = await workbook(acme.member, d);
    const res = await move({ id: wb.id, folderId: f.id, type: 'REPORT' });
    expectError(res, 400, 'BAD_REQUEST');
    expect(res.body.details[0].path).toBe('type');
    expect((await itemRow(wb.id))?.folder_id).toBeNull();
  });

  it('answers 400 for moving a folder into itself or a descendant', async () => {
    const top = await folder(acme.member, d, { name: 'Top' });
    const mid = await folder(acme.member, d, { name: 'Mid', parentId: top.id });
    const low = await folder(acme.member, d, { name: 'Low', parentId: mid.id });
    for (const target of [top.id, mid.id, low.id]) {
      const res = await move({ id: top.id, folderId: target });
      expectError(res, 400, 'BAD_REQUEST');
      expect(res.body.details[0].path).toBe('folderId');
    }
    expect((await itemRow(top.id))?.folder_id).toBeNull();
    // Moving the middle folder up to the root is fine.
    expect((await move({ id: mid.id, folderId: null })).status).toBe(200);
  });

  it('answers 400 when a folder subtree would end up deeper than 10 levels', async () => {
    let parentId: number | null = null;
    const chain: number[] = [];
    for (let level = 1; level <= 8; level++) {
      const f: { id: number } = await folder(acme.member, d, { name: `deep${level}`, parentId });
      chain.push(f.id);
      parentId = f.id;
    }
    // A two-level subtree fits under level 8 (levels 9 and 10) …
    const sub = await folder(acme.member, d, { name: 'sub' });
    const subChild = await folder(acme.member, d, { name: 'subChild', parentId: sub.id });
    expect((await move({ id: sub.id, folderId: chain[7] })).status).toBe(200);
    // … but not one level lower.
    expect((await move({ id: sub.id, folderId: null })).status).toBe(200);
    const level9 = await folder(acme.member, d, { name: 'deep9', parentId: chain[7] });
    const res = await move({ id: sub.id, folderId: level9.id });
    expectError(res, 400, 'BAD_REQUEST');
    expect((await itemRow(sub.id))?.folder_id).toBeNull();
    expect((await itemRow(subChild.id))?.folder_id).toBe(sub.id);
    // A workbook can go anywhere.
    const wb = await workbook(acme.member, d);
    expect((await move({ id: wb.id, folderId: level9.id })).status).toBe(200);
  });

  it('answers 404 for an unknown item, a target that is not a folder, or one of another deployment', async () => {
    const wb = await workbook(acme.member, d);
    const otherWb = await workbook(acme.member, d);
    const foreignFolder = await folder(acme.member, acme.deployments[1], { name: 'Elsewhere' });
    const foreignItem = await workbook(acme.member, acme.deployments[1]);
    for (const body of [
      { id: 987654, folderId: null },
      { id: foreignItem.id },
      { id: wb.id, folderId: foreignFolder.id },
      { id: wb.id, folderId: otherWb.id },
      { id: wb.id, folderId: 999999 },
    ]) {
      expectError(await move(body), 404, 'NOT_FOUND');
    }
    expect((await itemRow(wb.id))?.folder_id).toBeNull();
    expect((await itemRow(foreignItem.id))?.folder_id).toBeNull();
  });

  it.each([
    [{}, 'id'],
    [{ id: 'one' }, 'id'],
    [{ id: 0 }, 'id'],
    [{ id: 1.5 }, 'id'],
    [{ id: 1, folderId: 'root' }, 'folderId'],
    [{ id: 1, type: 'DASHBOARD' }, 'type'],
    [{ id: 1, parentId: 2 }, 'parentId'],
  ])('rejects %j naming %s', async (body, field) => {
    const res = await move(body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((x: { path: string }) => x.path)).toContain(field);
  });
});
