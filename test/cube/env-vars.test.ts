import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/db';
import type { Bindings } from '../../src/core/env';
import { readDataSourceConfig } from '../../src/deployments/env-vars.service';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { holdAnswersToCube } from './cube-openapi';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

/**
 * Cube's Env Variables operations (getEnvVariables, setEnvVariables) with Cube's shapes:
 * `{env_variables: [{name, value}]}` in, `{items, data, pageInfo}` of `{name, value}` out.
 */

let world: World;
let deploymentId: number;
let admin: { bearer: string };
beforeAll(async () => {
  world = await seedWorld();
  deploymentId = world.acme.deployments[0];
  admin = world.acme.admin;
});

const path = (id: number) => `/api/v1/deployments/${id}/env-vars`;
const put = (body: unknown, auth: unknown = admin, id = deploymentId) =>
  api('PUT', path(id), { auth: auth as { bearer: string }, body });
const get = (query = '', auth: unknown = admin, id = deploymentId) =>
  api('GET', `${path(id)}${query}`, { auth: auth as { bearer: string } });
const stored = (id: number) =>
  env.DB.prepare(
    'SELECT name, value, encrypted FROM deployment_env_vars WHERE deployment_id = ? ORDER BY name',
  )
    .bind(id)
    .all<{ name: string; value: string; encrypted: number }>()
    .then((r) => r.results);

describe('PUT /api/v1/deployments/{id}/env-vars (setEnvVariables)', () => {
  it('adds variables, encrypts secret-named ones, and answers the list with secrets as [ENCRYPTED]', async () => {
    const res = await put({
      env_variables: [
        { name: 'CUBEJS_DB_TYPE', value: 'postgres' },
        { name: 'CUBEJS_DB_PASS', value: 's3cr3t-pa55' },
        { name: 'api_token', value: 'tok-123' },
        { name: 'MY_Credentials', value: 'cred' },
        { name: 'signing_key', value: 'k' },
        { name: 'APP_SECRET', value: 'x' },
        { name: 'EMPTY', value: '' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const items = [
      { name: 'APP_SECRET', value: '[ENCRYPTED]' },
      { name: 'CUBEJS_DB_PASS', value: '[ENCRYPTED]' },
      { name: 'CUBEJS_DB_TYPE', value: 'postgres' },
      { name: 'EMPTY', value: '' },
      { name: 'MY_Credentials', value: '[ENCRYPTED]' },
      { name: 'api_token', value: '[ENCRYPTED]' },
      { name: 'signing_key', value: '[ENCRYPTED]' },
    ];
    expect(res.body).toEqual({
      items,
      data: items,
      pageInfo: {
        hasNextPage: false,
        hasPreviousPage: false,
        startCursor: expect.any(String),
        endCursor: expect.any(String),
      },
    });
    const rows = await stored(deploymentId);
    const pass = rows.find((r) => r.name === 'CUBEJS_DB_PASS');
    expect(pass?.encrypted).toBe(1);
    expect(pass?.value).not.toContain('s3cr3t');
    expect(pass?.value).not.toBe('[ENCRYPTED]');
    expect(rows.find((r) => r.name === 'CUBEJS_DB_TYPE')).toEqual({
      name: 'CUBEJS_DB_TYPE',
      value: 'postgres',
      encrypted: 0,
    });
    for (const row of rows) expect(row.value).not.toContain('tok-123');
  });

  it('updates by name and keeps the variables left out', async () => {
    const res = await put({
      env_variables: [
        { name: 'CUBEJS_DB_TYPE', value: 'embedded' },
        { name: 'NEW_ONE', value: '1' },
      ],
    });
    expect(res.status).toBe(200);
    const names = res.body.items.map((i: { name: string }) => i.name);
    expect(names).toContain('CUBEJS_DB_PASS');
    expect(res.body.items).toContainEqual({ name: 'CUBEJS_DB_TYPE', value: 'embedded' });
    expect(res.body.items).toContainEqual({ name: 'NEW_ONE', value: '1' });
    expect((await stored(deploymentId)).length).toBe(8);
  });

  it('decrypts secrets for the data source configuration only', async () => {
    await put({
      env_variables: [
        { name: 'CUBEJS_DB_TYPE', value: 'postgres' },
        { name: 'CUBEJS_DB_HOST', value: 'db.example.com' },
        { name: 'CUBEJS_DB_USER', value: 'reader' },
        { name: 'CUBEJS_DB_PASS', value: 'pa55 "quoted" ünïcode' },
      ],
    });
    const config = await readDataSourceConfig({ db: createDb(env.DB), env: env as Bindings }, deploymentId);
    expect(config).toEqual({
      type: 'postgres',
      host: 'db.example.com',
      user: 'reader',
      password: 'pa55 "quoted" ünïcode',
      hyperdrive: undefined,
      port: undefined,
      database: undefined,
      ssl: undefined,
    });
  });

  it('seals a secret to its deployment: a ciphertext copied to another deployment does not decrypt', async () => {
    const other = world.acme.deployments[1];
    const [pass] = (await stored(deploymentId)).filter((r) => r.name === 'CUBEJS_DB_PASS');
    await env.DB.prepare(
      `INSERT INTO deployment_env_vars (deployment_id, name, value, encrypted, updated_at) VALUES (?, 'CUBEJS_DB_PASS', ?, 1, '2024-01-01')`,
    )
      .bind(other, pass?.value)
      .run();
    await expect(
      readDataSourceConfig({ db: createDb(env.DB), env: env as Bindings }, other),
    ).rejects.toMatchObject({
      code: 'CONFIG',
      message: 'CUBEJS_DB_PASS cannot be decrypted any more; set it again',
    });
    await env.DB.prepare('DELETE FROM deployment_env_vars WHERE deployment_id = ?').bind(other).run();
  });

  it('refuses [ENCRYPTED], bad names, long names and values, duplicates and too many entries, in the error envelope', async () => {
    const cases: [unknown, string][] = [
      [{ env_variables: [{ name: 'CUBEJS_DB_PASS', value: '[ENCRYPTED]' }] }, 'env_variables.0.value'],
      [{ env_variables: [{ name: '1ABC', value: 'x' }] }, 'env_variables.0.name'],
      [{ env_variables: [{ name: 'A-B', value: 'x' }] }, 'env_variables.0.name'],
      [{ env_variables: [{ name: '', value: 'x' }] }, 'env_variables.0.name'],
      [{ env_variables: [{ name: 'A'.repeat(129), value: 'x' }] }, 'env_variables.0.name'],
      [{ env_variables: [{ name: 'BIG', value: 'é'.repeat(2049) }] }, 'env_variables.0.value'],
      [
        {
          env_variables: [
            { name: 'A', value: '1' },
            { name: 'A', value: '2' },
          ],
        },
        'env_variables',
      ],
      [
        { env_variables: Array.from({ length: 101 }, (_, i) => ({ name: `V${i}`, value: 'x' })) },
        'env_variables',
      ],
      [{ env_variables: [{ name: 'A', value: 1 }] }, 'env_variables.0.value'],
      [{}, 'env_variables'],
    ];
    const before = await stored(deploymentId);
    for (const [body, where] of cases) {
      const res = await put(body);
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(JSON.stringify(res.body.details), JSON.stringify(body).slice(0, 80)).toContain(where);
    }
    expect(await stored(deploymentId)).toEqual(before);
    // Exactly at the bounds: accepted.
    const res = await put({ env_variables: [{ name: 'A'.repeat(128), value: 'é'.repeat(2048) }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('holds at most 100 variables per deployment; a write beyond changes nothing', async () => {
    const id = world.acme.deployments[1];
    const hundred = Array.from({ length: 100 }, (_, i) => ({
      name: `V${String(i).padStart(3, '0')}`,
      value: `${i}`,
    }));
    const full = await put({ env_variables: hundred }, admin, id);
    expect(full.status, JSON.stringify(full.body)).toBe(200);
    expect(full.body.items).toHaveLength(100);
    const over = await put(
      {
        env_variables: [
          { name: 'V000', value: 'changed' },
          { name: 'ONE_MORE', value: 'x' },
        ],
      },
      admin,
      id,
    );
    expectError(over, 400, 'BAD_REQUEST');
    expect(over.body.error).toBe('A deployment holds at most 100 env variables');
    const rows = await stored(id);
    expect(rows).toHaveLength(100);
    expect(rows.find((r) => r.name === 'V000')?.value).toBe('0');
    // Updating within the bound still works.
    const update = await put({ env_variables: [{ name: 'V000', value: 'changed' }] }, admin, id);
    expect(update.status).toBe(200);
    expect(update.body.items).toContainEqual({ name: 'V000', value: 'changed' });
  });
});

describe('GET /api/v1/deployments/{id}/env-vars (getEnvVariables)', () => {
  it('pages by name with first/after', async () => {
    const id = world.acme.deployments[1];
    const first = await get('?first=40', admin, id);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(40);
    expect(first.body.data).toEqual(first.body.items);
    expect(first.body.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const names: string[] = first.body.items.map((i: { name: string }) => i.name);
    let after = first.body.pageInfo.endCursor;
    for (;;) {
      const page = await get(`?first=40&after=${encodeURIComponent(after)}`, admin, id);
      expect(page.status).toBe(200);
      names.push(...page.body.items.map((i: { name: string }) => i.name));
      if (!page.body.pageInfo.hasNextPage) break;
      after = page.body.pageInfo.endCursor;
    }
    const expected = (await stored(id)).map((r) => r.name);
    expect(names).toEqual(expected);
    expect(names).toHaveLength(100);
    const bad = await get('?after=nonsense', admin, id);
    expectError(bad, 400, 'INVALID_CURSOR');
  });

  it('is readable by members and keys scoped to the deployment; writing needs an admin', async () => {
    const member = await get('', world.acme.member);
    expect(member.status).toBe(200);
    expect(member.body.items).toContainEqual({ name: 'CUBEJS_DB_PASS', value: '[ENCRYPTED]' });
    expectError(
      await put({ env_variables: [{ name: 'X', value: '1' }] }, world.acme.member),
      403,
      'FORBIDDEN',
    );
    const scoped = { bearer: world.acme.scopedKey.apiKey };
    expect((await get('', scoped)).status).toBe(200);
    expect((await put({ env_variables: [{ name: 'BY_KEY', value: '1' }] }, scoped)).status).toBe(200);
    expectError(await get('', scoped, world.acme.deployments[1]), 403, 'KEY_SCOPE');
    expectError(await put({ env_variables: [] }, scoped, world.acme.deployments[1]), 403, 'KEY_SCOPE');
    expectError(await get('', null), 401);
  });

  it("answers 404 for another account's deployment, and writes nothing there", async () => {
    const theirs = world.other.deployments[0];
    expectError(await get('', admin, theirs), 404, 'NOT_FOUND');
    expectError(
      await put({ env_variables: [{ name: 'INTRUDER', value: '1' }] }, admin, theirs),
      404,
      'NOT_FOUND',
    );
    expect(await stored(theirs)).toEqual([]);
    expectError(await get('', admin, 999_999), 404, 'NOT_FOUND');
  });
});
