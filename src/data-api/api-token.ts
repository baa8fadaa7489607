import * as v from 'valibot';
import { hmacSigningKey, sha256Hex, signHs256, verifyHs256 } from '../core/crypto';
import { ApiError } from '../core/errors';

/**
 * Cube API tokens (`POST /api/v1/deployments/{id}/token`): HS256 JWTs that name their
 * deployment and carry the security context policies see. Signed with a key derived from
 * SESSION_SIGNING_KEY (domain-separated, so a token is never a session id nor the reverse);
 * during a rotation tokens signed with the previous key still verify until they expire.
 */
export interface ApiTokenClaims {
  /**
   * The shard the account lives in (claim `sh`), where the token's queries read; absent in a
   * token signed before sharding, which reads shard 0.
   */
  shard?: number;
  accountId: number;
  deploymentId: number;
  securityContext: Record<string, unknown>;
  expiresAt: number;
}

interface Secrets {
  SESSION_SIGNING_KEY: string;
  SESSION_SIGNING_KEY_PREVIOUS?: string;
}

const TOKEN_USE = 'cube-api';

/** The token key is derived from the secret, never the secret itself (which also signs sessions). */
const keyOf = (secret: string) =>
  hmacSigningKey(`edgeboard-cube-api-kid:${secret}`, () => sha256Hex(`edgeboard-cube-api-token:${secret}`));

export async function signApiToken(secrets: Secrets, claims: ApiTokenClaims, now: Date): Promise<string> {
  return signHs256(await keyOf(secrets.SESSION_SIGNING_KEY), {
    use: TOKEN_USE,
    // Shard 0's tokens carry no `sh`, as before sharding: an absent claim reads as 0.
    ...(claims.shard && { sh: claims.shard }),
    acc: claims.accountId,
    dep: claims.deploymentId,
    sc: claims.securityContext,
    iat: Math.floor(now.getTime() / 1000),
    exp: claims.expiresAt,
  });
}

const payloadSchema = v.object({
  use: v.literal(TOKEN_USE),
  sh: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  acc: v.pipe(v.number(), v.integer()),
  dep: v.pipe(v.number(), v.integer()),
  sc: v.record(v.string(), v.unknown()),
  exp: v.number(),
});

const invalidToken = () => new ApiError('UNAUTHORIZED', 'Invalid or expired Cube API token');

/** Whether a compact JWS says it is a Cube API token (unverified: only to pick the verifier). */
export function looksLikeApiToken(token: string): boolean {
  const [, body] = token.split('.');
  if (!body) return false;
  try {
    const json = JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/')));
    return json?.use === TOKEN_USE;
  } catch {
    return false;
  }
}

export async function verifyApiToken(secrets: Secrets, token: string, now: Date): Promise<ApiTokenClaims> {
  if (token.length > 8192) throw invalidToken();
  const candidates = await Promise.all(
    [secrets.SESSION_SIGNING_KEY, secrets.SESSION_SIGNING_KEY_PREVIOUS]
      .filter((s): s is string => Boolean(s))
      .map(keyOf),
  );
  let payload: unknown;
  try {
    payload = await verifyHs256(token, candidates, now, ['exp', 'iat']);
  } catch {
    throw invalidToken();
  }
  const parsed = v.safeParse(payloadSchema, payload);
  if (!parsed.success) throw invalidToken();
  const p = parsed.output;
  return { shard: p.sh ?? 0, accountId: p.acc, deploymentId: p.dep, securityContext: p.sc, expiresAt: p.exp };
}
