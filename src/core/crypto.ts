import { errors, type JWTPayload, jwtVerify } from 'jose';
import { base64, base64url } from './text';

const encoder = new TextEncoder();

/** URL-safe random id of `bytes` bytes of entropy. */
export function randomId(bytes = 16): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** An HMAC-SHA-256 key that signs and verifies JWS, and the `kid` that names it in their header. */
export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

// Importing a key and hashing its id cost a little each; an isolate serves many requests.
const signingKeys = new Map<string, Promise<SigningKey>>();

/**
 * The HMAC key made of `material()`, named by the first 16 hex digits of the SHA-256 of
 * `kidSeed` (a domain-separated secret, so the kid names the key without revealing it). Each
 * kind of token gives its own seed: the seed also keys the isolate's cache.
 */
export function hmacSigningKey(
  kidSeed: string,
  material: () => string | Promise<string>,
): Promise<SigningKey> {
  let cached = signingKeys.get(kidSeed);
  if (!cached) {
    cached = (async () => ({
      kid: (await sha256Hex(kidSeed)).slice(0, 16),
      key: await crypto.subtle.importKey(
        'raw',
        encoder.encode(await material()),
        { name: 'HMAC', hash: 'SHA-256' },
        false,
        ['sign', 'verify'],
      ),
    }))();
    signingKeys.set(kidSeed, cached);
  }
  return cached;
}

const headers = new Map<string, string>();
const base64urlJson = (value: unknown) => base64url(encoder.encode(JSON.stringify(value)));

/**
 * `payload` as an HS256 compact JWS (`{alg: 'HS256', kid}` header) signed with `signing`: the
 * token jose's SignJWT makes of the same payload, byte for byte, without its builder's work on
 * every mint (one HMAC here, the header's encoding once per key).
 */
export async function signHs256(signing: SigningKey, payload: Record<string, unknown>): Promise<string> {
  let header = headers.get(signing.kid);
  if (!header) {
    header = base64urlJson({ alg: 'HS256', kid: signing.kid });
    headers.set(signing.kid, header);
  }
  const input = `${header}.${base64urlJson(payload)}`;
  const signature = await crypto.subtle.sign('HMAC', signing.key, encoder.encode(input));
  return `${input}.${base64url(new Uint8Array(signature))}`;
}

/**
 * Tokens this isolate verified lately, with the key that signed them: a token sent again (every
 * request of a dashboard carries the same one) is checked without decoding or an HMAC. A
 * remembered token still needs its key among those offered, and is checked against the time.
 */
const verifiedTokens = new Map<string, { kid: string; payload: JWTPayload }>();
const MAX_VERIFIED_TOKENS = 512;

/**
 * The payload of an HS256 compact JWS signed by one of `keys` (the one its header's `kid` names)
 * and valid at `now`, with `requiredClaims` present. Throws jose's errors: `JWTExpired` past
 * its expiry, `JWKSNoMatchingKey` for a kid of no key given.
 */
export async function verifyHs256(
  token: string,
  keys: readonly SigningKey[],
  now: Date,
  requiredClaims: string[],
): Promise<unknown> {
  const known = verifiedTokens.get(token);
  if (known && keys.some((k) => k.kid === known.kid)) {
    // Signature and shape held when it was verified; only time and the claims asked for can differ.
    const seconds = Math.floor(now.getTime() / 1000);
    const { exp, nbf } = known.payload;
    if (typeof exp === 'number' && exp <= seconds)
      throw new errors.JWTExpired('"exp" claim timestamp check failed', known.payload, 'exp', 'check_failed');
    if (typeof nbf === 'number' && nbf > seconds)
      throw new errors.JWTClaimValidationFailed(
        '"nbf" claim timestamp check failed',
        known.payload,
        'nbf',
        'check_failed',
      );
    if (requiredClaims.every((claim) => claim in known.payload)) return known.payload;
  }
  let kid = '';
  const { payload } = await jwtVerify(
    token,
    (header) => {
      const match = keys.find((k) => k.kid === header.kid);
      if (!match) throw new errors.JWKSNoMatchingKey();
      kid = match.kid;
      return match.key;
    },
    { algorithms: ['HS256'], currentDate: now, requiredClaims },
  );
  if (verifiedTokens.size >= MAX_VERIFIED_TOKENS)
    verifiedTokens.delete(verifiedTokens.keys().next().value as string);
  verifiedTokens.set(token, { kid, payload });
  return payload;
}

/**
 * Constant-time equality of two secrets of any length: both sides are hashed first, since
 * `timingSafeEqual` needs equal lengths and must not leak the length of the expected one.
 */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(given)),
    crypto.subtle.digest('SHA-256', encoder.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return crypto.subtle.timingSafeEqual(encoder.encode(a), encoder.encode(b));
}

const AES_IV_BYTES = 12;

/** The AES-GCM key a secret (any high-entropy text) stands for, for `purpose` only. */
async function aesKey(secret: string, purpose: string): Promise<CryptoKey> {
  const material = await crypto.subtle.digest('SHA-256', encoder.encode(`${purpose}\n${secret}`));
  return crypto.subtle.importKey('raw', material, 'AES-GCM', false, ['encrypt', 'decrypt']);
}

/**
 * Encrypts `plaintext` with AES-GCM under a key derived from `secret` and `purpose`. `context` is
 * authenticated but not stored (e.g. the row the value belongs to), so a ciphertext copied to
 * another context does not decrypt. Answers base64 of iv + ciphertext.
 */
export async function sealText(secret: string, purpose: string, context: string, plaintext: string) {
  const iv = crypto.getRandomValues(new Uint8Array(AES_IV_BYTES));
  const key = await aesKey(secret, purpose);
  const data = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(context) },
    key,
    encoder.encode(plaintext),
  );
  const out = new Uint8Array(AES_IV_BYTES + data.byteLength);
  out.set(iv);
  out.set(new Uint8Array(data), AES_IV_BYTES);
  return base64(out);
}

/** The plaintext `sealText` sealed with the same secret, purpose and context; throws otherwise. */
export async function openText(secret: string, purpose: string, context: string, sealed: string) {
  const bytes = Uint8Array.from(atob(sealed), (ch) => ch.charCodeAt(0));
  const key = await aesKey(secret, purpose);
  const data = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: bytes.subarray(0, AES_IV_BYTES), additionalData: encoder.encode(context) },
    key,
    bytes.subarray(AES_IV_BYTES),
  );
  return new TextDecoder().decode(data);
}
