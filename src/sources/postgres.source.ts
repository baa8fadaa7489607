import pg from 'pg';
import type { Bindings } from '../core/env';
import { type Timings, timed } from '../core/timings';
import { type DataSource, type DataSourceConfig, DataSourceError, type RunLimits } from './data-source';
import { forbiddenHostReason } from './host-check';
import { withLoginTarget } from './scram-keys';

/** How long connecting (TCP, TLS and authentication) may take before it is a CONNECTION error. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** The server cancels a query at the time limit; the client gives up this much later if it does not. */
const CLIENT_GRACE_MS = 1_000;

export type PostgresConfig = Extract<DataSourceConfig, { type: 'postgres' }>;

/**
 * Where a postgres source connects, the values its error messages must never show, and the login
 * it makes (host, port, database, user; src/sources/scram-keys.ts keeps its salted passwords apart).
 */
interface Target {
  client: pg.ClientConfig;
  secrets: string[];
  login: string;
}

/** PostgreSQL time values as ISO text: the shaping layer works on text, never on Date objects. */
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(\.\d+)?)?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?$/;

/**
 * A PostgreSQL `timestamp`, `timestamptz` or `date` (ISO DateStyle) as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
 * A value without an offset (`timestamp`, `date`) is taken as UTC. Values ISO text cannot hold
 * (`infinity`, BC dates, years past 9999) come back as PostgreSQL wrote them.
 */
export function isoTimestamp(text: string): string {
  const m = TIMESTAMP.exec(text);
  if (!m) return text;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', sign, oh = '0', om = '0', os = '0'] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), Number(fraction.slice(1, 4).padEnd(3, '0')));
  const offsetSeconds = (Number(oh) * 3600 + Number(om) * 60 + Number(os)) * (sign === '-' ? -1 : 1);
  return new Date(date.getTime() - offsetSeconds * 1000).toISOString();
}

const asText = (text: string) => text;
/** OIDs whose default parsers make Date or interval objects: timestamps, dates, intervals and their arrays. */
const PARSERS: Record<number, (text: string) => unknown> = {
  1082: isoTimestamp, // date
  1114: isoTimestamp, // timestamp
  1184: isoTimestamp, // timestamptz
  1186: asText, // interval
  1182: asText, // date[]
  1115: asText, // timestamp[]
  1185: asText, // timestamptz[]
  1187: asText, // interval[]
};

/** Set on each client, not globally: pg's global parsers are shared with anything else in the isolate. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (format ?? 'text') === 'text' && PARSERS[oid]
      ? PARSERS[oid]
      : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
};

const configError = (message: string) => new DataSourceError('CONFIG', message);

/** The connection a deployment's postgres settings describe, refused when they reach a forbidden host. */
function targetOf(env: Bindings, config: PostgresConfig): Target {
  if (config.hyperdrive) {
    const allowed = (env.HYPERDRIVE_BINDINGS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const binding = allowed.includes(config.hyperdrive)
      ? (env as unknown as Record<string, Hyperdrive | undefined>)[config.hyperdrive]
      : undefined;
    if (!binding?.connectionString) {
      throw configError(`CUBEJS_DB_HYPERDRIVE names no Hyperdrive binding this service offers`);
    }
    const url = new URL(binding.connectionString);
    return {
      client: { connectionString: binding.connectionString },
      secrets: [url.hostname, decodeURIComponent(url.username), decodeURIComponent(url.password)],
      // The binding's own name: its host is a name the runtime makes up for the binding.
      login: JSON.stringify(['hyperdrive', config.hyperdrive, decodeURIComponent(url.username)]),
    };
  }
  const { host, user } = config;
  if (!host) throw configError('CUBEJS_DB_HOST is required for a postgres data source');
  if (!user) throw configError('CUBEJS_DB_USER is required for a postgres data source');
  const port = config.port === undefined ? 5432 : /^\d{1,5}$/.test(config.port) ? Number(config.port) : 0;
  if (port < 1 || port > 65535) throw configError('CUBEJS_DB_PORT must be a port number (1–65535)');
  const ssl = (config.ssl ?? 'false').toLowerCase();
  if (ssl !== 'true' && ssl !== 'false') throw configError('CUBEJS_DB_SSL must be true or false');
  const reason = env.DATA_SOURCES_ALLOW_PRIVATE === '1' ? null : forbiddenHostReason(host);
  if (reason) {
    // The host is the tenant's own setting, so naming the rule (not the address) is enough.
    throw new DataSourceError(
      'FORBIDDEN_HOST',
      `CUBEJS_DB_HOST is ${reason}; data sources must be reachable on the public internet`,
    );
  }
  const database = config.database ?? user;
  return {
    client: { host, port, user, password: config.password ?? '', database, ssl: ssl === 'true' },
    secrets: [host, user, config.password ?? '', config.database ?? ''],
    login: JSON.stringify(['direct', host.toLowerCase(), port, database, user]),
  };
}

/** `text` with every secret of the target (host, user, password, database) replaced by `…`. */
function scrub(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) {
    // Short values would blank ordinary words of the message; they say nothing worth hiding.
    if (secret.length >= 3) out = out.split(secret).join('…');
  }
  return out.replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, '…');
}

const couldNotConnect = (reason: string) =>
  new DataSourceError('CONNECTION', `Could not connect to the data source: ${reason}`);

/** Any failure of a postgres run as a DataSourceError whose message is safe to show. */
function toDataSourceError(err: unknown, secrets: string[], timeoutMs: number): DataSourceError {
  if (err instanceof DataSourceError) return err;
  const e = (err ?? {}) as { code?: unknown; message?: unknown; severity?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = String(e.message ?? err);
  if (code === '57014') return new DataSourceError('TIMEOUT', `The query ran longer than ${timeoutMs} ms`);
  if (code.startsWith('28')) return couldNotConnect('authentication failed');
  if (code === '3D000') return couldNotConnect('the database does not exist');
  if (code.startsWith('08') || code.startsWith('57P') || code === '53300') {
    return couldNotConnect('the server refused or closed the connection');
  }
  // A server error about the tenant's own SQL: its message is the useful part.
  if (typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return new DataSourceError('QUERY', scrub(message, secrets));
  }
  if (/timeout|timed out/i.test(message)) return couldNotConnect('timed out');
  if (/refused/i.test(message)) return couldNotConnect('connection refused');
  if (/tls|ssl|certificate/i.test(message)) return couldNotConnect('the TLS handshake failed');
  return couldNotConnect('the server could not be reached');
}

/** pg's connection as an extended-protocol query writes to it (untyped in pg's types). */
interface Wire {
  parse(message: { text: string }): void;
  bind(message: object): void;
  execute(message: object): void;
  sync(): void;
}

const pgQuery = pg.Query.prototype as unknown as {
  prepare(this: pg.Query, wire: Wire): void;
  _getRows(this: pg.Query, wire: Wire, rows?: number): void;
};

/**
 * A query sent together with the statements around it in its transaction: the Parse, Bind and
 * Execute messages of `opening` go ahead of the query's own and those of `closing` after them,
 * under the query's one Sync, so the server runs them in order and the whole is one round trip.
 * Sent apart, `BEGIN` would cost one more round trip before the answer and `COMMIT` one after it,
 * through Hyperdrive each a trip to the pool next to the database. After a failure the server
 * skips what follows: the query fails, and the transaction is left to the connection's closing.
 */
class FramedQuery extends pg.Query {
  readonly #opening: readonly string[];
  readonly #closing: readonly string[];

  constructor(config: pg.QueryConfig, opening: readonly string[], closing: readonly string[] = []) {
    super({ ...config, queryMode: 'extended' } as pg.QueryConfig);
    this.#opening = opening;
    this.#closing = closing;
  }

  /** What pg calls to write the query: the opening statements first. */
  prepare(wire: Wire): void {
    writeStatements(wire, this.#opening);
    pgQuery.prepare.call(this, wire);
  }

  /** What pg calls to write the query's Execute and Sync: the closing statements between them. */
  _getRows(wire: Wire, rows?: number): void {
    if (rows || this.#closing.length === 0) {
      pgQuery._getRows.call(this, wire, rows);
      return;
    }
    wire.execute({ portal: (this as unknown as { portal: string }).portal });
    writeStatements(wire, this.#closing);
    wire.sync();
  }
}

/** Statements without parameters as extended-protocol messages (their Sync is the query's). */
function writeStatements(wire: Wire, statements: readonly string[]) {
  for (const text of statements) {
    wire.parse({ text });
    wire.bind({});
    wire.execute({});
  }
}

/** Runs `query` to its end (its rows go to its own listeners). */
function submit(client: pg.Client, query: pg.Query): Promise<void> {
  return new Promise((resolve, reject) => {
    query.on('error', reject);
    query.on('end', () => resolve());
    client.query(query);
  });
}

/**
 * The statements around a read's queries: `opening` goes with its first query (`BEGIN READ ONLY`
 * with the statement time limit and UTC), `closing` with its last when the body ends the
 * transaction itself (`readOnly`'s `bodyCommits`).
 */
interface Frame {
  opening: readonly string[];
  closing: readonly string[];
}

/**
 * Runs the query as the whole transaction, keeping at most `maxRows` rows: one more and it stops
 * with TOO_MANY_ROWS.
 */
function collect(client: pg.Client, frame: Frame, sql: string, params: unknown[], maxRows: number) {
  return new Promise<Record<string, unknown>[]>((resolve, reject) => {
    const rows: Record<string, unknown>[] = [];
    // A 'row' listener stops pg from accumulating rows itself, so memory stays at maxRows rows.
    const query = new FramedQuery({ text: sql, values: params }, frame.opening, frame.closing);
    query.on('row', (row: Record<string, unknown>) => {
      if (rows.length < maxRows) rows.push(row);
      else reject(new DataSourceError('TOO_MANY_ROWS', `The query returned more than ${maxRows} rows`));
    });
    submit(client, query).then(() => resolve(rows), reject);
  });
}

/**
 * One read-only transaction on a connection of its own: connected, then `body` run on it with the
 * transaction's frame (its first query carries the opening statements: one round trip for both),
 * ended by COMMIT (not by closing: a pooler, Hyperdrive or PgBouncer, drops a server connection
 * its client left inside a transaction, so every read would open a new one) and closed. The
 * COMMIT goes with the body's last query when `bodyCommits` (the body sends `frame.closing`), else
 * after the body, and with `waitUntil` the caller has its answer before it. After a failure,
 * closing ends the transaction. The server cancels each statement at `statementTimeoutMs`; past
 * `deadline.ms` (a server or network that stops answering) the read fails with TIMEOUT and
 * `deadline.message`, closing the connection under whatever still runs on it. Failures are
 * DataSourceErrors, but for a PageHandlerFailed `body` throws, whose reason is thrown as it is.
 */
async function readOnly<T>(
  target: Target,
  limits: {
    statementTimeoutMs: number;
    deadline: { ms: number; message: string };
    timings?: Timings;
    waitUntil?: (promise: Promise<unknown>) => void;
    bodyCommits?: boolean;
  },
  body: (client: pg.Client, frame: Frame) => Promise<T>,
): Promise<T> {
  const timeoutMs = limits.statementTimeoutMs;
  const client = new pg.Client({ ...target.client, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, types });
  // After end(), or when the server goes away, pg emits 'error' on the client: without a
  // listener that is an unhandled rejection in the isolate. Failures reach us through the query.
  client.on('error', () => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DataSourceError('TIMEOUT', limits.deadline.message)),
      limits.deadline.ms,
    );
  });
  const frame: Frame = {
    // SET LOCAL lasts for this read-only transaction only, so a pooled connection (Hyperdrive)
    // goes back as it came. The timeout is a number we computed, not caller text.
    opening: ['BEGIN READ ONLY', `SET LOCAL statement_timeout = ${timeoutMs}`, "SET LOCAL TIME ZONE 'UTC'"],
    closing: ['COMMIT'],
  };
  let ending: Promise<unknown> | null = null;
  const transaction = async () => {
    await timed(limits.timings, 'pg-connect', () => withLoginTarget(target.login, () => client.connect()));
    return body(client, frame);
  };
  try {
    const running = transaction();
    // Past the deadline what still runs fails on the closed connection: nobody waits for it.
    running.catch(() => {});
    const result = await Promise.race([running, deadline]);
    const committed = limits.bodyCommits ? Promise.resolve() : client.query('COMMIT').catch(() => {});
    ending = committed.finally(() => client.end().catch(() => {}));
    if (limits.waitUntil) limits.waitUntil(ending);
    else await ending;
    return result;
  } catch (err) {
    // The caller's own failure (where it writes the rows) is its to report, as it threw it.
    if (err instanceof PageHandlerFailed) throw err.reason;
    throw toDataSourceError(err, target.secrets, timeoutMs);
  } finally {
    clearTimeout(timer);
    if (!ending) client.end().catch(() => {});
  }
}

async function run(target: Target, sql: string, params: unknown[], limits: RunLimits) {
  const timeoutMs = Math.max(1, Math.floor(limits.timeoutMs));
  const read = {
    timings: limits.timings,
    waitUntil: limits.waitUntil,
    bodyCommits: true,
    statementTimeoutMs: timeoutMs,
    // The server cancels at timeoutMs; the deadline is for a server that stops answering.
    deadline: { ms: timeoutMs + CLIENT_GRACE_MS, message: `The query ran longer than ${timeoutMs} ms` },
  };
  const rows = await readOnly(target, read, (client, frame) =>
    timed(limits.timings, 'pg-query', () => collect(client, frame, sql, params, limits.maxRows)),
  );
  return { rows };
}

/** Bounds of a paged read: each statement's time limit, the whole read's, and the rows per page. */
export interface PageLimits {
  statementTimeoutMs: number;
  totalTimeoutMs: number;
  pageRows: number;
}

/**
 * Reads a query's rows page by page through a cursor in a read-only transaction, handing each
 * page to `onPage` before fetching the next: memory stays at one page however many rows the
 * query has, and the caller writes at its own pace. Each statement has the time limit of a
 * query and the whole read `totalTimeoutMs`; failures are DataSourceErrors safe to show, but
 * for `onPage`'s own, thrown as it threw them.
 */
export async function pagePostgres(
  env: Bindings,
  config: PostgresConfig,
  sql: string,
  params: unknown[],
  limits: PageLimits,
  onPage: (rows: Record<string, unknown>[]) => Promise<void>,
): Promise<void> {
  const target = targetOf(env, config);
  const pageRows = Math.max(1, Math.floor(limits.pageRows));
  const read = {
    statementTimeoutMs: Math.max(1, Math.floor(limits.statementTimeoutMs)),
    deadline: {
      ms: limits.totalTimeoutMs,
      message: `The build read longer than ${limits.totalTimeoutMs} ms`,
    },
  };
  await readOnly(target, read, async (client, frame) => {
    // The model's SQL is one statement (the compiler's); DECLARE takes its bound parameters.
    await submit(
      client,
      new FramedQuery(
        { text: `DECLARE rollup_rows NO SCROLL CURSOR FOR ${sql}`, values: params },
        frame.opening,
      ),
    );
    for (;;) {
      const page = await client.query<Record<string, unknown>>(`FETCH FORWARD ${pageRows} FROM rollup_rows`);
      if (page.rows.length > 0) {
        try {
          await onPage(page.rows);
        } catch (err) {
          throw new PageHandlerFailed(err);
        }
      }
      if (page.rows.length < pageRows) break;
    }
  });
}

/** A page handler's failure, told apart from the source's. */
class PageHandlerFailed extends Error {
  constructor(readonly reason: unknown) {
    super('The page handler failed');
  }
}

/**
 * A PostgreSQL data source: a connection of its own per `run` (a Worker holds at most six at
 * once), over Workers TCP sockets or through an operator's Hyperdrive binding. Refuses, with
 * CONFIG or FORBIDDEN_HOST, settings that are incomplete or reach a forbidden host.
 */
export function postgresSource(env: Bindings, config: PostgresConfig): DataSource {
  const target = targetOf(env, config);
  return { dialect: 'postgres', run: (sql, params, limits) => run(target, sql, params, limits) };
}
