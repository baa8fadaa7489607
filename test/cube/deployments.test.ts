import { beforeAll, describe, expect, it } from 'vitest';
import { REGIONS } from '../../src/deployments/deployments.schemas';
import { expectError, seedAccount, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf } from '../helpers/shards';
import { holdAnswersToCube } from './cube-openapi';
import { type CubeType, expectCube } from './cube-shape';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

/**
 * Cube's deployments group (tags Deployments, Deployment Creation, Regions), from Cube's
 * published OpenAPI document: Cube-shaped requests (every field, nulls where Cube allows them,
 * each enum value), answers checked for every field Cube marks required, with Cube's type.
 * Cube clients send API keys as `Authorization: Bearer <key>`.
 */

const CREATION_STEPS = ['project', 'upload', 'schema', 'github', 'ssh', 'databases', 'ready', 'demo'];
const DEPLOYMENT = {
  id: 'integer',
  name: 'string',
  deploymentUrl: 'string',
  creationStep: CREATION_STEPS,
} as const;
const PAGE_INFO = { hasNextPage: 'boolean', hasPreviousPage: 'boolean' } as const;
const SETTINGS: Record<string, CubeType> = {
  id: 'integer',
  name: 'string',
  template: ['single', 'simpleCluster', 'multiCluster'],
  cloudProvider: ['cubecloud', 'aws', 'gcp'],
  creationStep: CREATION_STEPS,
  deploymentUrl: 'string',
  releaseChannel: ['latest', 'release'],
  deployBranchName: 'string',
  deployBranchReadOnly: 'boolean',
  deployBranchMergeAllowed: 'boolean',
  deployProjectRoot: 'string',
  isCubeSqlEnabled: 'boolean',
  isSupportPreAggregations: 'boolean',
};

let world: World;
let key: { bearer: string };
beforeAll(async () => {
  world = await seedWorld();
  key = { bearer: world.acme.key.apiKey };
});

const create = (body: unknown, auth: { bearer: string } = key) =>
  api('POST', '/build/api/v1/deployments', { auth, body });

const row = (id: number) => dbOf(id).prepare('SELECT * FROM deployments WHERE id = ?').bind(id).first();

describe('POST /build/api/v1/deployments (createDeployment)', () => {
  it('takes every field of CreateDeploymentInput, `cubecloud` for hosted, stored as hosted', async () => {
    const res = await create({
      name: 'Cube shaped',
      cloudProvider: 'cubecloud',
      isManaged: true,
      region: 'eu-central-1',
      targetPlatform: 'cubecloud',
      creationStep: 'project',
      creationMethod: 'cubecloud',
      deployMode: 'git',
    });
    expect(res.status).toBe(200);
    expectCube(res.body, DEPLOYMENT);
    expect(await row(res.body.id)).toMatchObject({
      cloud_provider: 'hosted',
      creation_method: 'hosted',
      region: 'eu-central-1',
      created_by: world.acme.adminUserId,
    });
  });

  it("needs only name: Cube's other required fields take the recorded defaults", async () => {
    const res = await create({ name: 'Defaults' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectCube(res.body, DEPLOYMENT);
    expect(res.body.creationStep).toBe('project');
    expect(await row(res.body.id)).toMatchObject({
      cloud_provider: 'hosted',
      region: REGIONS.hosted[0],
      is_managed: 1,
      target_platform: 'hosted',
      creation_step: 'project',
      creation_method: 'hosted',
      deploy_mode: 'git',
    });
    // Sent, a required field is checked as Cube types it: null is not one of its values.
    for (const field of ['cloudProvider', 'isManaged', 'region', 'targetPlatform', 'creationStep']) {
      expectError(await create({ name: 'Nulls', [field]: null }), 400, 'VALIDATION_FAILED');
    }
  });

  it('takes null creationMethod and deployMode (the defaults)', async () => {
    const res = await create({
      name: 'Nulls',
      cloudProvider: 'aws',
      isManaged: false,
      region: 'us-west-2',
      targetPlatform: 'aws',
      creationStep: 'upload',
      creationMethod: null,
      deployMode: null,
    });
    expect(res.status).toBe(200);
    expect(await row(res.body.id)).toMatchObject({ creation_method: 'hosted', deploy_mode: 'git' });
  });

  it.each(CREATION_STEPS)('takes creationStep %s', async (creationStep) => {
    const res = await create({ name: `Step ${creationStep}`, creationStep });
    expect(res.status).toBe(200);
    expect(res.body.creationStep).toBe(creationStep);
  });

  it.each([
    ['upload', 'cli', 'gcp', 'us-central1'],
    ['github', 'git', 'aws', 'eu-west-1'],
    ['ssh', 'cli', 'cubecloud', 'ap-southeast-1'],
  ])(
    'takes creationMethod %s, deployMode %s, provider %s',
    async (creationMethod, deployMode, cloudProvider, region) => {
      const res = await create({ name: 'Enums', creationMethod, deployMode, cloudProvider, region });
      expect(res.status).toBe(200);
      expect(await row(res.body.id)).toMatchObject({
        creation_method: creationMethod,
        deploy_mode: deployMode,
        cloud_provider: cloudProvider === 'cubecloud' ? 'hosted' : cloudProvider,
        region,
      });
    },
  );

  it('still refuses fields neither Cube nor edgeboard define, and regions the provider lacks', async () => {
    expectError(await create({ name: 'x', colour: 'red' }), 400, 'VALIDATION_FAILED');
    expectError(await create({ name: 'x', cloudProvider: 'cubecloud', region: 'us-central1' }), 400);
  });
});

describe('GET /api/v1/regions (listRegions)', () => {
  it("answers Cube's RegionResponse items and the legacy data, paged by first/after", async () => {
    const res = await api('GET', '/api/v1/regions', { auth: key });
    expect(res.status).toBe(200);
    expectCube(res.body, { items: 'array', data: 'array', pageInfo: 'object' });
    expect(res.body.data).toEqual(res.body.items);
    for (const region of res.body.items) expectCube(region, { id: 'integer', name: 'string' });
    expect(new Set(res.body.items.map((r: { id: number }) => r.id)).size).toBe(res.body.items.length);

    const first = await api('GET', '/api/v1/regions?first=2', { auth: key });
    expect(first.body.items).toEqual(res.body.items.slice(0, 2));
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const next = await api('GET', `/api/v1/regions?first=2&after=${first.body.pageInfo.endCursor}`, {
      auth: key,
    });
    expect(next.body.items).toEqual(res.body.items.slice(2, 4));
  });

  it('lists exactly the regions a create takes, per provider', async () => {
    for (const provider of ['hosted', 'aws', 'gcp'] as const) {
      const res = await api('GET', `/api/v1/regions?cloudProvider=${provider}`, { auth: key });
      expect(res.body.items.map((r: { name: string }) => r.name)).toEqual(REGIONS[provider]);
      expect(res.body.items.filter((r: { isDefault: boolean }) => r.isDefault)).toHaveLength(1);
    }
  });

  it('lists names a create takes for their provider', async () => {
    const res = await api('GET', '/api/v1/regions?cloudProvider=cubecloud', { auth: key });
    expect(res.body.items.every((r: { provider: string }) => r.provider === 'hosted')).toBe(true);
    const created = await create({
      name: 'Region',
      cloudProvider: 'cubecloud',
      region: res.body.items[1].name,
    });
    expect(created.status).toBe(200);
  });
});

describe('GET /api/v1/deployments (getDeployments)', () => {
  it('answers items, the legacy data and pagination, and pageInfo', async () => {
    const res = await api('GET', '/api/v1/deployments', { auth: key });
    expect(res.status).toBe(200);
    expectCube(res.body, { items: 'array', data: 'array', pagination: 'object' });
    expectCube(res.body.pagination, { total: 'integer', offset: 'integer', limit: 'integer' });
    expectCube(res.body.pageInfo, PAGE_INFO);
    expect(res.body.data).toEqual(res.body.items);
    for (const d of res.body.items) expectCube(d, DEPLOYMENT);
    const { n } = (await dbOf(world.acme.accountId)
      .prepare('SELECT count(*) AS n FROM deployments WHERE account_id = ?')
      .bind(world.acme.accountId)
      .first<{ n: number }>()) as { n: number };
    expect(res.body.pagination).toEqual({ total: n, offset: 0, limit: 20 });
  });

  it('filters by creationStep, once or repeated', async () => {
    const account = await seedAccount();
    const auth = { bearer: account.key.apiKey };
    await create({ name: 'Ready', creationStep: 'ready' }, auth);
    await create({ name: 'Demo', creationStep: 'demo' }, auth);
    const one = await api('GET', '/api/v1/deployments?creationStep=ready', { auth });
    expect(one.body.items.map((d: { name: string }) => d.name)).toEqual(['Ready']);
    expect(one.body.pagination.total).toBe(1);
    const two = await api('GET', '/api/v1/deployments?creationStep=ready&creationStep=demo', { auth });
    expect(two.body.items.map((d: { name: string }) => d.name)).toEqual(['Ready', 'Demo']);
    expectError(await api('GET', '/api/v1/deployments?creationStep=nope', { auth }), 400);
  });

  it('pages with the legacy offset and limit', async () => {
    const all = await api('GET', '/api/v1/deployments?first=100', { auth: key });
    const page = await api('GET', '/api/v1/deployments?offset=1&limit=2', { auth: key });
    expect(page.status).toBe(200);
    expect(page.body.items).toEqual(all.body.items.slice(1, 3));
    expect(page.body.pagination).toMatchObject({ offset: 1, limit: 2, total: all.body.items.length });
    expect(page.body.pageInfo.hasPreviousPage).toBe(true);
    const countOnly = await api('GET', '/api/v1/deployments?limit=0', { auth: key });
    expect(countOnly.body.items).toEqual([]);
    expect(countOnly.body.pagination.total).toBe(all.body.items.length);
    expectError(await api('GET', '/api/v1/deployments?offset=1001', { auth: key }), 400);
  });
});

describe('one deployment', () => {
  let id: number;
  beforeAll(async () => {
    id = (await create({ name: 'One', creationStep: 'schema' })).body.id;
  });

  it('GET …/{deploymentId} (getDeployment) answers Cube’s Deployment', async () => {
    const res = await api('GET', `/api/v1/deployments/${id}`, { auth: key });
    expect(res.status).toBe(200);
    expectCube(res.body, DEPLOYMENT);
  });

  it('GET …/settings (getDeploymentSettings) answers every required field, cubecloud for hosted', async () => {
    const res = await api('GET', `/api/v1/deployments/${id}/settings`, { auth: key });
    expect(res.status).toBe(200);
    expectCube(res.body, SETTINGS);
    expect(res.body).toMatchObject({
      cloudProvider: 'cubecloud',
      creationMethod: 'cubecloud',
      creationStep: 'schema',
    });
  });

  it('PUT …/{deploymentId} (updateDeployment) takes every field of UpdateDeploymentInput', async () => {
    const res = await api('PUT', `/api/v1/deployments/${id}`, {
      auth: key,
      body: {
        cloudProvider: 'aws',
        creationMethod: 'github',
        cspsConfig: {
          enabled: true,
          storageProvider: 's3',
          s3Bucket: 'b',
          s3Region: 'us-east-1',
          awsRoleArn: null,
        },
        customDomain: 'bi.example.com',
        defaultLaunchpadViewGroup: 'sales',
        deployBranchMergeAllowed: true,
        deployBranchName: 'main',
        deployBranchReadOnly: true,
        deployMode: 'cli',
        deployProjectRoot: '/model',
        launchpadTabs: ['a', 'b'],
        name: 'Renamed',
        region: 'us-west-2',
        releaseChannel: 'release',
        releaseChannelVersion: '1.0.0',
        releaseChannelVersionHold: true,
        template: 'simpleCluster',
        templateVariables: { a: 1, nested: { b: 'x' } },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectCube(res.body, SETTINGS);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      cloudProvider: 'aws',
      region: 'us-west-2',
      creationMethod: 'github',
      deployMode: 'cli',
      template: 'simpleCluster',
      releaseChannel: 'release',
      deployBranchReadOnly: true,
      launchpadTabs: ['a', 'b'],
      cspsConfig: { enabled: true, storageProvider: 's3', s3Bucket: 'b' },
    });
    expect(await row(id)).toMatchObject({ name: 'Renamed', cloud_provider: 'aws', region: 'us-west-2' });

    // Nulls and absent fields leave values as they are; templateVariables merge key by key.
    const again = await api('PUT', `/api/v1/deployments/${id}`, {
      auth: key,
      body: { name: null, region: null, template: null, templateVariables: { c: true } },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ name: 'Renamed', region: 'us-west-2', template: 'simpleCluster' });
    expect(again.body.templateVariables).toEqual({ a: 1, nested: { b: 'x' }, c: true });
    expect((await api('PUT', `/api/v1/deployments/${id}`, { auth: key })).status).toBe(200);
    const settings = await api('GET', `/api/v1/deployments/${id}/settings`, { auth: key });
    expect(settings.body).toEqual(again.body);
  });

  it('PUT keeps templateVariables within 16 KiB once merged, not only per request', async () => {
    const put = (templateVariables: Record<string, string>) =>
      api('PUT', `/api/v1/deployments/${id}`, { auth: key, body: { templateVariables } });
    expect((await put({ big1: 'x'.repeat(9000) })).status).toBe(200);
    const refused = await put({ big2: 'y'.repeat(9000) });
    expectError(refused, 400);
    expect(refused.body.details).toEqual([expect.objectContaining({ path: 'templateVariables' })]);
    const settings = await api('GET', `/api/v1/deployments/${id}/settings`, { auth: key });
    expect(settings.body.templateVariables.big2).toBeUndefined();
    expect(settings.body.templateVariables.big1).toHaveLength(9000);
  });

  it('concurrent PUTs merge templateVariables without dropping each other’s keys', async () => {
    const put = (templateVariables: Record<string, number>) =>
      api('PUT', `/api/v1/deployments/${id}`, { auth: key, body: { templateVariables } });
    for (let round = 0; round < 5; round++) {
      const answers = await Promise.all([put({ [`a${round}`]: round }), put({ [`b${round}`]: round })]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
    }
    const settings = await api('GET', `/api/v1/deployments/${id}/settings`, { auth: key });
    for (let round = 0; round < 5; round++) {
      expect(settings.body.templateVariables[`a${round}`]).toBe(round);
      expect(settings.body.templateVariables[`b${round}`]).toBe(round);
    }
  });

  it('PUT refuses a version `…/versions` does not list, a region the provider lacks, unknown fields', async () => {
    const put = (body: unknown) => api('PUT', `/api/v1/deployments/${id}`, { auth: key, body });
    expectError(await put({ releaseChannelVersion: '0.9' }), 400);
    expectError(await put({ cloudProvider: 'gcp', region: 'us-west-2' }), 400);
    expectError(await put({ colour: 'red' }), 400, 'VALIDATION_FAILED');
    expectError(
      await api('PUT', `/api/v1/deployments/${id}`, { auth: world.acme.member, body: { name: 'x' } }),
      403,
      'FORBIDDEN',
    );
  });

  it('advance and reset the creation step (advanceCreationStep, resetCreationStep)', async () => {
    const advanced = await api('POST', `/api/v1/deployments/${id}/creation-step/advance`, {
      auth: key,
      body: { creationStep: 'ready' },
    });
    expect(advanced.status).toBe(200);
    expectCube(advanced.body, DEPLOYMENT);
    expect(advanced.body.creationStep).toBe('ready');
    expect(await row(id)).toMatchObject({ creation_step: 'ready' });
    const reset = await api('POST', `/api/v1/deployments/${id}/creation-step/reset`, { auth: key });
    expect(reset.status).toBe(200);
    expect(reset.body.creationStep).toBe('project');
    expect(await row(id)).toMatchObject({ creation_step: 'project' });
    expectError(
      await api('POST', `/api/v1/deployments/${id}/creation-step/advance`, {
        auth: key,
        body: { creationStep: 'x' },
      }),
      400,
    );
  });

  it('GET …/build-status (buildStatus) answers every required field', async () => {
    const res = await api('GET', `/api/v1/deployments/${id}/build-status?branchName=main`, { auth: key });
    expect(res.status).toBe(200);
    expectCube(res.body, { deploymentId: 'integer', branchName: 'string', mode: 'string', status: 'string' });
    expect(res.body).toMatchObject({ deploymentId: id, branchName: 'main', buildJobId: res.body.buildId });
    expect(typeof res.body.updatedAt).toBe('string');
    expectError(
      await api('GET', `/api/v1/deployments/${id}/build-status?branchName=dev`, { auth: key }),
      404,
    );
  });

  it('GET …/versions, …/pods and …/logs answer Cube’s lists', async () => {
    const versions = await api('GET', `/api/v1/deployments/${id}/versions?first=10`, { auth: key });
    expect(versions.status).toBe(200);
    for (const item of versions.body.items) {
      expectCube(item, {
        releaseChannelVersion: 'string',
        version: 'string',
        releaseChannel: ['latest', 'release'],
        isLatestInChannel: 'boolean',
        isCurrent: 'boolean',
      });
    }
    expect(versions.body.items.filter((v: { isCurrent: boolean }) => v.isCurrent)).toHaveLength(1);
    const pods = await api('GET', `/api/v1/deployments/${id}/pods?first=5`, { auth: key });
    expect(pods.status).toBe(200);
    expect(pods.body.items).toEqual([]);
    for (const source of ['production', 'dev']) {
      for (const container of ['INIT', 'MAIN', 'cubejs-server', 'vector', 'api-proxy']) {
        const logs = await api(
          'GET',
          `/api/v1/deployments/${id}/logs?source=${source}&container=${container}&pod=p`,
          {
            auth: key,
          },
        );
        expect(logs.status).toBe(200);
        expect(logs.body.items).toEqual([]);
      }
    }
  });

  it("POST …/token (deploymentToken) takes Cube's CreateDeploymentTokenInput and answers a cubeApiToken", async () => {
    for (const body of [{ expiresIn: 3600 }, { expiresIn: null }, {}]) {
      const res = await api('POST', `/api/v1/deployments/${id}/token`, { auth: key, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.cubeApiToken).toEqual(expect.any(String));
    }
    expectError(
      await api('POST', `/api/v1/deployments/${id}/token`, { auth: key, body: { expiresIn: 59 } }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it("answers 404 for another account's deployment on every operation", async () => {
    const other = world.other.deployments[0];
    for (const [method, path] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['GET', '/settings'],
      ['POST', '/creation-step/reset'],
      ['GET', '/versions'],
      ['GET', '/pods'],
      ['GET', '/logs'],
    ] as const) {
      expectError(await api(method, `/api/v1/deployments/${other}${path}`, { auth: key }), 404, 'NOT_FOUND');
    }
  });
});

describe('DELETE /api/v1/deployments/{deploymentId} (deleteDeployment)', () => {
  it("answers Cube's success, removes what the deployment held and releases its stored bytes", async () => {
    const account = await seedAccount();
    const auth = { bearer: account.key.apiKey };
    const id = (await create({ name: 'Doomed' }, auth)).body.id;
    const bytes = async () =>
      (
        (await dbOf(account.accountId)
          .prepare('SELECT stored_bytes AS n FROM accounts WHERE id = ?')
          .bind(account.accountId)
          .first<{ n: number }>()) as { n: number }
      ).n;
    const before = await bytes();
    const wb = await api('POST', `/api/v1/deployments/${id}/workbooks`, {
      auth,
      body: { name: 'Big', meta: { note: 'x'.repeat(5000) } },
    });
    expect(wb.status, JSON.stringify(wb.body)).toBe(200);
    expect(await bytes()).toBeGreaterThan(before + 5000);

    const res = await api('DELETE', `/api/v1/deployments/${id}`, { auth });
    expect(res.status).toBe(200);
    expectCube(res.body, { success: 'boolean' });
    expect(res.body).toEqual({ success: true, id, deleted: true });
    expect(await row(id)).toBeNull();
    const left = await dbOf(id)
      .prepare('SELECT count(*) AS n FROM workspace_items WHERE deployment_id = ?')
      .bind(id)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
    expect(await bytes()).toBe(before);
    expectError(await api('GET', `/api/v1/deployments/${id}`, { auth }), 404);
    expectError(await api('DELETE', `/api/v1/deployments/${id}`, { auth }), 404);
  });

  it('is for admins and unscoped keys', async () => {
    const [d] = world.acme.deployments;
    expectError(
      await api('DELETE', `/api/v1/deployments/${d}`, { auth: world.acme.member }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await api('DELETE', `/api/v1/deployments/${d}`, { auth: { bearer: world.acme.scopedKey.apiKey } }),
      403,
      'KEY_SCOPE',
    );
    expect(await row(d)).not.toBeNull();
  });
});
