import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { shardOfSecret } from '../../src/auth/credentials';
import { CONTROL_DATABASE } from '../../src/core/db';
import { idFloor, SHARD_ID_SPAN, shardOfId } from '../../src/core/shards';
import { expectError, OPERATOR } from '../helpers/harness';
import { api } from '../helpers/http';
import { countPerShard, dbOf, shardsRead, statementsOf } from '../helpers/shards';

const provision = async (name: string) => {
  const res = await api('POST', '/admin/v1/accounts', { auth: OPERATOR, body: { name, plan: 'premium' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { account: { id: number }; user: { id: number }; accessToken: string; apiKey: string };
};

const directory = async () =>
  (
    await env.CONTROL_DB.prepare('SELECT id, shard FROM accounts ORDER BY id').all<{
      id: number;
      shard: number;
    }>()
  ).results;

const loads = async () =>
  (
    await env.CONTROL_DB.prepare('SELECT shard, accounts FROM shard_loads ORDER BY shard').all<{
      shard: number;
      accounts: number;
    }>()
  ).results.map((r) => [r.shard, r.accounts]);

describe('placement of new accounts', () => {
  it('spreads them over the four shards, the one holding the fewest first, and lists each in the directory', async () => {
    const made = [];
    for (let i = 0; i < 8; i++) made.push(await provision(`Spread ${i}`));
    const shards = made.map((m) => shardOfId(m.account.id));
    expect(shards).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
    for (const [i, m] of made.entries()) {
      const shard = shards[i] as number;
      // The account's id and its admin's come from its shard's range; its secrets name the shard.
      expect(m.account.id).toBeGreaterThan(idFloor(shard));
      expect(m.account.id).toBeLessThan(idFloor(shard) + SHARD_ID_SPAN);
      expect(shardOfId(m.user.id)).toBe(shard);
      expect(shardOfSecret(m.accessToken)).toBe(shard);
      expect(shardOfSecret(m.apiKey)).toBe(shard);
      // Its rows are on its shard and nowhere else.
      const only = [0, 0, 0, 0].map((_, s) => (s === shard ? 1 : 0));
      expect(await countPerShard('accounts', 'id = ?', m.account.id)).toEqual(only);
      expect(await countPerShard('users', 'account_id = ?', m.account.id)).toEqual(only);
      expect(await countPerShard('access_tokens', 'account_id = ?', m.account.id)).toEqual(only);
      expect(await countPerShard('api_keys', 'account_id = ?', m.account.id)).toEqual(only);
    }
    expect(await directory()).toEqual(
      made.map((m, i) => ({ id: m.account.id, shard: shards[i] })).sort((a, b) => a.id - b.id),
    );
    expect(await loads()).toEqual([
      [0, 2],
      [1, 2],
      [2, 2],
      [3, 2],
    ]);
  });

  it('reads how loaded each shard is from the control database', async () => {
    await env.CONTROL_DB.prepare(
      'INSERT OR REPLACE INTO shard_loads (shard, accounts) VALUES (0, 50), (1, 40), (2, 3), (3, 60)',
    ).run();
    const log = await statementsOf(async () => {
      const made = await provision('Light shard');
      expect(shardOfId(made.account.id)).toBe(2);
    });
    // Placement and the directory are the control database's; the account's rows its shard's.
    expect(shardsRead(log)).toEqual([CONTROL_DATABASE, 2]);
    expect(await loads()).toEqual([
      [0, 50],
      [1, 40],
      [2, 4],
      [3, 60],
    ]);
  });
});

describe("the operator's routes", () => {
  it('find an account on any shard through the directory, and change it there only', async () => {
    const made = [];
    for (let i = 0; i < 4; i++) made.push(await provision(`Operated ${i}`));
    for (const m of made) {
      const shard = shardOfId(m.account.id);
      const log = await statementsOf(async () => {
        const got = await api('GET', `/admin/v1/accounts/${m.account.id}`, { auth: OPERATOR });
        expect(got.status).toBe(200);
        expect(got.body.id).toBe(m.account.id);
        const patched = await api('PATCH', `/admin/v1/accounts/${m.account.id}`, {
          auth: OPERATOR,
          body: { externalUserLimit: 7 },
        });
        expect(patched.body.externalUserLimit).toBe(7);
      });
      expect(shardsRead(log)).toEqual([CONTROL_DATABASE, shard]);
      const row = await dbOf(m.account.id)
        .prepare('SELECT external_user_limit AS n FROM accounts WHERE id = ?')
        .bind(m.account.id)
        .first<{ n: number }>();
      expect(row?.n).toBe(7);
    }
  });

  it('answer 404 for an account the directory does not list, whatever a shard holds', async () => {
    const stray = idFloor(1) + 999_999;
    await dbOf(stray)
      .prepare("INSERT INTO accounts (id, name, created_at, updated_at) VALUES (?, 'Stray', 'now', 'now')")
      .bind(stray)
      .run();
    expectError(await api('GET', `/admin/v1/accounts/${stray}`, { auth: OPERATOR }), 404, 'NOT_FOUND');
    expectError(
      await api('PATCH', `/admin/v1/accounts/${stray}`, { auth: OPERATOR, body: { externalUserLimit: 1 } }),
      404,
      'NOT_FOUND',
    );
  });
});
