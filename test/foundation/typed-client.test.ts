import { hc } from 'hono/client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppType } from '../../src/app';
import { seedWorld, type World } from '../helpers/harness';
import { workerFetch } from '../helpers/http';

// AppType gives hono/client typed requests and answers.
let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

const client = (credential: string) =>
  hc<AppType>('http://edgeboard.test', {
    fetch: workerFetch,
    headers: { authorization: `Bearer ${credential}` },
  });

describe('hc<AppType>', () => {
  it('creates and reads a folder with typed input and output', async () => {
    const api = client(world.acme.admin.bearer);
    const deploymentId = String(world.acme.deployments[0]);
    const created = await api.api.v1.deployments[':deploymentId'].folders.$post({
      param: { deploymentId },
      json: { name: 'Typed' },
    });
    expect(created.status).toBe(200);
    const folder = await created.json();
    // `folder` is typed from the route's response schema: a typo here fails the type check.
    expect(folder.name).toBe('Typed');
    const read = await api.api.v1.deployments[':deploymentId'].folders[':id'].$get({
      param: { deploymentId, id: String(folder.id) },
    });
    expect((await read.json()).id).toBe(folder.id);
  });

  it('lists users and deployments with typed pages', async () => {
    const api = client(world.acme.admin.bearer);
    const users = await (await api.api.v1.users.$get({ query: { first: '10' } })).json();
    expect(users.items.map((u) => u.id)).toContain(world.acme.adminUserId);
    const deployments = await (await api.api.v1.deployments.$get({ query: {} })).json();
    expect(deployments.items.map((d) => d.id)).toEqual(world.acme.deployments);
    const health = await (await api.healthz.$get()).json();
    expect(health.ok).toBe(true);
  });

  it('takes an API key as Bearer, like Cube clients', async () => {
    const api = client(world.acme.key.apiKey);
    const res = await api.api.v1.deployments[':id']['build-status'].$get({
      param: { id: String(world.acme.deployments[0]) },
    });
    expect(res.status).toBe(200);
    expect(['queued', 'building', 'built', 'failed']).toContain((await res.json()).status);
  });
});
