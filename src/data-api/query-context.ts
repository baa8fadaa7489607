import { sha256Hex } from '../core/crypto';
import { ApiError, type ErrorCode } from '../core/errors';
import { timed, timedSync } from '../core/timings';
import { modelOfBuild } from '../deployments/built-models';
import { readDataSourceConfig } from '../deployments/env-vars.service';
import { recallServingState, rememberServingState } from '../deployments/serving-state';
import type { Dialect } from '../semantic/dialects/dialect';
import { postgres } from '../semantic/dialects/postgres';
import { sqlite } from '../semantic/dialects/sqlite';
import type { CompiledModel } from '../semantic/model/model.types';
import { applyControls } from '../semantic/query/controls';
import { normalizeQuery } from '../semantic/query/normalize';
import { type CompiledQuery, compileQuery } from '../semantic/query/plan';
import { AccessDenied, policyFilters } from '../semantic/query/policies';
import type { CubeQuery, NormalizedFilter, NormalizedQuery } from '../semantic/query/query.types';
import { QueryError } from '../semantic/query/query-error';
import { type DataSourceConfig, DataSourceError, openDataSource } from '../sources/open-data-source';
import * as repo from './data.repository';
import type { DataScope } from './data-scope';

/**
 * What the data API's operations read before they run anything: the deployment's serving model
 * (cached per isolate), its data source, and a caller's query checked and planned in the
 * source's dialect; failures on the way as the API answers them.
 */

/** The caller of a model-only operation: no groups, attributes or security context, so no policy applies. */
export const NOBODY = { groups: [], userAttributes: {}, securityContext: {} };

/** The deployment has no built data model yet (409): nothing can be checked against its model. */
export class NoBuiltModel extends ApiError {
  constructor() {
    super('CONFLICT', 'This deployment has no built data model yet: check its build status');
  }
}

export async function servingModel(
  scope: DataScope,
): Promise<{ buildId: number; model: CompiledModel; rollupGeneration: number }> {
  // A caller that read the serving build in its own (account-checked) statement needs no lookup.
  const build = scope.serving ?? (await timed(scope.timings, 'd1-build', () => repo.findServingBuild(scope)));
  if (!build) {
    // Only on the way to an error: is it the deployment that is missing, or its build?
    if (!(await repo.deploymentExists(scope))) {
      throw new ApiError('NOT_FOUND', 'Deployment not found');
    }
    throw new NoBuiltModel();
  }
  // Builds never change once built: an isolate compiles nothing and reads each model once.
  const model = await timed(scope.timings, 'd1-model', () => modelOfBuild(scope.db, build.buildId));
  if (!model) throw new NoBuiltModel();
  return { buildId: build.buildId, model, rollupGeneration: build.rollupGeneration };
}

/** A query the caller may run, with its row-level filters: 400 for a bad query, 403 for a hidden member. */
export function prepare(model: CompiledModel, query: CubeQuery, scope: DataScope) {
  try {
    const locked = scope.locked?.length
      ? applyControls(model, query, { filters: [], timeGrains: [], required: scope.locked }, scope.now).query
      : query;
    const normalized = normalizeQuery(model, locked, { now: scope.now });
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
export function asApiError(err: unknown): Error {
  if (err instanceof QueryError) return new ApiError('BAD_REQUEST', err.message);
  if (err instanceof AccessDenied) return new ApiError('FORBIDDEN', err.message);
  if (err instanceof DataSourceError) {
    return new ApiError(SOURCE_ERROR_CODES[err.code], err.message);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** The serving model, the data source and what keys its cache: read once for all the queries of a request. */
export interface SourceContext {
  buildId: number;
  model: CompiledModel;
  source: ReturnType<typeof openDataSource>;
  sourceFingerprint: Promise<string>;
  /** Moves whenever a pre-aggregation partition swaps in: keys answers beside the fingerprint. */
  rollupGeneration: number;
  /** `CUBEJS_ROLLUP_ONLY=true`: only rollups answer, never the source. */
  rollupOnly: boolean;
}

/** What `sourceContext` reads, kept per isolate for SERVING_STATE_TTL_MS (serving-state.ts). */
interface ServingRead {
  buildId: number;
  model: CompiledModel;
  rollupGeneration: number;
  config: DataSourceConfig;
  sourceFingerprint: string;
}

/**
 * The serving model and the data source settings: read side by side, or recalled without a read
 * when this isolate read them less than SERVING_STATE_TTL_MS ago. A caller that read the serving
 * state in its own statement (`scope.serving`) keys its answers by what it read, so its source
 * is read too: a recalled one could be older than that key. A data source that is misconfigured
 * or names a forbidden host is the deployment's state: 409.
 */
export async function sourceContext(scope: DataScope): Promise<SourceContext> {
  let read = scope.serving
    ? undefined
    : recallServingState<ServingRead>(scope.accountId, scope.deploymentId, scope.now);
  if (!read) {
    const [{ buildId, model, rollupGeneration }, config] = await Promise.all([
      servingModel(scope),
      timed(scope.timings, 'd1-source', () => readDataSourceConfig(scope, scope.deploymentId)).catch(
        (err) => {
          throw asApiError(err);
        },
      ),
    ]);
    read = {
      buildId,
      model,
      rollupGeneration,
      config,
      sourceFingerprint: await sha256Hex(JSON.stringify(config)),
    };
    rememberServingState(scope.accountId, scope.deploymentId, scope.now, read);
  }
  try {
    // Opened per request: a source is its settings and the request's bindings, nothing to keep.
    const source = openDataSource(scope.env, scope.deploymentId, read.config);
    return {
      buildId: read.buildId,
      model: read.model,
      source,
      sourceFingerprint: Promise.resolve(read.sourceFingerprint),
      rollupGeneration: read.rollupGeneration,
      rollupOnly: read.config.rollupOnly === true,
    };
  } catch (err) {
    throw asApiError(err);
  }
}

export const dialectOf = (ctx: SourceContext) => (ctx.source.dialect === 'postgres' ? postgres : sqlite);

/**
 * Compiled queries by model, then by dialect and normalized query with its row-level filters: a
 * query's SQL is a function of those alone (relative dates are already resolved in the
 * normalized query), so a query asked again in this isolate is not compiled again. Bounded per
 * model; a model's entries go with it.
 */
const compiledQueries = new WeakMap<CompiledModel, Map<string, CompiledQuery>>();
const MAX_COMPILED_PER_MODEL = 200;

function compiledOnce(
  model: CompiledModel,
  normalized: NormalizedQuery,
  dialect: Dialect,
  extraFilters: NormalizedFilter[],
): CompiledQuery {
  let byQuery = compiledQueries.get(model);
  if (!byQuery) {
    byQuery = new Map();
    compiledQueries.set(model, byQuery);
  }
  const key = JSON.stringify([dialect.name, normalized, extraFilters]);
  let compiled = byQuery.get(key);
  if (!compiled) {
    // Frozen, with its lists and its total's SQL: every request asking the same query shares it.
    const fresh = compileQuery(model, normalized, dialect, { extraFilters });
    Object.freeze(fresh.params);
    Object.freeze(fresh.columns);
    if (fresh.totalSql) Object.freeze(Object.freeze(fresh.totalSql).params);
    compiled = Object.freeze(fresh);
    if (byQuery.size >= MAX_COMPILED_PER_MODEL) byQuery.delete(byQuery.keys().next().value as string);
    byQuery.set(key, compiled);
  }
  return compiled;
}

/** A query checked for the scope's caller, its policies applied, compiled in the source's dialect. */
export function planIn(ctx: SourceContext, scope: DataScope, query: CubeQuery) {
  return timedSync(scope.timings, 'plan', () => {
    const { normalized, extraFilters } = prepare(ctx.model, query, scope);
    try {
      return {
        normalized,
        compiled: compiledOnce(ctx.model, normalized, dialectOf(ctx), extraFilters),
        extraFilters,
      };
    } catch (err) {
      throw asApiError(err);
    }
  });
}
