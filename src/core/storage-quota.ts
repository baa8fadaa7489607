import { QUOTA_RETRY_AFTER_SECONDS, tooManyRequests } from './errors';

/** The message the quota trigger aborts a write with. */
const MARKER = 'STORAGE_QUOTA_EXCEEDED';

function mentionsMarker(err: unknown, depth = 0): boolean {
  if (depth > 5 || err == null) return false;
  if (String((err as { message?: unknown }).message ?? err).includes(MARKER)) return true;
  return mentionsMarker((err as { cause?: unknown }).cause, depth + 1);
}

/**
 * Runs a write whose batch may grow the account's stored bytes; the trigger's abort (the whole
 * batch rolled back) becomes a 429 QUOTA_EXCEEDED.
 */
export async function withStorageQuota<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (!mentionsMarker(err)) throw err;
    throw tooManyRequests(
      'QUOTA_EXCEEDED',
      'The account’s storage quota is used up: delete workbooks, reports or dashboards, or ask the operator for a larger quota',
      QUOTA_RETRY_AFTER_SECONDS,
    );
  }
}
