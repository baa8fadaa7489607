import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, OPERATOR, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { holdAnswersToCube } from './cube-openapi';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

/**
 * What applies to every operation of Cube's document, as far as it is decided outside the
 * domains: one bearer scheme for tokens and keys, the `first` ceiling, the document's security
 * scheme and operation ids, and webhook URLs refused when written.
 */

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

describe('one bearer scheme for access tokens and API keys', () => {
  it('takes a key as `Bearer` wherever an admin token goes, within its scope', async () => {
    const bearerKey = { bearer: world.acme.key.apiKey };
    for (const path of ['/api/v1/deployments', '/api/v1/regions', '/api/v1/users', '/api/v1/api-keys']) {
      const res = await api('GET', path, { auth: bearerKey });
      expect(res.status, path).toBe(200);
    }
    const scoped = { bearer: world.acme.scopedKey.apiKey };
    const [inside, outside] = world.acme.deployments;
    expect((await api('GET', `/api/v1/deployments/${inside}/settings`, { auth: scoped })).status).toBe(200);
    expectError(
      await api('GET', `/api/v1/deployments/${outside}/settings`, { auth: scoped }),
      403,
      'KEY_SCOPE',
    );
    expectError(await api('GET', '/api/v1/deployments', { auth: { bearer: 'eb_ak_unknown' } }), 401);
  });

  it('documents Cube’s bearerAuth as taking tokens and keys', async () => {
    const doc = (await api('GET', '/api/v1/openapi.json')).body;
    const bearer = doc.components.securitySchemes.bearerAuth;
    expect(bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(bearer.description).toContain('API key');
    expect(doc.paths['/api/v1/deployments'].get.security).toContainEqual({ bearerAuth: [] });
  });
});

describe('`first` above 100', () => {
  // The contract's range (1–100) stays: a larger page is a 400 naming `first`, not a silent clamp.
  it('is a 400 naming first; 100 is served', async () => {
    const res = await api('GET', '/api/v1/deployments?first=101', { auth: world.acme.admin });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain('first');
    expect((await api('GET', '/api/v1/deployments?first=100', { auth: world.acme.admin })).status).toBe(200);
  });
});

describe("Cube's operation ids", () => {
  it('names the deployments group as Cube does', async () => {
    const doc = (await api('GET', '/api/v1/openapi.json')).body;
    const id = (path: string, method: string) => doc.paths[path]?.[method]?.operationId;
    expect({
      getDeployments: id('/api/v1/deployments', 'get'),
      getDeployment: id('/api/v1/deployments/{id}', 'get'),
      updateDeployment: id('/api/v1/deployments/{id}', 'put'),
      deleteDeployment: id('/api/v1/deployments/{id}', 'delete'),
      buildStatus: id('/api/v1/deployments/{id}/build-status', 'get'),
      advanceCreationStep: id('/api/v1/deployments/{id}/creation-step/advance', 'post'),
      resetCreationStep: id('/api/v1/deployments/{id}/creation-step/reset', 'post'),
      logs: id('/api/v1/deployments/{id}/logs', 'get'),
      pods: id('/api/v1/deployments/{id}/pods', 'get'),
      getDeploymentSettings: id('/api/v1/deployments/{id}/settings', 'get'),
      listDeploymentVersions: id('/api/v1/deployments/{id}/versions', 'get'),
      createDeployment: id('/build/api/v1/deployments', 'post'),
      listRegions: id('/api/v1/regions', 'get'),
    }).toEqual({
      getDeployments: 'getDeployments',
      getDeployment: 'getDeployment',
      updateDeployment: 'updateDeployment',
      deleteDeployment: 'deleteDeployment',
      buildStatus: 'buildStatus',
      advanceCreationStep: 'advanceCreationStep',
      resetCreationStep: 'resetCreationStep',
      logs: 'logs',
      pods: 'pods',
      getDeploymentSettings: 'getDeploymentSettings',
      listDeploymentVersions: 'listDeploymentVersions',
      createDeployment: 'createDeployment',
      listRegions: 'listRegions',
    });
  });
});

describe('operation ids', () => {
  it('are unique across the document (SDK generators need one method name each)', async () => {
    const doc = (await api('GET', '/api/v1/openapi.json')).body;
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>)
      .flatMap((item) => Object.values(item).map((op) => op.operationId))
      .filter((id): id is string => typeof id === 'string');
    expect(ids.length).toBeGreaterThan(20);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(doc.paths['/api/v1/users'].get.operationId).toBe('listUsers');
  });
});

describe('POST /api/v1/users (createUser)', () => {
  it("answers Cube's User: isAdmin from the role, notifications an object", async () => {
    const admin = world.acme.admin;
    for (const [role, isAdmin] of [
      ['admin', true],
      ['member', false],
      [undefined, false],
    ] as const) {
      const name = `cube-user-${role ?? 'default'}`;
      const res = await api('POST', '/api/v1/users', {
        auth: admin,
        body: { email: `${name}@example.com`, username: name, ...(role ? { role } : {}) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ username: name, role: role ?? 'member', isAdmin, notifications: {} });
      // The same User wherever it is read.
      const read = await api('GET', `/api/v1/users/${res.body.id}`, { auth: admin });
      expect(read.body).toMatchObject({ isAdmin, notifications: {} });
    }
  });
});

describe("the account's chat webhook URL, checked when written", () => {
  const patch = (chatWebhookUrl: unknown) =>
    api('PATCH', `/admin/v1/accounts/${world.acme.accountId}`, { auth: OPERATOR, body: { chatWebhookUrl } });
  const stored = async () =>
    (
      await env.DB.prepare('SELECT chat_webhook_url AS url FROM accounts WHERE id = ?')
        .bind(world.acme.accountId)
        .first<{ url: string | null }>()
    )?.url;

  it.each([
    'http://chat.example.com/hook',
    'https://127.0.0.1/hook',
    'https://2130706433/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://169.254.169.254/latest',
    'https://localhost/hook',
    'https://intranet/hook',
  ])('refuses %s with a 400 and stores nothing', async (url) => {
    const before = await stored();
    const res = await patch(url);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain('chatWebhookUrl');
    expect(await stored()).toBe(before);
  });

  it('takes an https URL of a public host, and null', async () => {
    expect((await patch('https://hooks.example.com/T0/B0')).status).toBe(200);
    expect(await stored()).toBe('https://hooks.example.com/T0/B0');
    expect((await patch(null)).status).toBe(200);
    expect(await stored()).toBeNull();
    const created = await api('POST', '/admin/v1/accounts', {
      auth: OPERATOR,
      body: { name: 'Hooked', chatWebhookUrl: 'https://10.1.2.3/x' },
    });
    expectError(created, 400, 'VALIDATION_FAILED');
  });
});
