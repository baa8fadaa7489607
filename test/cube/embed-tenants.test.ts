// Cube's Embed Tenants and User Attributes operations (docs-mintlify/api-reference/api.yaml), called
// as a Cube client calls them (`Authorization: Bearer <API key>`), each answer checked for the
// fields Cube marks required with Cube's types.
import { beforeAll, describe, expect, it } from 'vitest';
import { claimsOf, load, mintOk, publishDashboard, rows, setEmbed } from '../embedding/fixtures';
import { expectError, OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { holdAnswersToCube } from './cube-openapi';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

let acme: SeededAccount;
const key = () => ({ bearer: acme.key.apiKey });
const TENANT = 'cube-tenant-a';

const expectPageInfo = (body: any) =>
  expect(body.pageInfo).toMatchObject({
    hasNextPage: expect.any(Boolean),
    hasPreviousPage: expect.any(Boolean),
  });

const expectEmbedUser = (u: any) =>
  expect(u).toMatchObject({ id: expect.any(Number), username: expect.any(String) });

beforeAll(async () => {
  acme = await seedAccount({ useCreatorMode: true });
  for (const externalId of ['ann@example.com', 'bob@example.com']) {
    await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId,
      email: externalId,
      embedTenantName: TENANT,
      creatorMode: true,
      groupDefinitions: [{ name: 'sales' }],
      groups: ['sales'],
    });
  }
});

describe('GET /api/v1/embed-tenants (listEmbedTenants)', () => {
  it('filters by search and answers id, name, userCount', async () => {
    const res = await api('GET', '/api/v1/embed-tenants?search=CUBE-TENANT&first=10', { auth: key() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectPageInfo(res.body);
    expect(res.body.items).toEqual([
      {
        id: expect.any(Number),
        name: TENANT,
        userCount: 2,
        createdAt: expect.any(String),
        displayName: null,
      },
    ]);
    const none = await api('GET', '/api/v1/embed-tenants?search=nothing-like-it', { auth: key() });
    expect(none.body.items).toEqual([]);
  });
});

describe('groups of a tenant (getGroups, createGroup, getGroup, updateGroup, getGroupMembers, deleteGroup)', () => {
  it('serves Cube shapes, nulls included', async () => {
    const base = `/api/v1/embed-tenants/${TENANT}/groups`;
    const created = await api('POST', base, { auth: key(), body: { name: 'cube-group', description: null } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ id: expect.any(Number), name: 'cube-group' });

    const got = await api('GET', `${base}/${created.body.id}`, { auth: key() });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ id: created.body.id, name: 'cube-group', description: '', userCount: 0 });

    const unchanged = await api('PATCH', `${base}/${created.body.id}`, { auth: key(), body: {} });
    expect(unchanged.body).toEqual(got.body);
    const described = await api('PATCH', `${base}/${created.body.id}`, {
      auth: key(),
      body: { description: 'Cube' },
    });
    expect(described.body.description).toBe('Cube');
    const nulled = await api('PATCH', `${base}/${created.body.id}`, {
      auth: key(),
      body: { description: null },
    });
    expect(nulled.body.description).toBe('Cube');

    const list = await api('GET', `${base}?first=100`, { auth: key() });
    expect(list.status).toBe(200);
    expectPageInfo(list.body);
    const sales = list.body.items.find((g: any) => g.name === 'sales');
    expect(sales).toMatchObject({ id: expect.any(Number), userCount: 2 });

    const members = await api('GET', `${base}/${sales.id}/users?first=1`, { auth: key() });
    expect(members.status, JSON.stringify(members.body)).toBe(200);
    expectPageInfo(members.body);
    expect(members.body.items).toHaveLength(1);
    expectEmbedUser(members.body.items[0]);
    expect(members.body.items[0].username).toBe('bob@example.com');
    const next = await api('GET', `${base}/${sales.id}/users?after=${members.body.pageInfo.endCursor}`, {
      auth: key(),
    });
    expect(next.body.items.map((u: any) => u.externalId)).toEqual(['ann@example.com']);
    expect(next.body.pageInfo.hasNextPage).toBe(false);

    expectError(await api('GET', `${base}/999999`, { auth: key() }), 404);
    expectError(await api('GET', `${base}/999999/users`, { auth: key() }), 404);
    const deleted = await api('DELETE', `${base}/${created.body.id}`, { auth: key() });
    expect(deleted.status).toBe(200);
    expectError(await api('GET', `${base}/${created.body.id}`, { auth: key() }), 404);
  });

  it('answers an account-wide group by id too', async () => {
    const created = await api('POST', '/api/v1/groups', { auth: key(), body: { name: 'everyone' } });
    const got = await api('GET', `/api/v1/groups/${created.body.id}`, { auth: key() });
    expect(got.body).toEqual({ id: created.body.id, name: 'everyone', description: '', userCount: 0 });
    const other = await seedAccount();
    expectError(await api('GET', `/api/v1/groups/${created.body.id}`, { auth: other.admin }), 404);
  });
});

describe('group members (addGroupMembers, removeGroupMembers)', () => {
  it('adds idempotently by externalId or embedUserId, removes, and refuses unknown users', async () => {
    const base = `/api/v1/embed-tenants/${TENANT}/groups`;
    const group = await api('POST', base, { auth: key(), body: { name: 'members-group' } });
    const users = await api('GET', `/api/v1/embed-tenants/${TENANT}/users`, { auth: key() });
    const bob = users.body.items.find((u: any) => u.externalId === 'bob@example.com');
    const path = `${base}/${group.body.id}/users`;
    const added = await api('POST', path, {
      auth: key(),
      body: { members: [{ externalId: ' ANN@example.com ', embedUserId: null }, { embedUserId: bob.id }] },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.addedMembers).toHaveLength(2);
    added.body.addedMembers.forEach(expectEmbedUser);
    expect(added.body.unchangedMembers).toEqual([]);
    const again = await api('POST', path, { auth: key(), body: { members: [{ embedUserId: bob.id }] } });
    expect(again.body).toEqual({
      addedMembers: [],
      unchangedMembers: [expect.objectContaining({ id: bob.id })],
    });
    expect((await api('GET', `${base}/${group.body.id}`, { auth: key() })).body.userCount).toBe(2);

    expectError(await api('POST', path, { auth: key(), body: { members: [{ externalId: 'nobody' }] } }), 404);
    expectError(await api('POST', path, { auth: key(), body: { members: [] } }), 400);
    expectError(
      await api('POST', path, { auth: key(), body: { members: [{ externalId: 'x', embedUserId: 1 }] } }),
      400,
    );
    expectError(
      await api('POST', `${base}/999999/users`, { auth: key(), body: { members: [{ embedUserId: 1 }] } }),
      404,
    );

    const removed = await api('DELETE', path, { auth: key(), body: { members: [{ embedUserId: bob.id }] } });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toEqual({ removed: 1 });
    const noop = await api('DELETE', path, { auth: key(), body: { members: [{ embedUserId: bob.id }] } });
    expect(noop.body).toEqual({ removed: 0 });
    expect((await api('GET', `${base}/${group.body.id}`, { auth: key() })).body.userCount).toBe(1);
  });
});

describe('GET /api/v1/embed-tenants/{name}/users (listEmbedUsers)', () => {
  it('lists and searches the tenant users', async () => {
    const res = await api('GET', `/api/v1/embed-tenants/${TENANT}/users?search=ANN`, { auth: key() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectPageInfo(res.body);
    expect(res.body.items).toHaveLength(1);
    expectEmbedUser(res.body.items[0]);
    expect(res.body.items[0]).toMatchObject({ externalId: 'ann@example.com', email: 'ann@example.com' });
    expectError(await api('GET', '/api/v1/embed-tenants/no-such-tenant/users', { auth: key() }), 404);
  });
});

describe('DELETE /api/v1/embed-tenants/{name} (deleteEmbedTenant)', () => {
  it('deletes the tenant and everything in it, revokes its sessions, and is idempotent', async () => {
    const board = (await publishDashboard(acme)).publicId;
    await setEmbed(acme, board, { allowEmbed: true });
    const sid = await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId: 'doomed',
      embedTenantName: 'doomed-tenant',
    });
    expect((await load(board, sid)).status).toBe(200);
    const res = await api('DELETE', '/api/v1/embed-tenants/doomed-tenant', { auth: key() });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ name: 'doomed-tenant', deleted: true });
    expect(
      await rows(
        "SELECT * FROM embed_tenants WHERE account_id = ? AND name = 'doomed-tenant'",
        acme.accountId,
      ),
    ).toEqual([]);
    expect(
      await rows("SELECT * FROM embed_users WHERE account_id = ? AND external_id = 'doomed'", acme.accountId),
    ).toEqual([]);
    expectError(await load(board, sid), 401, 'SESSION_REVOKED');
    const again = await api('DELETE', '/api/v1/embed-tenants/doomed-tenant', { auth: key() });
    expect(again.body).toEqual({ name: 'doomed-tenant', deleted: false });
    expectError(await api('DELETE', '/api/v1/embed-tenants/Doomed-Tenant', { auth: key() }), 400);
  });
});

describe('user attributes (getUserAttributes, createUserAttribute, updateUserAttribute)', () => {
  it('creates a boolean attribute with nulls, updates it, filters the list by name and type', async () => {
    const created = await api('POST', '/api/v1/user-attributes', {
      auth: key(),
      body: { name: 'is_vip', type: 'boolean', defaultValue: null, description: null, displayName: null },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ id: expect.any(Number), name: 'is_vip', type: 'boolean' });
    for (const type of ['string', 'number', 'string_array', 'number_array']) {
      const res = await api('POST', '/api/v1/user-attributes', {
        auth: key(),
        body: { name: `a_${type}`, type },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }

    const updated = await api('PUT', `/api/v1/user-attributes/${created.body.id}`, {
      auth: key(),
      body: { displayName: 'VIP', defaultValue: 'false', description: null },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'is_vip',
      type: 'boolean',
      displayName: 'VIP',
      defaultValue: 'false',
    });
    const kept = await api('PUT', `/api/v1/user-attributes/${created.body.id}`, { auth: key(), body: {} });
    expect(kept.body.displayName).toBe('VIP');
    expectError(
      await api('PUT', `/api/v1/user-attributes/${created.body.id}`, {
        auth: key(),
        body: { type: 'string' },
      }),
      400,
    );
    expectError(await api('PUT', '/api/v1/user-attributes/999999', { auth: key(), body: {} }), 404);

    const byType = await api('GET', '/api/v1/user-attributes?type=boolean', { auth: key() });
    expect(byType.status, JSON.stringify(byType.body)).toBe(200);
    expect(byType.body.items.map((a: any) => a.name)).toEqual(['is_vip']);
    expect(byType.body.data).toEqual(byType.body.items);
    expect(byType.body.count).toBe(1);
    const byName = await api('GET', '/api/v1/user-attributes?name=A_&first=1', { auth: key() });
    expect(byName.body.items).toHaveLength(1);
    expect(byName.body.count).toBe(4);
    expect(byName.body.pageInfo.hasNextPage).toBe(true);
  });

  it('carries a boolean value into a session and row-level security', async () => {
    const sid = await mintOk(key(), {
      deploymentId: acme.deployments[0],
      externalId: 'vip-viewer',
      userAttributes: [{ name: 'is_vip', value: true }],
    });
    expect(
      await rows<{ value: string }>(
        `SELECT v.value FROM embed_attribute_values v JOIN embed_users u ON u.id = v.user_id
       WHERE u.account_id = ? AND u.external_id = 'vip-viewer'`,
        acme.accountId,
      ),
    ).toEqual([{ value: 'true' }]);
    expect(typeof sid).toBe('string');
  });
});

const PROVISION_TENANT = 'cube-provisioned';

async function provisionState(accountId: number, externalId: string) {
  const [user] = await rows<any>(
    `SELECT u.id, u.email, u.display_name, u.picture, t.name AS tenant FROM embed_users u
     JOIN embed_tenants t ON t.id = u.tenant_id WHERE u.account_id = ? AND u.external_id = ?`,
    accountId,
    externalId,
  );
  const groups = await rows<{ name: string; scope: string }>(
    `SELECT g.name, CASE WHEN g.tenant_id IS NULL THEN 'account' ELSE 'tenant' END AS scope
     FROM embed_memberships m JOIN embed_groups g ON g.id = m.group_id
     JOIN embed_users u ON u.id = m.user_id WHERE u.account_id = ? AND u.external_id = ? ORDER BY g.name`,
    accountId,
    externalId,
  );
  return { user, groups };
}

const externalUserCount = async (accountId: number) =>
  (await rows<{ n: number }>('SELECT external_user_count AS n FROM accounts WHERE id = ?', accountId))[0]?.n;

async function limitTo(accountId: number, limit: number) {
  const res = await api('PATCH', `/admin/v1/accounts/${accountId}`, {
    auth: OPERATOR,
    body: { externalUserLimit: limit },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

describe('POST /api/v1/embed-tenants/{embedTenantName}/user (provisionEmbedUser)', () => {
  it('creates the tenant and the user with every Cube field, then updates it idempotently', async () => {
    const account = await seedAccount();
    const auth = { bearer: account.key.apiKey };
    expect(
      (await api('POST', '/api/v1/groups', { auth: account.admin, body: { name: 'global-readers' } })).status,
    ).toBe(200);
    // The tenant's group is created with the tenant, before the user.
    expect(
      (
        await api('POST', `/api/v1/embed-tenants/${PROVISION_TENANT}/groups`, {
          auth,
          body: { name: 'team-a' },
        })
      ).status,
    ).toBe(200);
    const path = `/api/v1/embed-tenants/${PROVISION_TENANT}/user`;
    const before = await externalUserCount(account.accountId);
    const body = {
      externalId: 'carol-1',
      email: ' Carol@Example.com ',
      groups: ['global-readers'],
      tenantGroups: ['team-a'],
      userProfile: { displayName: 'Carol', picture: 'https://example.com/c.png' },
    };
    const created = await api('POST', path, { auth, body });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      username: 'carol-1',
      externalId: 'carol-1',
      email: 'carol@example.com',
      firstName: 'Carol',
      createdAt: expect.any(String),
      lastLogin: null,
    });
    expect(await provisionState(account.accountId, 'carol-1')).toEqual({
      user: {
        id: created.body.id,
        email: 'carol@example.com',
        display_name: 'Carol',
        picture: 'https://example.com/c.png',
        tenant: PROVISION_TENANT,
      },
      groups: [
        { name: 'global-readers', scope: 'account' },
        { name: 'team-a', scope: 'tenant' },
      ],
    });
    expect(await externalUserCount(account.accountId)).toBe((before ?? 0) + 1);

    const again = await api('POST', path, { auth, body });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
    expect(await externalUserCount(account.accountId)).toBe((before ?? 0) + 1);

    // Nulls and omissions keep; [] clears one catalogue's memberships; a null profile leaf clears it.
    const updated = await api('POST', path, {
      auth: { apiKey: account.key.apiKey },
      body: {
        externalId: 'carol-1',
        email: null,
        groups: [],
        tenantGroups: null,
        userProfile: { picture: null },
      },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({
      id: created.body.id,
      email: 'carol@example.com',
      firstName: 'Carol',
    });
    expect(await provisionState(account.accountId, 'carol-1')).toEqual({
      user: expect.objectContaining({ picture: null, display_name: 'Carol' }),
      groups: [{ name: 'team-a', scope: 'tenant' }],
    });

    // A minimal body: email null for a new user.
    const bare = await api('POST', path, { auth: account.admin, body: { externalId: 'dave' } });
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(bare.body).toMatchObject({ username: 'dave', email: null, firstName: null, lastLogin: null });

    // The provisioned user is the one generate-session finds (no second user, same id).
    const sid = await mintOk(account.key, {
      deploymentId: account.deployments[0],
      externalId: 'carol-1',
      embedTenantName: PROVISION_TENANT,
    });
    expect(claimsOf(sid).sub).toBe(`e:${created.body.id}`);
    const tenants = await api('GET', `/api/v1/embed-tenants?search=${PROVISION_TENANT}`, { auth });
    expect(tenants.body.items[0]).toMatchObject({ name: PROVISION_TENANT, userCount: 2 });
  });

  it('refuses an unknown group (400), a non-canonical externalId (400) and a new user past the limit (429)', async () => {
    const account = await seedAccount();
    const auth = { bearer: account.key.apiKey };
    const path = `/api/v1/embed-tenants/${PROVISION_TENANT}/user`;
    expectError(await api('POST', path, { auth, body: { externalId: 'erin', tenantGroups: ['nope'] } }), 400);
    expectError(await api('POST', path, { auth, body: { externalId: 'erin', groups: ['nope'] } }), 400);
    expectError(await api('POST', path, { auth, body: { externalId: 'Erin' } }), 400);
    expectError(await api('POST', path, { auth, body: { externalId: ' erin' } }), 400);
    expectError(await api('POST', path, { auth, body: { externalId: 'erin', unknownField: 1 } }), 400);
    // A lone surrogate (JSON's unpaired "\ud800") would be stored as U+FFFD: another id than sent.
    for (const externalId of ['\ud800', 'a\udfffb']) {
      const lone = await api('POST', path, { auth, body: { externalId } });
      expectError(lone, 400, 'VALIDATION_FAILED');
      expect(lone.body.details).toEqual([
        { path: 'externalId', message: expect.stringContaining('surrogate') },
      ]);
    }
    const bulk = await api('POST', `${path}s`, { auth, body: { users: [{ externalId: 'x\ud800' }] } });
    expectError(bulk, 400, 'VALIDATION_FAILED');
    expect(bulk.body.details[0].path).toBe('users.0.externalId');
    expect(await rows('SELECT id FROM embed_users WHERE account_id = ?', account.accountId)).toEqual([]);

    await limitTo(account.accountId, 1);
    expect((await api('POST', path, { auth, body: { externalId: 'erin' } })).status).toBe(200);
    const refused = await api('POST', path, { auth, body: { externalId: 'frank' } });
    expectError(refused, 429, 'QUOTA_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // A returning user at the limit is an update, not a new user.
    const kept = await api('POST', path, { auth, body: { externalId: 'erin', email: 'erin@example.com' } });
    expect(kept.status).toBe(200);
    expect(await externalUserCount(account.accountId)).toBe(1);
    expect(
      await rows('SELECT external_id, email FROM embed_users WHERE account_id = ?', account.accountId),
    ).toEqual([{ external_id: 'erin', email: 'erin@example.com' }]);
  });
});

describe('provisioning is per account', () => {
  it("never touches another account's tenant of the same name", async () => {
    const one = await seedAccount();
    const two = await seedAccount();
    const path = `/api/v1/embed-tenants/${PROVISION_TENANT}/user`;
    const a = await api('POST', path, {
      auth: { bearer: one.key.apiKey },
      body: { externalId: 'same', email: 'a@x.io' },
    });
    const b = await api('POST', path, { auth: { bearer: two.key.apiKey }, body: { externalId: 'same' } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.email).toBeNull();
    expect((await provisionState(one.accountId, 'same')).user).toMatchObject({
      id: a.body.id,
      email: 'a@x.io',
    });
    expect(await externalUserCount(two.accountId)).toBe(1);
  });
});

describe('POST /api/v1/embed-tenants/{embedTenantName}/users (provisionEmbedUsers)', () => {
  it('applies entries in order with per-entry results (400 unknown group, 429 at the limit)', async () => {
    const account = await seedAccount();
    const auth = { bearer: account.key.apiKey };
    expect(
      (
        await api('POST', `/api/v1/embed-tenants/${PROVISION_TENANT}/groups`, {
          auth,
          body: { name: 'team-b' },
        })
      ).status,
    ).toBe(200);
    await limitTo(account.accountId, 2);
    const res = await api('POST', `/api/v1/embed-tenants/${PROVISION_TENANT}/users`, {
      auth,
      body: {
        users: [
          {
            externalId: 'u1',
            email: 'u1@example.com',
            tenantGroups: ['team-b'],
            groups: null,
            userProfile: null,
          },
          { externalId: 'u2', tenantGroups: ['missing-group'] },
          { externalId: 'u2', userProfile: { displayName: 'Two' } },
          { externalId: 'u3' },
          { externalId: 'u1', userProfile: { displayName: 'One' } },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.failed).toEqual([
      { externalId: 'u2', error: { status: 400, message: expect.stringContaining('missing-group') } },
      { externalId: 'u3', error: { status: 429, message: expect.any(String) } },
    ]);
    expect(res.body.succeeded.map((u: any) => [u.externalId, u.firstName])).toEqual([
      ['u1', 'One'],
      ['u2', 'Two'],
      ['u1', 'One'],
    ]);
    for (const u of res.body.succeeded) {
      expect(u).toEqual({
        id: expect.any(Number),
        username: u.externalId,
        externalId: u.externalId,
        email: expect.toSatisfy((e: unknown) => e === null || typeof e === 'string'),
        firstName: expect.any(String),
        createdAt: expect.any(String),
        lastLogin: null,
      });
    }
    expect(
      await rows(
        'SELECT external_id, email, display_name FROM embed_users WHERE account_id = ? ORDER BY external_id',
        account.accountId,
      ),
    ).toEqual([
      { external_id: 'u1', email: 'u1@example.com', display_name: 'One' },
      { external_id: 'u2', email: null, display_name: 'Two' },
    ]);
    expect((await provisionState(account.accountId, 'u1')).groups).toEqual([
      { name: 'team-b', scope: 'tenant' },
    ]);
    expect(await externalUserCount(account.accountId)).toBe(2);
  });

  it('refuses an empty or oversized list and invalid entries as a whole (400)', async () => {
    const path = `/api/v1/embed-tenants/${PROVISION_TENANT}/users`;
    const auth = key();
    expectError(await api('POST', path, { auth, body: { users: [] } }), 400);
    const many = Array.from({ length: 101 }, (_, i) => ({ externalId: `bulk-${i}` }));
    expectError(await api('POST', path, { auth, body: { users: many } }), 400);
    expectError(await api('POST', path, { auth, body: { users: [{ externalId: 'OK' }] } }), 400);
    expect(
      await rows(
        "SELECT id FROM embed_users WHERE account_id = ? AND external_id LIKE 'bulk-%'",
        acme.accountId,
      ),
    ).toEqual([]);
  });
});
