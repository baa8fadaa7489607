import type { D1Migration } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, afterEach } from 'vitest';
import { idFloorStatements, SHARD_ID_SPAN } from '../src/core/shard-schema';
import { shardDatabase, shardNames } from '../src/core/shards';
import { resetAnswerChecks, resetPlatform, startFile } from './helpers/test-state';

// This runs in every test file, before its tests. Test files run one after another in a runtime
// they share (vitest.config.ts): the modules it has loaded, the caches they keep, and the storage
// of its bindings carry over from one file to the next. So that each file still starts from what a
// fresh deployment has, it is given:
// - empty databases, migrated like `npm run db:migrate`: the control database, then every shard
//   with its ids put in its range;
// - ids that no earlier file of the runtime handed out: each file's ids start a further
//   FILE_ID_SPAN into every range. What is keyed by an id and outlives the databases (a
//   deployment's Durable Object and its store, the Cache API's answers, the caches the Worker keeps
//   in memory) then never meets an earlier file's object of the same id;
// - an empty session store and export bucket;
// - the real platform again after each test, and no answer check of an earlier file
//   (test/helpers/test-state.ts: a helper's own top-level hook would run in the first file only).
//
// It reads the bindings from `cloudflare:workers`, not `cloudflare:test`: importing
// `cloudflare:test` loads the whole Worker, which a file testing one module by itself (the
// renderer, the schedule, the model compiler) would then load for nothing. The Worker and its test
// platform come with test/helpers/platform.ts.
afterEach(resetPlatform);
afterAll(resetAnswerChecks);

/** Room for each file's ids inside a shard's range (10^12): a thousand files a runtime. */
const FILE_ID_SPAN = 1_000_000_000;

/** A table or view of a database (a virtual table is a table), and the tables its foreign keys name. */
interface Dropped {
  type: 'table' | 'view';
  name: string;
  /** JSON array of table names. */
  parents: string;
}

/**
 * The order to drop `objects` in: views first, then each table once no table left names it in a
 * foreign key (SQLite checks a dropped table's rows against the tables its foreign keys name).
 */
function dropOrder(objects: Dropped[]): Dropped[] {
  const order = objects.filter((o) => o.type === 'view');
  let left = objects.filter((o) => o.type === 'table');
  while (left.length > 0) {
    const named = new Set(
      left.flatMap((o) => (JSON.parse(o.parents) as string[]).filter((parent) => parent !== o.name)),
    );
    const free = left.filter((o) => !named.has(o.name));
    if (free.length === 0) throw new Error(`foreign keys in a cycle: ${left.map((o) => o.name).join(', ')}`);
    order.push(...free);
    left = left.filter((o) => named.has(o.name));
  }
  return order;
}

/**
 * Empties `db` and migrates it, in one batch (one round trip and one transaction): drops what the
 * earlier files left (tables and views, theirs or the migrations'), then does what
 * `applyD1Migrations` of `cloudflare:test` does, then runs `after`. SQLite's own table list tells a
 * full-text table's shadow tables apart (`shadow`): they go with their table, never on their own.
 */
async function freshDatabase(db: D1Database, migrations: D1Migration[], after: string[]): Promise<void> {
  const { results: left } = await db
    .prepare(
      `SELECT CASE t.type WHEN 'view' THEN 'view' ELSE 'table' END AS type, t.name,
         (SELECT json_group_array(f."table") FROM pragma_foreign_key_list(t.name) f) AS parents
       FROM pragma_table_list t WHERE t.schema = 'main' AND t.type IN ('table', 'virtual', 'view')
         AND t.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND t.name NOT LIKE '\\_cf\\_%' ESCAPE '\\'`,
    )
    .all<Dropped>();
  await db.batch([
    ...dropOrder(left).map(({ type, name }) =>
      db.prepare(`DROP ${type.toUpperCase()} "${name.replaceAll('"', '""')}"`),
    ),
    db.prepare(
      `CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE,
        applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
    ),
    ...migrations.flatMap((migration) => [
      ...migration.queries.map((query) => db.prepare(query)),
      db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(migration.name),
    ]),
    ...after.map((statement) => db.prepare(statement)),
  ]);
}

/** Deletes every key of `kv`, a page at a time. */
async function emptyKv(kv: KVNamespace): Promise<void> {
  for (let page = await kv.list(); ; page = await kv.list({ cursor: page.cursor })) {
    await Promise.all(page.keys.map((key) => kv.delete(key.name)));
    if (page.list_complete) return;
  }
}

/** Deletes every object of `bucket`, a page at a time. */
async function emptyBucket(bucket: R2Bucket): Promise<void> {
  for (let page = await bucket.list(); ; page = await bucket.list({ cursor: page.cursor })) {
    if (page.objects.length > 0) await bucket.delete(page.objects.map((object) => object.key));
    if (!page.truncated) return;
  }
}

// The databases are independent: the control database and the shards side by side, each shard's
// id floor, moved on by the files before this one, in its batch.
const offset = startFile() * FILE_ID_SPAN;
if (offset >= SHARD_ID_SPAN) {
  throw new Error(
    `a runtime runs at most ${SHARD_ID_SPAN / FILE_ID_SPAN} test files: ids would leave the shard's range`,
  );
}
const moveOn = `UPDATE sqlite_sequence SET seq = seq + ${offset} WHERE name NOT LIKE 'd1\\_%' ESCAPE '\\'`;
await Promise.all([
  // The control database's ids start at 0, like shard 0's.
  freshDatabase(env.CONTROL_DB, env.TEST_CONTROL_MIGRATIONS, [...idFloorStatements(0), moveOn]),
  ...shardNames(env).map((_, shard) =>
    freshDatabase(shardDatabase(env, shard), env.TEST_MIGRATIONS, [...idFloorStatements(shard), moveOn]),
  ),
  emptyKv(env.SESSIONS),
  emptyBucket(env.EXPORTS_BUCKET),
]);
