import pgCrypto from 'pg/lib/crypto/utils.js';

/**
 * SCRAM-SHA-256 costs the client one PBKDF2 of the password (4,096 rounds of SHA-256 at
 * PostgreSQL's default: about a millisecond of CPU) on every connection, and a source opens a
 * connection per read. Its result, the salted password, depends only on the password, the salt and
 * the round count, which the server keeps until the password changes, so the isolate keeps the
 * last few (RFC 5802 §3 allows the client this cache). A changed password or salt is another key:
 * nothing stale is ever used. Kept: at most MAX_KEYS, the oldest dropped first; a derivation that
 * fails is not kept. The entries are shared by the isolate's deployments, which is safe: an entry
 * is a function of the password and the server's salt alone, so only a source that already holds
 * both can find it.
 */
const MAX_KEYS = 32;

const derive = pgCrypto.deriveKey;
const salted = new Map<string, Promise<ArrayBuffer>>();
let derivations = 0;

/** pg's own derivation, run once per password, salt and round count while the entry is kept. */
function cachedDeriveKey(password: string, salt: Uint8Array, iterations: number): Promise<ArrayBuffer> {
  const key = `${iterations}:${btoa(String.fromCharCode(...salt))}:${password}`;
  let entry = salted.get(key);
  if (!entry) {
    derivations++;
    entry = derive(password, salt, iterations);
    const derived = entry;
    derived.catch(() => {
      if (salted.get(key) === derived) salted.delete(key);
    });
    if (salted.size >= MAX_KEYS) salted.delete(salted.keys().next().value as string);
    salted.set(key, entry);
  }
  return entry;
}

// pg's SASL session calls `crypto.deriveKey` on this module's exports at each authentication.
pgCrypto.deriveKey = cachedDeriveKey;

/** How many salted passwords this isolate has derived (tests). */
export const scramDerivations = (): number => derivations;
