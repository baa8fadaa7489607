#!/usr/bin/env node
// `npm run db:migrate [-- --remote] [--persist-to <dir>] [--check-only]`: brings every database
// edgeboard uses to the same schema, then checks that it did.
//
// 1. the control database (CONTROL_DB) gets schema/control-migrations;
// 2. every shard SHARD_BINDINGS lists gets schema/migrations, then its AUTOINCREMENT sequences
//    are put at the start of its id range (a migration that rebuilds a table resets them);
// 3. the directory learns every account a shard holds that it does not list yet (the accounts
//    that existed before sharding, all on shard 0) and the shards' loads are recounted from it;
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

/** Every id on `shard` registered in the directory, and the loads recounted: SQL for the control database. */
function directoryStatements(shard, ids) {
  const now = new Date().toISOString();
  const statements = [];
  for (let i = 0; i < ids.length; i += 50) {
    const values = ids
      .slice(i, i + 50)
      .map((id) => `(${Number(id)}, ${shard}, '${now}')`)
      .join(', ');
    statements.push(`INSERT OR IGNORE INTO accounts (id, shard, created_at) VALUES ${values}`);
  }
  return statements;
}
const RECOUNT_LOADS = `INSERT OR REPLACE INTO shard_loads (shard, accounts)
  SELECT shard, count(*) FROM accounts GROUP BY shard`;

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
        const floors = idFloorStatements(shard);
        if (floors.length > 0) await db.batch(floors.map((s) => db.prepare(s)));
        const { results } = await db.prepare('SELECT id FROM accounts').all();
        const register = directoryStatements(
          shard,
          results.map((r) => r.id),
        );
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
      const floors = idFloorStatements(shard);
      if (floors.length > 0) execute(name, floors.join(';\n'));
      const ids = query(name, 'SELECT id FROM accounts').map((r) => r.id);
      for (const statement of directoryStatements(shard, ids)) execute('CONTROL_DB', statement);
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
