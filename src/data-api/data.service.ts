import { sha256Hex } from '../core/crypto';
import type { Bindings, Db } from '../core/env';
import { ApiError, type ErrorCode } from '../core/errors';
import { readDataSourceConfig } from '../deployments/env-vars.service';
import { postgres } from '../semantic/dialects/postgres';
import { sqlite } from '../semantic/dialects/sqlite';
import { metaOf } from '../semantic/model/meta';
import type { CompiledModel } from '../semantic/model/model.types';
import { normalizeQuery } from '../semantic/query/normalize';
import { compileQuery } from '../semantic/query/plan';
import { AccessDenied, type Identity, memberVisible, policyFilters } from '../semantic/query/policies';
import type { CubeQuery, NormalizedQuery } from '../semantic/query/query.types';
import { QueryError } from '../semantic/query/query-error';
import { annotationOf, shapeRows } from '../semantic/query/results';
import { DataSourceError, openDataSource } from '../sources/open-data-source';
import * as repo from './data.repository';
import { cached, cacheKeyOf, DEFAULT_REFRESH_SECONDS } from './result-cache';

/** Who asks, about which deployment: what every data API call needs. */
export interface DataScope {
  db: Db;
  env: Bindings;
  accountId: number;
  deploymentId: number;
  identity: Identity;
  now: Date;
  waitUntil?: (p: Promise<unknown>) => void;
}

/** How long one query may run on the data source, and how many rows it may answer. */
export const QUERY_TIMEOUT_MS = 30_000;
export const MAX_RESULT_ROWS = 50_000;

// Builds never change once built: an isolate compiles nothing and reads each model once.
const models = new Map<number, CompiledModel>();
const MAX_CACHED_MODELS = 50;

async function servingModel(scope: DataScope): Promise<{ buildId: number; model: CompiledModel }> {
  const build = await repo.findServingBuild(scope.db, scope.accountId, scope.deploymentId);
  if (!build) {
    throw new ApiError('CONFLICT', 'This deployment has no built data model yet: check its build status');
  }
  let model = models.get(build.buildId);
  if (!model) {
    model = (await repo.readCompiledModel(scope.db, build.buildId)) as CompiledModel;
    if (models.size >= MAX_CACHED_MODELS) models.delete(models.keys().next().value as number);
    models.set(build.buildId, model);
  }
  return { buildId: build.buildId, model };
}

/** A query the caller may run, with its row-level filters: 400 for a bad query, 403 for a hidden member. */
function prepare(model: CompiledModel, query: CubeQuery, scope: DataScope) {
  try {
    const normalized = normalizeQuery(model, query, { now: scope.now });
    const extraFilters = policyFilters(model, normalized, scope.identity);
    return { normalized, extraFilters };
  } catch (err) {
    throw asApiError(err);
  }
}

/** A source's failure by what it means for the caller. */
const SOURCE_ERROR_CODES = {
  TIMEOUT: 'QUERY_TIMEOUT',
  QUERY: 'QUERY_FAILED',
  TOO_MANY_ROWS: 'QUERY_FAILED',
  CONNECTION: 'DATA_SOURCE_ERROR',
  // The deployment's settings, not the query: fixed through its env vars.
  CONFIG: 'CONFLICT',
  FORBIDDEN_HOST: 'CONFLICT',
} as const satisfies Record<DataSourceError['code'], ErrorCode>;

/** The semantic layer's and sources' failures as the API answers them (Cube's `{error}` is our envelope's `error`). */
function asApiError(err: unknown): Error {
  if (err instanceof QueryError) return new ApiError('BAD_REQUEST', err.message);
  if (err instanceof AccessDenied) return new ApiError('FORBIDDEN', err.message);
  if (err instanceof DataSourceError) {
    return new ApiError(SOURCE_ERROR_CODES[err.code], err.message);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The shortest refresh interval of the cubes a query reads (Cube's `refresh_key.every`). */
function refreshSeconds(model: CompiledModel, query: NormalizedQuery): number {
  const cubes = new Set(
    [...query.measures, ...query.dimensions, ...query.timeDimensions, ...query.segments].map((m) =>
      m.target.slice(0, m.target.indexOf('.')),
    ),
  );
  let seconds = Number.POSITIVE_INFINITY;
  for (const name of cubes)
    seconds = Math.min(seconds, model.cubes[name]?.refreshEvery ?? DEFAULT_REFRESH_SECONDS);
  return Number.isFinite(seconds) ? seconds : DEFAULT_REFRESH_SECONDS;
}

export interface LoadResult {
  query: NormalizedQuery;
  data: Record<string, unknown>[];
  annotation: ReturnType<typeof annotationOf>;
  lastRefreshTime: string;
  total?: number;
  dbType: 'postgres' | 'sqlite';
  /** Whether the rows came from the result cache. */
  cacheHit: boolean;
}

/**
 * A query planned for the scope's caller: the serving model and the data source settings (read
 * side by side), the query checked and its policies applied, the SQL in the source's dialect.
 * Every failure on the way is an API error (a data source that is misconfigured or names a
 * forbidden host is the deployment's state: 409).
 */
async function plan(scope: DataScope, query: CubeQuery) {
  const [{ buildId, model }, config] = await Promise.all([
    servingModel(scope),
    readDataSourceConfig(scope.db, scope.deploymentId, scope.env).catch((err) => {
      throw asApiError(err);
    }),
  ]);
  const { normalized, extraFilters } = prepare(model, query, scope);
  try {
    const source = openDataSource(scope.env, scope.deploymentId, config);
    const dialect = source.dialect === 'postgres' ? postgres : sqlite;
    const compiled = compileQuery(model, normalized, dialect, { extraFilters });
    return { buildId, model, config, source, normalized, compiled };
  } catch (err) {
    throw asApiError(err);
  }
}

/** Runs one Cube query for the scope's caller: Cube's `/load` answer for it. */
export async function loadQuery(scope: DataScope, query: CubeQuery, options: { renew?: boolean } = {}) {
  const { buildId, model, config, source, normalized, compiled } = await plan(scope, query);
  const ttl = refreshSeconds(model, normalized);
  const sourceFingerprint = await sha256Hex(JSON.stringify(config));
  const run = async (sql: string, params: unknown[]) => {
    const key = await cacheKeyOf({
      deploymentId: scope.deploymentId,
      buildId,
      sourceFingerprint,
      sql,
      params,
    });
    return cached(
      key,
      ttl,
      { fresh: options.renew === true, now: scope.now, waitUntil: scope.waitUntil },
      async () => {
        try {
          return (await source.run(sql, params, { timeoutMs: QUERY_TIMEOUT_MS, maxRows: MAX_RESULT_ROWS }))
            .rows;
        } catch (err) {
          throw asApiError(err);
        }
      },
    );
  };
  const [main, total] = await Promise.all([
    run(compiled.sql, compiled.params),
    compiled.totalSql ? run(compiled.totalSql.sql, compiled.totalSql.params) : Promise.resolve(null),
  ]);
  const result: LoadResult = {
    query: normalized,
    data: shapeRows(compiled, main.result.rows),
    annotation: annotationOf(model, normalized),
    lastRefreshTime: main.result.refreshedAt,
    dbType: source.dialect,
    cacheHit: main.hit,
  };
  if (total) result.total = Number(Object.values(total.result.rows[0] ?? { total: 0 })[0] ?? 0);
  return result;
}

/** The SQL a query compiles to for the scope's caller, policies applied (Cube's `/sql`). */
export async function sqlQuery(scope: DataScope, query: CubeQuery) {
  const { normalized, compiled, source } = await plan(scope, query);
  return { normalized, compiled, dbType: source.dialect };
}

/** The normalized query, checked against the model and the caller's access (Cube's `/dry-run`). */
export async function dryRunQuery(scope: DataScope, query: CubeQuery) {
  const { model } = await servingModel(scope);
  return prepare(model, query, scope).normalized;
}

/** The cubes and views the caller may see (Cube's `/meta`). */
export async function metaFor(scope: DataScope) {
  const { model } = await servingModel(scope);
  return metaOf(model, (member) => memberVisible(model, member, scope.identity));
}
