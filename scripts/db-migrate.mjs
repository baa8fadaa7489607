#!/usr/bin/env node
// `npm run db:migrate [-- --remote] [--persist-to <dir>] [--check-only]`: brings every database
// edgeboard uses to the same schema, then checks that it did.
//
// 1. the control database (CONTROL_DB) gets schema/control-migrations;
// 2. every shard SHARD_BINDINGS lists gets schema/migrations, then its AUTOINCREMENT sequences
//    are put at the start of its id range (a migration that rebuilds a table resets them);
// 3. the directory learns every account a shard holds that it does not list yet (the accounts
//    that existed before sharding, all on shard 0), the slugs and report public ids are claimed
//    for their accounts, and the shards' loads are recounted from the directory;
// 4. the check: it fails (exit 1) when a shard's migrations or schema differ from shard 0's, or
//    a shard's ids are not in its range. `--check-only` runs just this step.
//
// Locally (the default, what `npm start` runs) it works on the local D1 state `wrangler dev`
// uses, in one process; `--remote` runs `wrangler d1 …` against the deployed databases.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareShards, DESCRIBE_SQL, describeShard, idFloorStatements } from '../src/core/shard-schema.ts';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const remote = args.includes('--remote');
const checkOnly = args.includes('--check-only');

function argValue(flag) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) return args[i + 1];
    if (args[i].startsWith(`${flag}=`)) return args[i].slice(flag.length + 1);
  }
  return undefined;
}
const persist = argValue('--persist-to');

const log = (message) => console.log(`[db:migrate] ${message}`);

/** The shard bindings, in order, as wrangler.toml's SHARD_BINDINGS var lists them. */
function shardBindingsOf(toml) {
  const listed = /^\s*SHARD_BINDINGS\s*=\s*"([^"]*)"/m.exec(toml)?.[1] ?? '';
  const names = listed
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return names.length > 0 ? names : ['DB'];
}

const shards = shardBindingsOf(readFileSync(path.join(root, 'wrangler.toml'), 'utf8'));

/**
 * What the control database must know of a shard's rows: each account in the directory, each
 * deployment slug and report public id claimed for its account. A shard answers them with
 * `SHARD_FACTS`; `directoryStatements` turns the answer into idempotent inserts (50 rows a
 * statement), so rows written before sharding (or a provisioning cut short) get listed too.
 */
const SHARD_FACTS = [
  `SELECT 'account' AS kind, CAST(id AS TEXT) AS name, id AS account_id FROM accounts`,
  `SELECT 'deployment-slug', slug, account_id FROM deployments`,
  `SELECT 'report-public-id', r.public_id, d.account_id FROM reports r
    JOIN workspace_items i ON i.id = r.item_id JOIN deployments d ON d.id = i.deployment_id`,
].join(' UNION ALL ');

const quote = (text) => `'${String(text).replace(/'/g, "''")}'`;

function directoryStatements(shard, facts) {
  const now = quote(new Date().toISOString());
  const statements = [];
  const accounts = facts.filter((f) => f.kind === 'account');
  const claims = facts.filter((f) => f.kind !== 'account');
  for (let i = 0; i < accounts.length; i += 50) {
    const values = accounts.slice(i, i + 50).map((f) => `(${Number(f.account_id)}, ${shard}, ${now})`);
    statements.push(`INSERT OR IGNORE INTO accounts (id, shard, created_at) VALUES ${values.join(', ')}`);
  }
  for (let i = 0; i < claims.length; i += 50) {
    const values = claims
      .slice(i, i + 50)
      .map((f) => `(${quote(f.kind)}, ${quote(f.name)}, ${Number(f.account_id)}, ${now})`);
    statements.push(
      `INSERT OR IGNORE INTO claimed_names (kind, name, account_id, created_at) VALUES ${values.join(', ')}`,
    );
  }
  return statements;
}
// An upsert, not a replace: the operator's `bias` of each shard stays. (`WHERE true` tells
// SQLite's parser the SELECT ends before the ON CONFLICT clause.)
const RECOUNT_LOADS = `INSERT INTO shard_loads (shard, accounts)
  SELECT shard, count(*) FROM accounts WHERE true GROUP BY shard
  ON CONFLICT (shard) DO UPDATE SET accounts = excluded.accounts`;

// ---- Local: the bindings of `wrangler dev`'s local state, in this process ----

async function local() {
  const { getPlatformProxy, unstable_readConfig, unstable_splitSqlQuery } = await import('wrangler');
  // A configuration with just the D1 databases (the same ids, so the same local files): the
  // Worker's other bindings are not needed here and would each log a warning.
  const config = unstable_readConfig({ config: path.join(root, 'wrangler.toml') });
  const dir = mkdtempSync(path.join(tmpdir(), 'edgeboard-migrate-'));
  const configPath = path.join(dir, 'wrangler.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      name: 'edgeboard-migrate',
      compatibility_date: config.compatibility_date,
      d1_databases: config.d1_databases.map(({ binding, database_name, database_id }) => ({
        binding,
        database_name,
        database_id,
      })),
    }),
  );
  const readMigrations = (dir) =>
    readdirSync(path.join(root, dir))
      .filter((f) => f.endsWith('.sql'))
      .sort()
      .map((name) => ({
        name,
        queries: unstable_splitSqlQuery(readFileSync(path.join(root, dir, name), 'utf8')),
      }));
  const { env, dispose } = await getPlatformProxy({
    configPath,
    persist: { path: persist ? path.join(persist, 'v3') : path.join(root, '.wrangler', 'state', 'v3') },
  });
  try {
    if (!checkOnly) {
      await applyMigrations(env.CONTROL_DB, readMigrations('schema/control-migrations'));
      const migrations = readMigrations('schema/migrations');
      for (const [shard, name] of shards.entries()) {
        const db = env[name];
        await applyMigrations(db, migrations);
        await db.batch(idFloorStatements(shard).map((s) => db.prepare(s)));
        const { results } = await db.prepare(SHARD_FACTS).all();
        const register = directoryStatements(shard, results);
        if (register.length > 0) await env.CONTROL_DB.batch(register.map((s) => env.CONTROL_DB.prepare(s)));
      }
      await env.CONTROL_DB.prepare(RECOUNT_LOADS).run();
    }
    const described = [];
    for (const [shard, name] of shards.entries()) {
      const row = await env[name].prepare(DESCRIBE_SQL).first();
      described.push(describeShard(name, shard, row));
    }
    return compareShards(described);
  } finally {
    await dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What `wrangler d1 migrations apply` does, through a binding: the same d1_migrations table. */
async function applyMigrations(db, migrations) {
  await db
    .prepare(
      `CREATE TABLE IF NOT EXISTS d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE,
        applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)`,
    )
    .run();
  const { results } = await db.prepare('SELECT name FROM d1_migrations').all();
  const applied = new Set(results.map((r) => r.name));
  for (const migration of migrations) {
    if (applied.has(migration.name)) continue;
    await db.batch([
      ...migration.queries.map((q) => db.prepare(q)),
      db.prepare('INSERT INTO d1_migrations (name) VALUES (?)').bind(migration.name),
    ]);
  }
}

// ---- Remote: wrangler d1 against the deployed databases ----

const wranglerJs = path.join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');

function wrangler(wranglerArgs, { json = false } = {}) {
  const run = spawnSync(process.execPath, [wranglerJs, ...wranglerArgs], {
    cwd: root,
    env: { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false' },
    encoding: 'utf8',
    stdio: json ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`wrangler ${wranglerArgs.slice(0, 3).join(' ')} failed`);
  return json ? JSON.parse(run.stdout) : null;
}

const execute = (binding, command) => wrangler(['d1', 'execute', binding, '--remote', '--command', command]);
const query = (binding, command) =>
  wrangler(['d1', 'execute', binding, '--remote', '--json', '--command', command], { json: true })[0].results;

function remoteRun() {
  if (!checkOnly) {
    wrangler(['d1', 'migrations', 'apply', 'CONTROL_DB', '--remote']);
    for (const [shard, name] of shards.entries()) {
      wrangler(['d1', 'migrations', 'apply', name, '--remote']);
      execute(name, idFloorStatements(shard).join(';\n'));
      const facts = query(name, SHARD_FACTS.replace(/\s+/g, ' '));
      const register = directoryStatements(shard, facts);
      if (register.length > 0) {
        const file = path.join(mkdtempSync(path.join(tmpdir(), 'edgeboard-migrate-')), 'directory.sql');
        writeFileSync(file, `${register.join(';\n')};\n`);
        wrangler(['d1', 'execute', 'CONTROL_DB', '--remote', '--file', file]);
        rmSync(path.dirname(file), { recursive: true, force: true });
      }
    }
    execute('CONTROL_DB', RECOUNT_LOADS);
  }
  return compareShards(
    shards.map((name, shard) =>
      describeShard(name, shard, query(name, DESCRIBE_SQL.replace(/\s+/g, ' '))[0]),
    ),
  );
}

const problems = remote ? remoteRun() : await local();
if (problems.length > 0) {
  console.error(`[db:migrate] the shards differ:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
log(
  `${checkOnly ? 'checked' : 'migrated'} ${remote ? 'remote' : 'local'} control database and ${shards.length} shards (${shards.join(', ')}): same schema, ids in range`,
);
