import { base64url, fromBase64url } from './text';

/**
 * What a caller holds carries its shard, so a request finds its database without reading the
 * control database: API keys and access tokens, and the public ids of published dashboards.
 * Each is random bytes written in base64url whose last two bytes are the shard (big-endian).
 * Such a text has bits to spare in its last character (base64url writes 6 bits a character);
 * the mark is the lowest of them set. Texts made before sharding have them all clear: they
 * read as unmarked, which means shard 0, where everything then lived.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

const lengthOf = (bytes: number) => Math.ceil((bytes * 8) / 6);

/** `bytes` bytes (16 or 32: sizes that leave bits to spare) of randomness marked with `shard`. */
export function markedRandom(bytes: 16 | 32, shard: number): string {
  if (!Number.isInteger(shard) || shard < 0 || shard > 0xffff) throw new Error(`Not a shard: ${shard}`);
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  raw[bytes - 2] = shard >> 8;
  raw[bytes - 1] = shard & 0xff;
  const text = base64url(raw);
  const last = ALPHABET.indexOf(text.slice(-1));
  return text.slice(0, -1) + ALPHABET[last | 1];
}

/**
 * The shard `text` is marked with, if it is a marked text of `bytes` bytes; null for anything
 * else (unmarked texts made before sharding, or text that is no such token at all).
 */
export function shardMarkOf(text: string, bytes: 16 | 32): number | null {
  if (text.length !== lengthOf(bytes)) return null;
  const last = ALPHABET.indexOf(text.slice(-1));
  const spare = (1 << (text.length * 6 - bytes * 8)) - 1;
  if (last < 0 || (last & spare) !== 1) return null;
  let raw: Uint8Array;
  try {
    raw = fromBase64url(text.slice(0, -1) + ALPHABET[last & ~spare]);
  } catch {
    return null;
  }
  if (raw.length !== bytes) return null;
  return ((raw[bytes - 2] as number) << 8) | (raw[bytes - 1] as number);
}

/** A published dashboard's public id (embed and viewer URLs): 22 base64url characters marked with its shard. */
export const newPublicId = (shard: number): string => markedRandom(16, shard);

/** The shard a dashboard's public id names; 0 for one made before sharding (or no public id at all). */
export const shardOfPublicId = (publicId: string): number => shardMarkOf(publicId, 16) ?? 0;
