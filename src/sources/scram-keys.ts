import pgCrypto from 'pg/lib/crypto/utils.js';
import { sha256Hex } from '../core/crypto';
import { base64 } from '../core/text';

/**
 * SCRAM-SHA-256 costs the client one PBKDF2 of the password (4,096 rounds of SHA-256 at
 * PostgreSQL's default: about a millisecond of CPU) on every connection, and a source opens a
 * connection per read. Its result, the salted password, depends only on the password, the salt and
 * the round count, which the server keeps until the password changes, so the isolate keeps the
 * last few (RFC 5802 §3 allows the client this cache). A changed password or salt is another key:
 * nothing stale is ever used.
 *
 * Kept: at most MAX_KEYS, first in first out; a derivation that fails is not kept. An entry is
 * found by a SHA-256 of the round count, the salt and the password, so a key is the same size
 * whatever salt a server sends, and no password outlives its use in the map. The entries are
 * shared by the isolate's deployments, which is safe: finding one takes the password and the
 * server's salt, which only a source that already holds both has.
 */
const MAX_KEYS = 32;

const derive = pgCrypto.deriveKey;
const salted = new Map<string, Promise<ArrayBuffer>>();
let derivations = 0;

/** pg's own derivation, run once per password, salt and round count while the entry is kept. */
async function cachedDeriveKey(password: string, salt: Uint8Array, iterations: number): Promise<ArrayBuffer> {
  const key = await sha256Hex(`${iterations}:${base64(salt)}:${password}`);
  const kept = salted.get(key);
  if (kept) return kept;
  derivations++;
  const derived = derive(password, salt, iterations);
  derived.catch(() => {
    if (salted.get(key) === derived) salted.delete(key);
  });
  if (salted.size >= MAX_KEYS) salted.delete(salted.keys().next().value as string);
  salted.set(key, derived);
  return derived;
}

// pg's SASL session calls `crypto.deriveKey` on this module's exports at each authentication.
pgCrypto.deriveKey = cachedDeriveKey;

/** How many salted passwords this isolate has derived and kept (tests). */
export const scramDerivations = (): number => derivations;
