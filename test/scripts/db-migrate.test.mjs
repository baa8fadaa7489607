// Node test (not workerd): `npm run db:migrate` against a throwaway local state brings the control
// database and every shard to the same schema, lists the accounts (and claims the slugs) that
// existed before sharding, and its check fails when a shard is left behind. Run by `npm run lint`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;
const script = join(root, 'scripts', 'db-migrate.mjs');
const persist = mkdtempSync(join(tmpdir(), 'db-migrate-'));
after(() => rmSync(persist, { recursive: true, force: true }));

const migrate = (...args) =>
  spawnSync(process.execPath, [script, '--persist-to', persist, ...args], { cwd: root, encoding: 'utf8' });

/** The local databases of `persist`, through wrangler's bindings (the D1 ones alone), for `use`. */
async function withDatabases(use) {
  const { getPlatformProxy, unstable_readConfig } = await import('wrangler');
  const config = unstable_readConfig({ config: join(root, 'wrangler.toml') });
  const configPath = join(persist, 'wrangler.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      name: 'db-migrate-test',
      compatibility_date: config.compatibility_date,
      d1_databases: config.d1_databases.map(({ binding, database_name, database_id }) => ({
        binding,
        database_name,
        database_id,
      })),
    }),
  );
  const { env, dispose } = await getPlatformProxy({ configPath, persist: { path: join(persist, 'v3') } });
  try {
    return await use(env);
  } finally {
    await dispose();
  }
}

test('migrates, lists what existed before sharding, and catches a shard left behind', async () => {
  const first = migrate();
  assert.equal(first.status, 0, first.stderr);
  assert.match(
    first.stdout,
    /4 shards \(DB, DB_SHARD_1, DB_SHARD_2, DB_SHARD_3\): same schema, ids in range/,
  );

  // An account and its deployment written on shard 0 before sharding: the directory knows neither.
  await withDatabases(async (env) => {
    const now = new Date().toISOString();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO accounts (id, name, created_at, updated_at) VALUES (7, 'Before', ?, ?)",
      ).bind(now, now),
      env.DB.prepare(
        `INSERT INTO deployments (account_id, name, slug, deployment_url, is_managed, cloud_provider, region,
           target_platform, creation_step, creation_method, deploy_mode, created_at, updated_at)
         VALUES (7, 'Old', 'old-abc123', 'https://old', 1, 'hosted', 'us-east-1', 'hosted', 'project', 'hosted', 'git', ?, ?)`,
      ).bind(now, now),
    ]);
    // The operator steers new accounts away from shard 0: the recount keeps the bias.
    await env.CONTROL_DB.prepare('INSERT INTO shard_loads (shard, accounts, bias) VALUES (0, 0, 30)').run();
  });
  const again = migrate();
  assert.equal(again.status, 0, again.stderr);
  await withDatabases(async (env) => {
    const directory = await env.CONTROL_DB.prepare('SELECT id, shard FROM accounts').all();
    assert.deepEqual(directory.results, [{ id: 7, shard: 0 }]);
    const loads = await env.CONTROL_DB.prepare('SELECT shard, accounts, bias FROM shard_loads').all();
    assert.deepEqual(loads.results, [{ shard: 0, accounts: 1, bias: 30 }]);
    const claims = await env.CONTROL_DB.prepare('SELECT kind, name, account_id FROM claimed_names').all();
    assert.deepEqual(claims.results, [{ kind: 'deployment-slug', name: 'old-abc123', account_id: 7 }]);
    // A shard left behind: a migration's table gone and its record with it.
    await env.DB_SHARD_2.batch([
      env.DB_SHARD_2.prepare('DROP TABLE data_model_write_guards'),
      env.DB_SHARD_2.prepare("DELETE FROM d1_migrations WHERE name = '0003_data_model_guards.sql'"),
    ]);
  });
  const check = migrate('--check-only');
  assert.equal(check.status, 1);
  assert.match(
    check.stderr,
    /DB_SHARD_2 \(shard 2\) lacks migrations applied to DB: 0003_data_model_guards\.sql/,
  );
  assert.match(check.stderr, /DB_SHARD_2 \(shard 2\) lacks table data_model_write_guards/);

  // Migrating again brings it back.
  const repaired = migrate();
  assert.equal(repaired.status, 0, repaired.stderr);
});
