/**
 * Server-side quick start: the customer's backend mints an edgeboard embed session for the user
 * signed in to its site, and answers the host page's `fetchSession` (the embed SDK) with it. The
 * API key never leaves the backend. The call goes through `hc<AppType>` from `hono/client`:
 * `AppType` (src/app.ts) is the type of edgeboard's whole API, so the request body and the answer
 * are typed by the server's own route definitions (a type-only import: no edgeboard code runs in
 * your backend, only `hono/client` and fetch). Runs on Cloudflare Workers, Node 18+, Deno and Bun;
 * test/docs/mint-session.test.ts drives it against the Worker.
 */
import { hc, type InferRequestType, type InferResponseType } from 'hono/client';
import type { AppType } from '../../src/app';

/** The typed client's generate-session endpoint, for the types below. */
type GenerateSession = ReturnType<typeof hc<AppType>>['api']['v1']['embed']['generate-session']['$post'];

/** The body of `POST /api/v1/embed/generate-session` (E9), as the server declares it. */
export type GenerateSessionRequest = InferRequestType<GenerateSession>['json'];

/** Its answer, which is also what the embed SDK's `fetchSession` resolves to. */
export type EmbedSession = InferResponseType<GenerateSession, 200>;

/** edgeboard's error envelope (`details` only on validation errors). */
export interface ApiErrorBody {
  error: string;
  code: string;
  requestId: string;
  details?: { path: string; message: string }[];
}

export interface EdgeboardConfig {
  /** Where edgeboard answers, e.g. `https://edgeboard.example.com`. */
  baseUrl: string;
  /** An API key of your account (`eb_ak_…`), from your secrets. */
  apiKey: string;
  deploymentId: number;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** A refusal by edgeboard, with its status and envelope. */
export class EdgeboardError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(`edgeboard answered ${status} ${body.code}: ${body.error}`);
  }
}

/** Mints one session for a user of your site. */
export async function mintEmbedSession(
  config: EdgeboardConfig,
  user: Omit<GenerateSessionRequest, 'deploymentId'>,
): Promise<EmbedSession> {
  const client = hc<AppType>(config.baseUrl.replace(/\/+$/, ''), {
    headers: { authorization: `Api-Key ${config.apiKey}` },
    fetch: config.fetch,
  });
  const res = await client.api.v1.embed['generate-session'].$post({
    json: { deploymentId: config.deploymentId, ...user },
  });
  // Refusals are the error envelope, which the route's typed answers do not list.
  if (!res.ok) throw new EdgeboardError(res.status, (await res.json()) as unknown as ApiErrorBody);
  return res.json();
}

/** Who is signed in to your site, as your own session layer knows it. */
export interface SiteUser {
  id: string;
  name: string;
  email?: string;
  region?: string;
}

/**
 * Your backend's route for the host page (`POST /edgeboard-session`): 401 for a visitor who is
 * not signed in, else `{sessionId, expiresAt}` for the signed-in user.
 */
export function embedSessionRoute(
  config: EdgeboardConfig,
  currentUser: (request: Request) => Promise<SiteUser | null>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    const user = await currentUser(request);
    if (!user) return Response.json({ error: 'Sign in first' }, { status: 401 });
    const session = await mintEmbedSession(config, {
      externalId: user.id.trim().toLowerCase(),
      email: user.email,
      userProfile: { displayName: user.name },
      userAttributes: user.region ? [{ name: 'region', value: user.region }] : undefined,
    });
    // A session is a credential: no caching anywhere between your backend and the page.
    return Response.json(session, { headers: { 'cache-control': 'no-store' } });
  };
}
