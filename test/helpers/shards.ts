import { env } from 'cloudflare:test';
import {
  countedD1,
  type LoggedStatement,
  type QueryCounter,
  recordStatements,
  stopRecording,
} from '../../src/core/db';
import { shardMarkOf, shardOfPublicId } from '../../src/core/shard-marks';
import {
  compareShards,
  DESCRIBE_SQL,
  describeShard,
  type ShardDescriptionRow,
} from '../../src/core/shard-schema';
import { shardDatabase, shardNames, shardOfId } from '../../src/core/shards';

/**
 * The D1 binding of the shard whose id range holds `id`: where an account (by its id) or any row
 * of it (a deployment, a user, an item…) is stored. Tests read stored state through it.
 */
export const dbOf = (id: number): D1Database => shardDatabase(env, shardOfId(id));

/** Every shard's D1 binding, in shard order. */
export const shardDbs = (): D1Database[] => shardNames(env).map((_, shard) => shardDatabase(env, shard));

/** What the migration check (`npm run db:check`) says about the test's shards: empty when they agree. */
export async function checkShards(): Promise<string[]> {
  const names = shardNames(env);
  const rows = await Promise.all(
    shardDbs().map((db) => db.prepare(DESCRIBE_SQL).first<ShardDescriptionRow>()),
  );
  return compareShards(
    rows.map((row, shard) => {
      if (!row) throw new Error(`shard ${shard} answered no description`);
      return describeShard(names[shard] as string, shard, row);
    }),
  );
}

/** How many rows of `table` match `where` on each shard, in shard order. */
export async function countPerShard(table: string, where = '1', ...params: unknown[]): Promise<number[]> {
  return Promise.all(
    shardDbs().map(async (db) => {
      const row = await db
        .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
        .bind(...params)
        .first<{ n: number }>();
      return row?.n ?? 0;
    }),
  );
}

/**
 * The shard a statement's bound values name: the one whose range holds the largest integer
 * bound (an id tells its shard; small numbers, like limits, are shard 0's range), else the one a
 * bound public id is marked with; null when nothing bound names one.
 */
function shardOfBinds(binds: unknown[]): number | null {
  const ids = binds.filter((b): b is number => Number.isSafeInteger(b) && (b as number) > 0);
  if (ids.length > 0) return shardOfId(Math.max(...ids));
  for (const b of binds) {
    if (typeof b === 'string' && shardMarkOf(b, 16) !== null) return shardOfPublicId(b);
  }
  return null;
}

/**
 * Runs a statement where the rows it is about are stored: on the shard its bound ids (or public
 * id) name, or on every shard when it names none, the rows of all of them together.
 */
export async function shardRows<T = Record<string, unknown>>(
  query: string,
  ...binds: unknown[]
): Promise<T[]> {
  const shard = shardOfBinds(binds);
  const dbs = shard === null ? shardDbs() : [shardDatabase(env, shard)];
  const results = await Promise.all(
    dbs.map(
      async (db) =>
        (
          await db
            .prepare(query)
            .bind(...binds)
            .all<T>()
        ).results,
    ),
  );
  return results.flat();
}

/** `SELECT count(*) AS n …` where its rows are stored (summed over every shard when it names none). */
export async function shardCount(query: string, ...binds: unknown[]): Promise<number> {
  const rows = await shardRows<{ n: number }>(query, ...binds);
  return rows.reduce((sum, row) => sum + (row.n ?? 0), 0);
}

/** The shards the statements of `log` ran on (the control database is `CONTROL_DATABASE`), each once. */
export const shardsRead = (log: LoggedStatement[]): number[] =>
  [...new Set(log.map((s) => s.shard ?? 0))].sort((a, b) => a - b);

/**
 * The statements every request `run` sends runs, recorded through the counted bindings of this
 * isolate (the Worker's too): which shard each ran on.
 */
export async function statementsOf(run: () => Promise<unknown>): Promise<LoggedStatement[]> {
  const log = recordStatements();
  try {
    await run();
  } finally {
    stopRecording();
  }
  return log;
}

/**
 * A D1 for tests' reads and writes of stored state whose account the test does not name: each
 * statement goes to the shard its bound ids name (ids are per-shard ranges); a statement naming
 * none runs on every shard (`first` answers the first shard's row, `all` every shard's rows).
 */
export const routedDb = {
  prepare(sql: string): D1PreparedStatement {
    const on = (binds: unknown[]): D1PreparedStatement => {
      const shard = shardOfBinds(binds);
      if (shard !== null)
        return shardDatabase(env, shard)
          .prepare(sql)
          .bind(...binds);
      const each = () => shardDbs().map((db) => db.prepare(sql).bind(...binds));
      const everywhere = {
        bind: (...more: unknown[]) => on(more),
        async first(column?: string) {
          for (const statement of each()) {
            const row = column === undefined ? await statement.first() : await statement.first(column);
            if (row !== null) return row;
          }
          return null;
        },
        async all() {
          const parts = await Promise.all(each().map((s) => s.all()));
          return { ...parts[0], results: parts.flatMap((p) => p.results) };
        },
        async run() {
          const parts = await Promise.all(each().map((s) => s.run()));
          return parts[0];
        },
        async raw() {
          const parts = await Promise.all(each().map((s) => s.raw()));
          return parts.flat();
        },
      };
      return everywhere as unknown as D1PreparedStatement;
    };
    return on([]);
  },
};

/**
 * The test's bindings with every shard counted: what a handler given `env` (a cron tick, a
 * queue batch) costs each shard in D1 round trips, read from `roundTrips()` in shard order.
 * Statements run through it are recorded twice by `statementsOf` (once per counting layer).
 */
export function countedShardsEnv(): { env: typeof env; roundTrips: () => number[]; reset: () => void } {
  const names = shardNames(env);
  const counters = names.map(() => ({ queries: 0, roundTrips: 0 }));
  const bindings = new Map(
    names.map((name, shard) => [
      name,
      countedD1(shardDatabase(env, shard), counters[shard] as QueryCounter, shard),
    ]),
  );
  const counted = new Proxy(env, {
    get: (target, prop, receiver) =>
      typeof prop === 'string' && bindings.has(prop)
        ? bindings.get(prop)
        : Reflect.get(target, prop, receiver),
  });
  return {
    env: counted,
    roundTrips: () => counters.map((c) => c.roundTrips),
    reset: () => {
      for (const c of counters) {
        c.queries = 0;
        c.roundTrips = 0;
      }
    },
  };
}

/** A D1 session opened while `recordSessions` ran: the database it is on, and what it was opened with. */
export interface OpenedSession {
  /** The shard whose binding opened it (null: not one of the test's shard bindings). */
  shard: number | null;
  /** The constraint (`first-primary`, `first-unconstrained`) or the bookmark it resumes at. */
  with: string | undefined;
  session: D1DatabaseSession;
}

/**
 * Records every D1 session opened in this isolate (the Worker's requests too), until `stop()`:
 * which shard opened it and with which constraint or bookmark. The sessions are D1's own; only
 * their opening is noted.
 */
export function recordSessions(): { opened: OpenedSession[]; stop: () => void } {
  const bindings = shardDbs();
  const proto = Object.getPrototypeOf(bindings[0]) as D1Database;
  const original = proto.withSession;
  const opened: OpenedSession[] = [];
  proto.withSession = function (this: D1Database, constraintOrBookmark?: string) {
    const session = original.call(this, constraintOrBookmark);
    const shard = bindings.indexOf(this);
    opened.push({ shard: shard < 0 ? null : shard, with: constraintOrBookmark, session });
    return session;
  };
  return {
    opened,
    stop: () => {
      proto.withSession = original;
    },
  };
}
