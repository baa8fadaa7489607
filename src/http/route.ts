import type { Context, Hono, MiddlewareHandler, Schema } from 'hono';
import type { ToSchema, TypedResponse } from 'hono/types';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type * as v from 'valibot';
import { authenticate, authenticateOperator, authorize, type Requirement } from '../auth/auth.middleware';
import { resolveScope, type ScopeKind, type ScopeOf } from '../auth/scope';
import { routeToShard } from '../auth/shard-routing';
import type { AppEnv } from '../core/env';
import { type AuthKind, doc } from '../core/openapi';
import { createRouter } from '../core/router';
import type { RequestScope } from '../core/scope';
import { validate } from '../core/validation';

/**
 * Who may call a route. One word drives both the middleware that checks the credential and
 * the route's `security` in the OpenAPI document, so the two cannot drift.
 * - `user`: any user's access token; `admin`: an admin user's access token; both take an API
 *   key too (`Api-Key <key>` or `Bearer <key>`), acting as the account's admin within its scope;
 * - `apiKey`: an account API key only;
 * - `operator`: the ADMIN_TOKEN secret;
 * - `session`: an embed session in `Authorization: Session <id>` or `?session=`, read by the
 *   handler; `sessionHeader`: in the header only; `sessionPage`: `?session=` if any (a page
 *   that loads without one);
 * - `none`: no credential.
 * A route whose credential is checked inside its own query (generate-session) passes
 * `{ kind, middleware }` instead.
 */
export type RouteAuth =
  | 'none'
  | 'operator'
  | 'session'
  | 'sessionHeader'
  | 'sessionPage'
  | 'user'
  | 'admin'
  | 'apiKey'
  | { kind: 'apiKey' | 'session' | 'cubeApi'; middleware: MiddlewareHandler<AppEnv> };

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

/** A response that is not JSON (an image, a page): documented by its content type, or each it may have. */
export interface RawResponse {
  description: string;
  contentType: string | readonly string[];
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type MaybeSchema = v.GenericSchema | undefined;
type Responses = Partial<Record<ContentfulStatusCode, v.GenericSchema | RawResponse>>;

type Out<S extends MaybeSchema> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;
type In<S extends MaybeSchema> = S extends v.GenericSchema ? v.InferInput<S> : never;

/** The validated input a handler receives: path params, query string and JSON body. */
export interface RouteInput<P extends MaybeSchema, Q extends MaybeSchema, B extends MaybeSchema> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
}

/** The body of a JSON response, by status. */
type JsonBodies<R extends Responses> = {
  [K in keyof R & ContentfulStatusCode]: R[K] extends v.GenericSchema ? v.InferInput<R[K]> : never;
};
/** What a handler may return: the body of the first declared status, or (for raw responses) a Response. */
export type HandlerResult<R extends Responses> =
  | JsonBodies<R>[FirstStatus<R>]
  | ({ [K in keyof R]: R[K] extends RawResponse ? true : never }[keyof R] extends never ? never : Response);

type FirstStatus<R extends Responses> =
  Extract<keyof R, 200 | 201 | 202 | 204> extends infer S
    ? [S] extends [never]
      ? keyof R & ContentfulStatusCode
      : S & ContentfulStatusCode
    : never;

export interface RouteDefinition<
  M extends Method,
  Path extends string,
  P extends MaybeSchema,
  Q extends MaybeSchema,
  B extends MaybeSchema,
  R extends Responses,
  X extends RequestScope = RequestScope,
> {
  method: M;
  path: Path;
  auth: RouteAuth;
  summary: string;
  description?: string;
  tags: string[];
  operationId?: string;
  /** The schemas of the path parameters, the query string and the JSON body, each validated before the handler. */
  input?: { params?: P; query?: Q; body?: B };
  /** Responses: status → valibot schema of the JSON body, or a raw response (an image; an error as a page). */
  responses: R;
  /** Error statuses beyond those every route documents: 400, 401 (auth) and, with a JSON body, 413 and 415. */
  errors?: number[];
  /** The scope the handler is called with (resolved after auth and validation); `request` when absent. */
  scope?: ScopeKind;
  /**
   * What a user needs beyond the credential: a permission (src/core/permissions.ts: admins and
   * API keys hold every one) or `admin`, the built-in admin role. Checked by the auth layer
   * right after the credential, on the deployment of the path for a deployment permission.
   */
  permission?: Requirement;
  /** The path parameter naming a user: a user acting on themselves needs no `permission`. */
  selfParam?: string;
  /**
   * Runs after auth and validation with the route's scope; returns the JSON body the schema of
   * `responses` declares.
   */
  handler: (c: Context<AppEnv>, input: RouteInput<P, Q, B>, scope: X) => Promise<HandlerResult<R>>;
}

// `any`, not `Method`/`string`: a contextual `string` would widen every route's path and untype the client.
// biome-ignore lint/suspicious/noExplicitAny: a route of any shape, for the list a router is built from
type AnyRoute = RouteDefinition<any, any, any, any, any, any, any>;

/** What a route of a group declares itself: its input, responses, errors and handler. */
type GroupRoute<
  P extends MaybeSchema,
  Q extends MaybeSchema,
  B extends MaybeSchema,
  R extends Responses,
  X extends RequestScope,
> = Omit<
  RouteDefinition<Method, string, P, Q, B, R, X>,
  'method' | 'path' | 'operationId' | 'auth' | 'tags' | 'summary' | 'scope'
>;

/** What the routes of one group share. */
export interface GroupDefaults<K extends ScopeKind = 'request'> {
  auth: RouteAuth;
  /**
   * The scope each handler is called with: `request` (database, clock, platform), `account`
   * (plus the caller's account and principal) or `deployment` (plus the path's deploymentId,
   * checked against an API key's scope, and the acting user).
   */
  scope?: K;
  tags: string[];
  /** Each operation's summary and description: the router's Markdown file, or `apiDocs` of it. */
  docs: string | ApiDocs;
  /** Error statuses every route of the group may answer (each route adds its own). */
  errors?: number[];
  /** What every route of the group needs beyond the credential (a route may name its own). */
  permission?: Requirement;
}

/** A route answering 200 with one JSON schema passes that schema after its operationId; `responses` is implied. */
type GroupRouteOk<
  P extends MaybeSchema,
  Q extends MaybeSchema,
  B extends MaybeSchema,
  S extends v.GenericSchema,
  X extends RequestScope,
> = Omit<GroupRoute<P, Q, B, { 200: S }, X>, 'responses'>;

/** Declares one route of a group, for one method. */
interface RouteBuilder<M extends Method, X extends RequestScope> {
  /** A route answering 200 with the JSON body `ok` describes: `route.get('/:id', 'getReport', reportSchema, {…})`. */
  <
    Path extends string,
    S extends v.GenericSchema,
    P extends MaybeSchema = undefined,
    Q extends MaybeSchema = undefined,
    B extends MaybeSchema = undefined,
  >(
    path: Path,
    operationId: string,
    ok: S,
    definition: GroupRouteOk<P, Q, B, S, X>,
  ): RouteDefinition<M, Path, P, Q, B, { 200: S }, X>;
  /** A route with other responses (another status, an image, a page), listed in `responses`. */
  <
    Path extends string,
    P extends MaybeSchema = undefined,
    Q extends MaybeSchema = undefined,
    B extends MaybeSchema = undefined,
    R extends Responses = Responses,
  >(
    path: Path,
    operationId: string,
    definition: GroupRoute<P, Q, B, R, X>,
  ): RouteDefinition<M, Path, P, Q, B, R, X>;
}

/**
 * Routes that share a credential, tags, error statuses and a Markdown file of documentation:
 * `const route = routeGroup({ auth: 'user', tags: ['Reports'], errors: [404], docs: markdown })`,
 * then one call per route: method, path, operationId, the schema of its 200 answer, and
 * `{ input: { params, query, body }, errors, handler }`, as in
 * `route.get('/:id', 'getReport', reportSchema, { input: { params: itemParams }, handler })`.
 * The summary and description come from the section of `docs` named by the operationId; a route
 * without one is an error when the module loads, so no operation goes undocumented.
 */
export function routeGroup<K extends ScopeKind = 'request'>(defaults: GroupDefaults<K>) {
  const { errors: shared = [], auth, tags, scope = 'request', permission } = defaults;
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
  return { get: at('get'), post: at('post'), put: at('put'), patch: at('patch'), delete: at('delete') };
}

/** The route builders of one group: `get`, `post`, `put`, `patch` and `delete`, whose handlers get a `ScopeOf<K>`. */
export type RouteGroup<K extends ScopeKind = 'request'> = {
  [M in Method]: RouteBuilder<M, ScopeOf<K>>;
};

/** An operation's documentation: the one-line summary and, optionally, the longer description. */
export interface OperationDoc {
  summary: string;
  description?: string;
}

/**
 * The documentation of a router's operations, by operationId, from the Markdown file beside it:
 * each `## operationId: Summary` heading starts a section whose text is the description.
 * Text before the first heading is the file's own introduction; `{{NAME}}` is replaced by
 * `values[NAME]` (a limit defined in code), and a name not given is an error at load.
 */
export type ApiDocs = Readonly<Record<string, OperationDoc>>;

export function apiDocs(markdown: string, values: Record<string, string | number> = {}): ApiDocs {
  const sections: Record<string, OperationDoc> = {};
  // `{{NAME}}` stands for a limit the code defines, so the prose cannot drift from it.
  const fill = (text: string) =>
    text.replace(/\{\{([\w.]+)\}\}/g, (_, name: string) => {
      if (!(name in values)) throw new Error(`apiDocs: {{${name}}} is not given`);
      return String(values[name]);
    });
  for (const part of markdown.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    const heading = newline < 0 ? part : part.slice(0, newline);
    const colon = heading.indexOf(': ');
    if (colon < 0) throw new Error(`apiDocs: heading "## ${heading}" is not "## operationId: Summary"`);
    const id = heading.slice(0, colon).trim();
    if (id in sections) throw new Error(`apiDocs: section "${id}" appears twice`);
    const description = newline < 0 ? '' : part.slice(newline + 1).trim();
    sections[id] = {
      summary: fill(heading.slice(colon + 2).trim()),
      ...(description ? { description: fill(description) } : {}),
    };
  }
  return sections;
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
      : `Needs the \`${requirement}\` permission (admins and API keys hold every permission)`;
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
    const result = await route.handler(c as Context<AppEnv>, input, scope);
    if (result instanceof Response) return result;
    return c.json(result as object, status);
  };
}

// ---- The router a list of routes becomes, typed for hono/client ----

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;

type NoPart = Record<never, never>;

type QueryOf<Q extends MaybeSchema> = {
  [K in keyof In<Q>]: In<Q>[K] extends string | undefined ? In<Q>[K] : string | string[];
};

// Read from the route's properties, not by inferring RouteDefinition's parameters: the handler's
// types are too intricate for TypeScript to infer them back, and a failed inference typed the
// whole router as `never`.
type SchemaOfRoute<M extends Method, Path extends string, P, Q, B, R extends Responses> = ToSchema<
  M,
  Path,
  // Only the parts a route declares, so a client need not pass the others.
  ([P] extends [never]
    ? NoPart
    : [P] extends [v.GenericSchema]
      ? { param: Record<keyof In<P> & string, string> }
      : NoPart) &
    ([Q] extends [never]
      ? NoPart
      : [Q] extends [v.GenericSchema]
        ? // A query whose parameters are all optional may be left out, so adding one breaks no caller.
          NoPart extends In<Q>
          ? { query?: QueryOf<Q> }
          : { query: QueryOf<Q> }
        : NoPart) &
    ([B] extends [never] ? NoPart : [B] extends [v.GenericSchema] ? { json: In<B> } : NoPart),
  TypedResponse<JsonBodies<R>[FirstStatus<R>], FirstStatus<R>, 'json'>
>;

type SchemaOf<D> = D extends {
  method: infer M extends Method;
  path: infer Path extends string;
  responses: infer R extends Responses;
}
  ? SchemaOfRoute<
      M,
      Path,
      NonNullable<D extends { input?: { params?: infer P } } ? P : undefined>,
      NonNullable<D extends { input?: { query?: infer Q } } ? Q : undefined>,
      NonNullable<D extends { input?: { body?: infer B } } ? B : undefined>,
      R
    >
  : never;

type RouterSchema<D extends readonly AnyRoute[]> =
  UnionToIntersection<SchemaOf<D[number]>> extends infer S extends Schema ? S : never;

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
