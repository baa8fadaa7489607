import { applyD1Migrations, env } from 'cloudflare:test';
import { afterEach } from 'vitest';
import { idFloorStatements } from '../src/core/shard-schema';
import { shardDatabase, shardNames } from '../src/core/shards';
import { resetPlatform } from './helpers/platform';

// Storage is isolated per test file; this runs once per file before its tests. Like
// `npm run db:migrate`: the control database, then every shard with its ids put in its range.
await applyD1Migrations(env.CONTROL_DB, env.TEST_CONTROL_MIGRATIONS);
await Promise.all(
  shardNames(env).map(async (_, shard) => {
    const db = shardDatabase(env, shard);
    await applyD1Migrations(db, env.TEST_MIGRATIONS);
    await db.batch(idFloorStatements(shard).map((s) => db.prepare(s)));
  }),
);

// Whatever boundary a test replaced (clock, delivery ports, …) is the real one again for the next.
afterEach(resetPlatform);
