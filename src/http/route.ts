import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type * as v from 'valibot';
import { authenticate, authenticateOperator, authorize, requireAccountWide } from '../auth/auth.middleware';
import { resolveScope, type ScopeKind, type ScopeOf } from '../auth/scope';
import { routeToShard } from '../auth/shard-routing';
import type { AppEnv } from '../core/env';
import { type AuthKind, doc } from '../core/openapi';
import { adminOnly, grantedBy } from '../core/permissions';
import { createRouter } from '../core/router';
import type { AccountScope } from '../core/scope';
import { validate } from '../core/validation';
import { apiDocs } from './api-docs';
import { JsonText } from './json-text';
import type {
  AnyRoute,
  GroupDefaults,
  GroupRoute,
  MaybeSchema,
  Method,
  RawResponse,
  Responses,
  RouteAuth,
  RouteBuilder,
  RouteGroup,
  RouterSchema,
} from './route.types';

export { type ApiDocs, apiDocs, type OperationDoc } from './api-docs';
export { JsonText, jsonText } from './json-text';
export type {
  GroupDefaults,
  HandlerResult,
  RawResponse,
  RouteAuth,
  RouteDefinition,
  RouteGroup,
  RouteInput,
} from './route.types';

type AuthName = Exclude<RouteAuth, object>;

const AUTH: Record<AuthName, { doc: AuthKind; middleware?: MiddlewareHandler<AppEnv> }> = {
  none: { doc: 'none' },
  session: { doc: 'session' },
  sessionHeader: { doc: 'sessionHeader' },
  sessionPage: { doc: 'sessionPage' },
  operator: { doc: 'operator', middleware: authenticateOperator },
  user: { doc: 'bearerOrApiKey', middleware: authenticate(['Bearer', 'Api-Key']) },
  admin: { doc: 'bearerOrApiKey', middleware: authenticate(['Bearer', 'Api-Key'], { role: 'admin' }) },
  apiKey: { doc: 'apiKey', middleware: authenticate(['Api-Key']) },
};

/**
 * Routes that share a credential, tags, error statuses and a Markdown file of documentation:
 * `const route = routeGroup({ auth: 'user', tags: ['Reports'], errors: [404], docs: markdown })`,
 * then one call per route: method, path, operationId, the schema of its 200 answer, and
 * `{ input: { params, query, body }, errors, handler }`, as in
 * `route.get('/:id', 'getReport', reportSchema, { input: { params: itemParams }, handler })`.
 * The summary and description come from the section of `docs` named by the operationId; a route
 * without one is an error when the module loads, so no operation goes undocumented.
 */
export function routeGroup<K extends ScopeKind = 'request'>(defaults: GroupDefaults<K>): RouteGroup<K> {
  const { errors: shared = [], auth, tags, scope = 'request', permission, accountWide } = defaults;
  const docs = typeof defaults.docs === 'string' ? apiDocs(defaults.docs) : defaults.docs;
  const at = <M extends Method>(method: M): RouteBuilder<M, ScopeOf<K>> =>
    ((
      path: string,
      operationId: string,
      okOrDefinition: unknown,
      definition?: GroupRoute<MaybeSchema, MaybeSchema, MaybeSchema, Responses, ScopeOf<K>>,
    ) => {
      const doc = docs[operationId];
      if (!doc)
        throw new Error(`route ${method.toUpperCase()} ${path}: no section "## ${operationId}" in its docs`);
      const own = definition
        ? { ...definition, responses: { 200: okOrDefinition as v.GenericSchema } }
        : (okOrDefinition as GroupRoute<MaybeSchema, MaybeSchema, MaybeSchema, Responses, ScopeOf<K>>);
      return {
        ...doc,
        permission,
        accountWide,
        ...own,
        errors: [...shared, ...(own.errors ?? [])],
        auth,
        scope,
        tags,
        method,
        path,
        operationId,
      };
    }) as RouteBuilder<M, ScopeOf<K>>;
  return {
    get: at('get'),
    post: at('post'),
    put: at('put'),
    patch: at('patch'),
    delete: at('delete'),
    with: (overrides) => routeGroup<K>({ ...defaults, docs, ...overrides }),
  };
}

function firstStatus(responses: Responses): ContentfulStatusCode {
  const statuses = Object.keys(responses).map(Number) as ContentfulStatusCode[];
  return statuses.find((s) => s >= 200 && s < 300) ?? (statuses[0] as ContentfulStatusCode);
}

/**
 * The app's body limit answers 413 to a request of any method that carries a body (GET cannot);
 * a route that reads a JSON body answers 415 to one that is not JSON.
 */
function bodyErrors(route: AnyRoute): number[] {
  if (route.method === 'get') return [];
  return route.input?.body ? [413, 415] : [413];
}

/** Credentials of an account: while the operator moves it, every request but a GET may answer 503. */
const ACCOUNT_CREDENTIALS = new Set<AuthKind>(['bearerOrApiKey', 'apiKey', 'session', 'sessionHeader']);

function movingErrors(route: AnyRoute, kind: AuthKind): number[] {
  return route.method !== 'get' && ACCOUNT_CREDENTIALS.has(kind) ? [503] : [];
}

/**
 * The path parameter holding the deployment a route acts on: the mount's `deploymentId` for a
 * deployment-scoped route, `id` for `/deployments/:id…`; null when the route has none (a
 * deployment permission then needs an account-wide grant).
 */
function deploymentParamOf(route: AnyRoute): string | null {
  if (route.scope === 'deployment') return 'deploymentId';
  return /^\/deployments\/:id(\/|$)/.test(route.path) ? 'id' : null;
}

/** The operation's description, ending with what it needs beyond the credential. */
function describedNeed(route: AnyRoute): string | undefined {
  const requirement = route.auth === 'admin' ? 'admin' : route.permission;
  if (!requirement) return route.description;
  const need =
    requirement === 'admin'
      ? 'Needs the admin role'
      : adminOnly(requirement)
        ? `Needs the \`${requirement}\` permission, which only the admin role holds (and API keys)`
        : `Needs the \`${requirement}\` permission: a custom role grants it with Cube's actions ${grantedBy(
            requirement,
          )
            .map((a) => `\`${a}\``)
            .join(' + ')} (admins and API keys hold every permission)`;
  const self = route.selfParam ? ', except for a user acting on themselves' : '';
  return [route.description, `${need}${self}.`].filter(Boolean).join('\n\n');
}

function middlewaresOf(route: AnyRoute): MiddlewareHandler[] {
  const auth = typeof route.auth === 'string' ? AUTH[route.auth] : route.auth;
  const docKind = typeof route.auth === 'string' ? AUTH[route.auth].doc : route.auth.kind;
  const chain: MiddlewareHandler[] = [
    doc({
      summary: route.summary,
      description: describedNeed(route),
      tags: route.tags,
      operationId: route.operationId,
      auth: docKind,
      responses: route.responses as Record<number, v.GenericSchema | RawResponse>,
      errors: [...(route.errors ?? []), ...bodyErrors(route), ...movingErrors(route, docKind)],
    }),
  ];
  // Every credential but the operator's names its account's shard; the operator's routes find
  // the account's shard in the directory.
  if (docKind !== 'operator' && docKind !== 'none') chain.push(routeToShard as MiddlewareHandler);
  if (auth.middleware) chain.push(auth.middleware as MiddlewareHandler);
  if (route.accountWide && route.scope === 'request') {
    throw new Error(`route ${route.path}: an account-wide action needs the account's scope`);
  }
  if (route.permission) {
    if (!auth.middleware) throw new Error(`route ${route.path}: a permission needs an authenticated route`);
    chain.push(
      authorize(route.permission, {
        deploymentParam: deploymentParamOf(route),
        selfParam: route.selfParam,
      }) as MiddlewareHandler,
    );
  }
  const { params, query, body } = route.input ?? {};
  if (params) chain.push(validate('param', params));
  if (query) chain.push(validate('query', query));
  if (body) chain.push(validate('json', body));
  return chain;
}

function handlerOf(route: AnyRoute): MiddlewareHandler {
  const status = firstStatus(route.responses);
  return async (c) => {
    const req = c.req as unknown as { valid(target: string): unknown };
    const valid = (target: string) => req.valid(target);
    const input = {
      params: route.input?.params ? valid('param') : undefined,
      query: route.input?.query ? valid('query') : undefined,
      body: route.input?.body ? valid('json') : undefined,
    };
    const scope = resolveScope(route.scope ?? 'request', c as Context<AppEnv>, input.params);
    if (route.accountWide) requireAccountWide((scope as AccountScope).principal);
    const result = await route.handler(c as Context<AppEnv>, input, scope);
    if (result instanceof Response) return result;
    if (result instanceof JsonText)
      return c.body(result.text, status, { 'content-type': 'application/json' });
    return c.json(result as object, status);
  };
}

/** A router serving `definitions`, in order. */
export function routes<const D extends readonly AnyRoute[]>(...definitions: D) {
  const router = createRouter();
  for (const route of definitions) {
    // Hono's typed overloads of `on` count handlers; the list here is built at run time.
    (router.on as (method: string, path: string, ...handlers: MiddlewareHandler[]) => unknown)(
      route.method.toUpperCase(),
      route.path,
      ...middlewaresOf(route),
      handlerOf(route),
    );
  }
  return router as unknown as Hono<AppEnv, RouterSchema<D>, '/'>;
}
