import * as v from 'valibot';
import { ApiError } from '../core/errors';
import { requireWellFormedText, toDetails } from '../core/validation';
import { cubeQueriesSchema } from '../data-api/cube-query.schemas';
import { dryRunQueries, type LoadResult, loadQuery, metaFor, sqlQuery } from '../data-api/data.service';
import type { DataScope } from '../data-api/data-scope';
import { jsonText } from '../http/route';
import { timeDimensionShorthand } from '../semantic/query/normalize';
import type { CubeQuery, NormalizedQuery } from '../semantic/query/query.types';
import type { loadResponseSchema } from './cube-api.schemas';

/** An order entry's member as the query named it (`orders.created_at.month` when by granularity). */
const orderName = (o: NormalizedQuery['order'][number]) =>
  o.granularity ? `${o.member}.${o.granularity}` : o.member;

/** A `query=` parameter: JSON of one query or a list of them, checked like a POST body. */
export function parseQueryParam(text: string): CubeQuery | CubeQuery[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('BAD_REQUEST', 'query must be a JSON object (Cube query format)');
  }
  requireWellFormedText(parsed, 'query', 'query');
  const result = v.safeParse(cubeQueriesSchema, parsed);
  if (!result.success) {
    const details = toDetails(result.issues, 'query');
    throw new ApiError(
      'VALIDATION_FAILED',
      `Invalid query: ${details[0]?.path} ${details[0]?.message}`,
      details,
    );
  }
  return result.output as CubeQuery | CubeQuery[];
}

/** Cube echoes the query it ran, with its defaults filled in (`limit`, `timezone`, `order`). */
function echo(asked: CubeQuery, normalized: NormalizedQuery) {
  return {
    ...asked,
    measures: normalized.measures.map((m) => m.name),
    dimensions: normalized.dimensions.map((m) => m.name),
    segments: normalized.segments.map((m) => m.name),
    timeDimensions: [...(asked.timeDimensions ?? []), ...timeDimensionShorthand(asked.dimensions)],
    filters: asked.filters ?? [],
    order: normalized.order.map((o) => [orderName(o), o.desc ? 'desc' : 'asc']),
    limit: normalized.limit,
    timezone: normalized.timezone,
    queryType: 'regularQuery',
  };
}

/** Cube's answer to one query, but its `data` (which `answerText` writes in as stored). */
function present(asked: CubeQuery, result: LoadResult) {
  return {
    query: echo(asked, result.query),
    lastRefreshTime: result.lastRefreshTime,
    annotation: result.annotation,
    dataSource: 'default',
    dbType: result.dbType,
    extDbType: result.dbType,
    external: Object.keys(result.usedPreAggregations).length > 0,
    slowQuery: false,
    // Cube's map of the pre-aggregation partitions that served the query ({} when the source did).
    usedPreAggregations: result.usedPreAggregations,
    ...(result.total !== undefined && { total: result.total }),
  };
}

/** Cube's answer to one query as JSON text: `{query, data, …}`, its `data` the stored text. */
function answerText(asked: CubeQuery, result: LoadResult): string {
  const { query, ...rest } = present(asked, result);
  return `{"query":${JSON.stringify(query)},"data":${result.data.json},${JSON.stringify(rest).slice(1)}`;
}

type LoadAnswer = v.InferOutput<typeof loadResponseSchema>;

/**
 * Cube's `/load`: one query answers `{query, data, annotation, …}`; with `queryType=multi` (what
 * `@cubejs-client/core` sends) or several queries, `{queryType, results: […]}`. The answer is
 * written as text around each query's rows as the result cache keeps them.
 */
export async function load(scope: DataScope, query: CubeQuery | CubeQuery[], queryType?: string) {
  const queries = Array.isArray(query) ? query : [query];
  const results = await Promise.all(
    queries.map(async (q) => ({ q, result: await loadQuery(scope, q, { renew: q.renewQuery === true }) })),
  );
  const answers = results.map(({ q, result }) => answerText(q, result));
  if (!Array.isArray(query) && queryType !== 'multi') return jsonText<LoadAnswer>(answers[0] as string);
  const kind = Array.isArray(query) && query.length > 1 ? 'blendingQuery' : 'regularQuery';
  const first = results[0];
  const pivot = first ? `"pivotQuery":${JSON.stringify(echo(first.q, first.result.query))},` : '';
  return jsonText<LoadAnswer>(
    `{"queryType":"${kind}","results":[${answers.join(',')}],${pivot}"slowQuery":false}`,
  );
}

/** Cube's `/sql`: the SQL text and its parameters, as `sql.sql = [text, params]`. */
export async function sql(scope: DataScope, query: CubeQuery | CubeQuery[]) {
  const one = async (q: CubeQuery) => {
    const { normalized, compiled: fromSource, dbType, rollup } = await sqlQuery(scope, q);
    // A query a rollup answers shows the SQL that reads the rollup, as Cube's does.
    const compiled = rollup?.compiled ?? fromSource;
    const aliasNameToMember = Object.fromEntries(compiled.columns.map((col) => [col.alias, col.member]));
    return {
      sql: [compiled.sql, compiled.params],
      order: normalized.order.map((o) => ({ id: orderName(o), desc: o.desc })),
      aliasNameToMember,
      cacheKeyQueries: [],
      preAggregations: rollup ? [rollup.preAggregation] : [],
      dataSource: 'default',
      dbType,
      external: rollup !== null,
      ...(compiled.totalSql && { totalSql: [compiled.totalSql.sql, compiled.totalSql.params] }),
    };
  };
  if (Array.isArray(query)) return { queryType: 'multi', sql: await Promise.all(query.map(one)) };
  return { sql: await one(query) };
}

/** Cube's `/dry-run`: the normalized queries, without running them. */
export async function dryRun(scope: DataScope, query: CubeQuery | CubeQuery[]) {
  const queries = Array.isArray(query) ? query : [query];
  const runs = await dryRunQueries(scope, queries);
  const normalized = runs.map((run, index) => echo(queries[index] as CubeQuery, run.normalized));
  return {
    queryType: queries.length > 1 ? 'blendingQuery' : 'regularQuery',
    normalizedQueries: normalized,
    queryOrder: normalized.map((n) => Object.fromEntries(n.order)),
    pivotQuery: normalized[0],
    transformedQueries: normalized.map(() => null),
    // edgeboard's: per query, the pre-aggregation that would answer it and the SQL reading it.
    preAggregations: runs.map(({ rollup }) =>
      rollup ? { ...rollup.preAggregation, sql: [rollup.compiled.sql, rollup.compiled.params] } : null,
    ),
  };
}

export const meta = (scope: DataScope, options: { extended?: boolean } = {}) => metaFor(scope, options);
