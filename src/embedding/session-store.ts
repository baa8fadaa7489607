import type { AttributeValue } from './embedding.schemas';
import type { SessionSettings } from './session-token';

/** The viewer of a session: an external user (externalId) or an internal one (internalId). */
export type SessionUser =
  | {
      kind: 'external';
      id: number;
      externalId: string;
      email: string | null;
      displayName: string | null;
      picture: string | null;
    }
  | {
      kind: 'internal';
      id: number;
      username: string;
      email: string;
      displayName: string | null;
      picture: string | null;
    };

/**
 * Where a mint's D1 writes landed: the shard they were written on and the D1 bookmark after them
 * (null when the runtime gave none). A bookmark is one database's position, meaningless to
 * another shard's, so it is kept with its shard.
 */
export interface WriteBookmark {
  shard: number;
  bookmark: string | null;
}

/**
 * What KV keeps per session (schema/kv.md): the token's claims plus the user's state at
 * mint time, so a load needs one KV read and no joins.
 */
export interface SessionPayload {
  v: 1;
  sessionId: string;
  accountId: number;
  deploymentId: number;
  tenant: { id: number; name: string };
  creatorMode: boolean;
  settings: SessionSettings;
  expiresAt: string;
  user: SessionUser;
  groups: string[];
  attributes: Record<string, Exclude<AttributeValue, null>>;
  securityContext: Record<string, unknown> | null;
  /**
   * Set when the mint wrote to D1: a load resumes its replica session at this bookmark, so it
   * reads at least what the mint wrote (a new tenant's catalogue) wherever it runs. Absent when
   * nothing was written, and on a payload rebuilt from the primary.
   */
  written?: WriteBookmark;
}

/** The one key builder of the `session:` prefix. */
export const sessionKey = (sessionId: string): string => `session:${sessionId}`;

/** KV refuses an expirationTtl under 60 s; the token's own expiry still ends the session on time. */
export const MIN_KV_TTL_SECONDS = 60;

export async function putSession(kv: KVNamespace, payload: SessionPayload, now: Date): Promise<void> {
  const left = Math.ceil((Date.parse(payload.expiresAt) - now.getTime()) / 1000);
  if (left <= 0) return;
  await kv.put(sessionKey(payload.sessionId), JSON.stringify(payload), {
    expirationTtl: Math.max(MIN_KV_TTL_SECONDS, left),
  });
}

export async function getSession(kv: KVNamespace, sessionId: string): Promise<SessionPayload | null> {
  const payload = await kv.get<SessionPayload>(sessionKey(sessionId), 'json');
  // An entry of another shape (an older format) is treated like a miss: D1 rebuilds it.
  return payload && payload.v === 1 && payload.sessionId === sessionId ? payload : null;
}

export async function deleteSession(kv: KVNamespace, sessionId: string): Promise<void> {
  await kv.delete(sessionKey(sessionId));
}
