import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

const groups = (tenant: string) => `/api/v1/embed-tenants/${tenant}/groups`;
const attributes = (tenant: string) => `/api/v1/embed-tenants/${tenant}/user-attributes`;

describe('embed-tenant groups', () => {
  it('creates a group (creating the tenant), lists, updates and deletes it', async () => {
    const { acme } = world;
    const created = await api('POST', groups('tenant-one'), {
      auth: acme.key,
      body: { name: 'Analysts', description: 'Read-only analysts' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Analysts',
      description: 'Read-only analysts',
      userCount: 0,
    });
    const tenant = await env.DB.prepare('SELECT id FROM embed_tenants WHERE account_id = ? AND name = ?')
      .bind(acme.accountId, 'tenant-one')
      .first<{ id: number }>();
    expect(tenant).not.toBeNull();
    const row = await env.DB.prepare('SELECT tenant_id FROM embed_groups WHERE id = ?')
      .bind(created.body.id)
      .first<{ tenant_id: number }>();
    expect(row?.tenant_id).toBe(tenant?.id);

    const list = await api('GET', groups('tenant-one'), { auth: acme.admin });
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([created.body]);
    expect(list.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });

    // Updating a group: an omitted description keeps it; an empty string clears it.
    const renamed = await api('PATCH', `${groups('tenant-one')}/${created.body.id}`, {
      auth: acme.admin,
      body: { name: 'Senior analysts' },
    });
    expect(renamed.body).toMatchObject({ name: 'Senior analysts', description: 'Read-only analysts' });
    const described = await api('PATCH', `${groups('tenant-one')}/${created.body.id}`, {
      auth: acme.admin,
      body: { description: 'New text' },
    });
    expect(described.body).toMatchObject({ name: 'Senior analysts', description: 'New text' });
    const cleared = await api('PATCH', `${groups('tenant-one')}/${created.body.id}`, {
      auth: acme.key,
      body: { description: '' },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBe('');
    expectError(
      await api('PATCH', `${groups('tenant-one')}/${created.body.id}`, {
        auth: acme.admin,
        body: { description: 'x'.repeat(501) },
      }),
      400,
      'VALIDATION_FAILED',
    );
    const max = await api('PATCH', `${groups('tenant-one')}/${created.body.id}`, {
      auth: acme.admin,
      body: { description: 'x'.repeat(500) },
    });
    expect(max.status).toBe(200);

    const deleted = await api('DELETE', `${groups('tenant-one')}/${created.body.id}`, { auth: acme.admin });
    expect(deleted.body).toEqual({ id: created.body.id, deleted: true });
    expectError(await api('DELETE', `${groups('tenant-one')}/${created.body.id}`, { auth: acme.admin }), 404);
  });

  it('keeps names unique per tenant, not across tenants or the account-wide catalogue', async () => {
    const { acme } = world;
    expect(
      (await api('POST', groups('tenant-aaa'), { auth: acme.admin, body: { name: 'Ops' } })).status,
    ).toBe(200);
    expectError(
      await api('POST', groups('tenant-aaa'), { auth: acme.admin, body: { name: 'Ops' } }),
      409,
      'CONFLICT',
    );
    expect(
      (await api('POST', groups('tenant-bbb'), { auth: acme.admin, body: { name: 'Ops' } })).status,
    ).toBe(200);
    expect((await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'Ops' } })).status).toBe(
      200,
    );
    const other = await api('POST', groups('tenant-aaa'), { auth: acme.admin, body: { name: 'Dev' } });
    expectError(
      await api('PATCH', `${groups('tenant-aaa')}/${other.body.id}`, {
        auth: acme.admin,
        body: { name: 'Ops' },
      }),
      409,
    );
    // A group of one tenant is not reachable through another tenant's path.
    expectError(
      await api('PATCH', `${groups('tenant-bbb')}/${other.body.id}`, {
        auth: acme.admin,
        body: { name: 'X' },
      }),
      404,
    );
    expectError(await api('DELETE', `${groups('tenant-bbb')}/${other.body.id}`, { auth: acme.admin }), 404);
  });

  it('answers 404 for an unknown tenant and 400 for a malformed tenant name', async () => {
    const { acme } = world;
    expectError(await api('GET', groups('never-seen'), { auth: acme.admin }), 404, 'NOT_FOUND');
    expectError(await api('GET', attributes('never-seen'), { auth: acme.admin }), 404, 'NOT_FOUND');
    expectError(
      await api('PATCH', `${groups('never-seen')}/1`, { auth: acme.admin, body: { name: 'x' } }),
      404,
    );
    for (const bad of ['abc', 'Upper-case', '1starts-with-digit', 'ends-with-dash-', `a${'b'.repeat(36)}`]) {
      expectError(await api('GET', groups(bad), { auth: acme.admin }), 400, 'VALIDATION_FAILED');
    }
    expectError(await api('POST', groups('ABCDE'), { auth: acme.admin, body: { name: 'x' } }), 400);
  });

  it('guards access: credentials, member role and account isolation', async () => {
    const { acme, other } = world;
    const g = await api('POST', groups('guarded'), { auth: acme.admin, body: { name: 'G' } });
    expectError(await api('GET', groups('guarded')), 401, 'UNAUTHORIZED');
    expectError(await api('GET', groups('guarded'), { auth: { raw: 'Token abc' } }), 401);
    expectError(await api('GET', groups('guarded'), { auth: { apiKey: 'eb_ak_unknown' } }), 401);
    expectError(await api('GET', groups('guarded'), { auth: acme.member }), 403, 'FORBIDDEN');
    expectError(await api('POST', groups('guarded'), { auth: acme.member, body: { name: 'M' } }), 403);
    expectError(await api('DELETE', `${groups('guarded')}/${g.body.id}`, { auth: acme.member }), 403);
    expect((await api('GET', groups('guarded'), { auth: acme.scopedKey })).status).toBe(200);
    // The other account has no tenant of that name: 404, never the group.
    expectError(await api('GET', groups('guarded'), { auth: other.admin }), 404);
    expectError(await api('DELETE', `${groups('guarded')}/${g.body.id}`, { auth: other.key }), 404);
  });
});

describe('embed tenants list and tenant user attributes', () => {
  it('lists tenants of the account only', async () => {
    const { acme, other } = world;
    await api('POST', groups('listed-tenant'), { auth: acme.admin, body: { name: 'L' } });
    const list = await api('GET', '/api/v1/embed-tenants?first=100', { auth: acme.key });
    expect(list.status).toBe(200);
    const names = list.body.items.map((t: any) => t.name);
    expect(names).toContain('listed-tenant');
    // Cube's userCount and displayName are part of each tenant.
    expect(list.body.items[0]).toEqual({
      id: expect.any(Number),
      name: expect.any(String),
      createdAt: expect.any(String),
      userCount: expect.any(Number),
      displayName: null,
    });
    const theirs = await api('GET', '/api/v1/embed-tenants', { auth: other.admin });
    expect(theirs.body.items.map((t: any) => t.name)).not.toContain('listed-tenant');
    expectError(await api('GET', '/api/v1/embed-tenants', { auth: acme.member }), 403);
  });

  it('lists and deletes tenant attributes; values go with them', async () => {
    const { acme } = world;
    await api('POST', groups('attr-tenant'), { auth: acme.admin, body: { name: 'seed' } });
    const tenant = await env.DB.prepare('SELECT id FROM embed_tenants WHERE account_id = ? AND name = ?')
      .bind(acme.accountId, 'attr-tenant')
      .first<{ id: number }>();
    // Tenant attributes come from generate-session definitions; seed one row directly here.
    const attr = await env.DB.prepare(
      `INSERT INTO embed_attributes (account_id, tenant_id, name, type, created_at, updated_at)
       VALUES (?, ?, 'tier', 'string', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z') RETURNING id`,
    )
      .bind(acme.accountId, tenant?.id)
      .first<{ id: number }>();
    const list = await api('GET', attributes('attr-tenant'), { auth: acme.admin });
    expect(list.body.items).toEqual([
      {
        id: attr?.id,
        name: 'tier',
        type: 'string',
        displayName: null,
        defaultValue: null,
        description: null,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
    expectError(await api('DELETE', `${attributes('attr-tenant')}/${attr?.id}`, { auth: acme.member }), 403);
    expectError(await api('DELETE', `${attributes('other-tenant')}/${attr?.id}`, { auth: acme.admin }), 404);
    expectError(await api('DELETE', `/api/v1/user-attributes/${attr?.id}`, { auth: acme.admin }), 404);
    const deleted = await api('DELETE', `${attributes('attr-tenant')}/${attr?.id}`, { auth: acme.key });
    expect(deleted.body).toEqual({ id: attr?.id, deleted: true });
    expect((await api('GET', attributes('attr-tenant'), { auth: acme.admin })).body.items).toEqual([]);
  });
});
