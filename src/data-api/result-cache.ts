import { sha256Hex } from '../core/crypto';
import { type Timings, timed } from '../core/timings';

/**
 * Query results cached at the edge (the Workers Cache API of the location serving the request),
 * keyed by everything that decides an answer: the deployment, its build, its data source
 * settings, its rollups' generation (for a rollup's answers), and the SQL with its parameters
 * (which carry the query, the caller's row-level filters and the time zone). Entries live for the
 * refresh interval of the cubes queried. An isolate also keeps the answers it read or wrote lately
 * in memory, for the same time. Identical queries arriving together each run (`cachedEntry`).
 */
export interface CachedAnswer {
  /** The answer as JSON text, stored and served as it is (never parsed on the way out). */
  json: string;
  /** When the rows were read from the data source (ISO). */
  refreshedAt: string;
}

export interface CacheKeyParts {
  deploymentId: number;
  buildId: number;
  sourceFingerprint: string;
  /** The deployment's rollup generation (moves with every partition swapped in), for a rollup's answers. */
  rollupGeneration: number | null;
  sql: string;
  params: unknown[];
  /** How the rows are written into the stored text (the answer's columns), when not as read. */
  shape?: unknown;
}

/** Cube's default refresh interval: every 10 seconds. */
export const DEFAULT_REFRESH_SECONDS = 10;

/**
 * Keys this isolate hashed lately, by the text of their parts: a repeated query (a cached answer
 * asked again) finds its key without hashing. Bounded in entries and in each text's length, so
 * the map holds at most a few megabytes.
 */
const recentKeys = new Map<string, string>();
const MAX_RECENT_KEYS = 256;
const MAX_REMEMBERED_PARTS = 16_384;

/** The cache key of any JSON-able parts of a deployment's answer. */
export async function keyOf(deploymentId: number, parts: unknown): Promise<string> {
  const text = JSON.stringify(parts);
  const known = recentKeys.get(text);
  if (known) return known;
  const key = `https://result-cache.edgeboard.invalid/${deploymentId}/${await sha256Hex(text)}`;
  if (text.length <= MAX_REMEMBERED_PARTS) {
    if (recentKeys.size >= MAX_RECENT_KEYS) recentKeys.delete(recentKeys.keys().next().value as string);
    recentKeys.set(text, key);
  }
  return key;
}

export function cacheKeyOf(parts: CacheKeyParts): Promise<string> {
  return keyOf(parts.deploymentId, [
    parts.deploymentId,
    parts.buildId,
    parts.sourceFingerprint,
    parts.rollupGeneration,
    parts.sql,
    parts.params,
    parts.shape ?? null,
  ]);
}

function cacheOf(): Cache | null {
  // Not every runtime exposes caches (and a Worker on a workers.dev route has no-op caches):
  // without one, an answer is kept in the isolate's memory alone.
  return typeof caches === 'undefined' ? null : caches.default;
}

/** The answer `run` writes as JSON text for `key`, or the one cached; `fresh` as for `cachedJson`. */
export function cachedAnswer(
  key: string,
  ttlSeconds: number,
  options: CacheOptions,
  run: () => Promise<string>,
): Promise<{ value: CachedAnswer; hit: boolean }> {
  return cachedEntry(
    key,
    ttlSeconds,
    options,
    async () => ({ json: await run(), refreshedAt: options.now.toISOString() }),
    () => true,
    ANSWER_TEXT,
  );
}

export interface CacheOptions {
  fresh: boolean;
  now: Date;
  waitUntil?: (p: Promise<unknown>) => void;
  timings?: Timings;
}

/**
 * How a cached value is written as the text of a Response (and its headers) and read back from
 * them: the same text serves the Cache API and this isolate's memory.
 */
interface Codec<T> {
  write(value: T): { body: string; headers?: Record<string, string> };
  read(body: string, header: (name: string) => string | null): T;
}

const JSON_VALUE: Codec<unknown> = {
  write: (value) => ({ body: JSON.stringify(value) }),
  read: (body) => JSON.parse(body),
};

/** The header that carries an answer's refresh time. */
const REFRESHED_AT = 'x-refreshed-at';

/** An answer's text as the body, its refresh time beside it: read back without parsing. */
const ANSWER_TEXT: Codec<CachedAnswer> = {
  write: ({ json, refreshedAt }) => ({ body: json, headers: { [REFRESHED_AT]: refreshedAt } }),
  read: (body, header) => ({
    json: body,
    refreshedAt: header(REFRESHED_AT) ?? new Date(0).toISOString(),
  }),
};

/** Which partitions of a rollup answered (the rows' age is the oldest's `builtAt`). */
export type RollupPartitions = { tableName: string; version: number; builtAt: string }[];

/**
 * A rollup's answer as cached: its JSON text (Cube's `data`, or a total's rows) with the
 * partitions that answered it, or the first partition not built yet (`unreachable` when the store
 * could not be asked).
 */
export type RollupAnswer =
  | { json: string; partitions: RollupPartitions }
  | { notBuilt: string; unreachable?: true };

/**
 * A rollup's answer as the body: a first line of JSON (the partitions, or what was not built),
 * then the answer's text as it is served. JSON.stringify never writes a raw newline, so the
 * first one ends the first line, and only that line is parsed when read back.
 */
const ROLLUP_TEXT: Codec<RollupAnswer> = {
  write: (value) => ({
    body:
      'json' in value
        ? `${JSON.stringify({ partitions: value.partitions })}\n${value.json}`
        : JSON.stringify(value),
  }),
  read: (text) => {
    const end = text.indexOf('\n');
    const head = JSON.parse(end < 0 ? text : text.slice(0, end)) as
      | { partitions: RollupPartitions }
      | { notBuilt: string; unreachable?: true };
    return 'partitions' in head ? { json: text.slice(end + 1), partitions: head.partitions } : head;
  },
};

/** A rollup's answer `run` reads, or the one cached, kept when `keep` allows it; `fresh` as for `cachedJson`. */
export function cachedRollupAnswer(
  key: string,
  ttlSeconds: number,
  options: CacheOptions,
  run: () => Promise<RollupAnswer>,
  keep: (value: RollupAnswer) => boolean,
): Promise<{ value: RollupAnswer; hit: boolean }> {
  return cachedEntry(key, ttlSeconds, options, run, keep, ROLLUP_TEXT);
}

/**
 * Any JSON value cached like query answers: read unless `fresh`, else computed once per isolate
 * for concurrent callers and stored for `ttlSeconds` (or what it answers once the value is
 * computed) when `keep(value)` allows it.
 */
export function cachedJson<T>(
  key: string,
  ttlSeconds: number | (() => number),
  options: CacheOptions,
  run: () => Promise<T>,
  keep: (value: T) => boolean = () => true,
): Promise<{ value: T; hit: boolean }> {
  return cachedEntry(key, ttlSeconds, options, run, keep, JSON_VALUE as Codec<T>);
}

/**
 * Answers this isolate read or wrote lately, in front of the Cache API: a query asked again here
 * is answered from memory, with no Cache API read. An entry is the text the Cache API holds, kept
 * until the same instant the Cache API's copy expires (by the real clock, as the Cache API's): the
 * refresh interval after the answer was stored. Bounded in each answer's length, in entries and in
 * characters (texts and keys, plus a fixed charge per entry for the rest), the least recently used
 * going first.
 */
interface Remembered {
  body: string;
  /** The answer's refresh time (`x-refreshed-at`), for the codecs that store one. */
  refreshedAt: string | null;
  /** When the Cache API's copy expires (ms since the epoch). */
  expiresAt: number;
  /** What it counts against MAX_REMEMBERED_TOTAL_CHARS. */
  charge: number;
}

const remembered = new Map<string, Remembered>();
let rememberedChars = 0;
/** The longest answer kept in memory (characters of its text); longer ones stay in the Cache API only. */
export const MAX_REMEMBERED_ANSWER_CHARS = 256 * 1024;
/**
 * All entries together, in characters: 4 to 8 MB of the isolate's 128 (V8 stores a string in one
 * or two bytes a character).
 */
const MAX_REMEMBERED_TOTAL_CHARS = 4 * 1024 * 1024;
/** Entries kept at the most, however short: the map's own overhead stays bounded too. */
export const MAX_REMEMBERED_ENTRIES = 1024;
/** What an entry costs besides its text and key (its object, the map's slot), in characters. */
const ENTRY_CHARGE = 256;
/** The header that carries an entry's expiry, so another isolate that reads it keeps it no longer. */
const EXPIRES_AT = 'x-expires-at';

function forget(key: string): void {
  const entry = remembered.get(key);
  if (!entry) return;
  remembered.delete(key);
  rememberedChars -= entry.charge;
}

function hold(key: string, entry: Remembered): void {
  remembered.set(key, entry);
  rememberedChars += entry.charge;
}

/**
 * Keeps `body` for `key` until `expiresAt`, in place of what is kept, unless `unlessNewer` and
 * what is kept expires no earlier (an answer renewed while an older copy was being read).
 */
function remember(
  key: string,
  body: string,
  refreshedAt: string | null,
  expiresAt: number,
  unlessNewer = false,
): void {
  const kept = remembered.get(key);
  if (unlessNewer && kept && kept.expiresAt >= expiresAt) return;
  forget(key);
  if (body.length > MAX_REMEMBERED_ANSWER_CHARS || !(expiresAt > Date.now())) return;
  const charge = body.length + key.length + ENTRY_CHARGE;
  while (
    remembered.size > 0 &&
    (remembered.size >= MAX_REMEMBERED_ENTRIES || rememberedChars + charge > MAX_REMEMBERED_TOTAL_CHARS)
  ) {
    forget(remembered.keys().next().value as string);
  }
  hold(key, { body, refreshedAt, expiresAt, charge });
}

/** The entry kept for `key` while it is fresh, marked as the most recently used. */
function recall(key: string): Remembered | undefined {
  const entry = remembered.get(key);
  if (!entry) return undefined;
  forget(key);
  if (entry.expiresAt <= Date.now()) return undefined;
  hold(key, entry);
  return entry;
}

/** Reads `key` from this isolate's memory, else from the Cache API (keeping what it found). */
async function lookUp<T>(cache: Cache | null, key: string, codec: Codec<T>, timings?: Timings) {
  const kept = recall(key);
  if (kept) {
    timings?.add('cache-memory', 0);
    return { value: codec.read(kept.body, (name) => (name === REFRESHED_AT ? kept.refreshedAt : null)) };
  }
  if (!cache) return null;
  return timed(timings, 'cache-read', async () => {
    const found = await cache.match(key);
    if (!found) return null;
    const body = await found.text();
    const expiresAt = found.headers.get(EXPIRES_AT);
    if (expiresAt !== null) remember(key, body, found.headers.get(REFRESHED_AT), Number(expiresAt), true);
    return { value: codec.read(body, (name) => found.headers.get(name)) };
  });
}

async function cachedEntry<T>(
  key: string,
  ttlSeconds: number | (() => number),
  options: CacheOptions,
  run: () => Promise<T>,
  keep: (value: T) => boolean,
  codec: Codec<T>,
): Promise<{ value: T; hit: boolean }> {
  const cache = cacheOf();
  if (!options.fresh) {
    const hit = await lookUp(cache, key, codec, options.timings);
    if (hit) return { value: hit.value, hit: true };
  }
  // Each request runs its own query, even when another request of this isolate is running the same
  // one: a request waiting on another's work would wait for ever if that request were cancelled
  // (its client gone), since the runtime drops a cancelled request's continuations, and every later
  // request of the query would then wait behind it.
  const value = await run();
  const ttl = typeof ttlSeconds === 'function' ? ttlSeconds() : ttlSeconds;
  if (ttl > 0 && keep(value)) {
    const written = codec.write(value);
    const expiresAt = Date.now() + ttl * 1000;
    const headers = { ...written.headers, [EXPIRES_AT]: String(expiresAt) };
    remember(key, written.body, written.headers?.[REFRESHED_AT] ?? null, expiresAt);
    if (cache) {
      const put = cache.put(
        key,
        new Response(written.body, {
          headers: { 'content-type': 'application/json', 'cache-control': `max-age=${ttl}`, ...headers },
        }),
      );
      if (options.waitUntil) options.waitUntil(put);
      else await put;
    }
  }
  return { value, hit: false };
}
