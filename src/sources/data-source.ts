import type { Timings } from '../core/timings';

/**
 * What the semantic layer runs SQL against: a deployment's data source, configured the way Cube
 * configures one (the deployment's `CUBEJS_DB_*` env vars). Every adapter bounds a query's time
 * and rows and maps its failures to `DataSourceError`s whose messages are safe to show a caller.
 */

/** Bounds of one `run`. */
export interface RunLimits {
  /** After this many milliseconds the query is cancelled: TIMEOUT. */
  timeoutMs: number;
  /** More rows than this: TOO_MANY_ROWS (the query compiler is expected to LIMIT below it). */
  maxRows: number;
  /** Where the run's phases are timed (connect, query), when the request is timed. */
  timings?: Timings;
  /**
   * Keeps work after the answer alive (the request's `waitUntil`): a source may then end its
   * connection after answering rather than before. Without it, the run ends it first.
   */
  waitUntil?: (promise: Promise<unknown>) => void;
}

/**
 * A data source: SQL text of its dialect with bound parameters (`$1…` for postgres, `?` for
 * sqlite) in, rows out. Rows are plain objects keyed by column name. From postgres, numeric and
 * bigint values come as strings, timestamps and dates as ISO text in UTC
 * (`2024-03-10T12:00:00.000Z`); from the embedded store, values as SQLite holds them (integers
 * and reals as numbers, timestamps as the ISO text imported).
 */
export interface DataSource {
  readonly dialect: 'postgres' | 'sqlite';
  run(sql: string, params: unknown[], limits: RunLimits): Promise<{ rows: Record<string, unknown>[] }>;
}

export type DataSourceErrorCode =
  | 'CONNECTION'
  | 'QUERY'
  | 'TIMEOUT'
  | 'TOO_MANY_ROWS'
  | 'FORBIDDEN_HOST'
  | 'CONFIG';

/** A data source's failure. The message never holds credentials or internal addresses. */
export class DataSourceError extends Error {
  constructor(
    readonly code: DataSourceErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DataSourceError';
  }
}

/**
 * The env vars of a deployment's data source, as stored (secrets decrypted), before validation.
 * `rollupOnly` is Cube's `CUBEJS_ROLLUP_ONLY=true`: queries are answered from pre-aggregations
 * only, never from the source.
 */
export type DataSourceConfig = (
  | { type: 'embedded' }
  | {
      type: 'postgres';
      /** A Hyperdrive binding's name: replaces host, port, database, user and password. */
      hyperdrive?: string;
      host?: string;
      port?: string;
      database?: string;
      user?: string;
      password?: string;
      ssl?: string;
    }
  | { type: 'unsupported'; dbType: string }
) & { rollupOnly?: boolean };

/** The env vars that configure a data source (Cube's names). */
export const DATA_SOURCE_VARS = [
  'CUBEJS_DB_TYPE',
  'CUBEJS_DB_HOST',
  'CUBEJS_DB_PORT',
  'CUBEJS_DB_NAME',
  'CUBEJS_DB_USER',
  'CUBEJS_DB_PASS',
  'CUBEJS_DB_SSL',
  'CUBEJS_DB_HYPERDRIVE',
  // Not a connection setting, but read with them: it decides where answers come from.
  'CUBEJS_ROLLUP_ONLY',
] as const;

/**
 * The data source a deployment's env vars describe: `CUBEJS_DB_TYPE` unset or `embedded` is
 * the embedded store, `postgres` a PostgreSQL server; any other type is kept to be refused
 * with a clear CONFIG error when the source is opened.
 */
export function dataSourceConfigOf(vars: Readonly<Record<string, string | undefined>>): DataSourceConfig {
  const config = connectionOf(vars);
  return (vars.CUBEJS_ROLLUP_ONLY ?? '').trim().toLowerCase() === 'true'
    ? { ...config, rollupOnly: true }
    : config;
}

function connectionOf(vars: Readonly<Record<string, string | undefined>>): DataSourceConfig {
  const type = (vars.CUBEJS_DB_TYPE ?? '').trim().toLowerCase();
  if (type === '' || type === 'embedded') return { type: 'embedded' };
  if (type !== 'postgres') return { type: 'unsupported', dbType: type };
  const present = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);
  return {
    type: 'postgres',
    hyperdrive: present(vars.CUBEJS_DB_HYPERDRIVE?.trim()),
    host: present(vars.CUBEJS_DB_HOST?.trim()),
    port: present(vars.CUBEJS_DB_PORT?.trim()),
    database: present(vars.CUBEJS_DB_NAME),
    user: present(vars.CUBEJS_DB_USER),
    password: vars.CUBEJS_DB_PASS,
    ssl: present(vars.CUBEJS_DB_SSL?.trim()),
  };
}
