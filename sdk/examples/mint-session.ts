/**
 * Server-side quick start: the customer's backend mints an edgeboard embed session for the user
 * signed in to its site, and answers the host page's `fetchSession` (the embed SDK) with it. The
 * API key never leaves the backend. Web-standard only (fetch, Request, Response), so it runs on
 * Cloudflare Workers, Node 18+, Deno and Bun. Types follow the OpenAPI document
 * (`GET /api/v1/openapi.json`, operation `generateSession`); test/docs/mint-session.test.ts keeps
 * them in step with the server's own schema.
 */

/** The body of `POST /api/v1/embed/generate-session` (E9). */
export interface GenerateSessionRequest {
  deploymentId: number;
  /** Your id for the user: lowercase, trimmed. Exactly one of externalId or internalId. */
  externalId?: string | null;
  /** A username of your edgeboard account (no profile, groups or attributes then). */
  internalId?: string | null;
  email?: string | null;
  userProfile?: { displayName?: string | null; picture?: string | null } | null;
  embedTenantName?: string | null;
  embedTenantProfile?: { displayName?: string | null } | null;
  embedTheme?: Record<string, unknown> | null;
  creatorMode?: boolean | null;
  /** The user is not stored (not counted against the external-user limit). */
  isEphemeral?: boolean | null;
  /** The only dashboard the session may load. */
  publicDashboardId?: string | null;
  branchName?: string | null;
  roles?: string[] | null;
  groups?: string[] | null;
  tenantGroups?: string[] | null;
  userAttributes?: { name: string; value?: string | number | boolean | string[] | number[] | null }[] | null;
  userAttributeDefinitions?:
    | {
        name: string;
        type: 'string' | 'number' | 'boolean' | 'string_array' | 'number_array';
        displayName?: string | null;
        defaultValue?: string | null;
        description?: string | null;
      }[]
    | null;
  groupDefinitions?: { name: string; description?: string | null }[] | null;
  tenantGroupDefinitions?: { name: string; description?: string | null }[] | null;
  securityContext?: Record<string, unknown> | null;
  settings?: {
    allowAi?: boolean | null;
    allowChatWorkspaceAuthoring?: boolean | null;
    /** BCP 47; the viewer formats numbers and dates in it. */
    locale?: string | null;
    showAiWidgets?: boolean | null;
    showDashboardChat?: boolean | null;
    showDashboardSettings?: boolean | null;
    showGroupByCube?: boolean | null;
    showMemberNames?: boolean | null;
    showWorkbookChat?: boolean | null;
    showWorkbookShare?: boolean | null;
    timezone?: string | null;
  } | null;
}

/** Its answer, which is also what the embed SDK's `fetchSession` resolves to. */
export interface EmbedSession {
  sessionId: string;
  expiresAt: string;
}

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
  const request: GenerateSessionRequest = { deploymentId: config.deploymentId, ...user };
  const res = await (config.fetch ?? fetch)(
    `${config.baseUrl.replace(/\/+$/, '')}/api/v1/embed/generate-session`,
    {
      method: 'POST',
      headers: { authorization: `Api-Key ${config.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    },
  );
  if (!res.ok) throw new EdgeboardError(res.status, (await res.json()) as ApiErrorBody);
  return (await res.json()) as EmbedSession;
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
