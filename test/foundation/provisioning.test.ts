import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import { expectError, OPERATOR } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf } from '../helpers/shards';

const provision = (body: unknown, auth: { bearer: string } | { apiKey: string } | null = OPERATOR) =>
  api('POST', '/admin/v1/accounts', { auth, body });

describe('POST /admin/v1/accounts', () => {
  it('provisions an account with defaults, an admin user and secrets shown once', async () => {
    const res = await provision({ name: 'Acme Analytics' });
    expect(res.status).toBe(201);
    expect(res.body.account).toMatchObject({
      name: 'Acme Analytics',
      plan: 'premium',
      useCreatorMode: false,
      externalUserLimit: 10000,
      embedSessionTtlSeconds: 86400,
    });
    expect(res.body.user).toMatchObject({
      username: 'admin',
      role: 'admin',
      email: 'admin@acme-analytics.example.com',
    });
    expect(res.body.accessToken).toMatch(/^eb_at_[A-Za-z0-9_-]{43}$/);
    expect(res.body.apiKey).toMatch(/^eb_ak_[A-Za-z0-9_-]{43}$/);

    // Only hashes are stored.
    const token = await env.DB.prepare('SELECT token_hash, token_prefix FROM access_tokens WHERE user_id = ?')
      .bind(res.body.user.id)
      .first<{ token_hash: string; token_prefix: string }>();
    expect(token?.token_hash).toBe(await sha256Hex(res.body.accessToken));
    expect(res.body.accessToken.startsWith(token?.token_prefix ?? '-')).toBe(true);
    const key = await env.DB.prepare('SELECT key_hash, deployment_ids FROM api_keys WHERE account_id = ?')
      .bind(res.body.account.id)
      .first<{ key_hash: string; deployment_ids: string | null }>();
    expect(key).toEqual({ key_hash: await sha256Hex(res.body.apiKey), deployment_ids: null });
    const dump = JSON.stringify(await env.DB.prepare('SELECT * FROM access_tokens, api_keys').all());
    expect(dump).not.toContain(res.body.accessToken);
    expect(dump).not.toContain(res.body.apiKey);
  });

  it('takes every account setting and names of the admin', async () => {
    const res = await provision({
      name: 'Globex',
      plan: 'enterprise',
      useCreatorMode: true,
      externalUserLimit: 5,
      embedSessionTtlSeconds: 600,
      adminEmail: 'ops@globex.com',
      adminUsername: 'ops',
      allowedEmbedOrigins: ['https://app.globex.com'],
    });
    expect(res.status).toBe(201);
    expect(res.body.account).toMatchObject({
      plan: 'enterprise',
      useCreatorMode: true,
      externalUserLimit: 5,
      embedSessionTtlSeconds: 600,
      allowedEmbedOrigins: ['https://app.globex.com'],
    });
    expect(res.body.user).toMatchObject({ email: 'ops@globex.com', username: 'ops' });
  });

  it('returns credentials that work at once, each with its own scheme', async () => {
    const res = await provision({ name: 'Initech' });
    const users = await api('GET', '/api/v1/users', { auth: { bearer: res.body.accessToken } });
    expect(users.status).toBe(200);
    expect(users.body.items.map((u: { id: number }) => u.id)).toEqual([res.body.user.id]);
    // The API key works on the same routes, as `Bearer <key>` or `Api-Key <key>`.
    for (const auth of [{ bearer: res.body.apiKey }, { apiKey: res.body.apiKey }]) {
      const byKey = await api('GET', '/api/v1/users', { auth });
      expect(byKey.status).toBe(200);
      expect(byKey.body.items.map((u: { id: number }) => u.id)).toEqual([res.body.user.id]);
    }
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: 'a', plan: 'gold' }, 'plan'],
    [{ name: 'a', useCreatorMode: 'yes' }, 'useCreatorMode'],
    [{ name: 'a', externalUserLimit: -1 }, 'externalUserLimit'],
    [{ name: 'a', externalUserLimit: 1.5 }, 'externalUserLimit'],
    [{ name: 'a', embedSessionTtlSeconds: 59 }, 'embedSessionTtlSeconds'],
    [{ name: 'a', embedSessionTtlSeconds: 86401 }, 'embedSessionTtlSeconds'],
    [{ name: 'a', adminEmail: 'not-an-email' }, 'adminEmail'],
    [{ name: 'a', adminUsername: 'has space' }, 'adminUsername'],
    [{ name: 'a', allowedEmbedOrigins: ['https://x.com/path'] }, 'allowedEmbedOrigins.0'],
    [{ name: 'a', chatWebhookUrl: 'ftp://x' }, 'chatWebhookUrl'],
    [{ name: 'a', id: 7 }, 'id'],
  ])('rejects %j naming %s', async (body, path) => {
    const res = await provision(body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('rejects an array where an object belongs, even when every field is optional', async () => {
    expectError(await provision([]), 400, 'VALIDATION_FAILED');
    const created = await provision({ name: 'Arrays' });
    const patch = await api('PATCH', `/admin/v1/accounts/${created.body.account.id}`, {
      auth: OPERATOR,
      body: [],
    });
    expectError(patch, 400, 'VALIDATION_FAILED');
  });

  it('rejects an empty body', async () => {
    expectError(await api('POST', '/admin/v1/accounts', { auth: OPERATOR }), 400, 'VALIDATION_FAILED');
  });

  it('needs the operator token', async () => {
    const customer = await provision({ name: 'Customer' });
    expectError(await provision({ name: 'x' }, null), 401, 'UNAUTHORIZED');
    expectError(await provision({ name: 'x' }, { bearer: 'wrong' }), 401, 'UNAUTHORIZED');
    expectError(await provision({ name: 'x' }, { apiKey: 'test-operator-token' }), 401, 'UNAUTHORIZED');
    expectError(await provision({ name: 'x' }, { bearer: customer.body.accessToken }), 401, 'UNAUTHORIZED');
    expectError(
      await api('POST', '/admin/v1/accounts', { auth: { raw: 'Bearer' }, body: { name: 'x' } }),
      401,
    );
  });
});

describe('GET and PATCH /admin/v1/accounts/{id}', () => {
  it('changes only the fields sent', async () => {
    const created = await provision({ name: 'Umbrella', plan: 'starter' });
    const id = created.body.account.id;
    const res = await api('PATCH', `/admin/v1/accounts/${id}`, {
      auth: OPERATOR,
      body: { plan: 'premium', externalUserLimit: 3, chatWebhookUrl: 'https://hooks.example.com/x' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Umbrella',
      plan: 'premium',
      externalUserLimit: 3,
      chatWebhookUrl: 'https://hooks.example.com/x',
    });
    const row = await dbOf(id)
      .prepare('SELECT plan, external_user_limit FROM accounts WHERE id = ?')
      .bind(id)
      .first();
    expect(row).toEqual({ plan: 'premium', external_user_limit: 3 });
    const got = await api('GET', `/admin/v1/accounts/${id}`, { auth: OPERATOR });
    expect(got.body).toEqual(res.body);
  });

  it('answers 404 for an unknown account and 400 for a bad id or body', async () => {
    expectError(
      await api('PATCH', '/admin/v1/accounts/999999', { auth: OPERATOR, body: { plan: 'free' } }),
      404,
      'NOT_FOUND',
    );
    expectError(await api('GET', '/admin/v1/accounts/999999', { auth: OPERATOR }), 404, 'NOT_FOUND');
    expectError(await api('GET', '/admin/v1/accounts/abc', { auth: OPERATOR }), 400, 'VALIDATION_FAILED');
    const created = await provision({ name: 'Soylent' });
    const bad = await api('PATCH', `/admin/v1/accounts/${created.body.account.id}`, {
      auth: OPERATOR,
      body: { embedSessionTtlSeconds: 10 },
    });
    expectError(bad, 400, 'VALIDATION_FAILED');
    expect(bad.body.details[0].path).toBe('embedSessionTtlSeconds');
  });

  it('needs the operator token', async () => {
    const created = await provision({ name: 'Hooli' });
    const id = created.body.account.id;
    expectError(
      await api('PATCH', `/admin/v1/accounts/${id}`, {
        auth: { bearer: created.body.accessToken },
        body: {},
      }),
      401,
    );
    expectError(await api('GET', `/admin/v1/accounts/${id}`), 401);
  });
});
