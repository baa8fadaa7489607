import { and, eq, or } from 'drizzle-orm';
import type { Context } from 'hono';
import { accountForwardKey, type ForwardKind, forwards } from '../../schema/moves';
import { sha256Hex } from '../core/crypto';
import type { AppEnv, Db, Replay } from '../core/env';

/**
 * Forwards: what still names the shard an account was moved away from (docs/sharding.md,
 * "Moving an account"). Credentials, sessions, public ids and ids issued before a move carry
 * the old shard; the old shard keeps a `forwards` row for each such hint. Only a request whose
 * hint finds nothing on its shard (a 401 or 404) looks it up, so accounts that never moved pay
 * nothing; one that did is answered by running the request again on the shard the forward names.
 */

/** A hint a request carries, as `forwards` keys it. */
export interface Hint {
  kind: ForwardKind;
  key: string;
}

/**
 * Thrown where a lookup finds the account gone from the request's shard (its row says where it
 * went, or a forward does): the routing middleware runs the request again on `shard`.
 */
export class ShardForward extends Error {
  constructor(readonly shard: number) {
    super(`The account lives on shard ${shard}`);
    this.name = 'ShardForward';
  }
}

export type { Replay };

// Keyed by the Request object the app dispatches again: a caller cannot name a shard with it.
const replays = new WeakMap<Request, Replay>();

/** The replay a request is, if the routing middleware made it (src/auth/shard-routing.ts). */
export const replayOf = (request: Request): Replay | undefined => replays.get(request);

/** `original` (a clone taken before its body was read) as a request to run again on `replay.shard`. */
export function replayRequest(original: Request, replay: Replay): Request {
  const request = new Request(original);
  replays.set(request, replay);
  return request;
}

/** The `acc` claim of an unverified JWS (an embed session or token, a Cube API token); null without one. */
function accountClaimOf(token: string): number | null {
  const body = token.split('.')[1];
  if (!body || body.length > 8192) return null;
  try {
    const claims = JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/'))) as { acc?: unknown };
    return Number.isSafeInteger(claims?.acc) ? (claims.acc as number) : null;
  } catch {
    return null;
  }
}

/**
 * The hints of a request, in the order routing reads them: the secret in `Authorization` (by
 * its hash), else the account a signed token names, then the public id of the path.
 */
export async function hintsOf(c: Context<AppEnv>): Promise<Hint[]> {
  const hints: Hint[] = [];
  const header = c.req.header('authorization')?.trim();
  const credential = header?.slice(header.lastIndexOf(' ') + 1);
  if (credential?.startsWith('eb_')) {
    hints.push({ kind: 'secret', key: await sha256Hex(credential) });
  } else {
    const signed = credential ?? c.req.query('session');
    const account = signed ? accountClaimOf(signed) : null;
    if (account !== null) hints.push({ kind: 'account', key: accountForwardKey(account) });
  }
  const publicId = c.req.param('publicId');
  if (publicId) hints.push({ kind: 'public-id', key: publicId });
  return hints;
}

/** The shard the first of `hints` with a forward on this shard names; null when none has one. */
export async function forwardedShard(db: Db, hints: Hint[]): Promise<number | null> {
  if (hints.length === 0) return null;
  const rows = await db
    .select({ kind: forwards.kind, key: forwards.key, shard: forwards.shard })
    .from(forwards)
    .where(or(...hints.map((h) => and(eq(forwards.kind, h.kind), eq(forwards.key, h.key)))));
  for (const hint of hints) {
    const row = rows.find((r) => r.kind === hint.kind && r.key === hint.key);
    if (row) return row.shard;
  }
  return null;
}

/** Sends the request on when `hint`, which found nothing on this shard, has a forward here. */
export async function followForward(db: Db, hint: Hint): Promise<void> {
  const shard = await forwardedShard(db, [hint]);
  if (shard !== null) throw new ShardForward(shard);
}
