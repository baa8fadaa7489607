import { routeGroup, routes } from '../http/route';
import { cubeApiCredential, dataScopeOf } from './cube-api.credential';
import markdown from './cube-api.routes.md';
import {
  dryRunResponseSchema,
  loadBody,
  loadQueryString,
  loadResponseSchema,
  metaResponseSchema,
  sqlQueryString,
  sqlResponseSchema,
} from './cube-api.schemas';
import { dryRun, load, meta, parseQueryParam, sql } from './cube-api.service';

const route = routeGroup({
  auth: { kind: 'cubeApi', middleware: cubeApiCredential },
  tags: ['Cube REST API'],
  errors: [403, 404, 409, 502, 504],
  docs: markdown,
});

/**
 * Cube's REST API over a deployment's semantic layer; mounted at /cubejs-api/v1, answering on
 * the API's own host (the token names the deployment) and on each deployment URL's host.
 */
export const cubeApiRoutes = routes(
  route.get('/load', 'cubeLoad', loadResponseSchema, {
    input: { query: loadQueryString },
    handler: async (c, { query }) =>
      load(await dataScopeOf(c), parseQueryParam(query.query), query.queryType),
  }),
  route.post('/load', 'cubeLoadPost', loadResponseSchema, {
    input: { body: loadBody },
    handler: async (c, { body }) => load(await dataScopeOf(c), body.query, body.queryType),
  }),
  route.get('/sql', 'cubeSql', sqlResponseSchema, {
    input: { query: sqlQueryString },
    handler: async (c, { query }) => sql(await dataScopeOf(c), parseQueryParam(query.query)),
  }),
  route.post('/sql', 'cubeSqlPost', sqlResponseSchema, {
    input: { body: loadBody },
    handler: async (c, { body }) => sql(await dataScopeOf(c), body.query),
  }),
  route.get('/dry-run', 'cubeDryRun', dryRunResponseSchema, {
    input: { query: sqlQueryString },
    handler: async (c, { query }) => dryRun(await dataScopeOf(c), parseQueryParam(query.query)),
  }),
  route.post('/dry-run', 'cubeDryRunPost', dryRunResponseSchema, {
    input: { body: loadBody },
    handler: async (c, { body }) => dryRun(await dataScopeOf(c), body.query),
  }),
  route.get('/meta', 'cubeMeta', metaResponseSchema, {
    handler: async (c) => meta(await dataScopeOf(c)),
  }),
);
