import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { shardOfId } from '../../src/core/shards';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { countPerShard } from '../helpers/shards';

// Four accounts, one per shard.
let onShard: SeededAccount[];

beforeAll(async () => {
  onShard = [];
  for (let i = 0; i < 4; i++) onShard.push(await seedAccount());
});

const account = (shard: number) => onShard[shard] as SeededAccount;

describe('ids', () => {
  it('of each table are unique across shards, each in the range of the shard it was made on', async () => {
    const byTable = new Map<string, number[]>();
    for (let shard = 0; shard < 4; shard++) {
      const a = account(shard);
      const dep = a.deployments[0];
      const post = async (path: string, body: unknown) =>
        (await api('POST', path, { auth: a.admin, body })).body.id as number;
      const made: Record<string, number[]> = {
        accounts: [a.accountId],
        users: [a.adminUserId, a.memberUserId],
        deployments: [...a.deployments],
        folders: [await post(`/api/v1/deployments/${dep}/folders`, { name: 'F' })],
        workbooks: [await post(`/api/v1/deployments/${dep}/workbooks`, { name: 'W' })],
        reports: [await post(`/api/v1/deployments/${dep}/reports`, { name: 'R' })],
        groups: [await post('/api/v1/groups', { name: 'g' })],
      };
      for (const [table, ids] of Object.entries(made)) {
        for (const id of ids) expect(shardOfId(id), `${table} ${id}`).toBe(shard);
        byTable.set(table, [...(byTable.get(table) ?? []), ...ids]);
      }
    }
    for (const [table, ids] of byTable) expect(new Set(ids).size, table).toBe(ids.length);
  });
});

describe('names unique across every account', () => {
  it('deployment slugs are claimed in the control database for their account', async () => {
    const claimed = new Map<string, number>();
    for (let shard = 0; shard < 4; shard++) {
      const a = account(shard);
      const res = await api('POST', '/build/api/v1/deployments', {
        auth: a.admin,
        body: { name: 'Same name' },
      });
      expect(res.status).toBe(200);
      const got = await api('GET', `/api/v1/deployments/${res.body.id}`, { auth: a.admin });
      const slug = new URL(got.body.deploymentUrl).host.split('.')[0] as string;
      expect(slug).toMatch(/^same-name-[a-z0-9]{6}$/);
      claimed.set(slug, a.accountId);
    }
    expect(claimed.size).toBe(4);
    const { results } = await env.CONTROL_DB.prepare(
      "SELECT name, account_id FROM claimed_names WHERE kind = 'deployment-slug' AND name LIKE 'same-name-%'",
    ).all<{ name: string; account_id: number }>();
    expect(new Map(results.map((r) => [r.name, r.account_id]))).toEqual(claimed);
  });

  it('a report public id another account holds, on any shard, is a 409 and writes nothing', async () => {
    const publicId = 'Sh4rdUn1qu3X';
    const holder = account(1);
    const create = (a: SeededAccount, deploymentId = a.deployments[0]) =>
      api('POST', `/api/v1/deployments/${deploymentId}/reports`, {
        auth: a.admin,
        body: { name: 'P', publicId },
      });
    expect((await create(holder)).status).toBe(200);
    for (const shard of [0, 2, 3]) {
      expectError(await create(account(shard)), 409, 'CONFLICT');
      expectError(
        await api(
          'PUT',
          `/api/v1/deployments/${account(shard).deployments[0]}/reports/by-public-id/${publicId}`,
          {
            auth: account(shard).admin,
            body: { name: 'Taken' },
          },
        ),
        409,
        'CONFLICT',
      );
    }
    // The holder's own other deployment: its shard's check says so, as before sharding.
    expectError(await create(holder, holder.deployments[1]), 409, 'CONFLICT');
    expect(await countPerShard('reports', 'public_id = ?', publicId)).toEqual([0, 1, 0, 0]);
    const claim = await env.CONTROL_DB.prepare(
      "SELECT account_id FROM claimed_names WHERE kind = 'report-public-id' AND name = ?",
    )
      .bind(publicId)
      .first<{ account_id: number }>();
    expect(claim?.account_id).toBe(holder.accountId);
  });

  it("a deployment URL's host tells another account's deployment (403) from none (404), across shards", async () => {
    const a = account(1);
    const token = (
      await api('POST', `/api/v1/deployments/${a.deployments[0]}/token`, { auth: a.admin, body: {} })
    ).body.cubeApiToken as string;
    const elsewhere = await api('GET', `/api/v1/deployments/${account(3).deployments[0]}`, {
      auth: account(3).admin,
    });
    const host = new URL(elsewhere.body.deploymentUrl).host;
    expectError(await api('GET', '/cubejs-api/v1/meta', { auth: { raw: token }, headers: { host } }), 403);
    expectError(
      await api('GET', '/cubejs-api/v1/meta', {
        auth: { raw: token },
        headers: { host: 'nobody-abc123.edgeboard.app' },
      }),
      404,
    );
  });
});
