import type * as v from 'valibot';
import { ApiError } from '../core/errors';
import type { DataScope } from '../data-api/data-scope';
import { type HandlerResult, routeGroup, routes } from '../http/route';
import { jobsBody, jobsResponseSchema } from '../pre-aggregations/jobs.schemas';
import { runJobs } from '../pre-aggregations/jobs.service';
import type { CubeQuery } from '../semantic/query/query.types';
import { cubeApiCredential, dataScopeOf, sentApiToken } from './cube-api.credential';
import markdown from './cube-api.routes.md';
import {
  dryRunResponseSchema,
  loadBody,
  loadQueryString,
  loadResponseSchema,
  metaQueryString,
  metaResponseSchema,
  sqlQueryString,
  sqlResponseSchema,
} from './cube-api.schemas';
import { dryRun, load, meta, parseQueryParam, sql } from './cube-api.service';

const route = routeGroup({
  auth: { kind: 'cubeApi', middleware: cubeApiCredential },
  // The token names the account and deployment: each handler turns the request's scope into theirs.
  scope: 'request',
  tags: ['Cube REST API'],
  errors: [403, 404, 409, 502, 504],
  docs: markdown,
});

/**
 * An endpoint taking a query and nothing else, by GET (the query as its `query` parameter) and by
 * POST (the query in the body), answering the same.
 */
const queryRoutes = <S extends v.GenericSchema>(
  path: string,
  [getId, postId]: readonly [string, string],
  answer: S,
  run: (scope: DataScope, query: CubeQuery | CubeQuery[]) => Promise<HandlerResult<{ 200: S }>>,
) =>
  [
    route.get(path, getId, answer, {
      input: { query: sqlQueryString },
      handler: async (c, { query }, scope) => run(await dataScopeOf(c, scope), parseQueryParam(query.query)),
    }),
    route.post(path, postId, answer, {
      input: { body: loadBody },
      handler: async (c, { body }, scope) => run(await dataScopeOf(c, scope), body.query),
    }),
  ] as const;

/**
 * Cube's REST API over a deployment's semantic layer; mounted at /cubejs-api/v1, answering on
 * the API's own host (the token names the deployment) and on each deployment URL's host.
 */
export const cubeApiRoutes = routes(
  route.get('/load', 'cubeLoad', loadResponseSchema, {
    input: { query: loadQueryString },
    handler: async (c, { query }, scope) =>
      load(await dataScopeOf(c, scope), parseQueryParam(query.query), query.queryType),
  }),
  route.post('/load', 'cubeLoadPost', loadResponseSchema, {
    input: { body: loadBody },
    handler: async (c, { body }, scope) => load(await dataScopeOf(c, scope), body.query, body.queryType),
  }),
  ...queryRoutes('/sql', ['cubeSql', 'cubeSqlPost'], sqlResponseSchema, sql),
  ...queryRoutes('/dry-run', ['cubeDryRun', 'cubeDryRunPost'], dryRunResponseSchema, dryRun),
  route.get('/meta', 'cubeMeta', metaResponseSchema, {
    input: { query: metaQueryString },
    handler: async (c, { query }, scope) =>
      meta(await dataScopeOf(c, scope), { extended: query.extended !== undefined }),
  }),
  route.post('/pre-aggregations/jobs', 'cubePreAggregationJobs', jobsResponseSchema, {
    input: { body: jobsBody },
    // 503: the account is being moved (its writes wait).
    errors: [400, 503],
    handler: async (c, { body }, scope) => {
      // A deployment's Cube API token builds; an embed viewer's token reads only.
      if (!sentApiToken(c)) {
        throw new ApiError('FORBIDDEN', 'The Orchestration API needs a Cube API token of the deployment');
      }
      const { accountId, deploymentId } = await dataScopeOf(c, scope);
      return runJobs({ ...scope, accountId, deploymentId }, body);
    },
  }),
);
