import { createMessageBatch } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_DATABASE } from '../../src/core/db';
import { shardOfId } from '../../src/core/shards';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, deliverBatch, platform } from '../helpers/platform';
import { dbOf, shardsRead, statementsOf } from '../helpers/shards';
import { seedDashboard } from '../notifications/fixtures';
import { consume, recordingPorts, tick } from '../notifications/ports';

// Four accounts, one per shard.
let onShard: SeededAccount[];

beforeAll(async () => {
  onShard = [];
  for (let i = 0; i < 4; i++) onShard.push(await seedAccount());
});

const account = (shard: number) => onShard[shard] as SeededAccount;

/** A build of the account's first deployment, queued but left for the test to deliver. */
async function queuedBuild(a: SeededAccount): Promise<number> {
  const row = await dbOf(a.accountId)
    .prepare("INSERT INTO builds (deployment_id, status, created_at) VALUES (?, 'queued', ?) RETURNING id")
    .bind(a.deployments[0], new Date().toISOString())
    .first<{ id: number }>();
  return row?.id as number;
}

const buildStatus = async (buildId: number) =>
  (
    await dbOf(buildId)
      .prepare('SELECT status FROM builds WHERE id = ?')
      .bind(buildId)
      .first<{ status: string }>()
  )?.status;

describe('the queue consumers', () => {
  it('run each message of a batch on the shard its id names, and only there', async () => {
    const builds = [await queuedBuild(account(1)), await queuedBuild(account(3))];
    expect(builds.map(shardOfId)).toEqual([1, 3]);
    const batch = createMessageBatch('edgeboard-builds', [
      ...builds.map((buildId) => ({
        id: `b-${buildId}`,
        timestamp: new Date(),
        attempts: 1,
        body: { kind: 'build', buildId },
      })),
    ]);
    const log = await statementsOf(async () => {
      const result = await deliverBatch(batch);
      expect(result.explicitAcks.sort()).toEqual(builds.map((b) => `b-${b}`).sort());
      expect(result.retryMessages).toEqual([]);
    });
    expect(shardsRead(log)).toEqual([1, 3]);
    for (const buildId of builds) expect(await buildStatus(buildId)).toBe('built');
  });
});

describe('the cron tick', () => {
  it('claims due notifications on every shard; their runs are delivered on their own shard', async () => {
    const rec = recordingPorts();
    platform.deliveryPorts = rec.ports;
    const notifications: { shard: number; id: number }[] = [];
    for (const shard of [0, 2, 3]) {
      const a = account(shard);
      const dashboard = await seedDashboard(a, `Shard ${shard}`);
      platform.clock = clockAt('2026-08-01T08:00:00.000Z');
      const base = `/api/v1/deployments/${a.deployments[0]}/notifications`;
      const created = await api('POST', base, {
        auth: a.admin,
        body: { dashboardId: dashboard.id, scheduleType: 'DAILY', hour: 9, minute: 0 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const added = await api('POST', `${base}/${created.body.id}/recipients`, {
        auth: a.admin,
        body: { recipients: [{ email: `ops${shard}@example.com` }] },
      });
      expect(added.status).toBe(200);
      notifications.push({ shard, id: created.body.id });
    }
    platform.clock = undefined;
    const ticked = await statementsOf(() => tick('2026-08-01T09:00:00.000Z'));
    // Every shard's jobs ran (the sweep's pass reads the control database too); only the
    // shards holding a due notification claimed a run.
    expect(shardsRead(ticked)).toEqual([CONTROL_DATABASE, 0, 1, 2, 3]);
    expect(rec.queued.map(shardOfId).sort()).toEqual([0, 2, 3]);
    for (const { shard, id } of notifications) {
      const run = await dbOf(id)
        .prepare('SELECT id, status FROM notification_runs WHERE notification_id = ?')
        .bind(id)
        .first<{ id: number; status: string }>();
      expect(run?.status).toBe('queued');
      expect(shardOfId(run?.id as number)).toBe(shard);
    }
    const consumed = await statementsOf(async () => {
      const result = await consume(rec.queued);
      expect(result.retryMessages).toEqual([]);
    });
    expect(shardsRead(consumed)).toEqual([0, 2, 3]);
    for (const runId of rec.queued) {
      const run = await dbOf(runId)
        .prepare('SELECT status FROM notification_runs WHERE id = ?')
        .bind(runId)
        .first<{ status: string }>();
      expect(run?.status).toBe('delivered');
    }
    expect(rec.emails.map((e) => e.to).sort()).toEqual([
      'ops0@example.com',
      'ops2@example.com',
      'ops3@example.com',
    ]);
  });
});

describe('a redelivered run message', () => {
  it('sends nothing twice on any shard: again later, twice at once, or twice in one batch', async () => {
    const rec = recordingPorts();
    platform.deliveryPorts = rec.ports;
    const runs: number[] = [];
    for (let shard = 0; shard < 4; shard++) {
      const a = account(shard);
      const dashboard = await seedDashboard(a, `Redelivered ${shard}`);
      const base = `/api/v1/deployments/${a.deployments[0]}/notifications`;
      const created = await api('POST', base, {
        auth: a.admin,
        body: { dashboardId: dashboard.id, scheduleType: 'DAILY', hour: 7, minute: 0 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const added = await api('POST', `${base}/${created.body.id}/recipients`, {
        auth: a.admin,
        body: {
          recipients: [{ email: `once${shard}a@example.com` }, { email: `once${shard}b@example.com` }],
        },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      const run = await api('POST', `${base}/${created.body.id}/run`, { auth: a.admin });
      expect(run.status, JSON.stringify(run.body)).toBe(202);
      expect(shardOfId(run.body.id)).toBe(shard);
      runs.push(run.body.id);
    }
    const first = await statementsOf(() => consume(runs));
    expect(shardsRead(first)).toEqual([0, 1, 2, 3]);
    // At-least-once delivery: the same message again later, two copies at once, and one batch
    // holding every run twice.
    await consume(runs, { attempts: 2 });
    await Promise.all([consume(runs), consume(runs)]);
    const doubled = await consume([...runs, ...runs]);
    expect(doubled.retryMessages).toEqual([]);
    expect(rec.emails.map((e) => e.to).sort()).toEqual(
      [0, 1, 2, 3].flatMap((shard) => [`once${shard}a@example.com`, `once${shard}b@example.com`]).sort(),
    );
    for (const [shard, runId] of runs.entries()) {
      const { results } = await dbOf(runId)
        .prepare(
          `SELECT r.status, d.status AS delivery, d.attempts FROM notification_runs r
           JOIN notification_deliveries d ON d.run_id = r.id WHERE r.id = ?`,
        )
        .bind(runId)
        .all();
      expect(results, `shard ${shard}`).toEqual([
        { status: 'delivered', delivery: 'sent', attempts: 1 },
        { status: 'delivered', delivery: 'sent', attempts: 1 },
      ]);
    }
  });
});
