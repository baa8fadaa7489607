import { getTableColumns, is, SQL, type Table } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import type { Db } from './env';

/** Counts what a request costs in D1: statements executed and network round trips. */
export interface QueryCounter {
  queries: number;
  roundTrips: number;
}

const RUNNERS = new Set(['first', 'all', 'run', 'raw']);

// Batched statements must reach D1 as the runtime's own objects, not proxies.
const UNWRAP = Symbol('unwrap');

function unwrap(stmt: D1PreparedStatement): D1PreparedStatement {
  return (stmt as unknown as Record<symbol, D1PreparedStatement>)[UNWRAP] ?? stmt;
}

function countStatement(stmt: D1PreparedStatement, counter: QueryCounter): D1PreparedStatement {
  return new Proxy(stmt, {
    get(target, prop) {
      if (prop === UNWRAP) return target;
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'bind') {
        return (...args: unknown[]) => countStatement(value.apply(target, args), counter);
      }
      if (typeof prop === 'string' && RUNNERS.has(prop)) {
        return (...args: unknown[]) => {
          counter.queries += 1;
          counter.roundTrips += 1;
          return value.apply(target, args);
        };
      }
      return value.bind(target);
    },
  });
}

function countDatabase<T extends D1Database | D1DatabaseSession>(db: T, counter: QueryCounter): T {
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (prop === 'prepare') {
        return (query: string) => {
          return countStatement(value.call(target, query) as D1PreparedStatement, counter);
        };
      }
      if (prop === 'batch') {
        return (stmts: D1PreparedStatement[]) => {
          counter.queries += stmts.length;
          counter.roundTrips += 1;
          return value.call(target, stmts.map(unwrap));
        };
      }
      if (prop === 'exec') {
        return (query: string) => {
          counter.queries += 1;
          counter.roundTrips += 1;
          return value.call(target, query);
        };
      }
      if (prop === 'withSession') {
        return (constraint?: string) => countDatabase(value.call(target, constraint), counter);
      }
      return value.bind(target);
    },
  });
}

/** The D1 binding wrapped so every statement and round trip lands in `counter`. */
export function countedD1(db: D1Database, counter: QueryCounter): D1Database {
  return countDatabase(db, counter);
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
