import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/crypto';
import { idFloor, shardOfId } from '../../src/core/shards';
import { expectError, OPERATOR } from '../helpers/harness';
import { api } from '../helpers/http';
import { fetchWorker } from '../helpers/platform';
import { countPerShard, shardDbs } from '../helpers/shards';
import { tick } from '../notifications/ports';

// The sweep of writes cut in half between a shard and the control database. Each half-done state
// is written straight to the databases, as a Worker dying between two writes would leave it; the
// sweep then runs through the cron's scheduled handler or the operator's route.

interface Provisioned {
  account: { id: number };
  user: { id: number };
  accessToken: string;
  apiKey: string;
}

const provision = async (name: string): Promise<Provisioned> => {
  const res = await api('POST', '/admin/v1/accounts', { auth: OPERATOR, body: { name, plan: 'premium' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

const control = (sql: string, ...binds: unknown[]) => env.CONTROL_DB.prepare(sql).bind(...binds);

const directory = async () =>
  (await control('SELECT id, shard FROM accounts ORDER BY id').all<{ id: number; shard: number }>()).results;

const loads = async () =>
  (
    await control('SELECT shard, accounts, bias FROM shard_loads ORDER BY shard').all<{
      shard: number;
      accounts: number;
      bias: number;
    }>()
  ).results.map((r) => [r.shard, r.accounts, r.bias]);

const pending = async () =>
  (
    await control('SELECT key_hash, shard FROM pending_accounts ORDER BY shard, key_hash').all<{
      key_hash: string;
      shard: number;
    }>()
  ).results;

/** The rows of an account on each shard: accounts, users, access tokens, API keys. */
const rowsOf = async (id: number) => ({
  accounts: await countPerShard('accounts', 'id = ?', id),
  users: await countPerShard('users', 'account_id = ?', id),
  accessTokens: await countPerShard('access_tokens', 'account_id = ?', id),
  apiKeys: await countPerShard('api_keys', 'account_id = ?', id),
});

/** Exactly one of each on the account's shard, none elsewhere; or none anywhere. */
const onlyOn = (shard: number) => [0, 0, 0, 0].map((_, s) => (s === shard ? 1 : 0));
const whole = (shard: number) => ({
  accounts: onlyOn(shard),
  users: onlyOn(shard),
  accessTokens: onlyOn(shard),
  apiKeys: onlyOn(shard),
});
const NONE = {
  accounts: [0, 0, 0, 0],
  users: [0, 0, 0, 0],
  accessTokens: [0, 0, 0, 0],
  apiKeys: [0, 0, 0, 0],
};

/**
 * What a Worker dying between the shard's batch and the directory's leaves: the account whole on
 * its shard, its provisioning pending since `since`, and neither a directory row nor a count.
 */
async function cutBeforeListing(made: Provisioned, since: string): Promise<void> {
  const shard = shardOfId(made.account.id);
  await env.CONTROL_DB.batch([
    control('DELETE FROM accounts WHERE id = ?', made.account.id),
    control('UPDATE shard_loads SET accounts = accounts - 1 WHERE shard = ?', shard),
    control(
      'INSERT INTO pending_accounts (key_hash, shard, created_at) VALUES (?, ?, ?)',
      await sha256Hex(made.apiKey),
      shard,
      since,
    ),
  ]);
}

/** A directory row (and its count) for an account its shard does not hold. */
async function listGhost(id: number, shard: number): Promise<void> {
  await env.CONTROL_DB.batch([
    control('INSERT INTO accounts (id, shard, created_at) VALUES (?, ?, ?)', id, shard, ago(60 * MINUTE)),
    control('UPDATE shard_loads SET accounts = accounts + 1 WHERE shard = ?', shard),
  ]);
}

const sweep = () => api('POST', '/admin/v1/shards/sweep', { auth: OPERATOR });

/** A pass that fixed nothing on `shard` and ended its walk with the shard's count `accounts`. */
const quiet = (shard: number, accounts: number, checked = accounts) => ({
  shard,
  undoneAccounts: [],
  settledProvisionings: 0,
  unlistedAccounts: [],
  checked,
  afterId: 0,
  load: { before: accounts, after: accounts },
});

// Eight accounts through HTTP: two on each shard, in placement order 0, 1, 2, 3, 0, 1, 2, 3.
let made: Provisioned[];

beforeAll(async () => {
  made = [];
  for (let i = 0; i < 8; i++) made.push(await provision(`Swept ${i}`));
  expect(made.map((m) => shardOfId(m.account.id))).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
});

const m = (i: number) => made[i] as Provisioned;

describe('provisioning in ordered steps', () => {
  it('leaves nothing pending once the account is listed', async () => {
    expect(await pending()).toEqual([]);
    expect(await directory()).toEqual(
      made.map((p) => ({ id: p.account.id, shard: shardOfId(p.account.id) })).sort((a, b) => a.id - b.id),
    );
  });
});

describe('the sweep, from the cron tick', () => {
  it('undoes a provisioning cut short, lists no ghost, recounts the loads and leaves the rest alone', async () => {
    const before = await directory();
    // Shard 1: cut before listing 11 minutes ago (past the grace period): undone.
    await cutBeforeListing(m(1), ago(11 * MINUTE));
    // Shard 2: cut 2 minutes ago: it may still be running, so left alone.
    await cutBeforeListing(m(6), ago(2 * MINUTE));
    // Shard 2: pending 20 minutes, and the shard's batch never ran: nothing to undo there.
    const neverWritten = await sha256Hex('eb_ak_a key whose batch never ran');
    await control(
      'INSERT INTO pending_accounts (key_hash, shard, created_at) VALUES (?, 2, ?)',
      neverWritten,
      ago(20 * MINUTE),
    ).run();
    // Shard 0: the directory lists an account shard 0 does not hold.
    const ghost = idFloor(2) + 424_242;
    await listGhost(ghost, 0);
    // Shard 3: a count gone astray, and the operator's bias, which the recount keeps.
    await control('UPDATE shard_loads SET accounts = 77, bias = 5 WHERE shard = 3').run();

    await tick(new Date().toISOString());

    expect(await rowsOf(m(1).account.id)).toEqual(NONE);
    expect(await rowsOf(m(6).account.id)).toEqual(whole(2));
    expect(await pending()).toEqual([{ key_hash: await sha256Hex(m(6).apiKey), shard: 2 }]);
    const listed = before.filter((row) => row.id !== m(1).account.id && row.id !== m(6).account.id);
    expect(await directory()).toEqual(listed);
    expect(await loads()).toEqual([
      [0, 2, 0],
      [1, 1, 0],
      [2, 1, 0],
      [3, 2, 5],
    ]);
    // Each shard's walk ended (two accounts or fewer each): the next starts over.
    const cursors = await control('SELECT shard, after_id FROM sweep_cursors ORDER BY shard').all();
    expect(cursors.results).toEqual([0, 1, 2, 3].map((shard) => ({ shard, after_id: 0 })));
    // The accounts still listed are whole, on their shard, and the operator finds each there.
    for (const { id, shard } of listed) {
      expect(await rowsOf(id)).toEqual(whole(shard));
      const got = await api('GET', `/admin/v1/accounts/${id}`, { auth: OPERATOR });
      expect(got.status).toBe(200);
      expect(got.body).toMatchObject({ id, shard });
    }
    expectError(await api('GET', `/admin/v1/accounts/${ghost}`, { auth: OPERATOR }), 404, 'NOT_FOUND');
    // An undone account's secrets open nothing.
    expectError(await api('GET', '/api/v1/users', { auth: { bearer: m(1).accessToken } }), 401);
  });
});

describe('the sweep, from the operator', () => {
  it('needs the operator token', async () => {
    expectError(await api('POST', '/admin/v1/shards/sweep'), 401, 'UNAUTHORIZED');
    expectError(await api('POST', '/admin/v1/shards/sweep', { auth: { bearer: m(0).accessToken } }), 401);
  });

  it('answers what it fixed on each shard, in a bounded number of round trips', async () => {
    // The provisioning left alone above is now past the grace period; shard 3 lists a ghost.
    await control('UPDATE pending_accounts SET created_at = ?', ago(11 * MINUTE)).run();
    const ghost = idFloor(3) + 77_777;
    await listGhost(ghost, 3);

    const res = await sweep();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.shards).toEqual([
      quiet(0, 2),
      quiet(1, 1),
      { ...quiet(2, 1), undoneAccounts: [m(6).account.id], settledProvisionings: 1 },
      { ...quiet(3, 2, 3), unlistedAccounts: [ghost], load: { before: 3, after: 2 } },
    ]);
    // One control read and one control write per shard; one read per shard, one delete where undone.
    expect(res.headers.get('x-d1-control-round-trips')).toBe('8');
    expect(res.headers.get('x-d1-round-trips')).toBe('5');

    expect(await rowsOf(m(6).account.id)).toEqual(NONE);
    expect(await pending()).toEqual([]);
    expect((await directory()).map((row) => row.id)).not.toContain(ghost);
    expect(await loads()).toEqual([
      [0, 2, 0],
      [1, 1, 0],
      [2, 1, 0],
      [3, 2, 5],
    ]);

    // Nothing is left to fix: the same pass again changes nothing.
    const again = await sweep();
    expect(again.status).toBe(200);
    expect(again.body.shards).toEqual([quiet(0, 2), quiet(1, 1), quiet(2, 1), quiet(3, 2)]);
  });

  it('walks a large directory a bounded page per pass, resuming from its stored cursor', async () => {
    // Shard 1 holds 59 more accounts (written directly: the walk is under test, not provisioning)
    // and the directory lists them with three ghosts: before them, among them and after them.
    const base = idFloor(1) + 500_000;
    const held = Array.from({ length: 60 }, (_, i) => base + 1 + i).filter((id) => id !== base + 30);
    const ghosts = [base, base + 30, base + 100];
    const shard1 = shardDbs()[1] as D1Database;
    await shard1.batch(
      held.map((id) =>
        shard1
          .prepare("INSERT INTO accounts (id, name, created_at, updated_at) VALUES (?, 'Held', 'now', 'now')")
          .bind(id),
      ),
    );
    const now = ago(60 * MINUTE);
    await env.CONTROL_DB.batch([
      ...[...held, ...ghosts].map((id) =>
        control('INSERT INTO accounts (id, shard, created_at) VALUES (?, 1, ?)', id, now),
      ),
      control('UPDATE shard_loads SET accounts = accounts + ? WHERE shard = 1', held.length + ghosts.length),
    ]);
    const listedOnShard1 = (await directory()).filter((row) => row.shard === 1).map((row) => row.id);
    expect(listedOnShard1).toHaveLength(63);

    // The first pass (a cron tick) checks the first 50 and stores where it stopped.
    await tick(new Date().toISOString());
    const cursor = await control('SELECT after_id FROM sweep_cursors WHERE shard = 1').first<{
      after_id: number;
    }>();
    expect(cursor?.after_id).toBe(listedOnShard1[49]);
    const afterFirst = (await directory()).map((row) => row.id);
    expect(afterFirst).not.toContain(base);
    expect(afterFirst).not.toContain(base + 30);
    expect(afterFirst).toContain(base + 100);
    expect((await loads())[1]).toEqual([1, 61, 0]);

    // The second (the operator's) checks the other 13, ends the walk and recounts.
    const res = await sweep();
    expect(res.status).toBe(200);
    expect(res.body.shards[1]).toEqual({
      ...quiet(1, 60, 13),
      unlistedAccounts: [base + 100],
      load: { before: 61, after: 60 },
    });
    expect(res.headers.get('x-d1-control-round-trips')).toBe('8');
    expect((await directory()).filter((row) => row.shard === 1).map((row) => row.id)).toEqual(
      listedOnShard1.filter((id) => !ghosts.includes(id)),
    );
    expect(await countPerShard('accounts', 'id BETWEEN ? AND ?', base, base + 100)).toEqual([0, 59, 0, 0]);
  });
});

describe('provisioning whose directory write fails', () => {
  it('removes the shard rows again and leaves nothing pending; the operator’s bias steers placement', async () => {
    // Steer placement to shard 2.
    await control('UPDATE shard_loads SET bias = CASE shard WHEN 2 THEN 0 ELSE 1000 END').run();
    const seq = await (shardDbs()[2] as D1Database)
      .prepare("SELECT seq FROM sqlite_sequence WHERE name = 'accounts'")
      .first<{ seq: number }>();
    const next = (seq?.seq as number) + 1;
    expect(shardOfId(next)).toBe(2);
    const listedBefore = await directory();
    const loadsBefore = await loads();
    // The directory's table out of reach: the last step's batch fails (placement and the pending
    // record, which read and write other tables, still work).
    await control('ALTER TABLE accounts RENAME TO accounts_away').run();
    // Straight to the Worker: a server failing is an answer no operation declares.
    const res = await fetchWorker(
      new Request('http://edgeboard.test/admin/v1/accounts', {
        method: 'POST',
        headers: { authorization: `Bearer ${OPERATOR.bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Refused' }),
      }),
    );
    await control('ALTER TABLE accounts_away RENAME TO accounts').run();
    expect(res.status).toBe(500);
    expect(((await res.json()) as { code: string }).code).toBe('INTERNAL');
    expect(await rowsOf(next)).toEqual(NONE);
    expect(await countPerShard('accounts', "name = 'Refused'")).toEqual([0, 0, 0, 0]);
    expect(await pending()).toEqual([]);
    expect(await loads()).toEqual(loadsBefore);
    expect(await directory()).toEqual(listedBefore);

    // With the directory back, the next provisioning lands on shard 2 and is listed there.
    const listed = await provision('Accepted');
    expect(shardOfId(listed.account.id)).toBe(2);
    expect(await rowsOf(listed.account.id)).toEqual(whole(2));
    expect((await directory()).find((row) => row.id === listed.account.id)).toEqual({
      id: listed.account.id,
      shard: 2,
    });
    expect(await pending()).toEqual([]);
    await control('UPDATE shard_loads SET bias = 0').run();
  });
});
