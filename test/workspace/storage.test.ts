import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { base, count, draft, report, workbook } from './helpers';

let acme: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
});

const publish = (id: number) => api('POST', `${base(d)}/workbooks/${id}/publish`, { auth: acme.member });
const contents = (reportId: number) => count('SELECT 1 FROM snapshot_contents WHERE report_id = ?', reportId);

describe('content-addressed report snapshots', () => {
  it('stores a report version once however often it is published; a change adds one copy', async () => {
    const wb = await workbook(acme.member, d);
    const r1 = await report(acme.member, d, { name: 'A', workbookId: wb.id, sqlQuery: 'x'.repeat(50_000) });
    const r2 = await report(acme.member, d, { name: 'B', workbookId: wb.id });
    await api('PUT', `${base(d)}/workbooks/${wb.id}/dashboard`, {
      auth: acme.member,
      body: { dashboardDraft: draft(1) },
    });
    for (let i = 0; i < 3; i++) expect((await publish(wb.id)).status).toBe(200);
    expect(await contents(r1.id)).toBe(1);
    expect(await contents(r2.id)).toBe(1);
    expect(
      await count(
        'SELECT 1 FROM report_snapshots rs JOIN snapshot_contents sc ON sc.id = rs.content_id WHERE sc.report_id = ?',
        r1.id,
      ),
    ).toBe(3);

    await api('PUT', `${base(d)}/reports/${r1.id}`, { auth: acme.member, body: { title: 'changed' } });
    const fourth = await publish(wb.id);
    expect(fourth.body.reportSnapshots.map((s: { title: string }) => s.title)).toEqual(['changed', '']);
    expect(await contents(r1.id)).toBe(2);
    expect(await contents(r2.id)).toBe(1);

    // Every version still answers its own frozen content.
    const first = await api('GET', `${base(d)}/workbooks/${wb.id}/dashboard/versions/1`, {
      auth: acme.member,
    });
    expect(first.body.reportSnapshots[0]).toMatchObject({ reportId: r1.id, title: '', versionNumber: 1 });
    expect(first.body.reportSnapshots[0].sqlQuery).toHaveLength(50_000);

    // Deleting the workbook releases the contents no version links to any more.
    expect((await api('DELETE', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member })).status).toBe(200);
    expect(await contents(r1.id)).toBe(0);
    expect(await contents(r2.id)).toBe(0);
  });

  it('adds no copy for a change a snapshot does not freeze (placement) nor an empty upsert', async () => {
    const wb = await workbook(acme.member, d);
    const r = await report(acme.member, d, { name: 'Q', workbookId: wb.id, sqlQuery: 'y'.repeat(20_000) });
    await api('PUT', `${base(d)}/workbooks/${wb.id}/dashboard`, {
      auth: acme.member,
      body: { dashboardDraft: draft(1) },
    });
    expect((await publish(wb.id)).status).toBe(200);
    const edited = await api('PUT', `${base(d)}/reports/${r.id}`, {
      auth: acme.member,
      body: { resultLocation: 'B2', externalWorkbookId: 'sheet-1' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.versionNumber).toBe(1);
    const upsert = await api('PUT', `${base(d)}/reports/by-public-id/${r.publicId}`, {
      auth: acme.member,
      body: {},
    });
    expect(upsert.status).toBe(200);
    expect(upsert.body.versionNumber).toBe(1);
    expect(upsert.body.updatedAt).toBe(edited.body.updatedAt);
    expect((await publish(wb.id)).status).toBe(200);
    expect(await contents(r.id)).toBe(1);
  });
});
