/**
 * The per-key limit of generate-session, derived from the account's `sessionRateLimit`
 * (requests per API key per minute) with a Rate Limiting binding whose limit is fixed.
 *
 * SESSION_RATE_LIMITER admits BINDING_PER_MINUTE requests per key per minute (wrangler.toml:
 * 10 per 10 s). A key whose account allows L per minute is spread over n = ceil(L / 60)
 * sub-keys (`<key hash>:<i>`), one picked at random per request, so together they admit about
 * L per minute. Like the binding itself (per location, eventually consistent) the result is
 * approximate: random spreading refuses a little early near the limit.
 *
 * The limit is checked BEFORE the read that authenticates the key (a refused request reads
 * nothing), so the sub-key count comes from what this isolate learnt on an earlier mint of the
 * same key, for at most LEARNT_FOR_MS (an operator's PATCH applies within a minute). A key this
 * isolate has not seen yet is spread over the most sub-keys any account may have.
 */

/** What SESSION_RATE_LIMITER admits per key per minute (wrangler.toml: limit 10, period 10 s). */
export const BINDING_PER_MINUTE = 60;

/** The period of SESSION_RATE_LIMITER: a refused mint may retry after it. */
export const RATE_LIMIT_RETRY_AFTER_SECONDS = 10;

/** The highest sessionRateLimit an operator may set (accounts schema). */
const MAX_SESSION_RATE_LIMIT = 100_000;

const LEARNT_FOR_MS = 60_000;
/** Isolate memory is bounded: past this many keys the oldest learnt limit is forgotten. */
const MAX_LEARNT_KEYS = 1000;

const learnt = new Map<string, { limit: number; until: number }>();

/** Sub-keys a limit of `perMinute` needs (at least one). */
export const subKeysFor = (perMinute: number): number =>
  Math.max(1, Math.ceil(perMinute / BINDING_PER_MINUTE));

/** The binding key of this request: the key's hash and one of its sub-keys, picked at random. */
export function rateLimitKey(keyHash: string, nowMs: number): string {
  const known = learnt.get(keyHash);
  const limit = known && known.until > nowMs ? known.limit : MAX_SESSION_RATE_LIMIT;
  const spread = subKeysFor(limit);
  return `${keyHash}:${Math.floor(Math.random() * spread)}`;
}

/** Remembers the account's limit read by a mint, for the next requests of the same key. */
export function learnRateLimit(keyHash: string, perMinute: number, nowMs: number): void {
  learnt.delete(keyHash);
  if (learnt.size >= MAX_LEARNT_KEYS) {
    const oldest = learnt.keys().next().value;
    if (oldest !== undefined) learnt.delete(oldest);
  }
  learnt.set(keyHash, { limit: perMinute, until: nowMs + LEARNT_FOR_MS });
}
