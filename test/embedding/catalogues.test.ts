import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

describe('account-wide groups (/api/v1/groups)', () => {
  it('creates, lists, renames, describes and deletes a group', async () => {
    const { acme } = world;
    const created = await api('POST', '/api/v1/groups', {
      auth: acme.admin,
      body: { name: '  Sales  ', description: 'People who sell' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Sales',
      description: 'People who sell',
      userCount: 0,
    });
    const row = await env.DB.prepare('SELECT account_id, tenant_id, name FROM embed_groups WHERE id = ?')
      .bind(created.body.id)
      .first();
    expect(row).toEqual({ account_id: acme.accountId, tenant_id: null, name: 'Sales' });

    const list = await api('GET', '/api/v1/groups', { auth: acme.admin });
    expect(list.status).toBe(200);
    expect(list.body.items.map((g: any) => g.name)).toContain('Sales');

    const renamed = await api('PATCH', `/api/v1/groups/${created.body.id}`, {
      auth: acme.key,
      body: { name: 'Sales EU' },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Sales EU', description: 'People who sell' });

    const cleared = await api('PATCH', `/api/v1/groups/${created.body.id}`, {
      auth: acme.admin,
      body: { description: '' },
    });
    expect(cleared.body).toMatchObject({ name: 'Sales EU', description: '' });

    const deleted = await api('DELETE', `/api/v1/groups/${created.body.id}`, { auth: acme.admin });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.body.id, deleted: true });
    const gone = await env.DB.prepare('SELECT count(*) AS n FROM embed_groups WHERE id = ?')
      .bind(created.body.id)
      .first<{ n: number }>();
    expect(gone?.n).toBe(0);
    expectError(
      await api('DELETE', `/api/v1/groups/${created.body.id}`, { auth: acme.admin }),
      404,
      'NOT_FOUND',
    );
  });

  it('keeps names unique in the catalogue (409 on create and on rename)', async () => {
    const { acme } = world;
    const a = await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'dup-a' } });
    const b = await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'dup-b' } });
    expect(a.status).toBe(200);
    expect(a.body.description).toBe('');
    expectError(
      await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'dup-a' } }),
      409,
      'CONFLICT',
    );
    expectError(
      await api('PATCH', `/api/v1/groups/${b.body.id}`, { auth: acme.admin, body: { name: 'dup-a' } }),
      409,
      'CONFLICT',
    );
    // Renaming to its own name is no conflict.
    const same = await api('PATCH', `/api/v1/groups/${a.body.id}`, {
      auth: acme.admin,
      body: { name: 'dup-a' },
    });
    expect(same.status).toBe(200);
    // The same name in another account is fine.
    const elsewhere = await api('POST', '/api/v1/groups', {
      auth: world.other.admin,
      body: { name: 'dup-a' },
    });
    expect(elsewhere.status).toBe(200);
  });

  it('validates bodies', async () => {
    const { acme } = world;
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'ok', description: 'd'.repeat(501) },
      { name: 'ok', extra: 1 },
    ]) {
      expectError(await api('POST', '/api/v1/groups', { auth: acme.admin, body }), 400, 'VALIDATION_FAILED');
    }
    const g = await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'validate-me' } });
    // Cube's UpdateEmbedGroupInput requires nothing: an empty PATCH changes nothing.
    const unchanged = await api('PATCH', `/api/v1/groups/${g.body.id}`, { auth: acme.admin, body: {} });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(g.body);
    expectError(
      await api('PATCH', `/api/v1/groups/${g.body.id}`, {
        auth: acme.admin,
        body: { description: 'd'.repeat(501) },
      }),
      400,
    );
    expectError(await api('PATCH', '/api/v1/groups/abc', { auth: acme.admin, body: { name: 'x' } }), 400);
  });

  it('pages with first/after', async () => {
    const acct = world.other;
    for (const name of ['p1', 'p2', 'p3']) {
      expect((await api('POST', '/api/v1/groups', { auth: acct.admin, body: { name } })).status).toBe(200);
    }
    const first = await api('GET', '/api/v1/groups?first=2', { auth: acct.admin });
    expect(first.body.items).toHaveLength(2);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const next = await api('GET', `/api/v1/groups?first=2&after=${first.body.pageInfo.endCursor}`, {
      auth: acct.admin,
    });
    const names = [...first.body.items, ...next.body.items].map((g: any) => g.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['p1', 'p2', 'p3']));
    expectError(
      await api('GET', '/api/v1/groups?after=garbage', { auth: acct.admin }),
      400,
      'INVALID_CURSOR',
    );
  });

  it('is admin only and isolated per account', async () => {
    const { acme, other } = world;
    const g = await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'private' } });
    expectError(await api('GET', '/api/v1/groups'), 401, 'UNAUTHORIZED');
    expectError(await api('GET', '/api/v1/groups', { auth: { raw: `Basic ${acme.key.apiKey}` } }), 401);
    expectError(await api('GET', '/api/v1/groups', { auth: { bearer: 'eb_at_unknown' } }), 401);
    expectError(await api('GET', '/api/v1/groups', { auth: acme.member }), 403, 'FORBIDDEN');
    expectError(await api('POST', '/api/v1/groups', { auth: acme.member, body: { name: 'm' } }), 403);
    // A scoped key acts for the account's catalogue too.
    expect((await api('GET', '/api/v1/groups', { auth: acme.scopedKey })).status).toBe(200);
    expectError(
      await api('PATCH', `/api/v1/groups/${g.body.id}`, { auth: other.admin, body: { name: 'stolen' } }),
      404,
    );
    expectError(await api('DELETE', `/api/v1/groups/${g.body.id}`, { auth: other.key }), 404);
    const list = await api('GET', '/api/v1/groups', { auth: other.admin });
    expect(list.body.items.map((x: any) => x.id)).not.toContain(g.body.id);
  });
});

describe('account-wide user attributes (/api/v1/user-attributes)', () => {
  it('creates, lists and deletes definitions', async () => {
    const { acme } = world;
    const created = await api('POST', '/api/v1/user-attributes', {
      auth: acme.admin,
      body: {
        name: 'region',
        type: 'string',
        displayName: 'Region',
        defaultValue: 'eu',
        description: 'Sales region',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'region',
      type: 'string',
      displayName: 'Region',
      defaultValue: 'eu',
      description: 'Sales region',
      createdAt: expect.stringMatching(/Z$/),
    });
    const bare = await api('POST', '/api/v1/user-attributes', {
      auth: acme.key,
      body: { name: 'levels', type: 'number_array' },
    });
    expect(bare.body).toMatchObject({ displayName: null, defaultValue: null, description: null });
    const list = await api('GET', '/api/v1/user-attributes', { auth: acme.admin });
    expect(list.body.items.map((a: any) => a.name)).toEqual(['region', 'levels']);
    expectError(
      await api('POST', '/api/v1/user-attributes', {
        auth: acme.admin,
        body: { name: 'region', type: 'number' },
      }),
      409,
      'CONFLICT',
    );
    const deleted = await api('DELETE', `/api/v1/user-attributes/${bare.body.id}`, { auth: acme.admin });
    expect(deleted.body).toEqual({ id: bare.body.id, deleted: true });
    expectError(await api('DELETE', `/api/v1/user-attributes/${bare.body.id}`, { auth: acme.admin }), 404);
  });

  it('validates bodies and guards access', async () => {
    const { acme, other } = world;
    for (const body of [
      { name: 'x' },
      { name: 'x', type: 'date' },
      { name: '', type: 'string' },
      { type: 'string' },
    ]) {
      expectError(await api('POST', '/api/v1/user-attributes', { auth: acme.admin, body }), 400);
    }
    expectError(await api('GET', '/api/v1/user-attributes', { auth: acme.member }), 403);
    expectError(await api('GET', '/api/v1/user-attributes'), 401);
    const a = await api('POST', '/api/v1/user-attributes', {
      auth: acme.admin,
      body: { name: 'mine', type: 'number' },
    });
    expectError(await api('DELETE', `/api/v1/user-attributes/${a.body.id}`, { auth: other.admin }), 404);
  });
});
