#!/usr/bin/env node
// `npm start [-- <wrangler dev args>]`: applies the local D1 migrations (the control database and
// every shard), makes sure the local secrets exist, serves the Worker with `wrangler dev`, and
// fires the scheduled handler once a minute as Cloudflare's Cron Trigger would (wrangler dev
// never fires crons by itself).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// Run wrangler with this Node (the project's Node 24), whatever `node` is first on PATH.
const wranglerJs = path.join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const args = process.argv.slice(2);
// No telemetry, and no fetch of request.cf data from the internet (local runs need no network).
// No dev registry (WRANGLER_REGISTRY_PATH empty): it lets several `wrangler dev` processes of one
// machine reach each other's workers, queues and storage by name, which this single Worker does
// not need, and which would wire two checkouts' `edgeboard` workers to each other's queues. Its
// first update also printed the bindings table a second time.
const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: 'false',
  CLOUDFLARE_CF_FETCH_ENABLED: 'false',
  WRANGLER_REGISTRY_PATH: '',
};

/** The value of a `--flag value` / `--flag=value` argument, if given. */
function argValue(flag) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === flag) return args[i + 1];
    if (args[i].startsWith(`${flag}=`)) return args[i].slice(flag.length + 1);
  }
  return undefined;
}

/** Variables given as `--var NAME:value` (wrangler's syntax). */
function givenVars() {
  const names = new Set();
  for (let i = 0; i < args.length; i++) {
    const value =
      args[i] === '--var' ? args[i + 1] : args[i].startsWith('--var=') ? args[i].slice(6) : undefined;
    if (value) names.add(value.split(':')[0]);
  }
  return names;
}

function ensureDevVars() {
  const file = path.join(root, '.dev.vars');
  const existing = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const has = (name) => new RegExp(`^${name}=`, 'm').test(existing);
  const additions = [];
  // A .dev.vars written before a secret existed gets just the missing one; the others keep their values.
  for (const name of ['ADMIN_TOKEN', 'SESSION_SIGNING_KEY', 'ENV_VARS_KEY']) {
    if (!has(name)) additions.push(`${name}=${randomBytes(32).toString('base64url')}`);
  }
  // Local data sources live on this machine or its network: let them through the private-address
  // rule (see docs/data-sources.md). Set it to 0 in .dev.vars to try the production rule.
  if (!has('DATA_SOURCES_ALLOW_PRIVATE')) additions.push('DATA_SOURCES_ALLOW_PRIVATE=1');
  if (additions.length > 0) {
    const prefix = existing && !existing.endsWith('\n') ? '\n' : '';
    // Written whole and renamed into place: two servers starting at once (the browser tests run
    // theirs side by side) never read a half-written file, and the last one written wins.
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, `${existing}${prefix}${additions.join('\n')}\n`, { mode: 0o600 });
    renameSync(partial, file);
    console.log(`[edgeboard] wrote ${additions.map((a) => a.split('=')[0]).join(', ')} to .dev.vars`);
  }
  const token = /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(file, 'utf8'))?.[1];
  return token;
}

const adminToken = ensureDevVars();
const port = Number(argValue('--port') ?? 8787);
const persist = argValue('--persist-to');

// The control database and every shard, migrated and checked (scripts/db-migrate.mjs).
const migrate = spawnSync(
  process.execPath,
  [path.join(root, 'scripts', 'db-migrate.mjs'), ...(persist ? ['--persist-to', persist] : [])],
  { cwd: root, env, stdio: 'inherit' },
);
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

// The binding types, regenerated when wrangler.toml changed (scripts/worker-types.mjs), so they
// are never stale; wrangler dev's own check of them is off (see that script).
const types = spawnSync(process.execPath, [path.join(root, 'scripts', 'worker-types.mjs')], {
  cwd: root,
  env,
  stdio: 'inherit',
});
if (types.status !== 0) process.exit(types.status ?? 1);

const devArgs = ['dev', '--test-scheduled', ...(argValue('--port') ? [] : ['--port', String(port)]), ...args];
const dev = spawn(process.execPath, [wranglerJs, ...devArgs], { cwd: root, env, stdio: 'inherit' });

if (!givenVars().has('ADMIN_TOKEN') && adminToken) {
  console.log(`[edgeboard] operator token (ADMIN_TOKEN from .dev.vars): ${adminToken}`);
}
console.log(`[edgeboard] API on http://localhost:${port} — try: curl http://localhost:${port}/healthz`);

// Fire the crons on each minute boundary, with that minute as scheduledTime: the per-minute one,
// and every five minutes the one that resumes stalled account moves (wrangler.toml's triggers).
let timer;
async function fire(cron, time) {
  try {
    const res = await fetch(
      `http://127.0.0.1:${port}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent(cron)}&time=${time}`,
    );
    await res.arrayBuffer();
    if (!res.ok) console.error(`[edgeboard] cron tick answered ${res.status}`);
  } catch (err) {
    console.error(`[edgeboard] cron tick failed: ${err.message}`);
  }
}
function scheduleTick() {
  const now = Date.now();
  const next = Math.floor(now / 60_000) * 60_000 + 60_000;
  timer = setTimeout(async () => {
    await fire('* * * * *', next);
    if (new Date(next).getUTCMinutes() % 5 === 0) await fire('*/5 * * * *', next);
    scheduleTick();
  }, next - now);
}
scheduleTick();

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    clearTimeout(timer);
    dev.kill(signal);
  });
}
dev.on('exit', (code) => {
  clearTimeout(timer);
  process.exit(code ?? 0);
});
