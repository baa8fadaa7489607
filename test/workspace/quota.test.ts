import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { base, count, draft, report, workbook } from './helpers';

let acme: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
});

/** The operator sets the account's storedBytesLimit; the answer carries the usage too. */
const setLimit = (bytes: number) =>
  api('PATCH', `/admin/v1/accounts/${acme.accountId}`, { auth: OPERATOR, body: { storedBytesLimit: bytes } });
const stored = async () =>
  (
    await env.DB.prepare('SELECT stored_bytes FROM accounts WHERE id = ?')
      .bind(acme.accountId)
      .first<{ stored_bytes: number }>()
  )?.stored_bytes ?? -1;

const putDraft = (id: number, config: unknown) =>
  api('PUT', `${base(d)}/workbooks/${id}/dashboard`, { auth: acme.member, body: { dashboardDraft: config } });

describe('stored bytes per account', () => {
  it('counts workbook, report, draft and version bytes as they are written and deleted', async () => {
    const start = await stored();
    const wb = await workbook(acme.member, d, { meta: { note: 'x'.repeat(1000) } });
    const afterWorkbook = await stored();
    expect(afterWorkbook - start).toBeGreaterThan(1000);
    const r = await report(acme.member, d, { name: 'r', workbookId: wb.id, sqlQuery: 'q'.repeat(2000) });
    expect((await stored()) - afterWorkbook).toBeGreaterThan(2000);
    expect((await putDraft(wb.id, draft(2))).status).toBe(200);
    const beforePublish = await stored();
    expect((await api('POST', `${base(d)}/workbooks/${wb.id}/publish`, { auth: acme.member })).status).toBe(
      200,
    );
    const afterPublish = await stored();
    expect(afterPublish - beforePublish).toBeGreaterThan(2000);
    // Republishing unchanged reports adds the config copy only.
    expect((await api('POST', `${base(d)}/workbooks/${wb.id}/publish`, { auth: acme.member })).status).toBe(
      200,
    );
    expect((await stored()) - afterPublish).toBeLessThan(2000);

    expect((await api('DELETE', `${base(d)}/reports/${r.id}`, { auth: acme.member })).status).toBe(200);
    expect((await api('DELETE', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member })).status).toBe(200);
    expect(await stored()).toBe(start);
  });

  it('answers 429 QUOTA_EXCEEDED past the quota and stores nothing; deletes still go through', async () => {
    const wb = await workbook(acme.member, d);
    expect((await putDraft(wb.id, draft(1))).status).toBe(200);
    const before = await stored();
    const usage = await setLimit(before + 5000);
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ storedBytes: before, storedBytesLimit: before + 5000 });

    const big = { ...draft(1), description: 'd'.repeat(8000) };
    expectError(await putDraft(wb.id, big), 429, 'QUOTA_EXCEEDED');
    const row = await env.DB.prepare('SELECT dashboard_draft FROM workbooks WHERE item_id = ?')
      .bind(wb.id)
      .first<{ dashboard_draft: string }>();
    expect(JSON.parse(row?.dashboard_draft ?? 'null')).toEqual(draft(1));
    expect(await stored()).toBe(before);

    const created = await api('POST', `${base(d)}/reports`, {
      auth: acme.member,
      body: { name: 'too big', spec: 's'.repeat(6000) },
    });
    expectError(created, 429, 'QUOTA_EXCEEDED');
    expect(await count("SELECT 1 FROM workspace_items WHERE name = 'too big'")).toBe(0);

    await report(acme.member, d, { name: 'big', workbookId: wb.id, spec: 's'.repeat(4000) });
    expectError(
      await api('POST', `${base(d)}/workbooks/${wb.id}/publish`, { auth: acme.member }),
      429,
      'QUOTA_EXCEEDED',
    );
    expect(await count('SELECT 1 FROM published_dashboards WHERE workbook_id = ?', wb.id)).toBe(0);

    expect((await api('DELETE', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member })).status).toBe(200);
    expect(await stored()).toBeLessThan(before + 5000);

    const account = await api('GET', `/admin/v1/accounts/${acme.accountId}`, { auth: OPERATOR });
    expect(account.body).toMatchObject({ storedBytes: await stored(), storedBytesLimit: before + 5000 });
  });
});
