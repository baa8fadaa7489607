// A throwaway PostgreSQL server for tests and benchmarks: finds Debian's server binaries
// (installing the `postgresql` package with apt-get when none is there), initialises a data
// directory in a temporary folder, starts the server on a free loopback port and answers how to
// reach it. `stop()` shuts it down and removes the folder.
//
// As root, initdb and postgres refuse to run; they run as the `postgres` user the package creates.
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const DEBIAN_ROOT = '/usr/lib/postgresql';

function serverBinDir() {
  if (!existsSync(DEBIAN_ROOT)) return null;
  const versions = readdirSync(DEBIAN_ROOT)
    .filter((v) => existsSync(join(DEBIAN_ROOT, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(DEBIAN_ROOT, versions[0], 'bin') : null;
}

/**
 * Installs Debian's package `name` (`what` names it in messages) with apt-get, which needs root:
 * anyone else is told the command to run.
 */
export function aptInstall(name, what) {
  if (process.getuid?.() !== 0) {
    throw new Error(`${what} is not installed: run \`sudo apt-get install -y ${name}\`, then try again`);
  }
  console.error(`Installing ${what} (Debian package ${name})…`);
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', name], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

function ensureInstalled() {
  let bin = serverBinDir();
  if (bin) return bin;
  aptInstall('postgresql', 'PostgreSQL');
  bin = serverBinDir();
  if (!bin) throw new Error('apt-get installed postgresql but no server binary was found');
  return bin;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Runs a server binary, as `postgres` when we are root. */
export function asServerUser(file, args, options = {}) {
  const root = process.getuid?.() === 0;
  return root ? ['runuser', ['-u', 'postgres', '--', file, ...args], options] : [file, args, options];
}

/** The pid on the first line of a server's pid file, or null when there is none. */
export function pidIn(pidFile) {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * The `stop()` of a server started through `asServerUser` (as `child`) in its own folder `dir`:
 * `end()` asks it to stop; one still up 5 s later is killed, so a run never waits on its teardown;
 * then the folder goes. A Node process ending without `stop()` (a crash, a failed bench) kills
 * the server by the pid it wrote in `pidFile` (runuser passes no signal on), so none is left
 * listening, and removes the folder.
 */
export function stopper(child, dir, pidFile, end) {
  const kill = () => {
    const pid = pidIn(pidFile);
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {}
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  const onExit = () => {
    if (child.exitCode === null) kill();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  return async () => {
    process.off('exit', onExit);
    if (child.exitCode === null) {
      try {
        end();
      } catch {
        // Already gone, or refused: the kill below ends it.
      }
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (!(await Promise.race([exited.then(() => true), delay(5_000).then(() => false)]))) kill();
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

async function waitReady(bin, port, server) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}`);
    try {
      execFileSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q']);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('postgres did not become ready within 30 s');
}

/**
 * Starts a server and creates database `edgeboard` owned by user `edgeboard` (password
 * `edgeboard`). Answers `{ host, port, database, user, password, url, stop }`.
 */
export async function startPostgres({ quiet = true } = {}) {
  const bin = ensureInstalled();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'edgeboard-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const run = (file, args) => {
    const [f, a] = asServerUser(join(bin, file), args);
    execFileSync(f, a, { stdio: quiet ? 'ignore' : 'inherit' });
  };
  try {
    run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
  } catch (err) {
    // No server yet: only the folder to remove.
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // Passwords are checked for every role but the superuser the setup itself uses, as a real
  // server checks them: a test of a wrong password must see it refused.
  writeFileSync(
    join(data, 'pg_hba.conf'),
    [
      'local all all trust',
      'host all postgres 127.0.0.1/32 trust',
      'host all all 127.0.0.1/32 scram-sha-256',
      'host all all ::1/128 scram-sha-256',
      '',
    ].join('\n'),
  );
  const [file, args] = asServerUser(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    dir,
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
  ]);
  const server = spawn(file, args, { stdio: quiet ? 'ignore' : 'inherit', detached: false });
  // runuser does not pass a signal on to the server it started: pg_ctl stops the server itself.
  const stop = stopper(server, dir, join(data, 'postmaster.pid'), () =>
    run('pg_ctl', ['stop', '-D', data, '-m', 'immediate', '-w', '-t', '10']),
  );
  const psql = (sql) =>
    execFileSync(
      join(bin, 'psql'),
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-v',
        'ON_ERROR_STOP=1',
        '-qc',
        sql,
      ],
      { stdio: quiet ? 'ignore' : 'inherit' },
    );
  try {
    await waitReady(bin, port, server);
    psql("CREATE ROLE edgeboard LOGIN PASSWORD 'edgeboard'");
    psql('CREATE DATABASE edgeboard OWNER edgeboard');
  } catch (err) {
    // A server that started but could not be set up is not left running.
    await stop();
    throw err;
  }
  return {
    host: '127.0.0.1',
    port,
    database: 'edgeboard',
    user: 'edgeboard',
    password: 'edgeboard',
    url: `postgresql://edgeboard:edgeboard@127.0.0.1:${port}/edgeboard`,
    bin,
    stop,
  };
}

// `node scripts/postgres.mjs` starts one and keeps it until Ctrl-C (for local experiments).
if (import.meta.url === `file://${process.argv[1]}`) {
  const pg = await startPostgres({ quiet: true });
  console.log(pg.url);
  process.on('SIGINT', async () => {
    await pg.stop();
    process.exit(0);
  });
}
