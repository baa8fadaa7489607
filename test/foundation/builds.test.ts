import { createMessageBatch, env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { cronTick, deliverBatch } from '../helpers/platform';

let acme: SeededAccount;
beforeAll(async () => {
  acme = await seedAccount();
});

/** A deployment whose build is queued but whose message the test delivers itself. */
async function queuedBuild(
  files?: Record<string, string>,
): Promise<{ deploymentId: number; buildId: number }> {
  const now = new Date().toISOString();
  const slug = `t-${crypto.randomUUID().slice(0, 8)}`;
  const d = await env.DB.prepare(
    `INSERT INTO deployments (account_id, name, slug, deployment_url, is_managed, cloud_provider, region, target_platform,
       creation_step, creation_method, deploy_mode, created_at, updated_at)
     VALUES (?, 'T', ?, 'https://t', 1, 'hosted', 'us-east-1', 'hosted', 'project', 'hosted', 'git', ?, ?) RETURNING id`,
  )
    .bind(acme.accountId, slug, now, now)
    .first<{ id: number }>();
  const deploymentId = d?.id as number;
  const project = files ?? {
    'edgeboard.json': '{"name":"T","version":1,"models":"model/"}',
    'model/README.md': '# m',
  };
  await env.DB.batch(
    Object.entries(project).map(([path, content]) =>
      env.DB.prepare(
        'INSERT INTO project_files (deployment_id, path, content, created_at) VALUES (?, ?, ?, ?)',
      ).bind(deploymentId, path, content, now),
    ),
  );
  const b = await env.DB.prepare(
    "INSERT INTO builds (deployment_id, status, created_at) VALUES (?, 'queued', ?) RETURNING id",
  )
    .bind(deploymentId, now)
    .first<{ id: number }>();
  return { deploymentId, buildId: b?.id as number };
}

async function deliver(buildId: number, id = `m-${buildId}`, attempts = 1) {
  const batch = createMessageBatch('edgeboard-builds', [
    { id, timestamp: new Date(), attempts, body: { kind: 'build', buildId } },
  ]);
  return deliverBatch(batch);
}

const buildRow = (id: number) =>
  env.DB.prepare('SELECT status, error_text, attempts, started_at, finished_at FROM builds WHERE id = ?')
    .bind(id)
    .first<{
      status: string;
      error_text: string | null;
      attempts: number;
      started_at: string | null;
      finished_at: string | null;
    }>();

describe('the builds consumer', () => {
  it('moves a build from queued to built and acknowledges the message', async () => {
    const { deploymentId, buildId } = await queuedBuild();
    const result = await deliver(buildId);
    expect(result.explicitAcks).toEqual([`m-${buildId}`]);
    expect(result.retryMessages).toEqual([]);
    expect(await buildRow(buildId)).toMatchObject({ status: 'built', error_text: null, attempts: 1 });
    const status = await api('GET', `/api/v1/deployments/${deploymentId}/build-status`, {
      auth: acme.member,
    });
    // Cube's BuildStatusResponse carries more fields than these.
    expect(status.body).toMatchObject({ status: 'built', buildId, buildJobId: buildId, errorText: null });
  });

  it('does not build twice when the message is redelivered', async () => {
    const { buildId } = await queuedBuild();
    await deliver(buildId);
    const first = await buildRow(buildId);
    const again = await deliver(buildId, `m-${buildId}-redelivered`, 2);
    expect(again.explicitAcks).toEqual([`m-${buildId}-redelivered`]);
    expect(await buildRow(buildId)).toEqual(first);
  });

  it('records a failed build with its error text', async () => {
    const { deploymentId, buildId } = await queuedBuild({ 'edgeboard.json': '{ not json' });
    await deliver(buildId);
    const row = await buildRow(buildId);
    expect(row?.status).toBe('failed');
    expect(row?.error_text).toMatch(/edgeboard\.json is not valid JSON/);
    const status = await api('GET', `/api/v1/deployments/${deploymentId}/build-status`, {
      auth: acme.member,
    });
    expect(status.body).toMatchObject({ status: 'failed', buildId });
    expect(status.body.errorText).toMatch(/not valid JSON/);
  });

  it('fails a project with stray files', async () => {
    const { buildId } = await queuedBuild({
      'edgeboard.json': '{"name":"T","models":"model/"}',
      'secrets.txt': 'x',
    });
    await deliver(buildId);
    expect((await buildRow(buildId))?.error_text).toBe(
      'secrets.txt is outside the models folder or not a model file',
    );
  });

  it('acknowledges a message for a build that no longer exists', async () => {
    const result = await deliver(987654321);
    expect(result.explicitAcks).toEqual(['m-987654321']);
  });

  it('runs the first build of a deployment created over HTTP', async () => {
    const created = await api('POST', '/build/api/v1/deployments', {
      auth: acme.admin,
      body: { name: 'E2E' },
    });
    const { build_id } = (await env.DB.prepare(
      'SELECT max(id) AS build_id FROM builds WHERE deployment_id = ?',
    )
      .bind(created.body.id)
      .first<{ build_id: number }>()) as { build_id: number };
    await deliver(build_id);
    const status = await api('GET', `/api/v1/deployments/${created.body.id}/build-status`, {
      auth: acme.member,
    });
    // Cube's BuildStatusResponse carries more fields than these.
    expect(status.body).toMatchObject({ status: 'built', buildId: build_id, errorText: null });
  });
});

describe('the cron sweep of stranded builds', () => {
  it('re-enqueues builds still queued after a minute, and nothing newer', async () => {
    const { buildId } = await queuedBuild();
    const fresh = await queuedBuild();
    const old = new Date(Date.now() - 5 * 60_000).toISOString();
    await env.DB.prepare('UPDATE builds SET created_at = ? WHERE id = ?').bind(old, buildId).run();
    const sent: unknown[] = [];
    const queue = {
      ...env.BUILDS_QUEUE,
      sendBatch: async (msgs: { body: unknown }[]) => void sent.push(...msgs.map((m) => m.body)),
    };
    await cronTick(new Date(), {
      bindings: { ...env, BUILDS_QUEUE: queue as unknown as typeof env.BUILDS_QUEUE },
    });
    expect(sent).toContainEqual({ kind: 'build', buildId });
    expect(sent).not.toContainEqual({ kind: 'build', buildId: fresh.buildId });
  });
});
