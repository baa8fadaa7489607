// A throwaway PgBouncer in front of a server from scripts/postgres.mjs: the local stand-in for
// Hyperdrive's pool (connections to PostgreSQL stay open; each client connection borrows one
// for a transaction). Installs Debian's `pgbouncer` package with apt-get when it is missing, as
// scripts/postgres.mjs installs PostgreSQL. `stop()` shuts it down and removes its folder.
//
// PgBouncer refuses to run as root: as root it runs as the `postgres` user the server package
// creates.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { aptInstall, asServerUser, pidIn, stopper } from './postgres.mjs';

const BIN = '/usr/sbin/pgbouncer';

function ensureInstalled() {
  if (existsSync(BIN)) return BIN;
  aptInstall('pgbouncer', 'PgBouncer');
  // The package starts a system-wide instance on 6432; this script runs its own.
  try {
    execFileSync('service', ['pgbouncer', 'stop'], { stdio: 'ignore' });
  } catch {}
  if (!existsSync(BIN)) throw new Error('apt-get installed pgbouncer but no binary was found');
  return BIN;
}

async function waitListening(port, child) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}`);
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await delay(100);
  }
  throw new Error('pgbouncer did not listen within 15 s');
}

/**
 * The role's SCRAM secret as the server stores it: with it PgBouncer checks a client's proof with
 * a few HMACs, where a plain password would cost it a full key derivation (4,096 rounds) per
 * connection, and passes the client's proof on to the server.
 */
async function scramSecret(server) {
  const admin = new pg.Client({
    host: server.host,
    port: server.port,
    user: 'postgres',
    database: 'postgres',
  });
  await admin.connect();
  try {
    const { rows } = await admin.query('SELECT rolpassword FROM pg_authid WHERE rolname = $1', [server.user]);
    return rows[0].rolpassword;
  } finally {
    await admin.end();
  }
}

/**
 * Starts PgBouncer on `port` in transaction mode in front of `server` (what startPostgres
 * answers), for its database and user, with SCRAM authentication on both sides as Hyperdrive's
 * clients and the server use. Answers `{ host, port, database, user, password, stop }`.
 */
export async function startPgBouncer(server, { port, poolSize = 10 } = {}) {
  const bin = ensureInstalled();
  // Read before the folder exists: a server that cannot be asked leaves nothing behind.
  const secret = await scramSecret(server);
  const dir = mkdtempSync(join(tmpdir(), 'edgeboard-pgbouncer-'));
  chmodSync(dir, 0o777);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'userlist.txt'), `"${server.user}" "${secret}"\n`);
  writeFileSync(
    ini,
    [
      '[databases]',
      `${server.database} = host=${server.host} port=${server.port} dbname=${server.database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = scram-sha-256',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 500',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  chmodSync(join(dir, 'userlist.txt'), 0o644);
  const [file, args] = asServerUser(bin, [ini]);
  const child = spawn(file, args, { stdio: 'ignore' });
  const pidFile = join(dir, 'pgbouncer.pid');
  // runuser passes no signal on: PgBouncer is ended by the pid it wrote.
  const stop = stopper(child, dir, pidFile, () => {
    const pid = pidIn(pidFile);
    if (pid) process.kill(pid, 'SIGTERM');
  });
  try {
    await waitListening(port, child);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    host: '127.0.0.1',
    port,
    database: server.database,
    user: server.user,
    password: server.password,
    stop,
  };
}
