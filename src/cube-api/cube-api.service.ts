import * as v from 'valibot';
import { ApiError } from '../core/errors';
import { requireWellFormedText, toDetails } from '../core/validation';
import { cubeQueriesSchema } from '../data-api/cube-query.schemas';
import {
  dryRunQueries,
  type LoadResult,
  loadCubeQueries,
  metaFor,
  sqlQueries,
} from '../data-api/data.service';
import type { DataScope } from '../data-api/data-scope';
import { jsonText } from '../http/route';
import { timeDimensionShorthand } from '../semantic/query/normalize';
import { localText } from '../semantic/query/pre-aggregations/partitions';
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

type QueryKind = 'regularQuery' | 'blendingQuery' | 'compareDateRangeQuery';

/** The queries a request runs, Cube's kind of it and, when compared, the compared time dimension's index. */
interface QueryRequest {
  queries: CubeQuery[];
  kind: QueryKind;
  comparedAt?: number;
}

/** The `queryType` each query of a request echoes: a compared query's is the request's kind. */
const echoedKind = (kind: QueryKind): QueryKind => (kind === 'compareDateRangeQuery' ? kind : 'regularQuery');

/**
 * Cube's compare-date-range query: a time dimension's `compareDateRange` (a list of date ranges)
 * becomes one query per range, each with that range as the dimension's `dateRange`, in the
 * list's order; null when no time dimension has one. One time dimension may carry it, without a
 * `dateRange` of its own. `at`: that time dimension's index.
 */
function compareQueries(query: CubeQuery): { queries: CubeQuery[]; at: number } | null {
  const timeDimensions = query.timeDimensions ?? [];
  const compared = timeDimensions.filter((td) => td.compareDateRange != null);
  if (compared.length === 0) return null;
  const [td] = compared;
  if (compared.length > 1 || !td?.compareDateRange) {
    throw new ApiError('BAD_REQUEST', 'compareDateRange can be set on one time dimension only');
  }
  if (td.dateRange != null) {
    throw new ApiError('BAD_REQUEST', `${td.dimension} has both dateRange and compareDateRange: send one`);
  }
  const queries = td.compareDateRange.map((dateRange) => ({
    ...query,
    timeDimensions: timeDimensions.map((each) => {
      if (each !== td) return each;
      const { compareDateRange: _ranges, ...rest } = each;
      return { ...rest, dateRange };
    }),
  }));
  return { queries, at: timeDimensions.indexOf(td) };
}

/**
 * The `compareDateRange` value of a compared query's rows, as Cube writes it: the range its time
 * dimension (at index `at`) resolved to, as local wall-clock times of the query's zone, `from - to`.
 */
function compareLabel(normalized: NormalizedQuery, at: number): string {
  // The normalized time dimensions are the query's, in its order (then the shorthand ones).
  const range = normalized.timeDimensions[at]?.dateRange;
  if (!range) throw new Error('A compared query without its date range');
  return range.map((instant) => localText(Date.parse(instant), normalized.timezone)).join(' - ');
}

/** Cube echoes the query it ran, with its defaults filled in (`limit`, `timezone`, `order`). */
function echo(asked: CubeQuery, normalized: NormalizedQuery, queryType: QueryKind = 'regularQuery') {
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
    queryType,
  };
}

/** Cube's answer to one query, but its `data` (which `answerText` writes in as stored). */
function present(asked: CubeQuery, result: LoadResult, queryType: QueryKind) {
  return {
    query: echo(asked, result.query, queryType),
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

type Row = Record<string, unknown>;

/**
 * What Cube adds to each row of a query of the request's kind: a compared query's rows carry their
 * range (`compareDateRange`); a blended query's rows carry its first time dimension's bucket as
 * `time.<granularity>` too, the axis `@cubejs-client/core` lines the blended queries up on.
 * Null: the rows as stored.
 */
function rowAdditions(normalized: NormalizedQuery, request: QueryRequest): ((row: Row) => Row) | null {
  const { kind, comparedAt } = request;
  if (comparedAt !== undefined) {
    const compareDateRange = compareLabel(normalized, comparedAt);
    return () => ({ compareDateRange });
  }
  const [time] = normalized.timeDimensions;
  if (kind === 'blendingQuery' && time?.granularity) {
    const bucket = `${time.name}.${time.granularity}`;
    const key = `time.${time.granularity}`;
    return (row) => ({ [key]: row[bucket] });
  }
  return null;
}

/**
 * Cube's `responseFormat: compact`: the rows' members once, then each row as the list of its
 * values in that order (`{members, dataset}`), which `@cubejs-client/core` turns back into rows.
 */
function compact(rows: Row[]) {
  const members = rows[0] ? Object.keys(rows[0]) : [];
  return { members, dataset: rows.map((row) => members.map((member) => row[member] ?? null)) };
}

/**
 * Cube's answer to one query as JSON text: `{query, data, …}`, its `data` the stored text (with
 * the fields Cube adds to the rows of a compared or blended query, in the format asked for).
 */
function answerText(asked: CubeQuery, result: LoadResult, request: QueryRequest): string {
  const { query, ...rest } = present(asked, result, echoedKind(request.kind));
  const additions = rowAdditions(result.query, request);
  let data = result.data.json;
  if (additions || asked.responseFormat === 'compact') {
    let rows = JSON.parse(data) as Row[];
    if (additions) rows = rows.map((row) => ({ ...row, ...additions(row) }));
    data = JSON.stringify(asked.responseFormat === 'compact' ? compact(rows) : rows);
  }
  return `{"query":${JSON.stringify(query)},"data":${data},${JSON.stringify(rest).slice(1)}`;
}

/**
 * Cube's `pivotQuery`, what `@cubejs-client/core` pivots the results by: the first query as run;
 * a compared query's with `compareDateRange` as its first dimension (a series per range); for
 * blended queries with a granularity, every query's measures and dimensions over the common
 * axis `time` at the first query's granularity. (A list whose queries have none, which Cube
 * refuses as a blend, is answered as a batch, its pivot the first query.)
 */
function pivotOf(runs: { q: CubeQuery; normalized: NormalizedQuery }[], kind: QueryKind) {
  const [first] = runs;
  if (!first) return null;
  const pivot = echo(first.q, first.normalized, echoedKind(kind));
  if (kind === 'compareDateRangeQuery')
    return { ...pivot, dimensions: ['compareDateRange', ...pivot.dimensions] };
  const granularity = runs.map((run) => run.normalized.timeDimensions[0]?.granularity).find(Boolean);
  if (kind !== 'blendingQuery' || !granularity) return pivot;
  const all = (key: 'measures' | 'dimensions') => [
    ...new Set(runs.flatMap((run) => run.normalized[key].map((m) => m.name))),
  ];
  return {
    measures: all('measures'),
    dimensions: all('dimensions'),
    timeDimensions: [{ dimension: 'time', granularity }],
    queryType: kind,
  };
}

type LoadAnswer = v.InferOutput<typeof loadResponseSchema>;

function queriesOf(query: CubeQuery | CubeQuery[]): QueryRequest {
  if (Array.isArray(query))
    return { queries: query, kind: query.length > 1 ? 'blendingQuery' : 'regularQuery' };
  const compared = compareQueries(query);
  return compared
    ? { queries: compared.queries, kind: 'compareDateRangeQuery', comparedAt: compared.at }
    : { queries: [query], kind: 'regularQuery' };
}

/**
 * Cube's `/load`: one query answers `{query, data, annotation, …}`; with `queryType=multi` (what
 * `@cubejs-client/core` sends), several queries or a `compareDateRange`, `{queryType, results:
 * […]}`. The answer is written as text around each query's rows as the result cache keeps them.
 */
export async function load(scope: DataScope, query: CubeQuery | CubeQuery[], queryType?: string) {
  const request = queriesOf(query);
  const { queries, kind } = request;
  const results = (await loadCubeQueries(scope, queries)).map((result, index) => ({
    q: queries[index] as CubeQuery,
    result,
  }));
  const answers = results.map(({ q, result }) => answerText(q, result, request));
  if (kind === 'regularQuery' && !Array.isArray(query) && queryType !== 'multi') {
    return jsonText<LoadAnswer>(answers[0] as string);
  }
  const pivotQuery = pivotOf(
    results.map(({ q, result }) => ({ q, normalized: result.query })),
    kind,
  );
  const pivot = pivotQuery ? `"pivotQuery":${JSON.stringify(pivotQuery)},` : '';
  return jsonText<LoadAnswer>(
    `{"queryType":"${kind}","results":[${answers.join(',')}],${pivot}"slowQuery":false}`,
  );
}

type SqlOfQuery = Awaited<ReturnType<typeof sqlQueries>>[number];

/** Cube's `/sql`: the SQL text and its parameters, as `sql.sql = [text, params]`. */
export async function sql(scope: DataScope, query: CubeQuery | CubeQuery[]) {
  const one = ({ normalized, compiled: fromSource, dbType, rollup }: SqlOfQuery) => {
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
  const { queries, kind } = queriesOf(query);
  const planned = (await sqlQueries(scope, queries)).map(one);
  if (Array.isArray(query) || kind !== 'regularQuery') return { queryType: 'multi', sql: planned };
  return { sql: planned[0] };
}

/** Cube's `/dry-run`: the normalized queries, without running them. */
export async function dryRun(scope: DataScope, query: CubeQuery | CubeQuery[]) {
  const { queries, kind } = queriesOf(query);
  const runs = await dryRunQueries(scope, queries);
  const normalized = runs.map((run, index) =>
    echo(queries[index] as CubeQuery, run.normalized, echoedKind(kind)),
  );
  return {
    queryType: kind,
    normalizedQueries: normalized,
    queryOrder: normalized.map((n) => Object.fromEntries(n.order)),
    pivotQuery: pivotOf(
      runs.map((run, index) => ({ q: queries[index] as CubeQuery, normalized: run.normalized })),
      kind,
    ),
    transformedQueries: normalized.map(() => null),
    // edgeboard's: per query, the pre-aggregation that would answer it and the SQL reading it.
    preAggregations: runs.map(({ rollup }) =>
      rollup ? { ...rollup.preAggregation, sql: [rollup.compiled.sql, rollup.compiled.params] } : null,
    ),
  };
}

export const meta = (scope: DataScope, options: { extended?: boolean } = {}) => metaFor(scope, options);
