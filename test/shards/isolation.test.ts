import { beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_DATABASE } from '../../src/core/db';
import { shardOfPublicId } from '../../src/core/shard-marks';
import { shardOfId } from '../../src/core/shards';
import { claimsOf, load, mintOk, publishDashboard, setEmbed } from '../embedding/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { type ApiResponse, api } from '../helpers/http';
import { countPerShard, shardsRead, statementsOf } from '../helpers/shards';

// Three accounts, placed on shards 0, 1 and 2 (the least-loaded shard first): the last one's
// requests must read and write shard 2 only.
let accounts: SeededAccount[];
let tenant: SeededAccount;

beforeAll(async () => {
  accounts = [await seedAccount(), await seedAccount(), await seedAccount()];
  tenant = accounts[2] as SeededAccount;
});

const ok = (res: ApiResponse, status = 200) => {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(status);
  return res;
};
const controlTrips = (res: ApiResponse) => res.headers.get('x-d1-control-round-trips');

describe("an account's requests", () => {
  it('land on the shard it was placed on', () => {
    expect(accounts.map((a) => shardOfId(a.accountId))).toEqual([0, 1, 2]);
    for (const id of [...tenant.deployments, tenant.adminUserId, tenant.memberUserId]) {
      expect(shardOfId(id)).toBe(2);
    }
  });

  it('write and read only its shard; only the names unique across shards touch the control database', async () => {
    const dep = tenant.deployments[0];
    let publicId = '';
    let reportId = 0;
    const writes = await statementsOf(async () => {
      const deployment = ok(
        await api('POST', '/build/api/v1/deployments', { auth: tenant.admin, body: { name: 'Sharded' } }),
      );
      expect(shardOfId(deployment.body.id)).toBe(2);
      const report = ok(
        await api('POST', `/api/v1/deployments/${dep}/reports`, { auth: tenant.admin, body: { name: 'R' } }),
      );
      reportId = report.body.id;
      const board = await publishDashboard(tenant);
      publicId = board.publicId;
      await setEmbed(tenant, publicId, { allowEmbed: true });
      ok(
        await api('POST', '/api/v1/users', {
          auth: tenant.admin,
          body: { email: 'sh@example.com', username: 'sharded' },
        }),
      );
      ok(await api('POST', '/api/v1/api-keys', { auth: tenant.admin, body: { name: 'more' } }));
      ok(await api('POST', '/api/v1/groups', { auth: tenant.key, body: { name: 'ops' } }));
      ok(
        await api('POST', `/api/v1/deployments/${dep}/notifications`, {
          auth: tenant.admin,
          body: { dashboardId: board.id, scheduleType: 'HOURLY', minute: 5 },
        }),
      );
    });
    expect(shardsRead(writes)).toEqual([CONTROL_DATABASE, 2]);
    // The control database saw the deployment's slug and the report's public id claimed, nothing else.
    const control = writes.filter((s) => s.shard === CONTROL_DATABASE);
    expect(control.every((s) => /claimed_names/.test(s.sql))).toBe(true);
    expect(shardOfPublicId(publicId)).toBe(2);
    expect(shardOfId(reportId)).toBe(2);

    // The hot paths: a credential's request, a mint, loads by session, embed token and viewer page.
    const reads = await statementsOf(async () => {
      for (const res of [
        ok(await api('GET', '/api/v1/deployments', { auth: tenant.admin })),
        ok(await api('GET', `/api/v1/deployments/${dep}/reports/${reportId}`, { auth: tenant.key })),
        ok(await api('GET', '/api/v1/users', { auth: tenant.admin })),
      ]) {
        expect(controlTrips(res)).toBe('0');
      }
      const sessionId = await mintOk(tenant.key, { deploymentId: dep, externalId: 'viewer-2' });
      expect(claimsOf(sessionId).sh).toBe(2);
      const loaded = ok(await load(publicId, sessionId));
      expect(controlTrips(loaded)).toBe('0');
      const exchanged = ok(await api('POST', '/api/v1/embed/session/token', { body: { sessionId } }));
      expect(claimsOf(exchanged.body.token).sh).toBe(2);
      ok(await api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: { bearer: exchanged.body.token } }));
      ok(await api('GET', `/embed/dashboard/${publicId}?session=${encodeURIComponent(sessionId)}`));
      ok(await api('GET', `/embed/dashboard/${publicId}`));
      const token = ok(
        await api('POST', `/api/v1/deployments/${dep}/token`, { auth: tenant.admin, body: {} }),
      );
      expect(claimsOf(token.body.cubeApiToken).sh).toBe(2);
    });
    expect(shardsRead(reads)).toEqual([2]);

    // What it stored is on shard 2 and nowhere else.
    const only2 = [0, 0, 1, 0];
    const positive = (counts: number[]) => counts.map((n) => (n > 0 ? 1 : 0));
    const account = tenant.accountId;
    expect(positive(await countPerShard('deployments', 'account_id = ?', account))).toEqual(only2);
    expect(
      positive(
        await countPerShard(
          'workspace_items',
          'deployment_id IN (SELECT id FROM deployments WHERE account_id = ?)',
          account,
        ),
      ),
    ).toEqual(only2);
    expect(positive(await countPerShard('published_dashboards', 'public_id = ?', publicId))).toEqual(only2);
    expect(positive(await countPerShard('embed_users', 'account_id = ?', account))).toEqual(only2);
    expect(positive(await countPerShard('embed_groups', 'account_id = ?', account))).toEqual(only2);
    expect(positive(await countPerShard('users', 'account_id = ?', account))).toEqual(only2);
    expect(positive(await countPerShard('api_keys', 'account_id = ?', account))).toEqual(only2);
    expect(
      positive(
        await countPerShard(
          'notifications',
          'deployment_id IN (SELECT id FROM deployments WHERE account_id = ?)',
          account,
        ),
      ),
    ).toEqual(only2);
  });
});
