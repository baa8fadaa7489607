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
  // The token names the account and deployment: each handler turns the request's scope into theirs.
  scope: 'request',
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
    handler: async (c, { query }, scope) =>
      load(await dataScopeOf(c, scope), parseQueryParam(query.query), query.queryType),
  }),
  route.post('/load', 'cubeLoadPost', loadResponseSchema, {
    input: { body: loadBody },
    handler: async (c, { body }, scope) => load(await dataScopeOf(c, scope), body.query, body.queryType),
  }),
  route.get('/sql', 'cubeSql', sqlResponseSchema, {
    input: { query: sqlQueryString },
    handler: async (c, { query }, scope) => sql(await dataScopeOf(c, scope), parseQueryParam(query.query)),
  }),
  route.post('/sql', 'cubeSqlPost', sqlResponseSchema, {
    input: { body: loadBody },
    handler: async (c, { body }, scope) => sql(await dataScopeOf(c, scope), body.query),
  }),
  route.get('/dry-run', 'cubeDryRun', dryRunResponseSchema, {
    input: { query: sqlQueryString },
    handler: async (c, { query }, scope) => dryRun(await dataScopeOf(c, scope), parseQueryParam(query.query)),
  }),
  route.post('/dry-run', 'cubeDryRunPost', dryRunResponseSchema, {
    input: { body: loadBody },
    handler: async (c, { body }, scope) => dryRun(await dataScopeOf(c, scope), body.query),
  }),
  route.get('/meta', 'cubeMeta', metaResponseSchema, {
    handler: async (c, _input, scope) => meta(await dataScopeOf(c, scope)),
  }),
);
