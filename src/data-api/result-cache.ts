import { sha256Hex } from '../core/crypto';

/**
 * Query results cached at the edge (the Workers Cache API of the location serving the request),
 * keyed by everything that decides an answer: the deployment, its build, its data source
 * settings, and the SQL with its parameters (which carry the query, the caller's row-level
 * filters and the time zone). Entries live for the refresh interval of the cubes queried.
 * Identical queries arriving together share one execution within an isolate.
 */
export interface CachedResult {
  rows: Record<string, unknown>[];
  /** When the rows were read from the data source (ISO). */
  refreshedAt: string;
}

export interface CacheKeyParts {
  deploymentId: number;
  buildId: number;
  sourceFingerprint: string;
  sql: string;
  params: unknown[];
}

/** Cube's default refresh interval: every 10 seconds. */
export const DEFAULT_REFRESH_SECONDS = 10;

const inFlight = new Map<string, Promise<CachedResult>>();

export async function cacheKeyOf(parts: CacheKeyParts): Promise<string> {
  const digest = await sha256Hex(
    JSON.stringify([parts.deploymentId, parts.buildId, parts.sourceFingerprint, parts.sql, parts.params]),
  );
  // A URL of our own: the Cache API keys on requests; this host is never fetched.
  return `https://result-cache.edgeboard.invalid/${parts.deploymentId}/${digest}`;
}

function cacheOf(): Cache | null {
  // Not every runtime exposes caches (and a Worker on a workers.dev route has no-op caches):
  // without one, every query runs.
  return typeof caches === 'undefined' ? null : caches.default;
}

/**
 * The cached rows for `key`, or `run()`'s, stored for `ttlSeconds`. `fresh` skips the read
 * (Cube's `renewQuery`) but still shares an execution already under way and stores its answer.
 */
export async function cached(
  key: string,
  ttlSeconds: number,
  options: { fresh: boolean; now: Date; waitUntil?: (p: Promise<unknown>) => void },
  run: () => Promise<Record<string, unknown>[]>,
): Promise<{ result: CachedResult; hit: boolean }> {
  const cache = cacheOf();
  if (cache && !options.fresh) {
    const hit = await cache.match(key);
    if (hit) return { result: (await hit.json()) as CachedResult, hit: true };
  }
  const pending = inFlight.get(key);
  if (pending) return { result: await pending, hit: false };
  const execution = (async () => {
    const rows = await run();
    const result: CachedResult = { rows, refreshedAt: options.now.toISOString() };
    if (cache && ttlSeconds > 0) {
      const put = cache.put(
        key,
        new Response(JSON.stringify(result), {
          headers: { 'content-type': 'application/json', 'cache-control': `max-age=${ttlSeconds}` },
        }),
      );
      if (options.waitUntil) options.waitUntil(put);
      else await put;
    }
    return result;
  })();
  inFlight.set(key, execution);
  try {
    return { result: await execution, hit: false };
  } finally {
    inFlight.delete(key);
  }
}
