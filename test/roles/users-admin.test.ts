import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { mint } from '../embedding/fixtures';
import { expectError, type SeededAccount, seedAccount, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { routedDb } from '../helpers/shards';
import { seedDashboard } from '../notifications/fixtures';
import { assign, newRole, newUser } from './fixtures';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

let world: World;
let acme: SeededAccount;
beforeAll(async () => {
  world = await seedWorld();
  acme = world.acme;
});

const userRow = (id: number) =>
  routedDb
    .prepare(
      'SELECT role, first_name, title, notifications, settings, deactivated_at, updated_at FROM users WHERE id = ?',
    )
    .bind(id)
    .first<Record<string, unknown>>();

const count = async (sql: string, ...binds: unknown[]) =>
  (
    await routedDb
      .prepare(sql)
      .bind(...binds)
      .first<{ n: number }>()
  )?.n;

/** An account of its own whose only admin is the seeded one, for the last-admin guard. */
const freshAccount = () => seedAccount();

describe('createUser — Cube’s required fields', () => {
  it('answers isAdmin and notifications, and takes isAdmin for the role', async () => {
    const member = await api('POST', '/api/v1/users', {
      auth: acme.admin,
      body: { email: 'cube@acme.com', username: 'cube', isAdmin: null },
    });
    expect(member.status).toBe(200);
    expect(member.body).toMatchObject({
      isAdmin: false,
      notifications: {},
      role: 'member',
      isDeactivated: false,
      title: null,
      settings: {},
      roleIds: [],
    });
    const admin = await api('POST', '/api/v1/users', {
      auth: acme.admin,
      body: { email: 'cube-admin@acme.com', username: 'cube-admin', isAdmin: true },
    });
    expect(admin.body).toMatchObject({ isAdmin: true, role: 'admin' });
    expect((await userRow(admin.body.id))?.role).toBe('admin');
    const disagree = await api('POST', '/api/v1/users', {
      auth: acme.admin,
      body: { email: 'no@acme.com', username: 'no', isAdmin: true, role: 'member' },
    });
    expectError(disagree, 400, 'BAD_REQUEST');
    expect(disagree.body.details[0].path).toBe('isAdmin');
  });
});

describe('updateUser — PUT /api/v1/users/{id}', () => {
  it('changes the fields sent, ignores nulls, and stores them', async () => {
    const user = await newUser(acme);
    const res = await api('PUT', `/api/v1/users/${user.id}`, {
      auth: acme.admin,
      body: {
        firstName: 'Ana',
        title: 'Analyst',
        picture: 'https://img.example.com/ana.png',
        notifications: ['buildFailures', 'weeklyDigest', 'buildFailures'],
        settings: { locale: 'pt-BR', sheets: { showAppliedFilters: true } },
        isAdmin: null,
        isDeactivated: null,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: user.id,
      firstName: 'Ana',
      title: 'Analyst',
      picture: 'https://img.example.com/ana.png',
      notifications: { buildFailures: true, weeklyDigest: true },
      settings: { locale: 'pt-BR', sheets: { showAppliedFilters: true } },
      isAdmin: false,
      isDeactivated: false,
    });
    const row = await userRow(user.id);
    expect(row).toMatchObject({ first_name: 'Ana', title: 'Analyst', role: 'member', deactivated_at: null });
    expect(JSON.parse(row?.notifications as string)).toEqual(['buildFailures', 'weeklyDigest']);
    const again = await api('PUT', `/api/v1/users/${user.id}`, {
      auth: acme.admin,
      body: { settings: { theme: 'dark', sheets: { autoRunQueryOnChange: false } }, firstName: null },
    });
    expect(again.body.firstName).toBe('Ana');
    expect(again.body.settings).toEqual({
      locale: 'pt-BR',
      theme: 'dark',
      sheets: { showAppliedFilters: true, autoRunQueryOnChange: false },
    });
  });

  it('promotes and demotes', async () => {
    const user = await newUser(acme);
    const promoted = await api('PUT', `/api/v1/users/${user.id}`, {
      auth: acme.admin,
      body: { isAdmin: true },
    });
    expect(promoted.body).toMatchObject({ isAdmin: true, role: 'admin' });
    // The new admin's own token now reaches admin routes.
    expect((await api('GET', '/api/v1/api-keys', { auth: user.auth })).status).toBe(200);
    const demoted = await api('PUT', `/api/v1/users/${user.id}`, {
      auth: acme.admin,
      body: { isAdmin: false },
    });
    expect(demoted.body).toMatchObject({ isAdmin: false, role: 'member' });
    expectError(await api('GET', '/api/v1/api-keys', { auth: user.auth }), 403, 'FORBIDDEN');
  });

  it.each([
    ['password', { password: 'hunter2' }],
    ['tosAccepted', { tosAccepted: {} }],
    ['securityContext', { securityContext: {} }],
    ['title', { title: 't'.repeat(256) }],
    ['notifications', { notifications: Array.from({ length: 51 }, (_, i) => `kind${i}`) }],
    ['notifications.0', { notifications: ['has space'] }],
    ['isAdmin', { isAdmin: 'yes' }],
    ['picture', { picture: 'ftp://x' }],
    ['settings.locale', { settings: { locale: 'not a locale!' } }],
    ['settings.timezone', { settings: { timezone: 'Mars/Olympus' } }],
    ['settings.timezone', { settings: { timezone: '+02:00' } }],
    ['settings.theme', { settings: { theme: '' } }],
    ['settings.sheets.extra', { settings: { sheets: { extra: true } } }],
  ])('answers 400 naming %s', async (path, body) => {
    const res = await api('PUT', `/api/v1/users/${acme.memberUserId}`, { auth: acme.admin, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('answers 404 for a user of another account, and changes nothing there', async () => {
    expectError(
      await api('PUT', `/api/v1/users/${world.other.memberUserId}`, {
        auth: acme.admin,
        body: { title: 'x' },
      }),
      404,
      'NOT_FOUND',
    );
    expect((await userRow(world.other.memberUserId))?.title).toBeNull();
    expectError(await api('PUT', '/api/v1/users/999999', { auth: acme.admin, body: {} }), 404, 'NOT_FOUND');
  });

  it('answers 404 for a defaultDeploymentId of another account', async () => {
    const res = await api('PUT', `/api/v1/users/${acme.memberUserId}`, {
      auth: acme.admin,
      body: { title: 'never', settings: { defaultDeploymentId: world.other.deployments[0] } },
    });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.body.error).toContain('Deployment');
    expect((await userRow(acme.memberUserId))?.title).toBeNull();
  });
});

describe('deactivation', () => {
  it('mints no embed session for a deactivated user named by internalId (400), until reactivated', async () => {
    const user = await newUser(acme);
    const { username } = (await api('GET', `/api/v1/users/${user.id}`, { auth: acme.admin })).body;
    const body = { deploymentId: acme.deployments[0], internalId: username };
    expect((await mint(acme.key, body)).status).toBe(200);
    await api('PUT', `/api/v1/users/${user.id}`, { auth: acme.admin, body: { isDeactivated: true } });
    const refused = await mint(acme.key, body);
    expectError(refused, 400, 'BAD_REQUEST');
    expect(refused.body.details?.map((d: { path: string }) => d.path)).toContain('internalId');
    await api('PUT', `/api/v1/users/${user.id}`, { auth: acme.admin, body: { isDeactivated: false } });
    expect((await mint(acme.key, body)).status).toBe(200);
  });

  it('cuts the user’s access tokens (401) until they are reactivated', async () => {
    const user = await newUser(acme);
    expect((await api('GET', `/api/v1/users/${user.id}`, { auth: user.auth })).status).toBe(200);
    const res = await api('PUT', `/api/v1/users/${user.id}`, {
      auth: acme.admin,
      body: { isDeactivated: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.isDeactivated).toBe(true);
    expect((await userRow(user.id))?.deactivated_at).toEqual(expect.any(String));
    const refused = await api('GET', `/api/v1/users/${user.id}`, { auth: user.auth });
    expectError(refused, 401, 'UNAUTHORIZED');
    expect(refused.body.error).toContain('deactivated');
    expectError(
      await api('GET', `/api/v1/deployments/${acme.deployments[0]}/workspace`, { auth: user.auth }),
      401,
    );
    // The tokens are kept, so reactivating restores them.
    expect(await count('SELECT count(*) AS n FROM access_tokens WHERE user_id = ?', user.id)).toBe(1);
    await api('PUT', `/api/v1/users/${user.id}`, { auth: acme.admin, body: { isDeactivated: false } });
    expect((await api('GET', `/api/v1/users/${user.id}`, { auth: user.auth })).status).toBe(200);
  });

  it('refuses deactivating yourself (403) and the last active admin (409)', async () => {
    const account = await freshAccount();
    const self = await api('PUT', `/api/v1/users/${account.adminUserId}`, {
      auth: account.admin,
      body: { isDeactivated: true },
    });
    expectError(self, 403, 'FORBIDDEN');
    // An API key has no self: it meets the last-admin guard instead.
    const last = await api('PUT', `/api/v1/users/${account.adminUserId}`, {
      auth: account.key,
      body: { isDeactivated: true },
    });
    expectError(last, 409, 'CONFLICT');
    expect(last.body.error).toContain('last');
    expectError(
      await api('PUT', `/api/v1/users/${account.adminUserId}`, {
        auth: account.key,
        body: { isAdmin: false },
      }),
      409,
      'CONFLICT',
    );
    expect(await userRow(account.adminUserId)).toMatchObject({ role: 'admin', deactivated_at: null });
  });

  it('lets an admin go once another active admin remains; a key then acts as that admin', async () => {
    const account = await freshAccount();
    const second = await newUser(account, { isAdmin: true });
    const res = await api('PUT', `/api/v1/users/${account.adminUserId}`, {
      auth: second.auth,
      body: { isDeactivated: true },
    });
    expect(res.status).toBe(200);
    const wb = await api('POST', `/api/v1/deployments/${account.deployments[0]}/workbooks`, {
      auth: account.key,
      body: { name: 'By key' },
    });
    expect(wb.status).toBe(200);
    expect(wb.body.createdBy).toBe(second.id);
    // Now the second is the last active admin.
    expectError(
      await api('PUT', `/api/v1/users/${second.id}`, { auth: account.key, body: { isAdmin: false } }),
      409,
    );
  });
});

describe('deleteUser — DELETE /api/v1/users/{id}', () => {
  it('deletes the user with their tokens and roles; what they authored stays, answered as Cube’s schemas allow', async () => {
    const author = await newUser(acme);
    await assign(
      acme,
      await newRole(acme, [{ resourceType: 'Global', actions: ['All'], resources: ['All'] }]),
      author.id,
    );
    const dashboard = await seedDashboard({ ...acme, admin: author.auth }, 'Authored');
    const d0 = `/api/v1/deployments/${acme.deployments[0]}`;
    const folder = await api('POST', `${d0}/folders`, {
      auth: author.auth,
      body: { name: 'Authored folder' },
    });
    const report = await api('POST', `${d0}/reports`, {
      auth: author.auth,
      body: { name: 'Authored report', workbookId: dashboard.workbookId },
    });
    expect([folder.status, report.status]).toEqual([200, 200]);
    expect(report.body).toMatchObject({ createdBy: author.id, userId: author.id });
    const res = await api('DELETE', `/api/v1/users/${author.id}`, { auth: acme.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: author.id, deleted: true });
    expect(await userRow(author.id)).toBeNull();
    expect(await count('SELECT count(*) AS n FROM access_tokens WHERE user_id = ?', author.id)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM user_roles WHERE user_id = ?', author.id)).toBe(0);
    expectError(await api('GET', '/api/v1/users', { auth: author.auth }), 401, 'UNAUTHORIZED');

    const base = `/api/v1/deployments/${acme.deployments[0]}/workbooks/${dashboard.workbookId}`;
    const workbook = await api('GET', base, { auth: acme.admin });
    expect(workbook.status).toBe(200);
    // Cube types createdBy an integer, not required: left out; its userId and user may be null.
    expect(workbook.body).toMatchObject({ userId: null, user: null, updatedBy: null });
    expect(workbook.body).not.toHaveProperty('createdBy');
    const folders = await api('GET', `${d0}/folders`, { auth: acme.admin });
    const authored = folders.body.items.find((f: { id: number }) => f.id === folder.body.id);
    expect(authored).toMatchObject({ user: null, updatedBy: null });
    expect(authored).not.toHaveProperty('createdBy');
    const ancestors = await api('GET', `${d0}/folders/${folder.body.id}/ancestors`, { auth: acme.admin });
    expect(ancestors.status).toBe(200);
    // A report's userId and owner are required: user 0, with empty fields.
    const reportRead = await api('GET', `${d0}/reports/${report.body.id}`, { auth: acme.admin });
    expect(reportRead.status).toBe(200);
    expect(reportRead.body).toMatchObject({
      userId: 0,
      user: { id: 0, email: '' },
      refreshedByUser: { id: 0 },
      refreshedBy: null,
    });
    expect(reportRead.body).not.toHaveProperty('createdBy');
    const listed = await api('GET', `${d0}/workspace`, { auth: acme.admin });
    expect(listed.status).toBe(200);
    for (const item of listed.body.items)
      if (item.createdBy !== undefined) expect(item.createdBy).toEqual(expect.any(Number));
    const versions = await api('GET', `${base}/dashboard/versions`, { auth: acme.admin });
    expect(versions.body.items[0]).toMatchObject({ publishedBy: null });
    const draft = await api('GET', `${base}/dashboard`, { auth: acme.admin });
    expect(draft.status).toBe(200);
    expectError(await api('DELETE', `/api/v1/users/${author.id}`, { auth: acme.admin }), 404, 'NOT_FOUND');
  });

  it('refuses deleting yourself (400), the last active admin (409) and another account’s user (404)', async () => {
    const account = await freshAccount();
    expectError(
      await api('DELETE', `/api/v1/users/${account.adminUserId}`, { auth: account.admin }),
      400,
      'BAD_REQUEST',
    );
    expectError(
      await api('DELETE', `/api/v1/users/${account.adminUserId}`, { auth: account.key }),
      409,
      'CONFLICT',
    );
    expectError(
      await api('DELETE', `/api/v1/users/${acme.memberUserId}`, { auth: account.admin }),
      404,
      'NOT_FOUND',
    );
    expect(await userRow(account.adminUserId)).not.toBeNull();
    expect(await userRow(acme.memberUserId)).not.toBeNull();
    expect(
      await count('SELECT count(*) AS n FROM access_tokens WHERE user_id = ?', account.adminUserId),
    ).toBe(1);
  });
});

describe('bulkUserAction — POST /api/v1/users/bulk', () => {
  it('is partially successful: one outcome per distinct id, in the order given', async () => {
    const a = await newUser(acme);
    const b = await newUser(acme);
    const me = await newUser(acme, { isAdmin: true });
    const res = await api('POST', '/api/v1/users/bulk', {
      auth: me.auth,
      body: { action: 'DEACTIVATE', userIds: [a.id, 999999, world.other.memberUserId, me.id, b.id, a.id] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      action: 'DEACTIVATE',
      succeeded: [a.id, b.id],
      failed: [
        { userId: 999999, error: { status: 404, message: 'User not found' } },
        { userId: world.other.memberUserId, error: { status: 404, message: 'User not found' } },
        { userId: me.id, error: { status: 403, message: expect.any(String) } },
      ],
    });
    expectError(await api('GET', `/api/v1/users/${a.id}`, { auth: a.auth }), 401);
    expect((await userRow(world.other.memberUserId))?.deactivated_at).toBeNull();
    // Repeating an action a user is already in succeeds.
    const again = await api('POST', '/api/v1/users/bulk', {
      auth: me.auth,
      body: { action: 'DEACTIVATE', userIds: [a.id] },
    });
    expect(again.body).toEqual({ action: 'DEACTIVATE', succeeded: [a.id], failed: [] });
    const activated = await api('POST', '/api/v1/users/bulk', {
      auth: me.auth,
      body: { action: 'ACTIVATE', userIds: [a.id, b.id, me.id] },
    });
    expect(activated.body).toEqual({ action: 'ACTIVATE', succeeded: [a.id, b.id, me.id], failed: [] });
    expect((await api('GET', `/api/v1/users/${a.id}`, { auth: a.auth })).status).toBe(200);

    const deleted = await api('POST', '/api/v1/users/bulk', {
      auth: me.auth,
      body: { action: 'DELETE', userIds: [me.id, a.id, b.id] },
    });
    expect(deleted.body).toEqual({
      action: 'DELETE',
      succeeded: [a.id, b.id],
      failed: [{ userId: me.id, error: { status: 400, message: expect.any(String) } }],
    });
    expect(await userRow(a.id)).toBeNull();
    expect(await count('SELECT count(*) AS n FROM access_tokens WHERE user_id IN (?, ?)', a.id, b.id)).toBe(
      0,
    );
  });

  it('applies in order under the last-admin guard: of every admin, the last one fails and the rest apply', async () => {
    const account = await freshAccount();
    const second = await newUser(account, { isAdmin: true });
    const third = await newUser(account, { isAdmin: true });
    const res = await api('POST', '/api/v1/users/bulk', {
      auth: account.key,
      body: { action: 'DEACTIVATE', userIds: [second.id, account.adminUserId, third.id] },
    });
    expect(res.status).toBe(200);
    expect(res.body.succeeded).toEqual([second.id, account.adminUserId]);
    expect(res.body.failed).toEqual([
      { userId: third.id, error: { status: 409, message: expect.stringContaining('last') } },
    ]);
    expect(
      await count(
        "SELECT count(*) AS n FROM users WHERE account_id = ? AND role = 'admin' AND deactivated_at IS NULL",
        account.accountId,
      ),
    ).toBe(1);
    const removal = await api('POST', '/api/v1/users/bulk', {
      auth: account.key,
      body: { action: 'DELETE', userIds: [third.id, second.id] },
    });
    // The deactivated admin may go; the last active one may not.
    expect(removal.body.succeeded).toEqual([second.id]);
    expect(removal.body.failed).toEqual([
      { userId: third.id, error: { status: 409, message: expect.any(String) } },
    ]);
  });

  it.each([
    ['userIds', { action: 'DELETE', userIds: [] }],
    ['userIds', { action: 'DELETE', userIds: Array.from({ length: 101 }, (_, i) => i + 1) }],
    ['userIds.0', { action: 'DELETE', userIds: ['1'] }],
    ['userIds.0', { action: 'DELETE', userIds: [1.5] }],
    ['action', { action: 'delete', userIds: [1] }],
    ['action', { userIds: [1] }],
    ['extra', { action: 'DELETE', userIds: [1], extra: true }],
  ])('answers 400 naming %s', async (path, body) => {
    const res = await api('POST', '/api/v1/users/bulk', { auth: acme.admin, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('is for UsersManage: members get 403, scoped keys 403 KEY_SCOPE', async () => {
    const body = { action: 'DEACTIVATE', userIds: [acme.adminUserId] };
    expectError(await api('POST', '/api/v1/users/bulk', { auth: acme.member, body }), 403, 'FORBIDDEN');
    expectError(await api('POST', '/api/v1/users/bulk', { auth: acme.scopedKey, body }), 403, 'KEY_SCOPE');
    expect((await userRow(acme.adminUserId))?.deactivated_at).toBeNull();
  });
});

describe('updateMySettings — PATCH /api/v1/users/me/settings', () => {
  it('merges a patch into the caller’s own settings: null clears, sheets merge field by field', async () => {
    const user = await newUser(acme);
    const first = await api('PATCH', '/api/v1/users/me/settings', {
      auth: user.auth,
      body: {
        locale: 'en-GB',
        timezone: 'Europe/London',
        alternatingRowColors: true,
        defaultDeploymentId: acme.deployments[1],
        lastSeenChangelogId: 12,
        sheets: { revealSheetOnOpen: true, suppressDuplicateValues: false },
      },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.id).toBe(user.id);
    expect(first.body.settings).toEqual({
      locale: 'en-GB',
      timezone: 'Europe/London',
      alternatingRowColors: true,
      defaultDeploymentId: acme.deployments[1],
      sheets: { revealSheetOnOpen: true, suppressDuplicateValues: false },
    });
    const second = await api('PATCH', '/api/v1/users/me/settings', {
      auth: user.auth,
      body: { locale: null, sheets: { revealSheetOnOpen: null, showAppliedFilters: true } },
    });
    expect(second.body.settings).toEqual({
      timezone: 'Europe/London',
      alternatingRowColors: true,
      defaultDeploymentId: acme.deployments[1],
      sheets: { suppressDuplicateValues: false, showAppliedFilters: true },
    });
    const cleared = await api('PATCH', '/api/v1/users/me/settings', {
      auth: user.auth,
      body: { sheets: null },
    });
    expect(cleared.body.settings.sheets).toBeUndefined();
    expect(JSON.parse((await userRow(user.id))?.settings as string)).toEqual(cleared.body.settings);
    expect((await api('PATCH', '/api/v1/users/me/settings', { auth: user.auth })).status).toBe(200);
  });

  it('answers 404 for another account’s deployment and 400 for a bad value; a scoped key is 403', async () => {
    const user = await newUser(acme);
    expectError(
      await api('PATCH', '/api/v1/users/me/settings', {
        auth: user.auth,
        body: { defaultDeploymentId: world.other.deployments[0] },
      }),
      404,
      'NOT_FOUND',
    );
    expect(JSON.parse((await userRow(user.id))?.settings as string)).toEqual({});
    for (const body of [{ locale: 'xx-!!' }, { timezone: 'Nowhere' }, { theme: 7 }, { unknown: 1 }]) {
      expectError(
        await api('PATCH', '/api/v1/users/me/settings', { auth: user.auth, body }),
        400,
        'VALIDATION_FAILED',
      );
    }
    expectError(
      await api('PATCH', '/api/v1/users/me/settings', { auth: acme.scopedKey, body: { theme: 'dark' } }),
      403,
      'KEY_SCOPE',
    );
  });
});
