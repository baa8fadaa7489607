import { sha256Hex } from '../core/crypto';
import { markedRandom, shardMarkOf } from '../core/shard-marks';

/** Prefixes secret scanners can match; the rest is 43 base64url characters (240 random bits and the shard). */
export const ACCESS_TOKEN_PREFIX = 'eb_at_';
export const API_KEY_PREFIX = 'eb_ak_';

export interface IssuedSecret {
  secret: string;
  hash: string;
  /** Shown in listings so people can tell secrets apart; never enough to use. */
  displayPrefix: string;
}

/**
 * A new access token or API key of an account on shard `shard`. The shard is part of the secret's
 * text (src/core/shard-marks.ts), so a request with it goes straight to its shard.
 */
export async function issueSecret(prefix: string, shard: number): Promise<IssuedSecret> {
  const secret = `${prefix}${markedRandom(32, shard)}`;
  return { secret, hash: await sha256Hex(secret), displayPrefix: secret.slice(0, prefix.length + 4) };
}

/**
 * The shard an access token or API key belongs to, read from its text alone. A secret issued
 * before sharding carries no mark: its account is on shard 0. Anything else reads as shard 0
 * too, where its lookup fails like any unknown secret's.
 */
export function shardOfSecret(secret: string): number {
  for (const prefix of [ACCESS_TOKEN_PREFIX, API_KEY_PREFIX]) {
    if (secret.startsWith(prefix)) return shardMarkOf(secret.slice(prefix.length), 32) ?? 0;
  }
  return 0;
}
