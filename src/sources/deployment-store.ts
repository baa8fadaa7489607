import { DurableObject } from 'cloudflare:workers';
import type { Bindings } from '../core/env';
import { sqlite } from '../semantic/dialects/sqlite';
import { type ColumnSpec, type ColumnType, CsvError, parseCsv, typeCsv } from './csv';
import { readOnlyProblem } from './read-only-sql';
import {
  type BeginAnswer,
  type BuildAttempt,
  type CommitAnswer,
  fnv1a64,
  type PartitionBuildSpec,
  type PartitionRecord,
  ROLLUP_TABLE_PREFIX,
  RollupBuildError,
  RollupStore,
} from './rollup-store';
import {
  indexesOfTable,
  indexKeyOf,
  MAX_STORE_INDEXES,
  type StoreIndex,
  tableNameProblem,
} from './store-indexes';

/** SQLite in a Durable Object binds at most this many parameters per statement. */
export const MAX_PARAMS = 100;
/** Bounds of one deployment's store. */
export const STORE_LIMITS = { maxTables: 200, maxColumns: 100 } as const;

/** How a store call failed: the message is safe to show the caller. */
export interface StoreFailure {
  error: { kind: 'INVALID' | 'NOT_FOUND' | 'QUERY' | 'TOO_MANY_ROWS' | 'BUILD'; message: string };
}
/** Store calls answer failures as values: an Error crossing RPC keeps only its message. */
export type StoreAnswer<T> = T | StoreFailure;

export const isFailure = <T>(answer: StoreAnswer<T>): answer is StoreFailure =>
  typeof answer === 'object' && answer !== null && 'error' in answer;

export interface ImportCsvInput {
  table: string;
  /** Types of some columns; the others are inferred from the values. */
  columns?: ColumnSpec[];
  csv: string;
  /** `replace` drops the table first; `append` adds rows to it (creating it when missing). */
  mode: 'replace' | 'append';
  /** The model's indexes (store-indexes.ts); those of this table are made once its rows are in. */
  indexes?: StoreIndex[];
}

export interface ImportCsvResult {
  table: string;
  rowsImported: number;
  /** The table's rows after the import. */
  rowCount: number;
}

export interface StoreTable {
  name: string;
  columns: ColumnSpec[];
  rowCount: number;
  /** The indexes the model asked for that the table has. */
  indexes: { columns: string[]; instant: boolean }[];
}

/**
 * The SQLite declared type of each column type. Timestamps are ISO text: a declared type
 * containing TEXT gives the column TEXT affinity (a bare TIMESTAMP would be NUMERIC, turning
 * `2024` into a number), and the full name tells listTables the column is a timestamp.
 */
const DECLARED: Record<ColumnType, string> = {
  text: 'TEXT',
  integer: 'INTEGER',
  real: 'REAL',
  timestamp: 'TIMESTAMP TEXT',
};
const typeOfDeclared = (declared: string): ColumnType =>
  (Object.entries(DECLARED).find(([, d]) => d === declared.toUpperCase())?.[0] as ColumnType) ?? 'text';

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

/** The model's indexes are named under the store's reserved prefix, from what they index. */
const INDEX_PREFIX = `${ROLLUP_TABLE_PREFIX}ix_`;
const indexNameOf = (index: StoreIndex) => `${INDEX_PREFIX}${fnv1a64(indexKeyOf(index))}`;
/** What an index orders by: the columns, or a column's instant as the SQLite dialect computes it for a time filter. */
const indexKeysOf = (index: StoreIndex) =>
  index.instant ? sqlite.instant(quote(index.columns[0] ?? '')) : index.columns.map(quote).join(', ');
const failure = (kind: StoreFailure['error']['kind'], message: string): StoreFailure => ({
  error: { kind, message },
});

/** Rows of one bound value: a SQLite bind takes strings, numbers, null and bytes. */
function bindable(value: unknown): string | number | null | ArrayBuffer {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' || typeof value === 'number' || value instanceof ArrayBuffer) return value;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  throw new Error(`A parameter of type ${typeof value} cannot be bound`);
}

/** A rollup build's failure as a store answer; anything else is the store's own fault and throws. */
function buildFailure(spec: { preAggregation: string }, err: unknown): StoreFailure {
  if (err instanceof RollupBuildError) return failure('BUILD', err.message);
  return failure('BUILD', `${spec.preAggregation}: ${sqliteMessage(err)}`);
}

/** A thrown value that a read must not survive: something was written. */
class WroteRows extends Error {}

/**
 * One deployment's embedded data: a SQLite-backed Durable Object, addressed by
 * `idFromName('deployment:<id>')`. The model's SQL may name any table, so isolation is by
 * construction: each deployment has its own object and nothing is shared between objects.
 */
export class DeploymentStore extends DurableObject<Bindings> {
  private readonly rollups = new RollupStore(this.ctx.storage);

  private get sql() {
    return this.ctx.storage.sql;
  }

  /**
   * Runs one read-only statement (see read-only-sql.ts) with at most 100 bound parameters and
   * answers at most `maxRows` rows; one more is TOO_MANY_ROWS.
   */
  query(sql: string, params: unknown[], maxRows: number): StoreAnswer<{ rows: Record<string, unknown>[] }> {
    const problem = readOnlyProblem(sql);
    if (problem) return failure('QUERY', problem);
    if (params.length > MAX_PARAMS) {
      return failure(
        'QUERY',
        `A query binds at most ${MAX_PARAMS} parameters; this one binds ${params.length}`,
      );
    }
    try {
      const values = params.map(bindable);
      return this.ctx.storage.transactionSync(() => {
        const cursor = this.sql.exec(sql, ...values);
        const rows: Record<string, unknown>[] = [];
        for (const row of cursor) {
          if (rows.length === maxRows) {
            return failure('TOO_MANY_ROWS', `The query returned more than ${maxRows} rows`);
          }
          rows.push(row);
        }
        // Throwing rolls the transaction back: a statement the parse let through wrote nothing.
        if (cursor.rowsWritten > 0) throw new WroteRows();
        return { rows };
      });
    } catch (err) {
      if (err instanceof WroteRows) return failure('QUERY', 'Only SELECT queries may be run');
      return failure('QUERY', sqliteMessage(err));
    }
  }

  /**
   * Imports a CSV (header row first) into `table`, all or nothing: the table is created with
   * the given or inferred column types (`replace` drops it first), then rows go in with
   * statements of at most 100 parameters each, inside one transaction.
   */
  importCsv(input: ImportCsvInput): StoreAnswer<ImportCsvResult> {
    const problem = tableNameProblem(input.table);
    if (problem) return failure('INVALID', `Table name ${problem}`);
    try {
      const records = parseCsv(input.csv);
      return this.ctx.storage.transactionSync(() => {
        const existing = this.columnsOf(input.table);
        if (!existing && this.tableNames().length >= STORE_LIMITS.maxTables) {
          throw new CsvError(`A deployment's store holds at most ${STORE_LIMITS.maxTables} tables`);
        }
        const appendTo = input.mode === 'append' ? (existing ?? undefined) : undefined;
        const typed = typeCsv(records, input.columns ?? [], appendTo, STORE_LIMITS.maxColumns);
        if (!appendTo) {
          if (existing) this.sql.exec(`DROP TABLE ${quote(input.table)}`);
          const columns = typed.columns.map((c) => `${quote(c.name)} ${DECLARED[c.type]}`).join(', ');
          this.sql.exec(`CREATE TABLE ${quote(input.table)} (${columns})`);
        }
        const names = typed.columns.map((c) => quote(c.name)).join(', ');
        const perStatement = Math.max(1, Math.floor(MAX_PARAMS / typed.columns.length));
        const row = `(${typed.columns.map(() => '?').join(', ')})`;
        for (let i = 0; i < typed.rows.length; i += perStatement) {
          const chunk = typed.rows.slice(i, i + perStatement);
          this.sql.exec(
            `INSERT INTO ${quote(input.table)} (${names}) VALUES ${chunk.map(() => row).join(', ')}`,
            ...chunk.flat(),
          );
        }
        // After the rows: one sort per index rather than an index kept up row by row.
        for (const index of indexesOfTable(input.indexes ?? [], input.table)) this.createIndex(index);
        this.analyze();
        return { table: input.table, rowsImported: typed.rows.length, rowCount: this.rowCount(input.table) };
      });
    } catch (err) {
      if (err instanceof CsvError) return failure('INVALID', err.message);
      throw err;
    }
  }

  /** Every table with its columns, row count and indexes, by name. */
  listTables(): StoreTable[] {
    return this.tableNames().map((name) => ({
      name,
      columns: this.columnsOf(name) ?? [],
      rowCount: this.rowCount(name),
      indexes: this.indexesOf(name),
    }));
  }

  /**
   * Makes the indexes a model asks for (store-indexes.ts) on the tables that have their columns,
   * and drops those it no longer asks for. Tables imported later get theirs at import.
   */
  syncIndexes(wanted: StoreIndex[]): void {
    this.ctx.storage.transactionSync(() => {
      const kept = new Set<string>();
      for (const index of wanted.slice(0, MAX_STORE_INDEXES)) {
        kept.add(indexNameOf(index));
        this.createIndex(index);
      }
      for (const { name } of this.sql
        .exec<{ name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND substr(name, 1, ?) = ?`,
          INDEX_PREFIX.length,
          INDEX_PREFIX,
        )
        .toArray()) {
        if (!kept.has(name)) this.sql.exec(`DROP INDEX ${quote(name)}`);
      }
      this.analyze();
    });
  }

  /** Drops `name`; NOT_FOUND when there is no such table. */
  dropTable(name: string): StoreAnswer<{ name: string; deleted: true }> {
    if (tableNameProblem(name) || !this.columnsOf(name)) return failure('NOT_FOUND', `No table ${name}`);
    this.sql.exec(`DROP TABLE ${quote(name)}`);
    return { name, deleted: true };
  }

  // Pre-aggregation partitions (rollup-store.ts): each build a begin, rows and a commit, so no
  // one call holds the object for a whole build and its readers are served in between.

  /** Starts a build of a partition at `spec.version`: an attempt to fill, or `current` (nothing to do). */
  beginPartitionBuild(spec: PartitionBuildSpec): StoreAnswer<BeginAnswer> {
    try {
      return this.rollups.begin(spec);
    } catch (err) {
      return buildFailure(spec, err);
    }
  }

  /** Appends rows (in the build's column order) to an attempt; a failure ends the attempt. */
  appendPartitionRows(
    attempt: BuildAttempt,
    rows: unknown[][],
    soFar: { rows: number; bytes: number },
  ): StoreAnswer<{ rows: number; bytes: number }> {
    try {
      return this.rollups.append(attempt, rows, soFar);
    } catch (err) {
      const answer = buildFailure(attempt, err);
      this.rollups.fail(attempt, answer.error.message);
      return answer;
    }
  }

  /** Swaps a filled attempt in, unless a newer build began or serves (`stale`). */
  commitPartitionBuild(
    attempt: BuildAttempt,
    result: { rows: number; bytes: number; buildMs: number },
  ): StoreAnswer<CommitAnswer> {
    try {
      return this.rollups.commit(attempt, result);
    } catch (err) {
      const answer = buildFailure(attempt, err);
      this.rollups.fail(attempt, answer.error.message);
      return answer;
    }
  }

  /** Ends an attempt that failed elsewhere (the source): its half table goes, the last good one serves. */
  failPartitionBuild(attempt: BuildAttempt, message: string): void {
    this.rollups.fail(attempt, message);
  }

  /**
   * Builds a partition from this store's own tables: `INSERT … SELECT` of one read-only query
   * into a fresh table, then the swap. One partition is one step: partition_granularity bounds it.
   */
  buildPartitionInStore(
    spec: PartitionBuildSpec,
    sql: string,
    params: unknown[],
  ): StoreAnswer<CommitAnswer | { state: 'current'; version: number }> {
    const started = Date.now();
    const begun = this.beginPartitionBuild(spec);
    if (isFailure(begun) || begun.state === 'current') return begun;
    const attempt = { ...spec, attempt: begun.attempt };
    try {
      const filled = this.rollups.fillFromQuery(attempt, sql, params);
      return this.rollups.commit(attempt, { ...filled, buildMs: Date.now() - started });
    } catch (err) {
      const answer = buildFailure(attempt, err);
      this.rollups.fail(attempt, answer.error.message);
      return answer;
    }
  }

  /** Every partition the store holds, with its last build. */
  listPartitions(): PartitionRecord[] {
    return this.rollups.list();
  }

  /** The records of these partitions the store has (a page of a listing). */
  describePartitions(partitions: { tableName: string; timezone: string }[]): PartitionRecord[] {
    return this.rollups.records(partitions.slice(0, 1_000));
  }

  /** Drops the partitions not in `keep` (rollups gone from the model); answers how many went. */
  retainPartitions(keep: { tableName: string; timezone: string }[]): number {
    return this.rollups.retain(keep);
  }

  /**
   * Runs a read over rollup partitions when every one of them is built: the rows, and each
   * partition's version and build time (Cube's `lastRefreshTime`). A partition not built yet
   * answers `notBuilt` with its table name and runs nothing.
   */
  queryRollups(
    sql: string,
    params: unknown[],
    partitions: { tableName: string; timezone: string; definition: string }[],
    maxRows: number,
  ): StoreAnswer<
    | {
        rows: Record<string, unknown>[];
        partitions: { tableName: string; version: number; builtAt: string }[];
      }
    | { notBuilt: string }
  > {
    const { built, missing } = this.rollups.serving(partitions);
    if (missing !== null) return { notBuilt: missing };
    const answer = this.query(sql, params, maxRows);
    if (isFailure(answer)) return answer;
    return {
      rows: answer.rows,
      partitions: built.map((p) => ({
        tableName: p.tableName,
        version: p.version,
        builtAt: p.builtAt ?? '',
      })),
    };
  }

  /**
   * Samples the tables SQLite has no statistics for, or whose size changed a lot since, into
   * `sqlite_stat1`, so its planner knows how selective each index is. Without them it guessed, and
   * read a fan-out query's keys by scanning the table in id order instead of searching its date
   * range. 0x10012: every table (0x10000), analyzed (0x2) with SQLite's bound on the rows sampled
   * per index (0x10), so a table of millions of rows costs milliseconds.
   */
  private analyze(): void {
    this.sql.exec('PRAGMA optimize=0x10012');
  }

  /** Creates `index` unless it exists or its table lacks one of its columns. */
  private createIndex(index: StoreIndex): void {
    const has = new Set(this.columnsOf(index.table)?.map((c) => c.name.toLowerCase()));
    if (index.columns.length === 0 || !index.columns.every((c) => has.has(c.toLowerCase()))) return;
    this.sql.exec(
      `CREATE INDEX IF NOT EXISTS ${quote(indexNameOf(index))} ON ${quote(index.table)} (${indexKeysOf(index)})`,
    );
  }

  /**
   * The model's indexes on `table`: their columns, and whether they order by a column's instant.
   * Read back from the statements createIndex wrote: the keys after the table's name.
   */
  private indexesOf(table: string): StoreTable['indexes'] {
    return this.sql
      .exec<{ sql: string }>(
        `SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? COLLATE NOCASE
           AND substr(name, 1, ?) = ? ORDER BY name`,
        table,
        INDEX_PREFIX.length,
        INDEX_PREFIX,
      )
      .toArray()
      .map(({ sql }) => {
        const keys = sql.slice(sql.indexOf('(', sql.indexOf(' ON ')));
        const columns = [...keys.matchAll(/"((?:[^"]|"")*)"/g)].map((m) =>
          (m[1] ?? '').replaceAll('""', '"'),
        );
        return { columns, instant: keys.includes('strftime(') };
      });
  }

  private tableNames(): string[] {
    return this.sql
      .exec<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table'
           AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'
         AND name NOT LIKE '\\_preagg\\_%' ESCAPE '\\'
         ORDER BY name`,
      )
      .toArray()
      .map((r) => r.name);
  }

  /** The columns of `table` (matched without regard to case, as SQLite does), or null when it does not exist. */
  private columnsOf(table: string): ColumnSpec[] | null {
    const columns = this.sql
      .exec<{ name: string; type: string }>(`SELECT name, type FROM pragma_table_info(?)`, table)
      .toArray();
    return columns.length === 0 ? null : columns.map((c) => ({ name: c.name, type: typeOfDeclared(c.type) }));
  }

  private rowCount(table: string): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${quote(table)}`).one().n;
  }
}

/** SQLite's message without the driver's `: SQLITE_ERROR` suffix. */
function sqliteMessage(err: unknown): string {
  return String((err as Error)?.message ?? err).replace(/:\s*SQLITE_[A-Z_]+$/, '');
}

/** The typed stub of a deployment's store: one object per deployment, never shared. */
export function deploymentStore(env: Bindings, deploymentId: number): DurableObjectStub<DeploymentStore> {
  const namespace = env.DEPLOYMENT_STORE as DurableObjectNamespace<DeploymentStore>;
  return namespace.get(namespace.idFromName(`deployment:${deploymentId}`));
}
