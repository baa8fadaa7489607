import { generateSecret, sha256Hex } from '../core/crypto';

/** Prefixes secret scanners can match; the rest is 256 random bits, base64url. */
export const ACCESS_TOKEN_PREFIX = 'eb_at_';
export const API_KEY_PREFIX = 'eb_ak_';

export interface IssuedSecret {
  secret: string;
  hash: string;
  /** Shown in listings so people can tell secrets apart; never enough to use. */
  displayPrefix: string;
}

export async function issueSecret(prefix: string): Promise<IssuedSecret> {
  const secret = generateSecret(prefix);
  return { secret, hash: await sha256Hex(secret), displayPrefix: secret.slice(0, prefix.length + 4) };
}
