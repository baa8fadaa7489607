import { beforeAll, describe, expect, it } from 'vitest';
import { mintOk } from '../embedding/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { type ApiResponse, type Auth, api } from '../helpers/http';
import { routedDb } from '../helpers/shards';
import { base, draft, folder, report, workbook } from './helpers';

/**
 * What is shared with embed users, through HTTP: per-tenant shares (updateEmbedAccess with
 * embedTenantName), the shared workspace an embed session lists (sharedWorkspaceObjects) and the
 * workbooks an embed tenant can see (listEmbedTenantWorkbooks). After the writes, the stored
 * shared_workspace_items (kept by triggers) is compared with what the shares imply.
 */

const rowsRead = (res: ApiResponse) => Number(res.headers.get('x-d1-rows-read'));

async function ok(res: Promise<ApiResponse> | ApiResponse, status = 200) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body;
}

/** A workspace to share from: helpers bound to one account and deployment. */
function workspaceOf(account: SeededAccount, d = account.deployments[0]) {
  const b = base(d);
  const admin = account.admin;
  return {
    d,
    b,
    /** A published workbook (in `folderId`, else at the root). */
    async published(name: string, folderId: number | null = null) {
      const wb = await workbook(admin, d, { name, folderId });
      const pub = await ok(
        api('POST', `${b}/workbooks/${wb.id}/publish`, { auth: admin, body: { config: draft(1) } }),
      );
      return { id: wb.id as number, publicId: pub.publicId as string };
    },
    folder: async (name: string, parentId: number | null = null) =>
      (await folder(admin, d, { name, parentId })).id as number,
    access: (id: number, body: Record<string, unknown>, auth: Auth = admin) =>
      api('PUT', `${b}/workbooks/${id}/embed-access`, { auth, body }),
    share: async (id: number, target: string) =>
      ok(
        api('PUT', `${b}/workbooks/${id}/embed-access`, {
          auth: admin,
          body:
            target === 'all'
              ? { allEmbedUsers: true, action: 'read' }
              : { embedTenantName: target, action: 'read' },
        }),
      ),
    /** A session of an external user of `tenant` (the tenant is created by its first session). */
    session: (tenant: string, extra: Record<string, unknown> = {}) =>
      mintOk(account.key, {
        deploymentId: d,
        externalId: `user-of-${tenant}`,
        embedTenantName: tenant,
        ...extra,
      }),
    shared: (session: string, query = '') =>
      api('GET', `${b}/shared-workspace${query}`, { auth: { session } }),
    tenantWorkbooks: (tenant: string, query = '', auth: Auth = admin) =>
      api('GET', `${b}/embed-tenants/${tenant}/workbooks${query}`, { auth }),
  };
}

const names = (res: ApiResponse) => (res.body.items as { name: string }[]).map((i) => i.name);

/** shared_workspace_items holds exactly what the shares imply, with current copies of each item's keys. */
async function expectConsistentReach() {
  const expected = await routedDb
    .prepare(
      `WITH RECURSIVE shares(audience, w) AS (
        SELECT tenant_id, workbook_id FROM embed_tenant_shares
        UNION ALL SELECT 0, workbook_id FROM published_dashboards WHERE all_embed_users = 1),
      up(audience, item) AS (
        SELECT s.audience, i.folder_id FROM shares s JOIN workspace_items i ON i.id = s.w WHERE i.folder_id IS NOT NULL
        UNION ALL
        SELECT up.audience, f.folder_id FROM up JOIN workspace_items f ON f.id = up.item WHERE f.folder_id IS NOT NULL)
    SELECT audience, item, max(shared) AS shared, sum(nested) AS nested FROM (
      SELECT audience, w AS item, 1 AS shared, 0 AS nested FROM shares
      UNION ALL SELECT audience, item, 0, 1 FROM up)
    GROUP BY audience, item ORDER BY audience, item`,
    )
    .all();
  const actual = await routedDb
    .prepare(
      `SELECT audience_id AS audience, item_id AS item, shared, nested FROM shared_workspace_items
     ORDER BY audience_id, item_id`,
    )
    .all();
  expect(actual.results).toEqual(expected.results);
  const stale = await routedDb
    .prepare(
      `SELECT count(*) AS n FROM shared_workspace_items s JOIN workspace_items i ON i.id = s.item_id
     WHERE s.folder_id IS NOT i.folder_id OR s.name_key <> i.name_key OR s.updated_at <> i.updated_at
       OR s.created_at <> i.created_at OR s.type <> i.type OR s.deployment_id <> i.deployment_id`,
    )
    .first<{ n: number }>();
  expect(stale?.n).toBe(0);
}

describe('updateEmbedAccess with embedTenantName: sharing with one embed tenant', () => {
  let acme: SeededAccount;
  let other: SeededAccount;
  let ws: ReturnType<typeof workspaceOf>;
  let tenantId: number;

  beforeAll(async () => {
    acme = await seedAccount();
    other = await seedAccount();
    ws = workspaceOf(acme);
    await ws.session('tenant-one');
    await ws.session('tenant-two');
    await workspaceOf(other).session('tenant-elsewhere');
    const row = await routedDb
      .prepare('SELECT id FROM embed_tenants WHERE account_id = ? AND name = ?')
      .bind(acme.accountId, 'tenant-one')
      .first<{ id: number }>();
    tenantId = row?.id as number;
  });

  it('shares, lists the tenant (groupId: its id) and unshares; repeating either changes nothing', async () => {
    const wb = await ws.published('Board');
    const shared = await ok(
      ws.access(wb.id, { embedTenantName: 'tenant-one', action: 'read', allowEmbed: true }),
    );
    expect(shared).toEqual({
      allowEmbed: true,
      allEmbedUsers: { enabled: false, action: 'none', groupId: null },
      tenants: [{ embedTenantName: 'tenant-one', groupId: tenantId, action: 'read' }],
    });
    expect(await ok(ws.access(wb.id, { embedTenantName: 'tenant-one', action: 'read' }))).toEqual(shared);
    await ok(ws.access(wb.id, { embedTenantName: 'tenant-two', action: 'read' }));
    const both = await ok(api('GET', `${ws.b}/workbooks/${wb.id}/embed-access`, { auth: acme.key }));
    expect(both.tenants.map((t: { embedTenantName: string }) => t.embedTenantName)).toEqual([
      'tenant-one',
      'tenant-two',
    ]);
    const rows = await routedDb
      .prepare('SELECT tenant_id, deployment_id FROM embed_tenant_shares WHERE workbook_id = ?')
      .bind(wb.id)
      .all();
    expect(rows.results).toHaveLength(2);
    expect(rows.results).toContainEqual({ tenant_id: tenantId, deployment_id: ws.d });

    const unshared = await ok(ws.access(wb.id, { embedTenantName: 'tenant-one', action: 'none' }));
    expect(unshared.tenants.map((t: { embedTenantName: string }) => t.embedTenantName)).toEqual([
      'tenant-two',
    ]);
    expect(await ok(ws.access(wb.id, { embedTenantName: 'tenant-one', action: 'none' }))).toEqual(unshared);
    await expectConsistentReach();
  });

  it('an unknown tenant (or another account’s) is a 404, and nothing of the request is written', async () => {
    const wb = await ws.published('Unknown tenant');
    for (const name of ['tenant-nobody', 'tenant-elsewhere', 'TENANT-ONE']) {
      const res = await ws.access(wb.id, { embedTenantName: name, action: 'read', allowEmbed: true });
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body.error).toBe('Embed tenant not found');
    }
    const after = await ok(api('GET', `${ws.b}/workbooks/${wb.id}/embed-access`, { auth: acme.admin }));
    expect(after).toMatchObject({ allowEmbed: false, tenants: [] });
  });

  it('needs a published dashboard (400), one target (400) and action (400); writes nothing then', async () => {
    const draftOnly = await workbook(acme.admin, ws.d, { name: 'Draft only' });
    const unpublished = await ws.access(draftOnly.id, { embedTenantName: 'tenant-one', action: 'read' });
    expectError(unpublished, 400, 'BAD_REQUEST');
    expect(unpublished.body.details[0].path).toBe('embedTenantName');
    const wb = await ws.published('Targets');
    const twoTargets = await ws.access(wb.id, {
      embedTenantName: 'tenant-one',
      allEmbedUsers: true,
      action: 'read',
      allowEmbed: true,
    });
    expectError(twoTargets, 400, 'VALIDATION_FAILED');
    expect(twoTargets.body.details[0].path).toBe('embedTenantName');
    const noAction = await ws.access(wb.id, { embedTenantName: 'tenant-one' });
    expectError(noAction, 400, 'VALIDATION_FAILED');
    expect(noAction.body.details[0].path).toBe('action');
    const count = await routedDb
      .prepare('SELECT count(*) AS n FROM embed_tenant_shares WHERE workbook_id IN (?, ?)')
      .bind(draftOnly.id, wb.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
    expect(
      await ok(api('GET', `${ws.b}/workbooks/${wb.id}/embed-access`, { auth: acme.admin })),
    ).toMatchObject({
      allowEmbed: false,
    });
  });

  it('is for admins; another account’s or deployment’s workbook is a 404', async () => {
    const wb = await ws.published('Guarded');
    expectError(await ws.access(wb.id, { embedTenantName: 'tenant-one', action: 'read' }, acme.member), 403);
    const otherWs = workspaceOf(other);
    expectError(
      await otherWs.access(wb.id, { embedTenantName: 'tenant-elsewhere', action: 'read' }, other.admin),
      404,
    );
    const staging = workspaceOf(acme, acme.deployments[1]);
    expectError(await staging.access(wb.id, { embedTenantName: 'tenant-one', action: 'read' }), 404);
    const count = await routedDb
      .prepare('SELECT count(*) AS n FROM embed_tenant_shares WHERE workbook_id = ?')
      .bind(wb.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it('shares a workbook with at most 100 tenants: the 101st is a 409 and nothing is written', async () => {
    const wb = await ws.published('Popular');
    // 100 tenants already sharing it, written straight to D1 (the triggers keep the rest).
    await routedDb
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
       INSERT INTO embed_tenants (account_id, name, created_at) SELECT ?, 'bulk-tenant-' || i, '2026-01-01' FROM n`,
      )
      .bind(acme.accountId)
      .run();
    await routedDb
      .prepare(
        `INSERT INTO embed_tenant_shares (workbook_id, tenant_id, deployment_id, created_at)
       SELECT ?, id, ?, '2026-01-01' FROM embed_tenants WHERE account_id = ? AND name LIKE 'bulk-tenant-%'`,
      )
      .bind(wb.id, ws.d, acme.accountId)
      .run();
    const full = await ws.access(wb.id, { embedTenantName: 'tenant-one', action: 'read', allowEmbed: true });
    expectError(full, 409, 'CONFLICT');
    const after = await ok(api('GET', `${ws.b}/workbooks/${wb.id}/embed-access`, { auth: acme.admin }));
    expect(after.allowEmbed).toBe(false);
    expect(after.tenants).toHaveLength(100);
    // A tenant already sharing it may be written again; unsharing makes room.
    await ok(ws.access(wb.id, { embedTenantName: 'bulk-tenant-1', action: 'read', allowEmbed: true }));
    await ok(ws.access(wb.id, { embedTenantName: 'bulk-tenant-2', action: 'none' }));
    const now = await ok(ws.access(wb.id, { embedTenantName: 'tenant-one', action: 'read' }));
    expect(now.tenants).toHaveLength(100);
    expect(now.allowEmbed).toBe(true);
    await expectConsistentReach();
  });
});

describe('sharedWorkspaceObjects: what an embed tenant sees', () => {
  let acme: SeededAccount;
  let ws: ReturnType<typeof workspaceOf>;
  let one: string;
  let two: string;
  let tree: Record<string, number>;

  beforeAll(async () => {
    acme = await seedAccount();
    ws = workspaceOf(acme);
    one = await ws.session('tenant-one');
    two = await ws.session('tenant-two');
    const sales = await ws.folder('Sales');
    const emea = await ws.folder('EMEA', sales);
    const hidden = await ws.folder('Hidden');
    const w1 = await ws.published('Revenue EMEA', emea);
    const u1 = await ws.published('Internal costs', sales);
    const w2 = await ws.published('Company KPIs');
    const w3 = await ws.published('Tenant two board');
    const u2 = await workbook(acme.admin, ws.d, { name: 'Unpublished' });
    await ws.published('Hidden board', hidden);
    await report(acme.admin, ws.d, { name: 'A report' });
    await ws.share(w1.id, 'tenant-one');
    await ws.share(w2.id, 'all');
    await ws.share(w3.id, 'tenant-two');
    tree = { sales, emea, hidden, w1: w1.id, u1: u1.id, w2: w2.id, w3: w3.id, u2: u2.id };
  });

  const byName = '?orderByField=name&orderByDirection=ASC';

  it('lists the shared workbooks and the folders above them, folders first, per tenant', async () => {
    expect(names(await ws.shared(one, byName))).toEqual(['Sales', 'Company KPIs']);
    expect(names(await ws.shared(one, `${byName}&folderId=${tree.sales}`))).toEqual(['EMEA']);
    expect(names(await ws.shared(one, `${byName}&folderId=${tree.emea}`))).toEqual(['Revenue EMEA']);
    expect(names(await ws.shared(two, byName))).toEqual(['Company KPIs', 'Tenant two board']);
    // A folder the tenant does not see is a 404, like one that does not exist.
    expectError(await ws.shared(one, `?folderId=${tree.hidden}`), 404, 'NOT_FOUND');
    expectError(await ws.shared(two, `?folderId=${tree.sales}`), 404, 'NOT_FOUND');
    expectError(await ws.shared(one, '?folderId=999999'), 404, 'NOT_FOUND');
  });

  it('answers items without owner identities, draft or report data', async () => {
    const res = await ws.shared(one, `?folderId=${tree.emea}`);
    const [item] = res.body.items;
    expect(item).toMatchObject({
      id: tree.w1,
      type: 'WORKBOOK',
      folderId: tree.emea,
      folderPath: [
        { id: tree.sales, name: 'Sales' },
        { id: tree.emea, name: 'EMEA' },
      ],
      user: null,
      userId: null,
      updatedBy: null,
      isFavorite: false,
      viewerLastViewedAt: null,
      dashboardDraft: null,
      dashboardPublished: draft(1),
    });
    // Cube types createdBy an integer when present: no owner means none.
    expect(item).not.toHaveProperty('createdBy');
    expect(item.publishedDashboard).toMatchObject({
      workbookId: tree.w1,
      createdBy: null,
      reportSnapshots: [],
      fromSharedWorkspace: true,
    });
    // The account's own list shows the owner.
    const own = await ok(api('GET', `${ws.b}/workspace?folderId=${tree.emea}`, { auth: acme.admin }));
    expect(own.items[0].createdBy).toBe(acme.adminUserId);
  });

  it('takes the workspace list’s types, search, orders and keyset pages', async () => {
    expect(names(await ws.shared(one, '?types=FOLDER'))).toEqual(['Sales']);
    expect(names(await ws.shared(one, '?types=REPORT'))).toEqual([]);
    // A search spans every folder, among what the tenant sees only.
    expect(names(await ws.shared(one, '?search=revenue'))).toEqual(['Revenue EMEA']);
    expect(names(await ws.shared(one, '?search=board'))).toEqual([]);
    expect(names(await ws.shared(two, '?search=bo'))).toEqual(['Tenant two board']);
    expect(names(await ws.shared(one, `?search=e&folderId=${tree.sales}`))).toEqual(['EMEA']);
    expect(names(await ws.shared(two, '?orderByField=name&orderByDirection=DESC'))).toEqual([
      'Tenant two board',
      'Company KPIs',
    ]);
    expect(names(await ws.shared(two, '?orderByField=viewer_last_viewed_at&orderByDirection=ASC'))).toEqual([
      'Company KPIs',
      'Tenant two board',
    ]);
    const first = await ok(ws.shared(one, `${byName}&first=1`));
    expect(first.items.map((i: { name: string }) => i.name)).toEqual(['Sales']);
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const next = await ok(
      ws.shared(one, `${byName}&first=1&after=${encodeURIComponent(first.pageInfo.endCursor)}`),
    );
    expect(next.items.map((i: { name: string }) => i.name)).toEqual(['Company KPIs']);
    expect(next.pageInfo.hasNextPage).toBe(false);
    expectError(
      await ws.shared(one, `?first=1&after=${encodeURIComponent(first.pageInfo.endCursor)}`),
      400,
      'INVALID_CURSOR',
    );
  });

  it('follows moves, renames, unshares and deletes of what it shows', async () => {
    const moved = await ws.published('Moving board', tree.emea);
    await ws.share(moved.id, 'tenant-two');
    expect(names(await ws.shared(two, byName))).toEqual(['Sales', 'Company KPIs', 'Tenant two board']);
    await ok(
      api('POST', `${ws.b}/workspace/move`, {
        auth: acme.admin,
        body: { type: 'WORKBOOK', id: moved.id, folderId: tree.hidden },
      }),
    );
    expect(names(await ws.shared(two, byName))).toEqual(['Hidden', 'Company KPIs', 'Tenant two board']);
    await ok(
      api('PUT', `${ws.b}/workbooks/${moved.id}`, { auth: acme.admin, body: { name: 'Aardvark board' } }),
    );
    // Hidden's own unshared board stays hidden.
    expect(names(await ws.shared(two, `${byName}&folderId=${tree.hidden}`))).toEqual(['Aardvark board']);
    // The whole folder moves under Sales: tenant-two now walks Sales → Hidden.
    await ok(
      api('POST', `${ws.b}/workspace/move`, {
        auth: acme.admin,
        body: { type: 'FOLDER', id: tree.hidden, folderId: tree.sales },
      }),
    );
    expect(names(await ws.shared(two, byName))).toEqual(['Sales', 'Company KPIs', 'Tenant two board']);
    expect(names(await ws.shared(two, `${byName}&folderId=${tree.sales}`))).toEqual(['Hidden']);
    await expectConsistentReach();
    await ok(
      api('PUT', `${ws.b}/workbooks/${moved.id}/embed-access`, {
        auth: acme.admin,
        body: { embedTenantName: 'tenant-two', action: 'none' },
      }),
    );
    expect(names(await ws.shared(two, byName))).toEqual(['Company KPIs', 'Tenant two board']);
    await ok(api('DELETE', `${ws.b}/workbooks/${tree.w3}`, { auth: acme.admin }));
    expect(names(await ws.shared(two, byName))).toEqual(['Company KPIs']);
    await expectConsistentReach();
  });

  it('sees all-embed-users shares set by the embedding switches too', async () => {
    const board = await ws.published('Switched board', tree.emea);
    await ok(
      api('PATCH', `/api/v1/embed/dashboard/${board.publicId}`, {
        auth: acme.admin,
        body: { allEmbedUsers: true },
      }),
    );
    expect(names(await ws.shared(two, `${byName}&folderId=${tree.emea}`))).toEqual(['Switched board']);
    await ok(
      api('PATCH', `/api/v1/embed/dashboard/${board.publicId}`, {
        auth: acme.admin,
        body: { allEmbedUsers: false },
      }),
    );
    expectError(await ws.shared(two, `?folderId=${tree.emea}`), 404, 'NOT_FOUND');
    await expectConsistentReach();
  });

  it('takes the embed token and ?session=; refuses other credentials, deployments and narrowed or revoked sessions', async () => {
    const token = (await ok(api('POST', '/api/v1/embed/session/token', { body: { sessionId: one } }))).token;
    expect(names(await api('GET', `${ws.b}/shared-workspace${byName}`, { auth: { bearer: token } }))).toEqual(
      ['Sales', 'Company KPIs'],
    );
    const viaQuery = await api('GET', `${ws.b}/shared-workspace${byName}&session=${encodeURIComponent(one)}`);
    expect(names(viaQuery)).toEqual(['Sales', 'Company KPIs']);
    expectError(await api('GET', `${ws.b}/shared-workspace`), 401, 'UNAUTHORIZED');
    expectError(await api('GET', `${ws.b}/shared-workspace`, { auth: acme.admin }), 401, 'UNAUTHORIZED');
    expectError(await api('GET', `${ws.b}/shared-workspace`, { auth: { session: 'not-a-session' } }), 401);
    // The session is of deployments[0]: the other deployment (or another account's) is a 404.
    expectError(
      await api('GET', `${base(acme.deployments[1])}/shared-workspace`, { auth: { session: one } }),
      404,
      'NOT_FOUND',
    );
    const narrowed = await ws.session('tenant-one', { publicDashboardId: 'abc', externalId: 'narrow' });
    expectError(await ws.shared(narrowed), 403, 'FORBIDDEN');
    const revoked = await ws.session('tenant-one', { externalId: 'revoked-user' });
    await ok(api('POST', '/api/v1/embed/session/revoke', { auth: acme.key, body: { sessionId: revoked } }));
    expectError(await ws.shared(revoked), 401, 'SESSION_REVOKED');
  });

  it('a session’s tenant deleted: its sessions are revoked and its shares are gone', async () => {
    const three = await ws.session('tenant-three');
    const wb = await ws.published('Three', tree.emea);
    await ws.share(wb.id, 'tenant-three');
    expect(names(await ws.shared(three, byName))).toEqual(['Sales', 'Company KPIs']);
    await ok(api('DELETE', '/api/v1/embed-tenants/tenant-three', { auth: acme.admin }));
    expectError(await ws.shared(three), 401, 'SESSION_REVOKED');
    const left = await routedDb
      .prepare('SELECT count(*) AS n FROM embed_tenant_shares WHERE workbook_id = ?')
      .bind(wb.id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
    await expectConsistentReach();
  });

  it('shows once what both audiences see: a folder above both shares, a workbook shared twice', async () => {
    const twice = await ws.folder('Twice');
    const mine = await ws.published('Mine', twice);
    const everyones = await ws.published('Everyones', twice);
    await ws.share(mine.id, 'tenant-one');
    await ws.share(mine.id, 'all');
    await ws.share(everyones.id, 'all');
    expect(names(await ws.shared(one, `${byName}&types=FOLDER`))).toEqual(['Sales', 'Twice']);
    expect(names(await ws.shared(one, `${byName}&folderId=${twice}`))).toEqual(['Everyones', 'Mine']);
    const search = await ok(ws.shared(one, '?search=mine'));
    expect(search.items.map((i: { id: number }) => i.id)).toEqual([mine.id]);
    await expectConsistentReach();
  });
});

describe('listEmbedTenantWorkbooks', () => {
  let acme: SeededAccount;
  let other: SeededAccount;
  let ws: ReturnType<typeof workspaceOf>;
  let ids: { direct: number; everyone: number; both: number; others: number };

  beforeAll(async () => {
    acme = await seedAccount();
    other = await seedAccount();
    ws = workspaceOf(acme);
    await ws.session('tenant-one');
    await ws.session('tenant-two');
    await workspaceOf(other).session('tenant-elsewhere');
    const folderId = await ws.folder('Shared folder');
    const direct = await ws.published('Direct', folderId);
    const everyone = await ws.published('Everyone');
    const both = await ws.published('Both');
    const others = await ws.published('Other tenant');
    await ws.published('Not shared');
    await ws.share(direct.id, 'tenant-one');
    await ws.share(everyone.id, 'all');
    await ws.share(both.id, 'tenant-one');
    await ws.share(both.id, 'all');
    await ws.share(others.id, 'tenant-two');
    ids = { direct: direct.id, everyone: everyone.id, both: both.id, others: others.id };
  });

  const idsOf = (res: ApiResponse) => (res.body.items as { id: number }[]).map((i) => i.id);

  it('lists by id the workbooks shared with the tenant or with all embed users, each once', async () => {
    const all = await ws.tenantWorkbooks('tenant-one');
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(idsOf(all)).toEqual([ids.direct, ids.everyone, ids.both].sort((a, b) => a - b));
    expect(all.body.items[0]).toMatchObject({ type: 'WORKBOOK', createdBy: acme.adminUserId });
    expect(all.body.items[0].publishedDashboard.reportSnapshots).toEqual(expect.any(Array));
    expect(idsOf(await ws.tenantWorkbooks('tenant-one', '?accessSource=tenant'))).toEqual([
      ids.direct,
      ids.both,
    ]);
    expect(idsOf(await ws.tenantWorkbooks('tenant-one', '?accessSource=allEmbedUsers'))).toEqual([
      ids.everyone,
      ids.both,
    ]);
    expect(idsOf(await ws.tenantWorkbooks('tenant-one', '?accessSource=folder'))).toEqual([]);
    expect(idsOf(await ws.tenantWorkbooks('tenant-two'))).toEqual(
      [ids.everyone, ids.both, ids.others].sort((a, b) => a - b),
    );
  });

  it('pages by id', async () => {
    const first = await ok(ws.tenantWorkbooks('tenant-one', '?first=2'));
    expect(first.items).toHaveLength(2);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const rest = await ok(
      ws.tenantWorkbooks('tenant-one', `?first=2&after=${encodeURIComponent(first.pageInfo.endCursor)}`),
    );
    expect([...first.items, ...rest.items].map((i: { id: number }) => i.id)).toEqual(
      [ids.direct, ids.everyone, ids.both].sort((a, b) => a - b),
    );
    expect(rest.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expectError(
      await ws.tenantWorkbooks(
        'tenant-one',
        `?accessSource=tenant&after=${encodeURIComponent(first.pageInfo.endCursor)}`,
      ),
      400,
      'INVALID_CURSOR',
    );
  });

  it('an unknown tenant, or another account’s, is a 404; a malformed name or source a 400; members a 403', async () => {
    expectError(await ws.tenantWorkbooks('tenant-nobody'), 404, 'NOT_FOUND');
    expectError(await ws.tenantWorkbooks('tenant-elsewhere'), 404, 'NOT_FOUND');
    expectError(await ws.tenantWorkbooks('Tenant-One'), 400, 'VALIDATION_FAILED');
    expectError(await ws.tenantWorkbooks('tenant-one', '?accessSource=group'), 400, 'VALIDATION_FAILED');
    expectError(await ws.tenantWorkbooks('tenant-one', '', acme.member), 403, 'FORBIDDEN');
    expect(idsOf(await ws.tenantWorkbooks('tenant-one', '', acme.key))).toHaveLength(3);
    const elsewhere = workspaceOf(other);
    expectError(
      await api('GET', `${ws.b}/embed-tenants/tenant-elsewhere/workbooks`, { auth: other.admin }),
      404,
    );
    expect(idsOf(await elsewhere.tenantWorkbooks('tenant-elsewhere', '', other.admin))).toEqual([]);
    // The same tenant in the account's other deployment sees nothing shared there.
    expect(idsOf(await workspaceOf(acme, acme.deployments[1]).tenantWorkbooks('tenant-one'))).toEqual([]);
  });
});

describe('cost: one page, whatever the workspace’s size', () => {
  /** An account with a small shared workspace, plus `extra` unshared and shared items elsewhere. */
  async function rowsReadWith(extra: number) {
    const acme = await seedAccount();
    const ws = workspaceOf(acme);
    const session = await ws.session('tenant-one');
    const inner = await ws.folder('Inner');
    const crowded = await ws.folder('Crowded');
    for (const name of ['Alpha', 'Beta', 'Gamma'])
      await ws.share((await ws.published(name, inner)).id, 'tenant-one');
    await ws.share((await ws.published('Root board')).id, 'all');
    const now = '2026-01-01T00:00:00.000Z';
    // `extra` unshared workbooks beside the shared folder and in it, and `extra` shared ones in another folder.
    for (const folderId of [null, inner, crowded]) {
      await routedDb
        .prepare(
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO workspace_items (deployment_id, type, name, name_key, folder_id, created_at, updated_at)
         SELECT ?, 'WORKBOOK', 'bulk ' || i, 'bulk ' || i, ?, ?, ? FROM n`,
        )
        .bind(extra, ws.d, folderId, now, now)
        .run();
    }
    await routedDb
      .prepare(
        `INSERT INTO embed_tenant_shares (workbook_id, tenant_id, deployment_id, created_at)
       SELECT i.id, t.id, i.deployment_id, ? FROM workspace_items i
         JOIN embed_tenants t ON t.account_id = ? AND t.name = 'tenant-one'
       WHERE i.folder_id = ?`,
      )
      .bind(now, acme.accountId, crowded)
      .run();
    const byName = '?orderByField=name&orderByDirection=ASC&first=2';
    const root = await ws.shared(session, byName);
    const folder = await ws.shared(session, `${byName}&folderId=${inner}`);
    const updated = await ws.shared(session, `?first=2&folderId=${inner}`);
    const tenant = await ws.tenantWorkbooks('tenant-one', '?first=2&accessSource=allEmbedUsers');
    for (const res of [root, folder, updated, tenant]) expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(names(folder)).toEqual(['Alpha', 'Beta']);
    return {
      root: rowsRead(root),
      folder: rowsRead(folder),
      updated: rowsRead(updated),
      tenant: rowsRead(tenant),
    };
  }

  it('the shared lists read no more rows with 600 more items (300 shared) than with 6', async () => {
    const small = await rowsReadWith(2);
    const large = await rowsReadWith(200);
    expect(small.folder).toBeGreaterThan(0);
    // A few rows of slack (which index pages a probe touches varies); a walk would add hundreds.
    for (const list of ['root', 'folder', 'updated', 'tenant'] as const) {
      expect(large[list], list).toBeLessThanOrEqual(small[list] + 5);
    }
    await expectConsistentReach();
  });
});
