import type { PartitionSpec, RollupColumn } from '../semantic/model/pre-aggregations.types';
import { readOnlyProblem } from './read-only-sql';

/**
 * Pre-aggregation partitions inside a deployment's store (its SQLite Durable Object), whatever
 * the deployment's data source. Each build of a partition fills a staging table of its own
 * (`<physical>__v<version>`); a commit swaps it in inside one transaction (drop the old table,
 * rename the new one) only when its version is the newest begun and newer than the one serving,
 * so a redelivered, late or concurrent build never replaces a newer one and readers see the old
 * partition or the new, never half of one. A failed build drops its staging table and keeps the
 * last good table serving. The registry (`_preagg_partitions`) says which table holds which
 * partition, at which version, and how its last build went.
 *
 * Every table of this module starts with ROLLUP_TABLE_PREFIX, which imports refuse: a tenant's
 * CSV can neither replace nor be mistaken for a rollup. Another deployment's rollups live in
 * another object, so no SQL of this deployment can name them.
 */

/** The prefix of every table this module keeps; reserved, so imports may not use it. */
export const ROLLUP_TABLE_PREFIX = '_preagg_';
const REGISTRY = '_preagg_partitions';

/** Bounds of pre-aggregations, per deployment; a build past one fails naming the rollup and the bound. */
export const ROLLUP_LIMITS = {
  /** Rows of one partition. */
  maxRowsPerPartition: 500_000,
  /** Partitions of one pre-aggregation in one time zone. */
  maxPartitionsPerRollup: 1_200,
  /** Bytes of every rollup table of the deployment together (the store holds 10 GB in all). */
  maxBytesPerDeployment: 2 * 1024 ** 3,
  /** One stored row (the store refuses rows over 2 MB). */
  maxRowBytes: 2 * 1024 ** 2 - 1024,
} as const;

export type RollupLimits = { readonly [K in keyof typeof ROLLUP_LIMITS]: number };

/** Rows one append (one RPC call) may carry, and its bytes: both well under an RPC message's limit. */
export const APPEND_BATCH = { maxRows: 5_000, maxBytes: 4 * 1024 ** 2 } as const;

/** SQLite in a Durable Object binds at most this many parameters per statement. */
const MAX_PARAMS = 100;

/** Why a build failed on a bound or a bad input: the message names the rollup and is safe to show. */
export class RollupBuildError extends Error {}

/** A partition as the registry holds it. */
export interface PartitionRecord {
  tableName: string;
  timezone: string;
  preAggregation: string;
  /** The definition fingerprint of the build serving (null until the first). */
  definition: string | null;
  /** The table serving the partition (null until its first build). */
  physical: string | null;
  /** The serving build's version (0: never built). */
  version: number;
  /** The newest version begun (a commit of an older one is refused). */
  buildingVersion: number;
  rows: number;
  bytes: number;
  builtAt: string | null;
  buildMs: number | null;
  lastError: string | null;
  lastErrorAt: string | null;
  range: [string, string] | null;
}

/**
 * What starting a build answers: go on with this attempt, or nothing to do (a newer or equal
 * version serves, or a newer one began).
 */
export type BeginAnswer = { state: 'started'; attempt: string } | { state: 'current'; version: number };
/** What a commit answers: swapped in, or refused because a newer build began or is serving. */
export type CommitAnswer =
  | { state: 'swapped'; version: number; rows: number; bytes: number; builtAt: string }
  | { state: 'stale'; version: number };

/** The identity and shape of a partition's build, as the store needs it. */
export interface PartitionBuildSpec extends PartitionSpec {
  /** The pre-aggregation's definition fingerprint (definitionOf): a read names the one it expects. */
  definition: string;
  version: number;
  columns: RollupColumn[];
  indexes: { name: string; columns: string[] }[];
}

/**
 * One attempt at a build: `attempt` tells two deliveries of the same version apart, so the
 * later one supersedes the earlier and exactly one of them can swap in.
 */
export interface BuildAttempt extends PartitionBuildSpec {
  attempt: string;
}

const DECLARED: Record<RollupColumn['type'], string> = {
  text: 'TEXT',
  integer: 'INTEGER',
  real: 'REAL',
  timestamp: 'TIMESTAMP TEXT',
  value: '',
};

const quoteIdentifier = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
const q = quoteIdentifier;

/** 64-bit FNV-1a of `text` as 16 hex digits: a stable, synchronous name for a partition's table. */
export function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, '0');
}

/**
 * A fingerprint of a pre-aggregation's definition (its position in the model aside): a partition
 * built for another definition holds other columns and never serves.
 */
export function definitionOf(preAggregation: object): string {
  const { position: _position, ...definition } = preAggregation as { position?: unknown };
  return fnv1a64(JSON.stringify(definition));
}

/**
 * The table serving a partition in one time zone: a pure function of Cube's table name and the
 * zone, so a query can name it without asking the store first.
 */
export function physicalTableOf(tableName: string, timezone: string): string {
  return `${ROLLUP_TABLE_PREFIX}${fnv1a64(`${tableName}\n${timezone}`)}`;
}

const stagingOf = (physical: string, version: number, attempt: string) =>
  `${physical}__v${version}_${attempt}`;

/** Bytes a value takes, counted as the store's text of it (a bound on size, not SQLite's page accounting). */
function valueBytes(value: unknown): number {
  if (value === null || value === undefined) return 1;
  if (typeof value === 'string') return new TextEncoder().encode(value).length + 1;
  return String(value).length + 1;
}

/** A value SQLite binds: strings, numbers and null (booleans as 0/1, anything else as text). */
function bindable(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

interface RegistryRow extends Record<string, SqlStorageValue> {
  table_name: string;
  timezone: string;
  pre_aggregation: string;
  physical: string | null;
  version: number;
  building_version: number;
  building_attempt: string | null;
  definition: string | null;
  rows: number;
  bytes: number;
  built_at: string | null;
  build_ms: number | null;
  last_error: string | null;
  last_error_at: string | null;
  range_start: string | null;
  range_end: string | null;
}

const recordOf = (r: RegistryRow): PartitionRecord => ({
  tableName: r.table_name,
  timezone: r.timezone,
  preAggregation: r.pre_aggregation,
  definition: r.definition,
  physical: r.physical,
  version: r.version,
  buildingVersion: r.building_version,
  rows: r.rows,
  bytes: r.bytes,
  builtAt: r.built_at,
  buildMs: r.build_ms,
  lastError: r.last_error,
  lastErrorAt: r.last_error_at,
  range: r.range_start !== null && r.range_end !== null ? [r.range_start, r.range_end] : null,
});

/** The partitions of one deployment's store; `storage` is the Durable Object's. */
export class RollupStore {
  private ready = false;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly limits: RollupLimits = ROLLUP_LIMITS,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private get sql() {
    return this.storage.sql;
  }

  private ensureRegistry() {
    if (this.ready) return;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS ${REGISTRY} (
         table_name TEXT NOT NULL, timezone TEXT NOT NULL, pre_aggregation TEXT NOT NULL,
         physical TEXT, version INTEGER NOT NULL DEFAULT 0, building_version INTEGER NOT NULL DEFAULT 0,
         building_attempt TEXT, definition TEXT,
         rows INTEGER NOT NULL DEFAULT 0, bytes INTEGER NOT NULL DEFAULT 0,
         built_at TEXT, build_ms INTEGER, last_error TEXT, last_error_at TEXT,
         range_start TEXT, range_end TEXT,
         PRIMARY KEY (table_name, timezone))`,
    );
    this.ready = true;
  }

  private find(tableName: string, timezone: string): RegistryRow | null {
    this.ensureRegistry();
    return (
      this.sql
        .exec<RegistryRow>(
          `SELECT * FROM ${REGISTRY} WHERE table_name = ? AND timezone = ?`,
          tableName,
          timezone,
        )
        .toArray()[0] ?? null
    );
  }

  private tableExists(name: string): boolean {
    return (
      this.sql.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, name).toArray().length >
      0
    );
  }

  /** Every registered partition, by pre-aggregation, time zone and table name. */
  list(): PartitionRecord[] {
    this.ensureRegistry();
    return this.sql
      .exec<RegistryRow>(`SELECT * FROM ${REGISTRY} ORDER BY pre_aggregation, timezone, table_name`)
      .toArray()
      .map(recordOf);
  }

  /**
   * Starts building `spec` at its version: a fresh staging table, and the registry row (created
   * on the first build) noting the version and attempt begun. A version no newer than the one
   * serving, or older than one begun, answers `current`: a redelivered or late build has nothing
   * to do. The same version begun again (a redelivery while the first delivery may still run)
   * supersedes the first attempt.
   */
  begin(spec: PartitionBuildSpec): BeginAnswer {
    this.ensureRegistry();
    if (spec.columns.length === 0 || spec.columns.length > 100) {
      throw new RollupBuildError(`${spec.preAggregation}: a rollup table has 1 to 100 columns`);
    }
    const physical = physicalTableOf(spec.tableName, spec.timezone);
    return this.storage.transactionSync(() => {
      const row = this.find(spec.tableName, spec.timezone);
      if (row && (spec.version <= row.version || spec.version < row.building_version)) {
        return { state: 'current', version: Math.max(row.version, row.building_version) } as const;
      }
      if (!row) {
        const count = this.sql
          .exec<{ n: number }>(
            `SELECT count(*) AS n FROM ${REGISTRY} WHERE pre_aggregation = ? AND timezone = ?`,
            spec.preAggregation,
            spec.timezone,
          )
          .one().n;
        if (count >= this.limits.maxPartitionsPerRollup) {
          throw new RollupBuildError(
            `${spec.preAggregation}: more than ${this.limits.maxPartitionsPerRollup} partitions (maxPartitionsPerRollup)`,
          );
        }
        this.sql.exec(
          `INSERT INTO ${REGISTRY} (table_name, timezone, pre_aggregation, range_start, range_end)
           VALUES (?, ?, ?, ?, ?)`,
          spec.tableName,
          spec.timezone,
          spec.preAggregation,
          spec.range?.[0] ?? null,
          spec.range?.[1] ?? null,
        );
      }
      // Earlier attempts can no longer swap in: their staging tables go.
      this.dropStaging(physical);
      const attempt = crypto.randomUUID().slice(0, 8);
      const staging = stagingOf(physical, spec.version, attempt);
      const columns = spec.columns.map((c) => `${q(c.name)} ${DECLARED[c.type]}`).join(', ');
      this.sql.exec(`CREATE TABLE ${q(staging)} (${columns})`);
      this.sql.exec(
        `UPDATE ${REGISTRY} SET building_version = ?, building_attempt = ?, range_start = ?, range_end = ?
         WHERE table_name = ? AND timezone = ?`,
        spec.version,
        attempt,
        spec.range?.[0] ?? null,
        spec.range?.[1] ?? null,
        spec.tableName,
        spec.timezone,
      );
      return { state: 'started', attempt } as const;
    });
  }

  /** Drops every staging table of `physical`. */
  private dropStaging(physical: string) {
    const prefix = `${physical}__v`;
    const stale = this.sql
      .exec<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?`,
        prefix.length,
        prefix,
      )
      .toArray();
    for (const t of stale) this.sql.exec(`DROP TABLE ${q(t.name)}`);
  }

  /** Bytes of every serving rollup table but this partition's (which a build replaces). */
  private bytesBesides(tableName: string, timezone: string): number {
    return this.sql
      .exec<{ n: number }>(
        `SELECT coalesce(sum(bytes), 0) AS n FROM ${REGISTRY} WHERE NOT (table_name = ? AND timezone = ?)`,
        tableName,
        timezone,
      )
      .one().n;
  }

  /** The attempt's staging table; throws when a newer attempt superseded it. */
  private staged(spec: BuildAttempt): { staging: string } {
    const row = this.find(spec.tableName, spec.timezone);
    const staging = stagingOf(physicalTableOf(spec.tableName, spec.timezone), spec.version, spec.attempt);
    if (!row || !this.isCurrentAttempt(row, spec) || !this.tableExists(staging)) {
      throw new RollupBuildError(
        `${spec.preAggregation}: the build of version ${spec.version} was superseded`,
      );
    }
    return { staging };
  }

  private isCurrentAttempt(row: RegistryRow, spec: BuildAttempt): boolean {
    return (
      row.building_version === spec.version &&
      row.building_attempt === spec.attempt &&
      spec.version > row.version
    );
  }

  private checkBounds(spec: PartitionSpec, rows: number, bytes: number) {
    if (rows > this.limits.maxRowsPerPartition) {
      throw new RollupBuildError(
        `${spec.preAggregation}: partition ${spec.tableName} has more than ${this.limits.maxRowsPerPartition} rows (maxRowsPerPartition)`,
      );
    }
    if (this.bytesBesides(spec.tableName, spec.timezone) + bytes > this.limits.maxBytesPerDeployment) {
      throw new RollupBuildError(
        `${spec.preAggregation}: the deployment's rollups would exceed ${this.limits.maxBytesPerDeployment} bytes (maxBytesPerDeployment)`,
      );
    }
  }

  /**
   * Appends rows (arrays in the build's column order) to a build's staging table, in statements
   * of at most 100 bound parameters. `soFar` is what the attempt's earlier appends answered (the
   * builder carries it, so no append counts the table); answers the rows and bytes so far.
   */
  append(
    spec: BuildAttempt,
    rows: unknown[][],
    soFar: { rows: number; bytes: number },
  ): { rows: number; bytes: number } {
    if (rows.length > APPEND_BATCH.maxRows) {
      throw new RollupBuildError(`${spec.preAggregation}: at most ${APPEND_BATCH.maxRows} rows per append`);
    }
    return this.storage.transactionSync(() => {
      const { staging } = this.staged(spec);
      let bytes = soFar.bytes;
      for (const row of rows) {
        if (row.length !== spec.columns.length) {
          throw new RollupBuildError(
            `${spec.preAggregation}: a row has ${row.length} values, not ${spec.columns.length}`,
          );
        }
        const size = row.reduce<number>((n, v) => n + valueBytes(v), 0);
        if (size > this.limits.maxRowBytes) {
          throw new RollupBuildError(
            `${spec.preAggregation}: a row of ${size} bytes exceeds ${this.limits.maxRowBytes} (maxRowBytes)`,
          );
        }
        bytes += size;
      }
      this.checkBounds(spec, soFar.rows + rows.length, bytes);
      const names = spec.columns.map((c) => q(c.name)).join(', ');
      const tuple = `(${spec.columns.map(() => '?').join(', ')})`;
      const perStatement = Math.max(1, Math.floor(MAX_PARAMS / spec.columns.length));
      for (let i = 0; i < rows.length; i += perStatement) {
        const chunk = rows.slice(i, i + perStatement);
        this.sql.exec(
          `INSERT INTO ${q(staging)} (${names}) VALUES ${chunk.map(() => tuple).join(', ')}`,
          ...chunk.flat().map(bindable),
        );
      }
      return { rows: soFar.rows + rows.length, bytes };
    });
  }

  /**
   * Fills a build's staging table from a query on this store (`INSERT … SELECT`), the query
   * being one read-only statement whose columns are named as the build's. The partition is the
   * unit of work: partition_granularity keeps each statement bounded.
   */
  fillFromQuery(spec: BuildAttempt, sql: string, params: unknown[]): { rows: number; bytes: number } {
    const problem = readOnlyProblem(sql);
    if (problem) throw new RollupBuildError(`${spec.preAggregation}: ${problem}`);
    if (params.length > MAX_PARAMS - 1) {
      throw new RollupBuildError(
        `${spec.preAggregation}: the build query binds more than ${MAX_PARAMS - 1} parameters`,
      );
    }
    return this.storage.transactionSync(() => {
      const { staging } = this.staged(spec);
      const names = spec.columns.map((c) => q(c.name)).join(', ');
      const inner = sql.trim().replace(/;\s*$/, '');
      // One row past the bound tells a full partition from one over it.
      this.sql.exec(
        `INSERT INTO ${q(staging)} (${names}) SELECT ${names} FROM (${inner}) LIMIT ?`,
        ...params.map(bindable),
        this.limits.maxRowsPerPartition + 1,
      );
      const rows = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${q(staging)}`).one().n;
      const bytes = this.bytesOfTable(staging, spec.columns);
      this.checkBounds(spec, rows, bytes);
      return { rows, bytes };
    });
  }

  private bytesOfTable(table: string, columns: RollupColumn[]): number {
    const sizes = columns.map((c) => `coalesce(length(CAST(${q(c.name)} AS BLOB)), 0) + 1`).join(' + ');
    return this.sql.exec<{ n: number | null }>(`SELECT sum(${sizes}) AS n FROM ${q(table)}`).one().n ?? 0;
  }

  /**
   * Swaps a finished build in, in one transaction: indexes on the staging table, the old table
   * dropped, the staging table renamed to the partition's table, the registry updated. Refused
   * (and the staging table dropped) unless the version is the newest begun and newer than the
   * one serving.
   */
  commit(spec: BuildAttempt, result: { rows: number; bytes: number; buildMs: number }): CommitAnswer {
    this.ensureRegistry();
    const physical = physicalTableOf(spec.tableName, spec.timezone);
    const staging = stagingOf(physical, spec.version, spec.attempt);
    return this.storage.transactionSync(() => {
      const row = this.find(spec.tableName, spec.timezone);
      if (!row || !this.isCurrentAttempt(row, spec) || !this.tableExists(staging)) {
        this.sql.exec(`DROP TABLE IF EXISTS ${q(staging)}`);
        return { state: 'stale', version: row ? Math.max(row.version, row.building_version) : 0 } as const;
      }
      for (const index of spec.indexes) {
        this.sql.exec(
          `CREATE INDEX ${q(`${staging}_${index.name}`)} ON ${q(staging)} (${index.columns.map(q).join(', ')})`,
        );
      }
      this.sql.exec(`DROP TABLE IF EXISTS ${q(physical)}`);
      this.sql.exec(`ALTER TABLE ${q(staging)} RENAME TO ${q(physical)}`);
      const builtAt = this.now().toISOString();
      this.sql.exec(
        `UPDATE ${REGISTRY} SET physical = ?, definition = ?, version = ?, rows = ?, bytes = ?, built_at = ?, build_ms = ?,
           building_attempt = NULL, last_error = NULL, last_error_at = NULL
         WHERE table_name = ? AND timezone = ?`,
        physical,
        spec.definition,
        spec.version,
        result.rows,
        result.bytes,
        builtAt,
        Math.round(result.buildMs),
        spec.tableName,
        spec.timezone,
      );
      return {
        state: 'swapped',
        version: spec.version,
        rows: result.rows,
        bytes: result.bytes,
        builtAt,
      } as const;
    });
  }

  /** A failed build: its staging table dropped, the error noted; the last good table keeps serving. */
  fail(spec: BuildAttempt, message: string): void {
    this.ensureRegistry();
    const staging = stagingOf(physicalTableOf(spec.tableName, spec.timezone), spec.version, spec.attempt);
    this.storage.transactionSync(() => {
      this.sql.exec(`DROP TABLE IF EXISTS ${q(staging)}`);
      // A newer attempt's outcome is its own to record.
      this.sql.exec(
        `UPDATE ${REGISTRY} SET last_error = ?, last_error_at = ?, building_attempt = NULL
         WHERE table_name = ? AND timezone = ? AND building_version = ? AND building_attempt = ?`,
        message.slice(0, 1_000),
        this.now().toISOString(),
        spec.tableName,
        spec.timezone,
        spec.version,
        spec.attempt,
      );
    });
  }

  /**
   * The serving tables of these partitions with the version and build time of each, or the
   * first one not built yet (or built for another definition).
   */
  serving(partitions: readonly { tableName: string; timezone: string; definition: string }[]): {
    built: (PartitionRecord & { physical: string })[];
    missing: string | null;
  } {
    this.ensureRegistry();
    const rows = this.sql
      .exec<RegistryRow>(
        `SELECT r.* FROM ${REGISTRY} r JOIN json_each(?) p
           ON r.table_name = json_extract(p.value, '$[0]') AND r.timezone = json_extract(p.value, '$[1]')`,
        JSON.stringify(partitions.map((p) => [p.tableName, p.timezone])),
      )
      .toArray();
    const byKey = new Map(rows.map((r) => [`${r.table_name}\n${r.timezone}`, r]));
    const built: (PartitionRecord & { physical: string })[] = [];
    for (const p of partitions) {
      const row = byKey.get(`${p.tableName}\n${p.timezone}`);
      if (!row || row.physical === null || row.version === 0 || row.definition !== p.definition) {
        return { built, missing: p.tableName };
      }
      built.push({ ...recordOf(row), physical: row.physical });
    }
    return { built, missing: null };
  }

  /** The registry records of these partitions (those the store has), for a listing's page. */
  records(partitions: readonly { tableName: string; timezone: string }[]): PartitionRecord[] {
    this.ensureRegistry();
    return this.sql
      .exec<RegistryRow>(
        `SELECT r.* FROM ${REGISTRY} r JOIN json_each(?) p
           ON r.table_name = json_extract(p.value, '$[0]') AND r.timezone = json_extract(p.value, '$[1]')`,
        JSON.stringify(partitions.map((p) => [p.tableName, p.timezone])),
      )
      .toArray()
      .map(recordOf);
  }

  /**
   * Drops partitions not in `keep` (a rollup removed from the model, a partition out of the
   * build range): their tables and registry rows.
   */
  retain(keep: readonly { tableName: string; timezone: string }[]): number {
    this.ensureRegistry();
    const wanted = new Set(keep.map((p) => `${p.tableName}\n${p.timezone}`));
    const gone = this.list().filter((p) => !wanted.has(`${p.tableName}\n${p.timezone}`));
    this.storage.transactionSync(() => {
      for (const p of gone) {
        const physical = physicalTableOf(p.tableName, p.timezone);
        this.dropStaging(physical);
        this.sql.exec(`DROP TABLE IF EXISTS ${q(physical)}`);
        this.sql.exec(
          `DELETE FROM ${REGISTRY} WHERE table_name = ? AND timezone = ?`,
          p.tableName,
          p.timezone,
        );
      }
    });
    return gone.length;
  }
}
