import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, OPERATOR, seedAccount, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf } from '../helpers/shards';

// An API key works as `Bearer <key>` and `Api-Key <key>` on every route an
// admin access token may call, within its deployment scope, acting as the account's first admin.

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

const bearer = (key: { apiKey: string }) => ({ bearer: key.apiKey });

const workspaceRows = async (deploymentId: number) =>
  (
    await dbOf(deploymentId)
      .prepare('SELECT name, created_by FROM workspace_items WHERE deployment_id = ? ORDER BY id')
      .bind(deploymentId)
      .all()
  ).results;

describe('API keys as Cube sends them', () => {
  it('read a member route with either scheme', async () => {
    const { acme } = world;
    for (const auth of [acme.key, bearer(acme.key)]) {
      const res = await api('GET', '/api/v1/deployments', { auth });
      expect(res.status).toBe(200);
      expect(res.body.items.map((d: { id: number }) => d.id)).toEqual(acme.deployments);
    }
  });

  it('refuse an unknown key in either scheme, and an access token in the Api-Key scheme', async () => {
    for (const auth of [
      { bearer: 'eb_ak_unknown' },
      { apiKey: 'eb_ak_unknown' },
      { apiKey: world.acme.admin.bearer },
    ]) {
      expectError(await api('GET', '/api/v1/deployments', { auth }), 401, 'UNAUTHORIZED');
    }
  });

  it('act as the account admin on an admin route, and the write is stored', async () => {
    const body = { email: 'robot@acme.com', username: 'robot' };
    const res = await api('POST', '/api/v1/users', { auth: bearer(world.acme.key), body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ...body, role: 'member' });
    const row = await dbOf(res.body.id)
      .prepare('SELECT account_id, email FROM users WHERE id = ?')
      .bind(res.body.id)
      .first();
    expect(row).toEqual({ account_id: world.acme.accountId, email: 'robot@acme.com' });
  });

  it('record the first admin as the author on a deployment-scoped route', async () => {
    const [dep] = world.acme.deployments;
    const res = await api('POST', `/api/v1/deployments/${dep}/folders`, {
      auth: bearer(world.acme.scopedKey),
      body: { name: 'From the backend' },
    });
    expect(res.status).toBe(200);
    expect(await workspaceRows(dep)).toContainEqual({
      name: 'From the backend',
      created_by: world.acme.adminUserId,
    });
  });

  it('get 403 KEY_SCOPE outside their deployments, and nothing is stored', async () => {
    const [inScope, outOfScope] = world.acme.deployments;
    const before = await workspaceRows(outOfScope);
    for (const auth of [world.acme.scopedKey, bearer(world.acme.scopedKey)]) {
      expectError(
        await api('POST', `/api/v1/deployments/${outOfScope}/folders`, { auth, body: { name: 'Nope' } }),
        403,
        'KEY_SCOPE',
      );
      expectError(await api('GET', `/api/v1/deployments/${outOfScope}`, { auth }), 403, 'KEY_SCOPE');
    }
    expect(await workspaceRows(outOfScope)).toEqual(before);
    // The scoped key lists and reads only its own deployment.
    const list = await api('GET', '/api/v1/deployments', { auth: world.acme.scopedKey });
    expect(list.body.items.map((d: { id: number }) => d.id)).toEqual([inScope]);
    expect((await api('GET', `/api/v1/deployments/${inScope}`, { auth: world.acme.scopedKey })).status).toBe(
      200,
    );
  });

  it("answer 404 for another account's deployment, not 403", async () => {
    const theirs = world.other.deployments[0];
    expectError(
      await api('POST', `/api/v1/deployments/${theirs}/folders`, {
        auth: world.acme.key,
        body: { name: 'x' },
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('cannot author when the account has no admin left', async () => {
    const lonely = await seedAccount();
    await dbOf(lonely.accountId)
      .prepare("UPDATE users SET role = 'member' WHERE account_id = ?")
      .bind(lonely.accountId)
      .run();
    const dep = lonely.deployments[0];
    expectError(
      await api('POST', `/api/v1/deployments/${dep}/folders`, { auth: lonely.key, body: { name: 'x' } }),
      403,
      'FORBIDDEN',
    );
    expect(await workspaceRows(dep)).toEqual([]);
  });
});

describe('Retry-After', () => {
  it('comes with every 429', async () => {
    const acme = await seedAccount();
    await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { externalUserLimit: 0 },
    });
    const res = await api('POST', '/api/v1/embed/generate-session', {
      auth: acme.key,
      body: { deploymentId: acme.deployments[0], externalId: 'first' },
    });
    expectError(res, 429, 'QUOTA_EXCEEDED');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
