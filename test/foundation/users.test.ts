import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf } from '../helpers/shards';

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

describe('POST /api/v1/users', () => {
  it('creates a member by default and stores it', async () => {
    const res = await api('POST', '/api/v1/users', {
      auth: world.acme.admin,
      body: {
        email: 'ana@acme.com',
        username: 'ana',
        firstName: 'Ana',
        picture: 'https://img.example.com/ana.png',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: 'ana@acme.com',
      username: 'ana',
      firstName: 'Ana',
      role: 'member',
    });
    const row = await env.DB.prepare('SELECT account_id, role FROM users WHERE id = ?')
      .bind(res.body.id)
      .first();
    expect(row).toEqual({ account_id: world.acme.accountId, role: 'member' });
  });

  it('answers 409 for a taken email or username in the same account, but not across accounts', async () => {
    await api('POST', '/api/v1/users', {
      auth: world.acme.admin,
      body: { email: 'bo@acme.com', username: 'bo' },
    });
    expectError(
      await api('POST', '/api/v1/users', {
        auth: world.acme.admin,
        body: { email: 'bo@acme.com', username: 'bo2' },
      }),
      409,
      'CONFLICT',
    );
    expectError(
      await api('POST', '/api/v1/users', {
        auth: world.acme.admin,
        body: { email: 'bo2@acme.com', username: 'bo' },
      }),
      409,
      'CONFLICT',
    );
    const elsewhere = await api('POST', '/api/v1/users', {
      auth: world.other.admin,
      body: { email: 'bo@acme.com', username: 'bo' },
    });
    expect(elsewhere.status).toBe(200);
  });

  it.each([
    [{ username: 'x' }, 'email'],
    [{ email: 'nope', username: 'x' }, 'email'],
    [{ email: 'a@b.co' }, 'username'],
    [{ email: 'a@b.co', username: 'bad name' }, 'username'],
    [{ email: 'a@b.co', username: 'x', role: 'owner' }, 'role'],
    [{ email: 'a@b.co', username: 'x', picture: 'javascript:alert(1)' }, 'picture'],
    [{ email: 'a@b.co', username: 'x', extra: 1 }, 'extra'],
  ])('rejects %j naming %s', async (body, path) => {
    const res = await api('POST', '/api/v1/users', { auth: world.acme.admin, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('is for admins with a Bearer token', async () => {
    const body = { email: 'z@acme.com', username: 'z' };
    expectError(await api('POST', '/api/v1/users', { auth: world.acme.member, body }), 403, 'FORBIDDEN');
    expectError(await api('POST', '/api/v1/users', { body }), 401, 'UNAUTHORIZED');
    // A scoped key cannot create account-wide users (an unscoped key may: api-key-credentials.test).
    expectError(await api('POST', '/api/v1/users', { auth: world.acme.scopedKey, body }), 403, 'KEY_SCOPE');
    expectError(
      await api('POST', '/api/v1/users', { auth: { bearer: 'eb_at_unknown' }, body }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await api('POST', '/api/v1/users', { auth: { raw: 'Basic abc' }, body }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('GET /api/v1/users', () => {
  it('pages through the account users only, in id order', async () => {
    const seen: number[] = [];
    let after: string | undefined;
    for (let page = 0; page < 20; page++) {
      const res = await api('GET', `/api/v1/users?first=1${after ? `&after=${after}` : ''}`, {
        auth: world.acme.admin,
      });
      expect(res.status).toBe(200);
      expect(res.body.pageInfo.hasPreviousPage).toBe(after !== undefined);
      seen.push(...res.body.items.map((u: { id: number }) => u.id));
      if (!res.body.pageInfo.hasNextPage) break;
      after = res.body.pageInfo.endCursor;
    }
    const rows = await env.DB.prepare('SELECT id FROM users WHERE account_id = ? ORDER BY id')
      .bind(world.acme.accountId)
      .all<{ id: number }>();
    expect(seen).toEqual(rows.results.map((r) => r.id));
  });

  it('rejects a bad page size or cursor', async () => {
    expectError(
      await api('GET', '/api/v1/users?first=0', { auth: world.acme.admin }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await api('GET', '/api/v1/users?first=101', { auth: world.acme.admin }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await api('GET', '/api/v1/users?after=garbage', { auth: world.acme.admin }),
      400,
      'INVALID_CURSOR',
    );
    const keys = await api('GET', '/api/v1/api-keys?first=1', { auth: world.acme.admin });
    const foreign = keys.body.pageInfo.endCursor;
    expectError(
      await api('GET', `/api/v1/users?after=${foreign}`, { auth: world.acme.admin }),
      400,
      'INVALID_CURSOR',
    );
  });

  it('lets a member read only their own user', async () => {
    expect(
      (await api('GET', `/api/v1/users/${world.acme.memberUserId}`, { auth: world.acme.member })).status,
    ).toBe(200);
    expectError(
      await api('GET', `/api/v1/users/${world.acme.adminUserId}`, { auth: world.acme.member }),
      403,
    );
    expectError(await api('GET', '/api/v1/users', { auth: world.acme.member }), 403);
    expectError(
      await api('GET', `/api/v1/users/${world.other.adminUserId}`, { auth: world.acme.admin }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('access tokens', () => {
  it('issues a token shown once, lists it without the secret, and revokes it at once', async () => {
    const created = await api('POST', `/api/v1/users/${world.acme.memberUserId}/access-tokens`, {
      auth: world.acme.admin,
    });
    expect(created.status).toBe(200);
    const token = created.body.token as string;
    expect(token).toMatch(/^eb_at_/);
    expect(
      (await api('GET', `/api/v1/users/${world.acme.memberUserId}`, { auth: { bearer: token } })).status,
    ).toBe(200);

    const list = await api('GET', `/api/v1/users/${world.acme.memberUserId}/access-tokens`, {
      auth: world.acme.member,
    });
    expect(list.status).toBe(200);
    expect(list.body.items.map((t: { id: number }) => t.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(token);

    const deleted = await api(
      'DELETE',
      `/api/v1/users/${world.acme.memberUserId}/access-tokens/${created.body.id}`,
      {
        auth: world.acme.member,
      },
    );
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.body.id, deleted: true });
    expectError(
      await api('GET', `/api/v1/users/${world.acme.memberUserId}`, { auth: { bearer: token } }),
      401,
    );
    const again = await api(
      'DELETE',
      `/api/v1/users/${world.acme.memberUserId}/access-tokens/${created.body.id}`,
      {
        auth: world.acme.member,
      },
    );
    expectError(again, 404, 'NOT_FOUND');
  });

  it('lets a member manage only their own tokens', async () => {
    expect(
      (
        await api('POST', `/api/v1/users/${world.acme.memberUserId}/access-tokens`, {
          auth: world.acme.member,
        })
      ).status,
    ).toBe(200);
    expectError(
      await api('POST', `/api/v1/users/${world.acme.adminUserId}/access-tokens`, { auth: world.acme.member }),
      403,
    );
  });

  it("answers 404 for another account's user", async () => {
    expectError(
      await api('POST', `/api/v1/users/${world.other.memberUserId}/access-tokens`, {
        auth: world.acme.admin,
      }),
      404,
    );
    expectError(
      await api('GET', `/api/v1/users/${world.other.memberUserId}/access-tokens`, { auth: world.acme.admin }),
      404,
    );
    const otherTokens = await dbOf(world.other.memberUserId)
      .prepare('SELECT id FROM access_tokens WHERE user_id = ?')
      .bind(world.other.memberUserId)
      .first<{ id: number }>();
    expectError(
      await api('DELETE', `/api/v1/users/${world.other.memberUserId}/access-tokens/${otherTokens?.id}`, {
        auth: world.acme.admin,
      }),
      404,
    );
    expect(
      await dbOf(world.other.memberUserId)
        .prepare('SELECT id FROM access_tokens WHERE id = ?')
        .bind(otherTokens?.id)
        .first(),
    ).not.toBeNull();
  });
});
