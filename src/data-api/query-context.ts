import { sha256Hex } from '../core/crypto';
import { ApiError, type ErrorCode } from '../core/errors';
import { readDataSourceConfig } from '../deployments/env-vars.service';
import { postgres } from '../semantic/dialects/postgres';
import { sqlite } from '../semantic/dialects/sqlite';
import type { CompiledModel } from '../semantic/model/model.types';
import { applyControls } from '../semantic/query/controls';
import { normalizeQuery } from '../semantic/query/normalize';
import { compileQuery } from '../semantic/query/plan';
import { AccessDenied, policyFilters } from '../semantic/query/policies';
import type { CubeQuery } from '../semantic/query/query.types';
import { QueryError } from '../semantic/query/query-error';
import { DataSourceError, openDataSource } from '../sources/open-data-source';
import * as repo from './data.repository';
import type { DataScope } from './data-scope';

/**
 * What the data API's operations read before they run anything: the deployment's serving model
 * (cached per isolate), its data source, and a caller's query checked and planned in the
 * source's dialect; failures on the way as the API answers them.
 */

/** The caller of a model-only operation: no groups, attributes or security context, so no policy applies. */
export const NOBODY = { groups: [], userAttributes: {}, securityContext: {} };

// Builds never change once built: an isolate compiles nothing and reads each model once.
const models = new Map<number, CompiledModel>();
const MAX_CACHED_MODELS = 50;

/** The deployment has no built data model yet (409): nothing can be checked against its model. */
export class NoBuiltModel extends ApiError {
  constructor() {
    super('CONFLICT', 'This deployment has no built data model yet: check its build status');
  }
}

export async function servingModel(scope: DataScope): Promise<{ buildId: number; model: CompiledModel }> {
  // A caller that read the serving build in its own (account-checked) statement needs no lookup.
  const build = scope.serving ?? (await repo.findServingBuild(scope));
  if (!build) {
    // Only on the way to an error: is it the deployment that is missing, or its build?
    if (!(await repo.deploymentExists(scope))) {
      throw new ApiError('NOT_FOUND', 'Deployment not found');
    }
    throw new NoBuiltModel();
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
}

/**
 * The serving model and the data source settings, read side by side. A data source that is
 * misconfigured or names a forbidden host is the deployment's state: 409.
 */
export async function sourceContext(scope: DataScope): Promise<SourceContext> {
  const [{ buildId, model }, config] = await Promise.all([
    servingModel(scope),
    readDataSourceConfig(scope, scope.deploymentId).catch((err) => {
      throw asApiError(err);
    }),
  ]);
  try {
    const source = openDataSource(scope.env, scope.deploymentId, config);
    return { buildId, model, source, sourceFingerprint: sha256Hex(JSON.stringify(config)) };
  } catch (err) {
    throw asApiError(err);
  }
}

export const dialectOf = (ctx: SourceContext) => (ctx.source.dialect === 'postgres' ? postgres : sqlite);

/** A query checked for the scope's caller, its policies applied, compiled in the source's dialect. */
export function planIn(ctx: SourceContext, scope: DataScope, query: CubeQuery) {
  const { normalized, extraFilters } = prepare(ctx.model, query, scope);
  try {
    return { normalized, compiled: compileQuery(ctx.model, normalized, dialectOf(ctx), { extraFilters }) };
  } catch (err) {
    throw asApiError(err);
  }
}
