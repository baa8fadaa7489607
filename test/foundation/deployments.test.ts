import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { REGIONS } from '../../src/deployments/deployments.schemas';
import { STARTER_MODEL } from '../../src/semantic/model/starter';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

const create = (body: unknown, auth: { bearer: string } | { apiKey: string } | null) =>
  api('POST', '/build/api/v1/deployments', { auth, body });

describe('POST /build/api/v1/deployments (createDeployment)', () => {
  it('creates the deployment, its starter project and its queued first build in one write', async () => {
    const res = await create({ name: 'Sales Analytics!' }, world.acme.admin);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['creationStep', 'deploymentUrl', 'id', 'name']);
    expect(res.body).toMatchObject({ name: 'Sales Analytics!', creationStep: 'project' });
    expect(res.body.deploymentUrl).toMatch(/^https:\/\/sales-analytics-[a-z0-9]{6}\.edgeboard\.app$/);

    const row = await env.DB.prepare('SELECT * FROM deployments WHERE id = ?').bind(res.body.id).first();
    expect(row).toMatchObject({
      account_id: world.acme.accountId,
      is_managed: 1,
      cloud_provider: 'hosted',
      region: 'us-east-1',
      target_platform: 'hosted',
      creation_method: 'hosted',
      deploy_mode: 'git',
      created_by: world.acme.adminUserId,
    });
    const files = await env.DB.prepare('SELECT path FROM project_files WHERE deployment_id = ? ORDER BY path')
      .bind(res.body.id)
      .all<{ path: string }>();
    // The starter project gained the example model, so the first build compiles a model.
    expect(files.results.map((f) => f.path)).toEqual(
      ['edgeboard.json', 'model/README.md', ...STARTER_MODEL.map((f) => f.path)].sort(),
    );
    const builds = await env.DB.prepare('SELECT id FROM builds WHERE deployment_id = ?')
      .bind(res.body.id)
      .all();
    expect(builds.results).toHaveLength(1);
  });

  it('takes every enumeration and a region of the chosen provider', async () => {
    const res = await create(
      {
        name: 'GCP one',
        isManaged: false,
        cloudProvider: 'gcp',
        region: 'europe-west1',
        targetPlatform: 'kubernetes',
        creationStep: 'databases',
        creationMethod: 'github',
        deployMode: 'cli',
      },
      world.acme.admin,
    );
    expect(res.status).toBe(200);
    expect(res.body.creationStep).toBe('databases');
    const got = await api('GET', `/api/v1/deployments/${res.body.id}`, { auth: world.acme.member });
    expect(got.body).toMatchObject({
      isManaged: false,
      cloudProvider: 'gcp',
      region: 'europe-west1',
      targetPlatform: 'kubernetes',
      creationMethod: 'github',
      deployMode: 'cli',
    });
  });

  it('gives every deployment a unique URL, even with the same name', async () => {
    const a = await create({ name: 'Same' }, world.acme.admin);
    const b = await create({ name: 'Same' }, world.other.admin);
    expect(a.body.deploymentUrl).not.toBe(b.body.deploymentUrl);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', cloudProvider: 'azure' }, 'cloudProvider'],
    [{ name: 'x', creationStep: 'nope' }, 'creationStep'],
    [{ name: 'x', creationMethod: 'ftp' }, 'creationMethod'],
    [{ name: 'x', deployMode: 'zip' }, 'deployMode'],
    [{ name: 'x', isManaged: 'true' }, 'isManaged'],
    [{ name: 'x', targetPlatform: 'x'.repeat(65) }, 'targetPlatform'],
    [{ name: 'x', cloudProvider: 'aws', region: 'europe-west1' }, 'region'],
    [{ name: 'x', region: 'mars-1' }, 'region'],
    [{ name: 'x', unknown: 1 }, 'unknown'],
  ])('rejects %j naming %s and writes nothing', async (body, path) => {
    const before = await env.DB.prepare('SELECT count(*) AS n FROM deployments').first<{ n: number }>();
    const res = await create(body, world.acme.admin);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    const after = await env.DB.prepare('SELECT count(*) AS n FROM deployments').first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
  });

  // An unscoped key creates deployments as the account's first admin.
  it('is for admins and unscoped API keys', async () => {
    expectError(await create({ name: 'x' }, world.acme.member), 403, 'FORBIDDEN');
    const byKey = await create({ name: 'x' }, world.acme.key);
    expect(byKey.status).toBe(200);
    const row = await env.DB.prepare('SELECT account_id, created_by FROM deployments WHERE id = ?')
      .bind(byKey.body.id)
      .first();
    expect(row).toEqual({ account_id: world.acme.accountId, created_by: world.acme.adminUserId });
    expectError(await create({ name: 'x' }, world.acme.scopedKey), 403, 'KEY_SCOPE');
    expectError(await create({ name: 'x' }, null), 401);
    expectError(await create({ name: 'x' }, { bearer: 'eb_at_nope' }), 401);
  });
});

describe('reading deployments', () => {
  it('lists only the account deployments, paginated', async () => {
    const first = await api('GET', '/api/v1/deployments?first=1', { auth: world.acme.member });
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const all: number[] = [];
    let after: string | null = null;
    do {
      const page: any = await api('GET', `/api/v1/deployments?first=2${after ? `&after=${after}` : ''}`, {
        auth: world.acme.member,
      });
      all.push(...page.body.items.map((d: { id: number }) => d.id));
      after = page.body.pageInfo.hasNextPage ? page.body.pageInfo.endCursor : null;
    } while (after);
    const rows = await env.DB.prepare('SELECT id FROM deployments WHERE account_id = ? ORDER BY id')
      .bind(world.acme.accountId)
      .all<{ id: number }>();
    expect(all).toEqual(rows.results.map((r) => r.id));
    expect(all).not.toContain(world.other.deployments[0]);
  });

  it('gets one deployment with its latest build', async () => {
    const res = await api('GET', `/api/v1/deployments/${world.acme.deployments[0]}`, {
      auth: world.acme.member,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: world.acme.deployments[0],
      name: 'Production',
      cloudProvider: 'hosted',
    });
    expect(['queued', 'building', 'built']).toContain(res.body.latestBuild.status);
  });

  it("answers 404 for another account's deployment, 400 for a bad id, 401 without a token", async () => {
    const id = world.other.deployments[0];
    expectError(await api('GET', `/api/v1/deployments/${id}`, { auth: world.acme.admin }), 404, 'NOT_FOUND');
    expectError(
      await api('GET', `/api/v1/deployments/${id}/build-status`, { auth: world.acme.admin }),
      404,
      'NOT_FOUND',
    );
    expectError(await api('GET', '/api/v1/deployments/0', { auth: world.acme.admin }), 400);
    expectError(await api('GET', `/api/v1/deployments/${id}`), 401);
    // A key reads its own account's deployment; another account's is a 404.
    expect((await api('GET', `/api/v1/deployments/${id}`, { auth: world.other.key })).status).toBe(200);
    expectError(await api('GET', `/api/v1/deployments/${id}`, { auth: world.acme.key }), 404, 'NOT_FOUND');
  });

  // Cube's RegionResponse decides the shape: one item per region.
  it('lists regions per provider', async () => {
    const res = await api('GET', '/api/v1/regions?cloudProvider=aws', { auth: world.acme.member });
    expect(res.status).toBe(200);
    expect(res.body.items.map((r: { name: string }) => r.name)).toEqual(REGIONS.aws);
    expect(res.body.items[0]).toMatchObject({ provider: 'aws', name: 'us-east-1', isDefault: true });
    const all = await api('GET', '/api/v1/regions', { auth: world.acme.member });
    expect([...new Set(all.body.items.map((r: { provider: string }) => r.provider))]).toEqual([
      'hosted',
      'aws',
      'gcp',
    ]);
    expectError(await api('GET', '/api/v1/regions?cloudProvider=azure', { auth: world.acme.member }), 400);
  });
});
