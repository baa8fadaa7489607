import { createMessageBatch, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/db';
import { activeModel } from '../../src/deployments/deployments.service';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api, workerFetch } from '../helpers/http';
import { clockAt, cronTick, deliverBatch, platform } from '../helpers/platform';
import { holdAnswersToCube } from './cube-openapi';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

/**
 * Cube's Data Model and Data Model Uploads operations over a deployment's project files, and the
 * builds they queue, driven through HTTP and the builds queue consumer.
 */

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

const base = (id: number) => `/build/api/v1/deployments/${id}/data-model`;

/** A fresh deployment of acme's, so each story starts from the starter project. */
async function newDeployment(name = 'Model'): Promise<number> {
  const res = await api('POST', '/build/api/v1/deployments', { auth: world.acme.admin, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

const files = (id: number) =>
  env.DB.prepare('SELECT path, content, updated_at FROM project_files WHERE deployment_id = ? ORDER BY path')
    .bind(id)
    .all<{ path: string; content: string; updated_at: string | null }>()
    .then((r) => r.results);

const buildsOf = (id: number) =>
  env.DB.prepare(
    'SELECT id, status, error_text, compiled_model, created_at FROM builds WHERE deployment_id = ? ORDER BY id',
  )
    .bind(id)
    .all<{
      id: number;
      status: string;
      error_text: string | null;
      compiled_model: string | null;
      created_at: string;
    }>()
    .then((r) => r.results);

/**
 * Runs the deployment's latest build through the queue consumer and waits until it is finished
 * (the local queue may deliver the message itself first: a second delivery builds nothing).
 */
async function runLatestBuild(id: number) {
  const latest = (await buildsOf(id)).at(-1);
  if (!latest) throw new Error('no build');
  const batch = createMessageBatch('edgeboard-builds', [
    { id: `m-${latest.id}`, timestamp: new Date(), attempts: 1, body: { kind: 'build', buildId: latest.id } },
  ]);
  await deliverBatch(batch);
  for (let i = 0; i < 100; i++) {
    const row = (await buildsOf(id)).find((b) => b.id === latest.id);
    if (row && (row.status === 'built' || row.status === 'failed')) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`build ${latest.id} did not finish`);
}

const ORDERS = `cubes:
  - name: orders
    sql_table: public.orders
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: status
        sql: status
        type: string
    measures:
      - name: count
        type: count
`;

/** Line 12: `type: median` is not a measure type. */
const BROKEN = `cubes:
  - name: broken
    sql_table: public.orders
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
    measures:
      - name: middle
        sql: amount
        type: median
`;

async function multipart(
  id: number,
  fields: Record<string, string | Blob>,
  auth = world.acme.admin,
  query = '',
) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  const res = await workerFetch(`http://edgeboard.test${base(id)}/upload/file${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${auth.bearer}` },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe('files: put, list, rename, remove', () => {
  it('creates and overwrites files, queues a build in the same write, and the build compiles them', async () => {
    const id = await newDeployment();
    await runLatestBuild(id);
    const before = (await buildsOf(id)).length;

    const put = await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/cubes/orders.yml', content: ORDERS }] },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toEqual({ success: true });
    const stored = (await files(id)).find((f) => f.path === 'model/cubes/orders.yml');
    expect(stored?.content).toBe(ORDERS);
    const builds = await buildsOf(id);
    expect(builds).toHaveLength(before + 1);
    const build = await runLatestBuild(id);
    expect(build.status).toBe('built');
    expect(build.error_text).toBeNull();
    const model = JSON.parse(build.compiled_model as string);
    expect(Object.keys(model.cubes).sort()).toEqual(['example', 'orders']);
    expect(Object.keys(model.cubes.orders.measures)).toEqual(['count']);
    const status = await api('GET', `/api/v1/deployments/${id}/build-status`, { auth: world.acme.member });
    expect(status.body).toMatchObject({ status: 'built', buildId: build.id });

    const again = await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: {
        files: [{ path: 'model/cubes/orders.yml', content: ORDERS.replace('public.orders', 'sales.orders') }],
      },
    });
    expect(again.status).toBe(200);
    const updated = (await files(id)).find((f) => f.path === 'model/cubes/orders.yml');
    expect(updated?.content).toContain('sales.orders');
    expect(updated?.updated_at).not.toBeNull();
    expect(await buildsOf(id)).toHaveLength(before + 2);
  });

  it('lists files in path order, with content on request, paged by first/after', async () => {
    const id = await newDeployment();
    const all = await api('GET', `${base(id)}/files`, { auth: world.acme.member });
    expect(all.status).toBe(200);
    expect(all.body.items.map((f: { path: string }) => f.path)).toEqual([
      'edgeboard.json',
      'model/README.md',
      'model/cubes/example.yml',
    ]);
    expect(all.body.data).toEqual(all.body.items);
    expect(all.body.items[0]).toMatchObject({
      path: 'edgeboard.json',
      fileName: 'edgeboard.json',
      type: 'file',
    });
    expect(all.body.items[0].content).toBeUndefined();
    expect(all.body.items[2].fileName).toBe('example.yml');
    const readme = (await files(id)).find((f) => f.path === 'model/README.md');
    expect(all.body.items[1].size).toBe(new TextEncoder().encode(readme?.content).byteLength);

    const first = await api('GET', `${base(id)}/files?first=2&withContent=true&branchName=main`, {
      auth: world.acme.member,
    });
    expect(first.body.items.map((f: { path: string }) => f.path)).toEqual([
      'edgeboard.json',
      'model/README.md',
    ]);
    expect(first.body.items[1].content).toBe(readme?.content);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const next = await api('GET', `${base(id)}/files?first=2&after=${first.body.pageInfo.endCursor}`, {
      auth: world.acme.member,
    });
    expect(next.body.items.map((f: { path: string }) => f.path)).toEqual(['model/cubes/example.yml']);
    expect(next.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });

    expectError(
      await api('GET', `${base(id)}/files?branchName=dev`, { auth: world.acme.member }),
      404,
      'NOT_FOUND',
    );
  });

  it('renames files, refusing unknown sources (404) and taken targets (409) without changing anything', async () => {
    const id = await newDeployment();
    await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/a.yml', content: ORDERS }] },
    });
    const count = (await buildsOf(id)).length;

    const unknown = await api('POST', `${base(id)}/files/rename`, {
      auth: world.acme.admin,
      body: {
        files: [
          { path: 'model/a.yml', newPath: 'model/b.yml' },
          { path: 'model/nope.yml', newPath: 'model/c.yml' },
        ],
      },
    });
    expectError(unknown, 404, 'NOT_FOUND');
    expect(unknown.body.error).toContain('model/nope.yml');
    expect(unknown.body.error).not.toContain('model/a.yml');

    const taken = await api('POST', `${base(id)}/files/rename`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/a.yml', newPath: 'model/README.md' }] },
    });
    expectError(taken, 409, 'CONFLICT');
    expect(taken.body.error).toContain('model/README.md');
    expect((await files(id)).map((f) => f.path)).toContain('model/a.yml');
    expect(await buildsOf(id)).toHaveLength(count);

    const ok = await api('POST', `${base(id)}/files/rename`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/a.yml', newPath: 'model/cubes/orders.yml' }] },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toEqual({ success: true });
    const after = await files(id);
    expect(after.map((f) => f.path)).toEqual([
      'edgeboard.json',
      'model/README.md',
      'model/cubes/example.yml',
      'model/cubes/orders.yml',
    ]);
    expect(after.find((f) => f.path === 'model/cubes/orders.yml')?.content).toBe(ORDERS);
    expect(await buildsOf(id)).toHaveLength(count + 1);
  });

  it('removes files; an unknown path is a 404 naming it and removes nothing', async () => {
    const id = await newDeployment();
    const count = (await buildsOf(id)).length;
    const unknown = await api('DELETE', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/README.md' }, { path: 'model/ghost.yml' }] },
    });
    expectError(unknown, 404, 'NOT_FOUND');
    expect(unknown.body.error).toContain('model/ghost.yml');
    expect((await files(id)).map((f) => f.path)).toContain('model/README.md');
    expect(await buildsOf(id)).toHaveLength(count);

    const ok = await api('DELETE', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/README.md' }] },
    });
    expect(ok.status).toBe(200);
    expect((await files(id)).map((f) => f.path)).toEqual(['edgeboard.json', 'model/cubes/example.yml']);
    expect(await buildsOf(id)).toHaveLength(count + 1);
    expect((await runLatestBuild(id)).status).toBe('built');
  });
});

describe('limits and paths', () => {
  it('refuses bad paths and duplicates with a 400', async () => {
    const id = world.acme.deployments[0];
    for (const path of [
      '../etc/passwd',
      '/model/a.yml',
      'model//a.yml',
      'model/./a.yml',
      'model/a\u0001.yml',
      'x'.repeat(256),
    ]) {
      const res = await api('PUT', `${base(id)}/files`, {
        auth: world.acme.admin,
        body: { files: [{ path, content: 'cubes: []\n' }] },
      });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
    const twice = await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: {
        files: [
          { path: 'model/a.yml', content: '' },
          { path: 'model/a.yml', content: '' },
        ],
      },
    });
    expectError(twice, 400);
    expect((await files(id)).map((f) => f.path)).not.toContain('model/a.yml');
  });

  it('refuses a file over 256 KiB, a project over 200 files or over 2 MiB with a 413, writing nothing', async () => {
    const id = await newDeployment('Limits');
    const count = (await buildsOf(id)).length;
    const big = await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/big.md', content: 'é'.repeat(131_073) }] },
    });
    expectError(big, 413, 'PAYLOAD_TOO_LARGE');
    expect(big.body.error).toContain('model/big.md');

    // The starter has 3 files: 198 more make 201.
    const many = Array.from({ length: 198 }, (_, i) => ({ path: `model/notes/${i}.md`, content: '#' }));
    const tooMany = await api('PUT', `${base(id)}/files`, { auth: world.acme.admin, body: { files: many } });
    expectError(tooMany, 413, 'PAYLOAD_TOO_LARGE');
    expect(tooMany.body.error).toContain('200 files');
    expect(await files(id)).toHaveLength(3);
    const fits = await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: many.slice(0, 197) },
    });
    expect(fits.status).toBe(200);
    expect(await files(id)).toHaveLength(200);
    const removed = await api('DELETE', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: many.slice(0, 197).map((f) => ({ path: f.path })) },
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(await files(id)).toHaveLength(3);

    const chunk = (from: number) =>
      Array.from({ length: 4 }, (_, i) => ({
        path: `model/big/${from + i}.md`,
        content: 'x'.repeat(250_000),
      }));
    for (const from of [0, 4]) {
      const res = await api('PUT', `${base(id)}/files`, {
        auth: world.acme.admin,
        body: { files: chunk(from) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const builds = (await buildsOf(id)).length;
    const over = await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/big/8.md', content: 'x'.repeat(250_000) }] },
    });
    expectError(over, 413, 'PAYLOAD_TOO_LARGE');
    expect(over.body.error).toContain('2097152 bytes');
    expect((await files(id)).map((f) => f.path)).not.toContain('model/big/8.md');
    expect(await buildsOf(id)).toHaveLength(builds);
    expect(builds).toBeGreaterThan(count);
  });
});

describe('builds and validation', () => {
  it('fails a broken model with file:line:column errors while the last good build stays active', async () => {
    const id = await newDeployment();
    const good = await runLatestBuild(id);
    expect(good.status).toBe('built');
    const db = createDb(env.DB);
    expect((await activeModel(db, id))?.buildId).toBe(good.id);

    const valid = await api('GET', `${base(id)}/validate`, {
      auth: world.acme.member,
    });
    expect(valid.status, JSON.stringify(valid.body)).toBe(200);
    expect(valid.body).toEqual({
      deploymentId: id,
      branchName: 'main',
      mode: 'production',
      valid: true,
      errors: [],
      cubesCount: 1,
    });

    await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/cubes/broken.yml', content: BROKEN }] },
    });
    const invalid = await api('GET', `${base(id)}/validate`, { auth: world.acme.member });
    expect(invalid.status).toBe(200);
    expect(invalid.body).toMatchObject({
      deploymentId: id,
      branchName: 'main',
      valid: false,
      cubesCount: null,
    });
    expect(invalid.body.errors.length).toBeGreaterThan(0);
    expect(invalid.body.errors[0].fileName).toBe('model/cubes/broken.yml');
    expect(invalid.body.errors[0].message).toMatch(/^model\/cubes\/broken\.yml:12:\d+: .*median/);

    const failed = await runLatestBuild(id);
    expect(failed.status).toBe('failed');
    expect(failed.compiled_model).toBeNull();
    expect(failed.error_text).toMatch(/^model\/cubes\/broken\.yml:12:\d+: .*median/);
    const active = await activeModel(db, id);
    expect(active?.buildId).toBe(good.id);
    expect(Object.keys(active?.model.cubes ?? {})).toEqual(['example']);

    await api('DELETE', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/cubes/broken.yml' }] },
    });
    const fixed = await runLatestBuild(id);
    expect(fixed.status).toBe('built');
    expect((await activeModel(db, id))?.buildId).toBe(fixed.id);
  });

  it('fails a project with a stray file and reports it in validate', async () => {
    const id = await newDeployment();
    await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'notes.txt', content: 'hi' }] },
    });
    const res = await api('GET', `${base(id)}/validate`, { auth: world.acme.member });
    expect(res.body.valid).toBe(false);
    expect(res.body.errors).toEqual([
      { message: 'notes.txt is outside the models folder or not a model file', fileName: 'notes.txt' },
    ]);
    expect((await runLatestBuild(id)).error_text).toBe(
      'notes.txt is outside the models folder or not a model file',
    );
  });

  it('answers 404 for devMode and another branch, 400 for both', async () => {
    const id = world.acme.deployments[0];
    expectError(await api('GET', `${base(id)}/validate?devMode=true`, { auth: world.acme.member }), 404);
    expectError(await api('GET', `${base(id)}/validate?branchName=dev`, { auth: world.acme.member }), 404);
    expectError(
      await api('GET', `${base(id)}/validate?branchName=main&devMode=false`, { auth: world.acme.member }),
      400,
    );
    expect((await api('GET', `${base(id)}/validate?devMode=false`, { auth: world.acme.member })).status).toBe(
      200,
    );
  });

  it('answers file hashes as SHA-1 of the content', async () => {
    const id = await newDeployment();
    await api('PUT', `${base(id)}/files`, {
      auth: world.acme.admin,
      body: { files: [{ path: 'model/hello.md', content: 'hello\n' }] },
    });
    const res = await api('GET', `${base(id)}/file-hashes?live=false`, { auth: world.acme.member });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'edgeboard.json',
      'model/README.md',
      'model/cubes/example.yml',
      'model/hello.md',
    ]);
    // `printf 'hello\n' | sha1sum`
    expect(res.body['model/hello.md']).toEqual({ hash: 'f572d396fae9206628714fb2ce00f72e94f2258f' });
  });
});

describe('upload transactions', () => {
  it('stages files and applies them on finish, removing unlisted files but the config, with a build', async () => {
    const id = await newDeployment('Upload target');
    const builds = (await buildsOf(id)).length;
    const start = await api('POST', `${base(id)}/upload/start`, { auth: world.acme.admin });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body).toMatchObject({ deploymentName: 'Upload target' });
    const transaction = start.body.transaction.id as string;
    expect(typeof transaction).toBe('string');

    const one = await multipart(id, {
      transaction,
      fileName: 'model/cubes/orders.yml',
      file: new File([ORDERS], 'orders.yml', { type: 'application/octet-stream' }),
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.fileName).toBe('model/cubes/orders.yml');
    // Older Cube CLIs send the transaction object as JSON.
    const two = await multipart(id, {
      transaction: JSON.stringify({ id: transaction }),
      fileName: 'model/notes.md',
      file: new File(['hello\n'], 'notes.md'),
    });
    expect(two.status, JSON.stringify(two.body)).toBe(200);
    expect(two.body.hash).toBe('f572d396fae9206628714fb2ce00f72e94f2258f');
    // Staged, not applied.
    expect((await files(id)).map((f) => f.path)).not.toContain('model/cubes/orders.yml');

    const finish = await api('POST', `${base(id)}/upload/finish`, {
      auth: world.acme.admin,
      body: {
        transaction: { id: transaction },
        files: {
          'model/cubes/orders.yml': { hash: 'x' },
          'model/notes.md': { hash: 'x' },
          'model/cubes/example.yml': { hash: 'x' },
        },
        commitMessage: 'sync',
      },
    });
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);
    expect(finish.body.lastHash).toMatch(/^[0-9a-f]{40}$/);
    const after = await files(id);
    expect(after.map((f) => f.path)).toEqual([
      'edgeboard.json',
      'model/cubes/example.yml',
      'model/cubes/orders.yml',
      'model/notes.md',
    ]);
    expect(after.find((f) => f.path === 'model/cubes/orders.yml')?.content).toBe(ORDERS);
    expect(await buildsOf(id)).toHaveLength(builds + 1);
    const staged = await env.DB.prepare(
      'SELECT (SELECT count(*) FROM model_uploads WHERE id = ?1) AS uploads, (SELECT count(*) FROM model_upload_files WHERE upload_id = ?1) AS files',
    )
      .bind(transaction)
      .first();
    expect(staged).toEqual({ uploads: 0, files: 0 });
    expect((await runLatestBuild(id)).status).toBe('built');

    const twice = await api('POST', `${base(id)}/upload/finish`, {
      auth: world.acme.admin,
      body: { transaction: { id: transaction }, files: {} },
    });
    expectError(twice, 404, 'NOT_FOUND');
  });

  it('keeps unlisted files with autoRemoveFiles false and refuses listed files that do not exist', async () => {
    const id = await newDeployment();
    const start = await api('POST', `${base(id)}/upload/start`, { auth: world.acme.admin });
    const transaction = start.body.transaction.id as string;
    const missing = await api('POST', `${base(id)}/upload/finish`, {
      auth: world.acme.admin,
      body: { transaction: { id: transaction }, files: { 'model/ghost.yml': { hash: 'x' } } },
    });
    expectError(missing, 400);
    expect(missing.body.error).toContain('model/ghost.yml');
    const finish = await api('POST', `${base(id)}/upload/finish`, {
      auth: world.acme.admin,
      body: { transaction: { id: transaction }, files: {}, autoRemoveFiles: false },
    });
    expect(finish.status, JSON.stringify(finish.body)).toBe(200);
    expect(await files(id)).toHaveLength(3);
  });

  it('expires a transaction after an hour, and the cron sweep deletes it', async () => {
    const id = await newDeployment();
    const t0 = new Date('2031-01-01T10:00:00.000Z');
    platform.clock = clockAt(t0);
    const start = await api('POST', `${base(id)}/upload/start`, { auth: world.acme.admin });
    const transaction = start.body.transaction.id as string;
    expect(start.body.expiresAt).toBe('2031-01-01T11:00:00.000Z');
    const staged = await multipart(id, { transaction, fileName: 'model/a.md', file: 'a' });
    expect(staged.status).toBe(200);

    platform.clock = clockAt('2031-01-01T11:00:01.000Z');
    expectError(await multipart(id, { transaction, fileName: 'model/b.md', file: 'b' }), 404, 'NOT_FOUND');
    expectError(
      await api('POST', `${base(id)}/upload/finish`, {
        auth: world.acme.admin,
        body: { transaction: { id: transaction }, files: {} },
      }),
      404,
    );

    await cronTick('2031-01-01T10:59:00.000Z');
    const count = () =>
      env.DB.prepare('SELECT count(*) AS n FROM model_uploads WHERE id = ?')
        .bind(transaction)
        .first<{ n: number }>();
    expect((await count())?.n).toBe(1);
    await cronTick('2031-01-01T11:01:00.000Z');
    expect((await count())?.n).toBe(0);
    const orphans = await env.DB.prepare('SELECT count(*) AS n FROM model_upload_files WHERE upload_id = ?')
      .bind(transaction)
      .first<{ n: number }>();
    expect(orphans?.n).toBe(0);
  });

  it('refuses another deployment’s transaction, bad uploads, and more than 10 open transactions', async () => {
    const id = await newDeployment();
    const otherId = await newDeployment();
    const start = await api('POST', `${base(otherId)}/upload/start`, { auth: world.acme.admin });
    const transaction = start.body.transaction.id as string;
    expectError(await multipart(id, { transaction, fileName: 'model/a.md', file: 'a' }), 404);
    expectError(
      await api('POST', `${base(id)}/upload/finish`, {
        auth: world.acme.admin,
        body: { transaction: { id: transaction }, files: {} },
      }),
      404,
    );
    expectError(await multipart(otherId, { transaction, fileName: '../a.md', file: 'a' }), 400);
    expectError(
      await multipart(otherId, {
        transaction,
        fileName: 'model/big.md',
        file: new File(['x'.repeat(262_145)], 'b'),
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expectError(
      await api('POST', `${base(otherId)}/upload/file`, { auth: world.acme.admin, body: { transaction } }),
      415,
    );

    const third = await newDeployment();
    for (let i = 0; i < 10; i++) {
      expect((await api('POST', `${base(third)}/upload/start`, { auth: world.acme.admin })).status).toBe(200);
    }
    expectError(
      await api('POST', `${base(third)}/upload/start`, { auth: world.acme.admin }),
      429,
      'RATE_LIMITED',
    );
  });
});

describe('credentials and isolation', () => {
  it('lets readers list and validate, only admins write, and hides other accounts’ deployments', async () => {
    const id = world.acme.deployments[0];
    const write = { files: [{ path: 'model/x.md', content: 'x' }] };
    expect((await api('GET', `${base(id)}/files`, { auth: world.acme.member })).status).toBe(200);
    expectError(
      await api('PUT', `${base(id)}/files`, { auth: world.acme.member, body: write }),
      403,
      'FORBIDDEN',
    );
    expectError(await api('POST', `${base(id)}/upload/start`, { auth: world.acme.member }), 403);

    const theirs = world.other.deployments[0];
    expectError(await api('GET', `${base(theirs)}/files`, { auth: world.acme.admin }), 404, 'NOT_FOUND');
    expectError(await api('PUT', `${base(theirs)}/files`, { auth: world.acme.admin, body: write }), 404);
    expectError(await api('GET', `${base(theirs)}/validate`, { auth: world.acme.admin }), 404);
    expectError(await api('POST', `${base(theirs)}/upload/start`, { auth: world.acme.admin }), 404);
    const theirFiles = await files(theirs);
    expect(theirFiles.map((f) => f.path)).not.toContain('model/x.md');

    const scoped = { bearer: world.acme.scopedKey.apiKey };
    expect((await api('PUT', `${base(id)}/files`, { auth: scoped, body: write })).status).toBe(200);
    expectError(
      await api('PUT', `${base(world.acme.deployments[1])}/files`, { auth: scoped, body: write }),
      403,
      'KEY_SCOPE',
    );
    expectError(await api('GET', `${base(id)}/files`, { auth: null }), 401);
  });
});
