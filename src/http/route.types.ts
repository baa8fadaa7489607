import type { Context, MiddlewareHandler, Schema } from 'hono';
import type { ToSchema, TypedResponse } from 'hono/types';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type * as v from 'valibot';
import type { Requirement } from '../auth/auth.middleware';
import type { ScopeKind, ScopeOf } from '../auth/scope';
import type { AppEnv } from '../core/env';
import type { RequestScope } from '../core/scope';
import type { ApiDocs } from './api-docs';
import type { JsonText } from './json-text';

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

/** A response that is not JSON (an image, a page): documented by its content type, or each it may have. */
export interface RawResponse {
  description: string;
  contentType: string | readonly string[];
}

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type MaybeSchema = v.GenericSchema | undefined;
export type Responses = Partial<Record<ContentfulStatusCode, v.GenericSchema | RawResponse>>;

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
/**
 * What a handler may return: the body of the first declared status (or its JSON text, as
 * `jsonText` writes it), or (for raw responses) a Response.
 */
export type HandlerResult<R extends Responses> =
  | JsonBodies<R>[FirstStatus<R>]
  | JsonText<JsonBodies<R>[FirstStatus<R>]>
  | ({ [K in keyof R]: R[K] extends RawResponse ? true : never }[keyof R] extends never ? never : Response);

export type FirstStatus<R extends Responses> =
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
   * An account-wide action (API keys, the account's settings): an API key scoped to deployments
   * gets 403 KEY_SCOPE, checked with the scope, before the handler runs.
   */
  accountWide?: boolean;
  /**
   * Runs after auth and validation with the route's scope; returns the JSON body the schema of
   * `responses` declares.
   */
  handler: (c: Context<AppEnv>, input: RouteInput<P, Q, B>, scope: X) => Promise<HandlerResult<R>>;
}

// `any`, not `Method`/`string`: a contextual `string` would widen every route's path and untype the client.
// biome-ignore lint/suspicious/noExplicitAny: a route of any shape, for the list a router is built from
export type AnyRoute = RouteDefinition<any, any, any, any, any, any, any>;

/** What a route of a group declares itself: its input, responses, errors and handler. */
export type GroupRoute<
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
  /** Every route of the group is an account-wide action (see the route's `accountWide`). */
  accountWide?: boolean;
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
export interface RouteBuilder<M extends Method, X extends RequestScope> {
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
 * The route builders of one group: `get`, `post`, `put`, `patch` and `delete`, whose handlers
 * get a `ScopeOf<K>`, and `with`, the group that differs only in what it names (its scope stays).
 */
export type RouteGroup<K extends ScopeKind = 'request'> = {
  [M in Method]: RouteBuilder<M, ScopeOf<K>>;
} & {
  /**
   * The same group but for `overrides`: `readRoute.with({ permission: 'SchemaUpdate' })` is the
   * group whose routes also need SchemaUpdate. Each route may still name its own.
   */
  with(overrides: Partial<Omit<GroupDefaults<K>, 'scope'>>): RouteGroup<K>;
};

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

export type RouterSchema<D extends readonly AnyRoute[]> =
  UnionToIntersection<SchemaOf<D[number]>> extends infer S extends Schema ? S : never;
