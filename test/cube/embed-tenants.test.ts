// Cube's Embed Tenants and User Attributes operations (docs-mintlify/api-reference/api.yaml), called
// as a Cube client calls them (`Authorization: Bearer <API key>`), each answer checked for the
// fields Cube marks required with Cube's types.
import { beforeAll, describe, expect, it } from 'vitest';
import { load, mintOk, publishDashboard, rows, setEmbed } from '../embedding/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';

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
