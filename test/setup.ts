import type { D1Migration } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { idFloorStatements } from '../src/core/shard-schema';
import { shardDatabase, shardNames } from '../src/core/shards';

// Storage is isolated per test file; this runs once per file before its tests. Like
// `npm run db:migrate`: the control database, then every shard with its ids put in its range.
//
// It reads the bindings from `cloudflare:workers`, not `cloudflare:test`: importing
// `cloudflare:test` loads the whole Worker, which a file testing one module by itself (the
// renderer, the schedule, the model compiler) would then load for nothing, at a cost of seconds
// per file. The Worker and its test platform come with test/helpers/platform.ts, which also puts
// every boundary a test replaced back after each test.

/**
 * What `applyD1Migrations` of `cloudflare:test` does, on the fresh storage of a test file, in one
 * batch (one round trip and one transaction) rather than one a migration: every file pays this
 * for the control database and each shard.
 */
async function applyMigrations(
  db: D1Database,
  migrations: D1Migration[],
  after: string[] = [],
): Promise<void> {
  await db.batch([
    db.prepare(
      `CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE,
        applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
    ),
    ...migrations.flatMap((migration) => [
      ...migration.queries.map((query) => db.prepare(query)),
      db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(migration.name),
    ]),
    ...after.map((statement) => db.prepare(statement)),
  ]);
}

// The databases are independent: the control database and the shards side by side, each shard's
// id floor in its migration batch.
await Promise.all([
  applyMigrations(env.CONTROL_DB, env.TEST_CONTROL_MIGRATIONS),
  ...shardNames(env).map((_, shard) => {
    const db = shardDatabase(env, shard);
    return applyMigrations(db, env.TEST_MIGRATIONS, idFloorStatements(shard));
  }),
]);
