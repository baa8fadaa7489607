import { getTableColumns, is, SQL, type Table } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import type { Db } from './env';

/** Counts what a request costs in D1: statements executed and network round trips. */
export interface QueryCounter {
  queries: number;
  roundTrips: number;
  /**
   * The finer figures below are kept only when the counter carries them (see `newD1Metrics`),
   * so callers that only want queries and round trips pass `{ queries: 0, roundTrips: 0 }`.
   *
   * Where a round trip goes: through the plain binding or `withSession('first-primary')` it is
   * a PRIMARY round trip. Through `withSession('first-unconstrained')` or a session resumed
   * from a bookmark it is a REPLICA round trip, unless it writes (a replica forwards writes to
   * the primary). The rule follows what the code asks for, not `meta.served_by_primary`: the
   * local emulator has no replicas and answers `true` to everything.
   */
  primaryRoundTrips?: number;
  replicaRoundTrips?: number;
  /**
   * From D1's result metadata (`meta.rows_read` / `meta.rows_written`), batches included.
   * `raw()` and `first()` answer rows without metadata (drizzle runs selects with `raw()`):
   * with these figures on, the wrapper runs them through `all()` instead (see `meteredRead`);
   * the ones it cannot (joins) are counted in `unmetered`, their rows missing from the sums.
   */
  rowsRead?: number;
  rowsWritten?: number;
  unmetered?: number;
}

/** A counter that keeps every figure: primary/replica round trips and rows read/written. */
export function newD1Metrics(): Required<QueryCounter> {
  return {
    queries: 0,
    roundTrips: 0,
    primaryRoundTrips: 0,
    replicaRoundTrips: 0,
    rowsRead: 0,
    rowsWritten: 0,
    unmetered: 0,
  };
}

/**
 * Production D1 refuses what the local emulator lets through. The wrapper refuses it first, in
 * every environment: the checks are a length comparison per statement and per bound value
 * (a UTF-8 byte count only for strings long enough to be near the limit), cheap enough to keep
 * on in production, where they turn D1's opaque refusal into an error naming the limit.
 */
export const D1_LIMITS = {
  /** Bound parameters per statement. */
  maxBoundParameters: 100,
  /** Bytes of SQL text per statement. */
  maxStatementBytes: 100_000,
  /** Bytes per bound string or blob value (and so per stored row). */
  maxValueBytes: 1_000_000,
} as const;

/** A statement production D1 would refuse: a programming error, answered 500 and logged. */
export class D1LimitError extends Error {
  constructor(message: string) {
    super(`D1 limit exceeded: ${message}`);
    this.name = 'D1LimitError';
  }
}

const encoder = new TextEncoder();

function utf8Bytes(text: string): number {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short strings need no encoding to be safe.
  if (text.length * 3 <= D1_LIMITS.maxValueBytes && text.length * 3 <= D1_LIMITS.maxStatementBytes) {
    return text.length;
  }
  return encoder.encode(text).byteLength;
}

function checkSql(sql: string): void {
  if (sql.length * 3 > D1_LIMITS.maxStatementBytes) {
    const bytes = utf8Bytes(sql);
    if (bytes > D1_LIMITS.maxStatementBytes) {
      throw new D1LimitError(
        `SQL statement is ${bytes} bytes, over the ${D1_LIMITS.maxStatementBytes}-byte statement length limit (${sql.slice(0, 80)}…)`,
      );
    }
  }
}

function checkParams(sql: string, params: unknown[]): void {
  if (params.length > D1_LIMITS.maxBoundParameters) {
    throw new D1LimitError(
      `${params.length} bound parameters, over the ${D1_LIMITS.maxBoundParameters}-parameter limit per statement (${sql.slice(0, 80)}…)`,
    );
  }
  params.forEach((value, i) => {
    let bytes = 0;
    if (typeof value === 'string') {
      if (value.length * 3 <= D1_LIMITS.maxValueBytes) return;
      bytes = encoder.encode(value).byteLength;
    } else if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
      bytes = value.byteLength;
    } else return;
    if (bytes > D1_LIMITS.maxValueBytes) {
      throw new D1LimitError(
        `bound value ${i + 1} is ${bytes} bytes, over the ${D1_LIMITS.maxValueBytes}-byte limit per string or blob value and per row (${sql.slice(0, 80)}…)`,
      );
    }
  });
}

/** One executed statement: its SQL and bound values, as recorded by `recordStatements`. */
export interface LoggedStatement {
  sql: string;
  params: unknown[];
  /**
   * The shard it ran on (src/core/shards.ts), absent for shard 0 (as statements were logged
   * before sharding); `CONTROL_DATABASE` for the control database.
   */
  shard?: number;
}

// Only tests turn this on (query-plan test): production never records statements.
let statementLog: LoggedStatement[] | null = null;

/**
 * Starts recording every statement run through any counted binding in this isolate, and
 * returns the list being filled. `stopRecording()` ends it.
 */
export function recordStatements(): LoggedStatement[] {
  statementLog = [];
  return statementLog;
}

/** Ends `recordStatements`. */
export function stopRecording(): void {
  statementLog = null;
}

type Route = 'primary' | 'replica';

const READ_ONLY = /^\s*(select|with|explain|pragma|values)\b/i;
const WRITES = /\b(insert|update|delete|replace)\b/i;

function isWrite(sql: string): boolean {
  return !READ_ONLY.test(sql) || WRITES.test(sql);
}

interface Results {
  meta?: { rows_read?: number; rows_written?: number };
}

/**
 * One round trip leaves: counted before it is awaited, so a statement or batch that fails
 * (a guard aborting its batch) is still counted as the round trip it cost.
 */
function countTrip(counter: QueryCounter, route: Route, sqls: string[]): void {
  counter.queries += sqls.length;
  counter.roundTrips += 1;
  if (counter.rowsRead === undefined) return;
  if (route === 'primary' || sqls.some(isWrite))
    counter.primaryRoundTrips = (counter.primaryRoundTrips ?? 0) + 1;
  else counter.replicaRoundTrips = (counter.replicaRoundTrips ?? 0) + 1;
}

/** What a round trip that came back read and wrote, from D1's result metadata. */
function countRows(counter: QueryCounter, results: Results[]): void {
  if (counter.rowsRead === undefined) return;
  let rowsRead = 0;
  let rowsWritten = 0;
  let unmetered = 0;
  for (const r of results) {
    if (typeof r?.meta?.rows_read !== 'number') unmetered += 1;
    rowsRead += r?.meta?.rows_read ?? 0;
    rowsWritten += r?.meta?.rows_written ?? 0;
  }
  counter.rowsRead = (counter.rowsRead ?? 0) + rowsRead;
  counter.rowsWritten = (counter.rowsWritten ?? 0) + rowsWritten;
  counter.unmetered = (counter.unmetered ?? 0) + unmetered;
}

const RUNNERS = new Set(['first', 'all', 'run', 'raw']);

// Batched statements must reach D1 as the runtime's own objects, not proxies.
const UNWRAP = Symbol('unwrap');
const SQL_TEXT = Symbol('sql');
const PARAMS = Symbol('params');

function unwrap(stmt: D1PreparedStatement): D1PreparedStatement {
  return (stmt as unknown as Record<symbol, D1PreparedStatement>)[UNWRAP] ?? stmt;
}

function described(stmt: D1PreparedStatement): LoggedStatement {
  const s = stmt as unknown as Record<symbol, unknown>;
  return { sql: (s[SQL_TEXT] as string) ?? '', params: (s[PARAMS] as unknown[]) ?? [] };
}

const JOIN = /\bjoin\b/i;

/**
 * `first()` and `raw()` through `all()`, which carries D1's metadata: `first` is exactly the
 * first row of `all` (D1 runs the whole statement either way). `raw` maps each row's values
 * in column order, as drizzle maps batch results; a join may repeat a column name, which a
 * row object cannot hold, so joins keep `raw` and stay unmetered.
 */
async function meteredRead(
  stmt: D1PreparedStatement,
  prop: string,
  args: unknown[],
  sql: string,
): Promise<{ value: unknown; result: Results } | null> {
  if (prop === 'first') {
    const result = await stmt.all<Record<string, unknown>>();
    const row = result.results[0] ?? null;
    const column = args[0] as string | undefined;
    return { value: column === undefined || row === null ? row : (row[column] ?? null), result };
  }
  if (prop === 'raw' && args.length === 0 && !JOIN.test(sql)) {
    const result = await stmt.all<Record<string, unknown>>();
    return { value: result.results.map((row) => Object.values(row)), result };
  }
  return null;
}

function countStatement(
  stmt: D1PreparedStatement,
  counter: QueryCounter,
  route: Route,
  sql: string,
  params: unknown[],
  shard: number,
): D1PreparedStatement {
  return new Proxy(stmt, {
    get(target, prop) {
      if (prop === UNWRAP) return target;
      if (prop === SQL_TEXT) return sql;
      if (prop === PARAMS) return params;
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'bind') {
        return (...args: unknown[]) => {
          checkParams(sql, args);
          return countStatement(value.apply(target, args), counter, route, sql, args, shard);
        };
      }
      if (typeof prop === 'string' && RUNNERS.has(prop)) {
        return async (...args: unknown[]) => {
          statementLog?.push({ sql, params, ...(shard !== 0 && { shard }) });
          countTrip(counter, route, [sql]);
          if (counter.rowsRead !== undefined && prop !== 'all' && prop !== 'run') {
            const metered = await meteredRead(target, prop, args, sql);
            if (metered) {
              countRows(counter, [metered.result]);
              return metered.value;
            }
          }
          const result = await value.apply(target, args);
          countRows(counter, [prop === 'all' || prop === 'run' ? (result as Results) : {}]);
          return result;
        };
      }
      return value.bind(target);
    },
  });
}

// The shard a counted binding is on, readable through every wrapper (`shardOf`).
const SHARD = Symbol('shard');

function countDatabase<T extends D1Database | D1DatabaseSession>(
  db: T,
  counter: QueryCounter,
  route: Route,
  shard: number,
): T {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === SHARD) return shard;
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'prepare') {
        return (query: string) => {
          checkSql(query);
          return countStatement(
            value.call(target, query) as D1PreparedStatement,
            counter,
            route,
            query,
            [],
            shard,
          );
        };
      }
      if (prop === 'batch') {
        return async (stmts: D1PreparedStatement[]) => {
          const logged = stmts.map((stmt) => ({ ...described(stmt), ...(shard !== 0 && { shard }) }));
          if (statementLog) statementLog.push(...logged);
          countTrip(
            counter,
            route,
            logged.map((s) => s.sql),
          );
          const results = await value.call(target, stmts.map(unwrap));
          countRows(counter, results as Results[]);
          return results;
        };
      }
      if (prop === 'exec') {
        return async (query: string) => {
          checkSql(query);
          countTrip(counter, route, [query]);
          const result = await value.call(target, query);
          countRows(counter, [{}]);
          return result;
        };
      }
      if (prop === 'withSession') {
        return (constraint?: string) =>
          countDatabase(
            value.call(target, constraint),
            counter,
            constraint === undefined || constraint === 'first-primary' ? 'primary' : 'replica',
            shard,
          );
      }
      return value.bind(target);
    },
  });
}

/**
 * The D1 binding wrapped so every statement and round trip lands in `counter`, and every
 * statement is checked against production D1's limits (`D1_LIMITS`; a `D1LimitError` otherwise).
 * `shard` is the shard the binding is (src/core/shards.ts); its sessions (`withSession`, read
 * replicas) are the same shard's.
 */
export function countedD1(db: D1Database, counter: QueryCounter, shard = 0): D1Database {
  return countDatabase(db, counter, 'primary', shard);
}

/** What `countedD1` is told for the control database, which is no shard: its statements log it. */
export const CONTROL_DATABASE = -1;

/**
 * The shard a database handle reads and writes: a counted binding, one of its sessions, or
 * drizzle over either. A handle not made by `countedD1` is shard 0's.
 */
export function shardOf(handle: D1Database | D1DatabaseSession | Db): number {
  const client = '$client' in handle ? handle.$client : handle;
  return ((client as unknown as Record<symbol, unknown>)[SHARD] as number | undefined) ?? 0;
}

/** Drizzle over a (counted) D1 binding. snake_case columns, camelCase in TypeScript. */
export function createDb(d1: D1Database | D1DatabaseSession): Db {
  return drizzle(d1 as D1Database, { casing: 'snake_case' }) as unknown as Db;
}

const dialect = new SQLiteAsyncDialect({ casing: 'snake_case' });

/** Anything that compiles to one SQL statement: a drizzle query builder or a sql`` template. */
export type Statement = SQL | { toSQL(): { sql: string; params: unknown[] } };

/** Compiles a statement for D1, with the same snake_case casing as the drizzle instance. */
export function toD1(d1: D1Database, statement: Statement): D1PreparedStatement {
  const query = is(statement, SQL) ? dialect.sqlToQuery(statement) : statement.toSQL();
  return d1.prepare(query.sql).bind(...query.params);
}

/**
 * Runs statements as one D1 batch: one round trip and one transaction (all or nothing).
 * Accepts drizzle builders and raw sql`` templates alike (drizzle's own batch cannot take
 * raw SQL with parameters). Rows come back as D1 returns them, with snake_case keys.
 */
export async function runBatch<Row = Record<string, unknown>>(
  db: Db,
  statements: Statement[],
): Promise<D1Result<Row>[]> {
  if (statements.length === 0) return [];
  return db.$client.batch<Row>(statements.map((s) => toD1(db.$client, s)));
}

const snake = (name: string) => name.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);

/**
 * A raw D1 row (snake_case keys, booleans as 0/1, JSON as text) mapped the way drizzle maps
 * rows of `table`: for rows that come back from runBatch.
 */
export function mapRow<T extends Table>(table: T, row: Record<string, unknown>): T['$inferSelect'] {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = row[column.keyAsName ? snake(key) : column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as T['$inferSelect'];
}

/**
 * Which of `names` (CHECK constraints used as batch guards) aborted a batch, read from D1's
 * error; null for any other failure, which the caller rethrows.
 */
export function failedCheck<N extends string>(error: unknown, names: readonly N[]): N | null {
  const text = String(error instanceof Error ? `${error.message} ${error.cause ?? ''}` : error);
  const found = /CHECK constraint failed: (\w+)/.exec(text)?.[1];
  return found !== undefined && (names as readonly string[]).includes(found) ? (found as N) : null;
}
