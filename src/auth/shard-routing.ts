import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../core/env';
import { shardOfPublicId } from '../core/shard-marks';
import { isShard, openShard, shardCount } from '../core/shards';
import { shardOfSecret } from './credentials';
import { forwardedShard, hintsOf, replayRequest, ShardForward } from './forwards';

/**
 * Points the request at shard `shard`: the scope's `db`/`d1` (and the `db`/`d1` variables routes
 * not yet on the scope read) become that shard's, counted like the rest of the request. A shard
 * the configuration does not list (a forged or corrupt mark) leaves the request on shard 0,
 * where the credential's lookup fails like any unknown credential's.
 */
export function useShard(c: Context<AppEnv>, shard: number): void {
  const scope = c.get('scope');
  const target = isShard(c.env, shard) ? shard : 0;
  if (scope.shard === target) return;
  const { d1, db } = openShard(c.env, target, c.get('queries'));
  c.set('d1', d1);
  c.set('db', db);
  c.set('scope', { ...scope, shard: target, d1, db });
}

/**
 * Runs `run` on `shard`, then again on the shard each `ShardForward` it throws names, hop by hop
 * as `routeToShard` runs a request again: for a route that picks its shard from a credential in
 * its body, which the middleware cannot read. More hops than shards would be forwards that loop,
 * a fault.
 */
export async function followingMoves<T>(
  c: Context<AppEnv>,
  shard: number,
  run: () => Promise<T>,
): Promise<T> {
  useShard(c, shard);
  for (let hops = 0; ; hops++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof ShardForward) || hops >= shardCount(c.env)) throw error;
      useShard(c, error.shard);
    }
  }
}

/**
 * The shard an unverified JWS (an embed session id, an embed token, a Cube API token) names in
 * its `sh` claim: 0 when it has none (shard 0's, and those signed before sharding); null when the
 * text is no JWS at all. Only picks where to look: the signature is still checked before anything
 * is read, and a forged claim only sends the request to a shard where its signature fails.
 */
function shardClaimOf(token: string): number | null {
  const body = token.split('.')[1];
  if (!body || body.length > 8192) return null;
  let claims: unknown;
  try {
    claims = JSON.parse(atob(body.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    return null;
  }
  if (claims === null || typeof claims !== 'object') return null;
  const shard = (claims as { sh?: unknown }).sh;
  return Number.isInteger(shard) && (shard as number) >= 0 ? (shard as number) : 0;
}

/** The shard a signed token names (`shardClaimOf`), 0 when it names none. */
export const shardOfSignedToken = (token: string): number => shardClaimOf(token) ?? 0;

/**
 * The shard a request's credential names, from its text alone (no round trip): an access token
 * or API key in `Authorization`, else a signed token there (an embed session or token, a Cube API
 * token) or in `?session=` (its `sh` claim, 0 without one), else the mark of the dashboard public
 * id in the path (a viewer page without a session, or with text that is no token at all, still
 * finds its dashboard's framing rules), else shard 0. A token always wins over the public id: a
 * session never reads another shard's dashboard, whatever the URL names (that is a 404).
 */
export function shardOfRequest(c: Context<AppEnv>): number {
  const header = c.req.header('authorization')?.trim();
  // `<scheme> <credential>`, or Cube's bare `<token>`.
  const credential = header?.slice(header.lastIndexOf(' ') + 1);
  if (credential?.startsWith('eb_')) return shardOfSecret(credential);
  const signed = credential ?? c.req.query('session');
  const claimed = signed ? shardClaimOf(signed) : null;
  if (claimed !== null) return claimed;
  const publicId = c.req.param('publicId');
  return publicId ? shardOfPublicId(publicId) : 0;
}

/** Statuses of a hint that found nothing on its shard: where a moved account's forward is looked up. */
const MISSED = new Set([401, 404]);

/**
 * Before a route's authentication: the request goes to the shard its credential names. When the
 * account has been moved away from that shard (a lookup threw `ShardForward`, or the hint found
 * nothing and the shard keeps a forward for it), the request runs again on the shard the forward
 * names, and from there on again for an account moved more than once: moves only go to
 * higher-numbered shards, so the hops end (at most one per shard; more would be forwards that
 * loop, and the last answer stands).
 */
export const routeToShard = createMiddleware<AppEnv>(async (c, next) => {
  const replay = c.get('replay');
  useShard(c, replay ? replay.shard : shardOfRequest(c));
  // The body as sent, for a run on another shard (a clone costs nothing unless it is read).
  const original = c.req.raw.body === null ? c.req.raw : c.req.raw.clone();
  const tripsBefore = c.get('queries').roundTrips;
  await next();
  // A miss is a lookup that found nothing: a refusal made before any read (a forged or expired
  // token, a malformed id) looks no forward up.
  const missed = MISSED.has(c.res.status) && c.get('queries').roundTrips > tripsBefore;
  const shard =
    c.error instanceof ShardForward
      ? c.error.shard
      : missed
        ? await forwardedShard(c.get('scope').db, await hintsOf(c))
        : null;
  if (shard === null || shard === c.get('scope').shard || !isShard(c.env, shard)) return;
  const hops = (replay?.hops ?? 0) + 1;
  if (hops > shardCount(c.env)) return;
  c.res = await c.get('dispatch')(
    replayRequest(original, {
      shard,
      hops,
      requestId: c.get('requestId'),
      queries: c.get('queries'),
      controlQueries: c.get('controlQueries'),
    }),
  );
});
