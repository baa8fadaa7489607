import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

describe('POST /api/v1/api-keys', () => {
  it('creates an unscoped key shown once and stored hashed', async () => {
    const res = await api('POST', '/api/v1/api-keys', { auth: world.acme.admin, body: { name: 'backend' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'backend', deploymentIds: null });
    expect(res.body.key).toMatch(/^eb_ak_[A-Za-z0-9_-]{43}$/);
    const row = await env.DB.prepare('SELECT key_hash, account_id FROM api_keys WHERE id = ?')
      .bind(res.body.id)
      .first();
    expect(row).toEqual({ key_hash: await sha256Hex(res.body.key), account_id: world.acme.accountId });
  });

  it('scopes a key to deployments of the account, deduplicated and sorted', async () => {
    const [d1, d2] = world.acme.deployments;
    const res = await api('POST', '/api/v1/api-keys', {
      auth: world.acme.admin,
      body: { name: 's', deploymentIds: [d2, d1, d2] },
    });
    expect(res.status).toBe(200);
    expect(res.body.deploymentIds).toEqual([d1, d2].sort((a, b) => a - b));
  });

  it("refuses another account's deployment with 404 and writes nothing", async () => {
    const before = await env.DB.prepare('SELECT count(*) AS n FROM api_keys').first<{ n: number }>();
    const res = await api('POST', '/api/v1/api-keys', {
      auth: world.acme.admin,
      body: { name: 'x', deploymentIds: [world.acme.deployments[0], world.other.deployments[0]] },
    });
    expectError(res, 404, 'NOT_FOUND');
    const after = await env.DB.prepare('SELECT count(*) AS n FROM api_keys').first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
  });

  it.each([
    [{}, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 'x', deploymentIds: [] }, 'deploymentIds'],
    [{ name: 'x', deploymentIds: [0] }, 'deploymentIds.0'],
    [{ name: 'x', deploymentIds: ['1'] }, 'deploymentIds.0'],
    [{ name: 'x', scope: 'all' }, 'scope'],
  ])('rejects %j naming %s', async (body, path) => {
    const res = await api('POST', '/api/v1/api-keys', { auth: world.acme.admin, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  // An unscoped key acts as the account's admin; a scoped key
  // cannot mint account-wide keys.
  it('is for admins and unscoped API keys', async () => {
    const body = { name: 'x' };
    expectError(await api('POST', '/api/v1/api-keys', { auth: world.acme.member, body }), 403, 'FORBIDDEN');
    const byKey = await api('POST', '/api/v1/api-keys', { auth: world.acme.key, body });
    expect(byKey.status).toBe(200);
    const stored = await env.DB.prepare('SELECT account_id FROM api_keys WHERE id = ?')
      .bind(byKey.body.id)
      .first();
    expect(stored).toEqual({ account_id: world.acme.accountId });
    expectError(
      await api('POST', '/api/v1/api-keys', { auth: world.acme.scopedKey, body }),
      403,
      'KEY_SCOPE',
    );
    expectError(await api('POST', '/api/v1/api-keys', { body }), 401);
  });
});

describe('GET and DELETE /api/v1/api-keys', () => {
  it('lists keys without secrets and deletes one of the account only', async () => {
    const created = await api('POST', '/api/v1/api-keys', { auth: world.acme.admin, body: { name: 'temp' } });
    const list = await api('GET', '/api/v1/api-keys?first=100', { auth: world.acme.admin });
    expect(list.status).toBe(200);
    expect(list.body.items.find((k: { id: number }) => k.id === created.body.id)).toMatchObject({
      name: 'temp',
      deploymentIds: null,
      prefix: created.body.key.slice(0, 10),
    });
    expect(JSON.stringify(list.body)).not.toContain(created.body.key);

    expectError(await api('DELETE', `/api/v1/api-keys/${created.body.id}`, { auth: world.other.admin }), 404);
    const deleted = await api('DELETE', `/api/v1/api-keys/${created.body.id}`, { auth: world.acme.admin });
    expect(deleted.body).toEqual({ id: created.body.id, deleted: true });
    expect(
      await env.DB.prepare('SELECT id FROM api_keys WHERE id = ?').bind(created.body.id).first(),
    ).toBeNull();
    expectError(await api('DELETE', `/api/v1/api-keys/${created.body.id}`, { auth: world.acme.admin }), 404);
  });

  it('stops a deleted key at once', async () => {
    const created = await api('POST', '/api/v1/api-keys', {
      auth: world.acme.admin,
      body: { name: 'short-lived' },
    });
    const key = { apiKey: created.body.key as string };
    expect((await api('GET', '/api/v1/embed-tenants', { auth: key })).status).toBe(200);
    await api('DELETE', `/api/v1/api-keys/${created.body.id}`, { auth: world.acme.admin });
    expectError(await api('GET', '/api/v1/embed-tenants', { auth: key }), 401, 'UNAUTHORIZED');
  });

  it('is for admins', async () => {
    expectError(await api('GET', '/api/v1/api-keys', { auth: world.acme.member }), 403);
    expectError(await api('DELETE', '/api/v1/api-keys/1', { auth: world.acme.member }), 403);
  });
});
