import { errors } from 'jose';
import * as v from 'valibot';
import { hmacSigningKey, signHs256, verifyHs256 } from '../core/crypto';
import { ApiError } from '../core/errors';
import type { ControlFilter } from '../semantic/query/controls';
import { asControlFilters, lockedFiltersInput } from './embed-sessions.schemas';
import { MAX_SESSION_ID_LENGTH } from './embedding.schemas';

/**
 * The sessionId is a compact HS256 JWS: everything needed to authorise a load without
 * storage (account, deployment, user, tenant, creatorMode, settings, expiry), so a forged,
 * altered or expired id is refused before KV or D1 is touched.
 */

export interface SessionSettings {
  /** Absent: the account-wide toggle applies (read at load time). */
  showDashboardChat?: boolean;
  /** Canonical BCP 47 tag: the viewer formats numbers and dates in it. */
  locale?: string;
  /** IANA time zone the viewer shows dates in. */
  timezone?: string;
  /** Cube's AI and workbook switches: carried and returned, no effect in edgeboard. */
  allowAi?: boolean;
  allowChatWorkspaceAuthoring?: boolean;
  showAiWidgets?: boolean;
  showDashboardSettings?: boolean;
  showGroupByCube?: boolean;
  showMemberNames?: boolean;
  showWorkbookChat?: boolean;
  showWorkbookShare?: boolean;
}

const flag = v.optional(v.boolean());
const settingsClaim = v.object({
  showDashboardChat: flag,
  locale: v.optional(v.pipe(v.string(), v.maxLength(64))),
  timezone: v.optional(v.pipe(v.string(), v.maxLength(64))),
  allowAi: flag,
  allowChatWorkspaceAuthoring: flag,
  showAiWidgets: flag,
  showDashboardSettings: flag,
  showGroupByCube: flag,
  showMemberNames: flag,
  showWorkbookChat: flag,
  showWorkbookShare: flag,
});

export interface SessionClaims {
  sessionId: string;
  /**
   * The shard the account lives in (claim `sh`), where the session's loads read; absent in a
   * session signed before sharding, which reads shard 0.
   */
  shard?: number;
  accountId: number;
  deploymentId: number;
  user: { kind: 'external' | 'internal'; id: number };
  tenant: { id: number; name: string };
  creatorMode: boolean;
  settings: SessionSettings;
  /** Cube's publicDashboardId: the one dashboard this session may load. */
  publicDashboardId?: string;
  /** Filters every load of this session applies and its viewer cannot change (generate-session's lockedFilters). */
  locked?: ControlFilter[];
  /** Cube's isEphemeral: the external user is not stored (user id 0; the state lives in KV only). */
  ephemeral?: boolean;
  /** Seconds since the epoch, like the JWT claims. */
  issuedAt: number;
  expiresAt: number;
}

/**
 * Whether the session names a stored embed user: the only user who writes dashboard comments (an
 * ephemeral user is not stored, an internal one is a console user, not an embed user of the tenant;
 * both may only read them).
 */
export const isStoredEmbedUser = (claims: Pick<SessionClaims, 'user' | 'ephemeral'>): boolean =>
  claims.user.kind === 'external' && !claims.ephemeral;

export interface SigningSecrets {
  SESSION_SIGNING_KEY: string;
  SESSION_SIGNING_KEY_PREVIOUS?: string;
}

/** Sessions are signed with the secret as it is (what every session minted so far was signed with). */
const signingKey = (secret: string) => hmacSigningKey(`edgeboard-session-kid:${secret}`, () => secret);

function currentSecret(secrets: SigningSecrets): string {
  // A missing secret is a deployment error, never something a client can cause.
  if (!secrets.SESSION_SIGNING_KEY) throw new Error('SESSION_SIGNING_KEY is not configured');
  return secrets.SESSION_SIGNING_KEY;
}

/**
 * What a signed id is: a session id (generate-session) or an embed token (the session/token
 * exchange). A token is never accepted where a session id is expected, nor the other way.
 */
export type TokenUse = 'session' | 'token';

export async function signSession(
  secrets: SigningSecrets,
  claims: SessionClaims,
  use: TokenUse = 'session',
): Promise<string> {
  return signHs256(await signingKey(currentSecret(secrets)), sessionPayload(claims, use));
}

/** The claims of a session (or embed token) as its JWS payload, in the order jose wrote them. */
export function sessionPayload(claims: SessionClaims, use: TokenUse = 'session'): Record<string, unknown> {
  return {
    // Shard 0's sessions carry no `sh`, as before sharding: an absent claim reads as 0.
    ...(claims.shard && { sh: claims.shard }),
    acc: claims.accountId,
    dep: claims.deploymentId,
    tid: claims.tenant.id,
    ten: claims.tenant.name,
    cm: claims.creatorMode,
    set: claims.settings,
    ...(claims.publicDashboardId !== undefined && { pd: claims.publicDashboardId }),
    ...(claims.ephemeral && { eph: true }),
    ...(claims.locked?.length && { lf: claims.locked }),
    ...(use === 'token' && { use: 'token' }),
    jti: claims.sessionId,
    sub: `${claims.user.kind === 'external' ? 'e' : 'i'}:${claims.user.id}`,
    iat: claims.issuedAt,
    exp: claims.expiresAt,
  };
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const positiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));

const payloadSchema = v.object({
  jti: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  sub: v.pipe(v.string(), v.regex(/^[ei]:(0|[1-9]\d*)$/)),
  sh: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  acc: positiveInt,
  dep: positiveInt,
  tid: positiveInt,
  ten: v.string(),
  cm: v.boolean(),
  set: settingsClaim,
  pd: v.optional(v.pipe(v.string(), v.maxLength(64))),
  eph: v.optional(v.literal(true)),
  lf: v.optional(lockedFiltersInput),
  use: v.optional(v.literal('token')),
  iat: v.number(),
  exp: v.number(),
});

export const invalidSession = () => new ApiError('SESSION_INVALID', 'Invalid embed session');

/**
 * Verifies signature (current key, or the previous one during a rotation, chosen by kid)
 * and expiry against `now`. Throws SESSION_INVALID or SESSION_EXPIRED; reads no storage.
 */
export async function verifySession(
  secrets: SigningSecrets,
  token: string,
  now: Date,
  use: TokenUse = 'session',
): Promise<SessionClaims> {
  if (token.length > MAX_SESSION_ID_LENGTH || !COMPACT_JWS.test(token)) throw invalidSession();
  const keys = await Promise.all(
    [currentSecret(secrets), secrets.SESSION_SIGNING_KEY_PREVIOUS]
      .filter((s): s is string => Boolean(s))
      .map(signingKey),
  );
  let payload: unknown;
  try {
    payload = await verifyHs256(token, keys, now, ['jti', 'sub', 'exp', 'iat']);
  } catch (error) {
    if (error instanceof errors.JWTExpired) {
      throw new ApiError('SESSION_EXPIRED', 'Embed session expired: mint a new one');
    }
    throw invalidSession();
  }
  const parsed = v.safeParse(payloadSchema, payload);
  if (!parsed.success) throw invalidSession();
  const p = parsed.output;
  if ((p.use ?? 'session') !== use) throw invalidSession();
  if (p.sub === 'i:0' || (p.sub === 'e:0') !== (p.eph === true)) throw invalidSession();
  return {
    sessionId: p.jti,
    shard: p.sh ?? 0,
    accountId: p.acc,
    deploymentId: p.dep,
    user: { kind: p.sub.startsWith('e:') ? 'external' : 'internal', id: Number(p.sub.slice(2)) },
    tenant: { id: p.tid, name: p.ten },
    creatorMode: p.cm,
    settings: Object.fromEntries(Object.entries(p.set).filter(([, value]) => value !== undefined)),
    ...(p.pd !== undefined && { publicDashboardId: p.pd }),
    ...(p.eph && { ephemeral: true }),
    ...(p.lf?.length && { locked: asControlFilters(p.lf) }),
    issuedAt: p.iat,
    expiresAt: p.exp,
  };
}
