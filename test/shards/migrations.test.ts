import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { idFloorStatements } from '../../src/core/shard-schema';
import { idFloor, SHARD_ID_SPAN } from '../../src/core/shards';
import { checkShards, shardDbs } from '../helpers/shards';

describe('migrations on every shard', () => {
  it('runs with four shards, each migrated to the same schema, ids in its own range', async () => {
    expect(env.SHARD_BINDINGS.split(',')).toEqual(['DB', 'DB_SHARD_1', 'DB_SHARD_2', 'DB_SHARD_3']);
    expect(await checkShards()).toEqual([]);
    // A row on each shard takes the first id of the shard's range, once the floor statements have
    // run on sequences a migration dropped. (test/setup.ts moves each test file's ids further in.)
    await Promise.all(
      shardDbs().map((db, shard) =>
        db.batch([
          db.prepare('DELETE FROM sqlite_sequence'),
          ...idFloorStatements(shard).map((sql) => db.prepare(sql)),
        ]),
      ),
    );
    const ids = await Promise.all(
      shardDbs().map((db) =>
        db
          .prepare(
            "INSERT INTO accounts (name, created_at, updated_at) VALUES ('probe', 'now', 'now') RETURNING id",
          )
          .first<{ id: number }>(),
      ),
    );
    expect(ids.map((row) => row?.id)).toEqual([0, 1, 2, 3].map((shard) => idFloor(shard) + 1));
    expect(idFloor(3) + SHARD_ID_SPAN).toBeLessThan(10 ** 15);
  });

  it('the control database has its own schema', async () => {
    const { results } = await env.CONTROL_DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('accounts', 'shard_loads', 'claimed_names') ORDER BY name",
    ).all<{ name: string }>();
    expect(results.map((r) => r.name)).toEqual(['accounts', 'claimed_names', 'shard_loads']);
  });
});

describe('0013: account forwards keyed by the id as text', () => {
  it('mends a key written as a REAL ("7.0") and leaves the others as they were', async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name === '0013_account_forward_keys.sql');
    if (!migration) throw new Error('migration 0013 not found');
    const db = shardDbs()[2] as D1Database;
    const insert = db.prepare(
      "INSERT INTO forwards (kind, key, shard, account_id, created_at) VALUES (?, ?, 3, ?, 'now')",
    );
    await db.batch([
      insert.bind('account', '2000000000007.0', 2000000000007),
      insert.bind('account', '2000000000008', 2000000000008),
      insert.bind('public-id', 'abc.0', 2000000000007),
    ]);
    await db.batch(migration.queries.map((q) => db.prepare(q)));
    const { results } = await db
      .prepare(
        'SELECT kind, key FROM forwards WHERE account_id IN (2000000000007, 2000000000008) ORDER BY kind, key',
      )
      .all();
    expect(results).toEqual([
      { kind: 'account', key: '2000000000007' },
      { kind: 'account', key: '2000000000008' },
      { kind: 'public-id', key: 'abc.0' },
    ]);
  });
});

describe('the migration check', () => {
  it('catches a shard left behind: a migration not applied, a schema object missing, ids out of range', async () => {
    const [, , shard2, shard3] = shardDbs() as [D1Database, D1Database, D1Database, D1Database];
    await shard2.batch([
      shard2.prepare("DELETE FROM d1_migrations WHERE name = '0003_data_model_guards.sql'"),
      shard2.prepare('DROP TABLE data_model_write_guards'),
    ]);
    await shard3.prepare("UPDATE sqlite_sequence SET seq = 0 WHERE name = 'users'").run();
    const problems = await checkShards();
    expect(problems).toContain(
      'DB_SHARD_2 (shard 2) lacks migrations applied to DB: 0003_data_model_guards.sql',
    );
    expect(problems).toContain('DB_SHARD_2 (shard 2) lacks table data_model_write_guards');
    expect(problems).toContain(`DB_SHARD_3 (shard 3): users ids do not start at ${idFloor(3) + 1}`);
    expect(problems.length).toBe(3);
  });
});
