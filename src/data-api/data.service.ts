import { ApiError, type ErrorCode } from '../core/errors';
import { type Timings, timed, timedSync } from '../core/timings';
import { metaOf } from '../semantic/model/meta';
import type { CompiledModel } from '../semantic/model/model.types';
import {
  applyControls,
  type ControlFilter,
  controlReach,
  type QueryControls,
} from '../semantic/query/controls';
import { findMember } from '../semantic/query/members';
import { normalizeQuery } from '../semantic/query/normalize';
import { type CompiledQuery, compileQuery } from '../semantic/query/plan';
import { memberVisible } from '../semantic/query/policies';
import type { CubeQuery, NormalizedQuery } from '../semantic/query/query.types';
import { annotationOf, shapeRows } from '../semantic/query/results';
import type { DataScope, DeploymentDataScope } from './data-scope';
import { rollupSqlOf } from './pre-aggregation-sql';
import {
  asApiError,
  dialectOf,
  NOBODY,
  NoBuiltModel,
  planIn,
  prepare,
  type SourceContext,
  servingModel,
  sourceContext,
} from './query-context';
import {
  cachedAnswer,
  cachedJson,
  cachedRollupAnswer,
  cacheKeyOf,
  DEFAULT_REFRESH_SECONDS,
  keyOf,
} from './result-cache';
import { readRollup, rollupOnlyError, rollupPlanOf, usedPreAggregationsOf } from './rollup-serving';

/** How long one query may run on the data source, and how many rows it may answer. */
export const QUERY_TIMEOUT_MS = 30_000;
export const MAX_RESULT_ROWS = 50_000;

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

/**
 * Cube's `data` of an answer, as its rows or as the JSON text the result cache stores: each form
 * is made from the other once, and only when asked for (`/load` sends the text as stored,
 * dashboards read the rows).
 */
export class AnswerData {
  #rows: Record<string, unknown>[] | undefined;
  #json: string | undefined;

  constructor(from: { rows: Record<string, unknown>[]; json?: string } | { json: string }) {
    this.#rows = 'rows' in from ? from.rows : undefined;
    this.#json = from.json;
  }

  get rows(): Record<string, unknown>[] {
    this.#rows ??= JSON.parse(this.#json as string) as Record<string, unknown>[];
    return this.#rows;
  }

  get json(): string {
    this.#json ??= JSON.stringify(this.#rows);
    return this.#json;
  }
}

/** What a total query answers, from the text of its rows: the first row's one value (0 when it has no row). */
function totalOf(json: string): number {
  const [first] = JSON.parse(json) as Record<string, unknown>[];
  return Number(Object.values(first ?? { total: 0 })[0] ?? 0);
}

type Rows = Record<string, unknown>[];

/**
 * The text each answer is stored as (a page shaped into Cube's `data`, a total's rows as read),
 * and the answer's data: the rows this shaper shaped kept beside their text, for a dashboard to
 * read without parsing it. One per answering store, so rows one store shaped never sit beside
 * the other's text.
 */
function pageShaper(timings: Timings | undefined) {
  let shaped: Rows | undefined;
  return {
    textOf(rows: Rows, shape: CompiledQuery['columns'] | 'rows'): string {
      if (shape === 'rows') return JSON.stringify(rows);
      shaped = timedSync(timings, 'shape', () => shapeRows({ columns: shape }, rows));
      return JSON.stringify(shaped);
    },
    dataOf: (json: string) => new AnswerData(shaped ? { rows: shaped, json } : { json }),
  };
}

export interface LoadResult {
  query: NormalizedQuery;
  data: AnswerData;
  annotation: ReturnType<typeof annotationOf>;
  lastRefreshTime: string;
  total?: number;
  dbType: 'postgres' | 'sqlite';
  /** Whether the rows came from the result cache. */
  cacheHit: boolean;
  /** Cube's `usedPreAggregations`: the rollup partitions that answered, by Cube's table name; `{}` for the source. */
  usedPreAggregations: ReturnType<typeof usedPreAggregationsOf>;
}

/** Runs a planned query through the result cache (identical concurrent queries share one run). */
async function execute(
  ctx: SourceContext,
  scope: DataScope,
  { normalized, compiled, extraFilters }: ReturnType<typeof planIn>,
  options: { renew?: boolean },
): Promise<LoadResult> {
  const ttl = refreshSeconds(ctx.model, normalized);
  const sourceFingerprint = await ctx.sourceFingerprint;
  // A rollup's answers (its text, or "not built yet") key on the rollups' generation too, so a
  // partition swapped in never hides behind one cached before it. The source's answers do not: a
  // query a rollup matches asks the rollup first whatever the source cached, and the answers of
  // queries no rollup matches outlive every swap. Each answer is stored as the text it is served
  // as: a page as Cube's `data` (so the key carries its columns), a total as the rows read.
  const keyOfRun = (
    sql: string,
    params: unknown[],
    shape: CompiledQuery['columns'] | 'rows',
    rollup: boolean,
  ) =>
    timed(scope.timings, 'cache-key', () =>
      cacheKeyOf({
        deploymentId: scope.deploymentId,
        buildId: ctx.buildId,
        sourceFingerprint,
        rollupGeneration: rollup ? ctx.rollupGeneration : null,
        sql,
        params,
        shape,
      }),
    );
  const cacheOptions = {
    fresh: options.renew === true,
    now: scope.now,
    waitUntil: scope.waitUntil,
    timings: scope.timings,
  };

  const plan = rollupPlanOf(ctx.model, normalized, extraFilters, ctx.source.dialect);
  let notBuilt: string | undefined;
  if (plan) {
    const page = pageShaper(scope.timings);
    const read = async (sql: string, params: unknown[], shape: CompiledQuery['columns'] | 'rows') =>
      cachedRollupAnswer(
        await keyOfRun(sql, params, shape, true),
        ttl,
        cacheOptions,
        async () => {
          const answer = await timed(scope.timings, 'store-rollup', () =>
            readRollup(scope.env, scope.deploymentId, plan, sql, params, MAX_RESULT_ROWS),
          );
          return 'rows' in answer
            ? { json: page.textOf(answer.rows, shape), partitions: answer.partitions }
            : answer;
        },
        // "Not built yet" is remembered like rows: the key moves with the rollups' generation, so
        // a partition swapped in is asked for as soon as the load sees the new generation. A
        // store that could not be asked is asked again next time.
        (answer) => !('unreachable' in answer),
      );
    const { totalSql } = plan.query;
    const [{ value: main, hit }, total] = await Promise.all([
      read(plan.query.sql, plan.query.params, plan.query.columns),
      totalSql ? read(totalSql.sql, totalSql.params, 'rows').then((r) => r.value) : null,
    ]);
    // The page and its total come from the rollup together, or the source answers both.
    if ('json' in main && (!total || 'json' in total)) {
      const oldest = main.partitions.map((p) => p.builtAt).sort()[0];
      const result: LoadResult = {
        query: normalized,
        data: page.dataOf(main.json),
        annotation: annotationOf(ctx.model, normalized),
        lastRefreshTime: oldest ?? scope.now.toISOString(),
        dbType: ctx.source.dialect,
        cacheHit: hit,
        usedPreAggregations: usedPreAggregationsOf(main.partitions),
      };
      if (total) result.total = totalOf(total.json);
      return result;
    }
    notBuilt = 'notBuilt' in main ? main.notBuilt : total && 'notBuilt' in total ? total.notBuilt : undefined;
  }
  if (ctx.rollupOnly) throw rollupOnlyError(plan, notBuilt);

  const page = pageShaper(scope.timings);
  const run = async (sql: string, params: unknown[], shape: CompiledQuery['columns'] | 'rows') =>
    cachedAnswer(await keyOfRun(sql, params, shape, false), ttl, cacheOptions, async () => {
      let rows: Rows;
      try {
        const limits = {
          timeoutMs: QUERY_TIMEOUT_MS,
          maxRows: MAX_RESULT_ROWS,
          timings: scope.timings,
          waitUntil: scope.waitUntil,
        };
        rows = (await ctx.source.run(sql, params, limits)).rows;
      } catch (err) {
        throw asApiError(err);
      }
      return page.textOf(rows, shape);
    });
  const [main, total] = await Promise.all([
    run(compiled.sql, compiled.params, compiled.columns),
    compiled.totalSql ? run(compiled.totalSql.sql, compiled.totalSql.params, 'rows') : Promise.resolve(null),
  ]);
  const result: LoadResult = {
    query: normalized,
    data: page.dataOf(main.value.json),
    annotation: annotationOf(ctx.model, normalized),
    lastRefreshTime: main.value.refreshedAt,
    dbType: ctx.source.dialect,
    cacheHit: main.hit,
    usedPreAggregations: {},
  };
  if (total) result.total = totalOf(total.value.json);
  return result;
}

/** An answer with its rows read (Cube's `data`): what a dashboard's queries are answered with. */
export type LoadedResult = Omit<LoadResult, 'data'> & { data: Record<string, unknown>[] };

const withRows = (result: LoadResult): LoadedResult => ({ ...result, data: result.data.rows });

/**
 * Runs the Cube queries of one `/load` for the scope's caller (one query, a blend, compared
 * ranges), which answer or fail together: the model and the data source settings are read once
 * for all, each query renewed when it asks (`renewQuery`). Cube's `/load` answer for each.
 */
export async function loadCubeQueries(scope: DataScope, queries: readonly CubeQuery[]) {
  const ctx = await sourceContext(scope);
  return Promise.all(
    queries.map((query) =>
      execute(ctx, scope, planIn(ctx, scope, query), { renew: query.renewQuery === true }),
    ),
  );
}

/** One query's outcome among several: its answer (and the control filters that narrowed it), or the API error it alone failed with. */
export type QueryOutcome =
  | { ok: true; result: LoadedResult; applied: string[] }
  | { ok: false; error: ApiError };

/**
 * Runs several Cube queries for the scope's caller, concurrently, reading the model and the data
 * source settings once. `controls` are a dashboard's filter and time-grain values, applied to
 * each query the model lets them narrow (`required` filters refuse a query they cannot narrow).
 * A query that fails (bad member, policy, source error) fails alone; a deployment that cannot
 * serve (no build, misconfigured source) fails the whole call.
 */
export async function loadQueries(
  scope: DataScope,
  queries: readonly CubeQuery[],
  options: {
    renew?: boolean;
    controls?: QueryControls & { required?: readonly ControlFilter[] };
    /** Cache the answers together too (a dashboard's load): a repeat is one cache read, no planning. */
    together?: boolean;
  } = {},
): Promise<QueryOutcome[]> {
  if (queries.length === 0) return [];
  const runAll = (ctx: SourceContext) =>
    Promise.all(
      queries.map(async (query): Promise<QueryOutcome> => {
        try {
          const controlled = options.controls
            ? applyControls(ctx.model, query, options.controls, scope.now)
            : { query, applied: [] };
          const result = withRows(await execute(ctx, scope, planIn(ctx, scope, controlled.query), options));
          return { ok: true, result, applied: controlled.applied };
        } catch (err) {
          const error = asApiError(err);
          if (error instanceof ApiError) return { ok: false, error };
          throw error;
        }
      }),
    );
  if (!options.together) return runAll(await sourceContext(scope));
  // With the serving state known, a repeat is found with no read at all; else it is read first.
  const known = scope.serving ?? null;
  let ctx: SourceContext | null = known ? null : await sourceContext(scope);
  const state = known ?? {
    buildId: ctx?.buildId,
    sourceVersion: await ctx?.sourceFingerprint,
    rollupGeneration: ctx?.rollupGeneration,
  };
  const key = await keyOf(scope.deploymentId, [
    known ? 'together-stored' : 'together',
    state.buildId,
    state.sourceVersion,
    state.rollupGeneration,
    // Everything an answer depends on besides the data: who asks (their policies), what they
    // asked and, for relative date ranges, the minute they asked in.
    scope.identity,
    scope.locked ?? [],
    options.controls ?? null,
    queries,
    relativeDates(queries) ? Math.floor(scope.now.getTime() / 60_000) : null,
  ]);
  const { value, hit } = await cachedJson<StoredOutcome[]>(
    key,
    // Fresh for as long as the model's most often refreshed cube (known once the model is read).
    () => (ctx ? shortestRefresh(ctx.model) : DEFAULT_REFRESH_SECONDS),
    { fresh: options.renew === true, now: scope.now, waitUntil: scope.waitUntil },
    async () => {
      ctx ??= await sourceContext(scope);
      return (await runAll(ctx)).map((o) =>
        o.ok ? o : { ok: false, error: { code: o.error.code, message: o.error.message } },
      );
    },
    // A failure (a timeout, a source down) is not kept: the next load tries again.
    (outcomes) => outcomes.every((o) => o.ok),
  );
  return value.map((o) =>
    o.ok
      ? { ...o, result: { ...o.result, cacheHit: hit || o.result.cacheHit } }
      : { ok: false, error: new ApiError(o.error.code, o.error.message) },
  );
}

/** An outcome as the cache holds it (JSON): an error by its code and message. */
type StoredOutcome =
  | { ok: true; result: LoadedResult; applied: string[] }
  | { ok: false; error: { code: ErrorCode; message: string } };

/** Whether a query's answer depends on when it is asked (a relative date range such as `last 7 days`). */
const relativeDates = (queries: readonly CubeQuery[]) =>
  queries.some((q) => q.timeDimensions?.some((td) => typeof td.dateRange === 'string'));

const refreshFloors = new WeakMap<CompiledModel, number>();

/** The shortest refresh interval of any cube of the model: how long answers read together stay fresh. */
function shortestRefresh(model: CompiledModel): number {
  let seconds = refreshFloors.get(model);
  if (seconds === undefined) {
    const intervals = Object.values(model.cubes).map((c) => c.refreshEvery ?? DEFAULT_REFRESH_SECONDS);
    seconds = intervals.length > 0 ? Math.min(...intervals) : DEFAULT_REFRESH_SECONDS;
    refreshFloors.set(model, seconds);
  }
  return seconds;
}

/**
 * For each query, the filter and time-grain members (of `members`) that can change it under the
 * deployment's model: no data is read. A query the model cannot plan is reached by none.
 */
export async function queryReach(
  scope: DataScope,
  queries: readonly CubeQuery[],
  members: { filters: readonly string[]; timeGrains: readonly string[] },
): Promise<{ filters: string[]; timeGrains: string[] }[]> {
  if (queries.length === 0) return [];
  const { model } = await servingModel(scope);
  return queries.map((query) => controlReach(model, query, members, scope.now));
}

/**
 * Why controls on these members cannot apply under the deployment's serving model, or null: a
 * filter member the model does not have, a time grain on a member that is not a time dimension.
 * No data is read (the model comes from the isolate's cache after its first read).
 */
export async function controlMembersProblem(
  scope: DeploymentDataScope,
  members: { filters: readonly string[]; timeGrains: readonly string[] },
): Promise<string | null> {
  if (members.filters.length === 0 && members.timeGrains.length === 0) return null;
  const { model } = await servingModel({ ...scope, identity: NOBODY });
  for (const member of [...members.filters, ...members.timeGrains]) {
    try {
      findMember(model, member);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }
  for (const member of members.timeGrains) {
    const found = findMember(model, member).target;
    if (found.kind !== 'dimension' || found.dimension.type !== 'time')
      return `${member} is not a time dimension`;
  }
  return null;
}

/**
 * A query checked against the deployment's model alone (no caller, so no policy) and the SQL it
 * compiles to in the deployment's dialect: what a report stores as its `sqlQuery`. Policies
 * apply when each viewer runs it.
 */
export async function compileModelQuery(scope: DeploymentDataScope, query: CubeQuery) {
  const ctx = await sourceContext({ ...scope, identity: NOBODY });
  try {
    const normalized = normalizeQuery(ctx.model, query, { now: scope.now });
    return {
      normalized,
      compiled: compileQuery(ctx.model, normalized, dialectOf(ctx), {}),
      dbType: ctx.source.dialect,
      model: ctx.model,
    };
  } catch (err) {
    throw asApiError(err);
  }
}

/**
 * The SQL each query compiles to for the scope's caller, policies applied (Cube's `/sql`), the
 * model and the data source settings read once for all.
 */
export async function sqlQueries(scope: DataScope, queries: readonly CubeQuery[]) {
  const ctx = await sourceContext(scope);
  return queries.map((query) => {
    const planned = planIn(ctx, scope, query);
    return {
      ...planned,
      dbType: ctx.source.dialect,
      rollup: rollupSqlOf(ctx.model, planned.normalized, planned.extraFilters, ctx.source.dialect),
    };
  });
}

/**
 * Each query normalized after the same checks as `/load` (Cube's `/dry-run`), with what `/sql`
 * shows of the pre-aggregation it matches. The serving model and the data source are read once
 * for all; a deployment whose data source settings are unusable is still dry-run against its
 * model (a dry run needs no data), without pre-aggregations.
 */
export async function dryRunQueries(scope: DataScope, queries: readonly CubeQuery[]) {
  let ctx: SourceContext | null = null;
  try {
    ctx = await sourceContext(scope);
  } catch (err) {
    // The model's own failures (no deployment, no build) are the dry run's too.
    if (!(err instanceof ApiError) || err.code !== 'CONFLICT' || err instanceof NoBuiltModel) throw err;
  }
  if (!ctx) {
    const { model } = await servingModel(scope);
    return queries.map((query) => ({ normalized: prepare(model, query, scope).normalized, rollup: null }));
  }
  const source = ctx;
  return queries.map((query) => {
    const { normalized, extraFilters } = planIn(source, scope, query);
    return { normalized, rollup: rollupSqlOf(source.model, normalized, extraFilters, source.source.dialect) };
  });
}

/** The cubes and views the caller may see (Cube's `/meta`). */
export async function metaFor(scope: DataScope, options: { extended?: boolean } = {}) {
  const { model } = await servingModel(scope);
  return metaOf(model, (member) => memberVisible(model, member, scope.identity), options);
}
