import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_DATABASE } from '../../src/core/db';
import { shardOfId } from '../../src/core/shards';
import { expectError, OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf, shardDbs, statementsOf } from '../helpers/shards';

// The operator's view of the shards: GET /admin/v1/shards, and the shard of an account.

let seeded: SeededAccount[];

beforeAll(async () => {
  // Five accounts: two on shard 0, one on each other shard.
  seeded = [];
  for (let i = 0; i < 5; i++) seeded.push(await seedAccount());
});

/** What a shard holds, counted straight on its database. */
async function heldOn(db: D1Database) {
  const row = await db
    .prepare(
      `SELECT (SELECT count(*) FROM accounts) AS accounts,
        (SELECT coalesce(sum(stored_bytes), 0) FROM accounts) AS storedBytes,
        (SELECT count(*) FROM builds WHERE status = 'queued') AS queuedBuilds,
        (SELECT count(*) FROM builds WHERE status = 'building') AS buildingBuilds,
        (SELECT count(*) FROM notifications WHERE next_run_at <= ?) AS dueNotifications,
        (SELECT count(*) FROM notification_runs WHERE status = 'queued') AS queuedRuns,
        (SELECT count(*) FROM notification_runs WHERE status = 'running') AS runningRuns,
        (SELECT count(*) FROM pre_aggregation_partitions WHERE state IN ('queued', 'building'))
          AS queuedPreAggregationBuilds,
        (SELECT count(*) FROM pre_aggregation_partitions WHERE state = 'failed') AS failedPreAggregationBuilds`,
    )
    .bind(new Date().toISOString())
    .first<Record<string, number>>();
  return row as Record<string, number>;
}

describe('GET /admin/v1/shards', () => {
  it('needs the operator token', async () => {
    expectError(await api('GET', '/admin/v1/shards'), 401, 'UNAUTHORIZED');
    expectError(
      await api('GET', '/admin/v1/shards', { auth: seeded[0]?.admin ?? null }),
      401,
      'UNAUTHORIZED',
    );
  });

  it("answers each shard's accounts, size and pending work, one statement per shard", async () => {
    // Work waiting on shard 1 and shard 3: a queued build, a building one; a provisioning in
    // flight on shard 2; the operator's bias on shard 3.
    const on1 = seeded[1] as SeededAccount;
    const on3 = seeded[3] as SeededAccount;
    const now = new Date().toISOString();
    // The first builds seeding queued are done (the queue's consumer may still be on them): only
    // the two written here are waiting, and no consumer was sent them.
    await Promise.all(shardDbs().map((db) => db.prepare("UPDATE builds SET status = 'built'").run()));
    await dbOf(on1.accountId)
      .prepare("INSERT INTO builds (deployment_id, status, created_at) VALUES (?, 'queued', ?)")
      .bind(on1.deployments[0], now)
      .run();
    await dbOf(on3.accountId)
      .prepare(
        "INSERT INTO builds (deployment_id, status, created_at, started_at) VALUES (?, 'building', ?, ?)",
      )
      .bind(on3.deployments[1], now, now)
      .run();
    // Pre-aggregation builds on shard 1: one queued, one building, one failed, one built.
    await dbOf(on1.accountId)
      .prepare(
        `INSERT INTO pre_aggregation_partitions (account_id, deployment_id, build_id, pre_aggregation,
           table_name, timezone, definition, state, next_refresh_at, created_at)
         SELECT ?1, ?2, 0, 'orders.main', 'prod_pre_aggregations.orders_main' || s.value, 'UTC', 'd', s.value, ?3, ?3
           FROM json_each('["queued","building","failed","built"]') s`,
      )
      .bind(on1.accountId, on1.deployments[0], now)
      .run();
    await env.CONTROL_DB.batch([
      env.CONTROL_DB.prepare(
        "INSERT INTO pending_accounts (key_hash, shard, created_at) VALUES ('f00d', 2, ?)",
      ).bind(now),
      env.CONTROL_DB.prepare('UPDATE shard_loads SET bias = 9 WHERE shard = 3'),
    ]);

    let answer = { status: 0, headers: new Headers(), body: undefined as any };
    const log = await statementsOf(async () => {
      answer = await api('GET', '/admin/v1/shards', { auth: OPERATOR });
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);

    // One statement on each shard; the control database's three reads in one batch.
    const perShard = [CONTROL_DATABASE, 0, 1, 2, 3].map(
      (s) => log.filter((l) => (l.shard ?? 0) === s).length,
    );
    expect(perShard).toEqual([3, 1, 1, 1, 1]);
    expect(answer.headers.get('x-d1-round-trips')).toBe('4');
    expect(answer.headers.get('x-d1-control-round-trips')).toBe('1');

    const listed = seeded.map((a) => shardOfId(a.accountId));
    expect(listed).toEqual([0, 1, 2, 3, 0]);
    const held = await Promise.all(shardDbs().map(heldOn));
    expect(held.map((h) => [h.queuedBuilds, h.buildingBuilds])).toEqual([
      [0, 0],
      [1, 0],
      [0, 0],
      [0, 1],
    ]);
    const shards = answer.body.shards as Record<string, any>[];
    expect(shards.map((s) => s.binding)).toEqual(['DB', 'DB_SHARD_1', 'DB_SHARD_2', 'DB_SHARD_3']);
    for (const [shard, view] of shards.entries()) {
      expect(view).toMatchObject({
        shard,
        accounts: listed.filter((s) => s === shard).length,
        bias: shard === 3 ? 9 : 0,
        pendingProvisionings: shard === 2 ? 1 : 0,
        sweep: { afterId: 0, updatedAt: null },
        error: null,
      });
      const { sizeBytes, ...figures } = view.database;
      // workerd reports the local database file's size, as D1 does its database's.
      expect(sizeBytes).toBeGreaterThan(0);
      expect(figures).toEqual(held[shard]);
    }
    expect(shards[1]?.database.queuedBuilds).toBe(1);
    expect(shards[1]?.database).toMatchObject({
      queuedPreAggregationBuilds: 2,
      failedPreAggregationBuilds: 1,
    });
    expect(shards[0]?.database).toMatchObject({
      queuedPreAggregationBuilds: 0,
      failedPreAggregationBuilds: 0,
    });
    expect(shards[3]?.database.buildingBuilds).toBe(1);
    expect(shards[0]?.database.accounts).toBe(2);
  });

  it('shows where the sweep is once it ran', async () => {
    const swept = await api('POST', '/admin/v1/shards/sweep', { auth: OPERATOR });
    expect(swept.status).toBe(200);
    const res = await api('GET', '/admin/v1/shards', { auth: OPERATOR });
    expect(res.status).toBe(200);
    for (const view of res.body.shards) {
      expect(view.sweep.afterId).toBe(0);
      expect(Date.parse(view.sweep.updatedAt)).not.toBeNaN();
    }
  });
});

describe('GET /admin/v1/accounts/{id}', () => {
  it("answers the account's shard, as PATCH does", async () => {
    for (const a of seeded) {
      const got = await api('GET', `/admin/v1/accounts/${a.accountId}`, { auth: OPERATOR });
      expect(got.status).toBe(200);
      expect(got.body.shard).toBe(shardOfId(a.accountId));
      const patched = await api('PATCH', `/admin/v1/accounts/${a.accountId}`, {
        auth: OPERATOR,
        body: { externalUserLimit: 11 },
      });
      expect(patched.body).toEqual({ ...got.body, externalUserLimit: 11, updatedAt: patched.body.updatedAt });
    }
  });
});
