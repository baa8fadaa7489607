import { AsyncLocalStorage } from 'node:async_hooks';
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
 * Kept: at most MAX_KEYS, first in first out; a derivation that fails is not kept. An entry
 * belongs to one login target (host, port, database and user, as `withLoginTarget` names it) and
 * is found by a SHA-256 of the target, the round count, the salt and the password, so a key is the
 * same size whatever salt a server sends, and no password outlives its use in the map. Keeping
 * targets apart matters because a tenant chooses its server: a server of its own could send the
 * salt of another tenant's server and, if entries were shared, time a login to learn whether a
 * guessed password was the one kept. A target's entry is found only through that target, whose
 * real server sends its own salt. A login outside `withLoginTarget` derives without keeping.
 */
const MAX_KEYS = 32;

const derive = pgCrypto.deriveKey;
const salted = new Map<string, Promise<ArrayBuffer>>();
const loginTarget = new AsyncLocalStorage<string>();
let derivations = 0;

/** Runs `connect` (a pg client's connect) as a login to `target`, whose salted passwords it may keep. */
export function withLoginTarget<T>(target: string, connect: () => Promise<T>): Promise<T> {
  return loginTarget.run(target, connect);
}

/** pg's own derivation, run once per target, password, salt and round count while the entry is kept. */
async function cachedDeriveKey(password: string, salt: Uint8Array, iterations: number): Promise<ArrayBuffer> {
  const target = loginTarget.getStore();
  if (target === undefined) return derive(password, salt, iterations);
  const key = await sha256Hex(JSON.stringify([target, iterations, base64(salt), password]));
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

/** How many salted passwords this isolate has derived for a login target and kept (tests). */
export const scramDerivations = (): number => derivations;
