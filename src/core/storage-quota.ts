import { ApiError } from './errors';

/**
 * Stored-bytes quota of an account by plan, when the operator set none (accounts.storage_quota_bytes
 * null). The migration's `accounts_storage_quota` trigger repeats these figures: change both.
 */
export const STORAGE_QUOTA_BY_PLAN = {
  free: 100 * 1024 * 1024,
  starter: 1024 * 1024 * 1024,
  premium: 10 * 1024 * 1024 * 1024,
  enterprise: 100 * 1024 * 1024 * 1024,
} as const;

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
    throw new ApiError(
      'QUOTA_EXCEEDED',
      'The account’s storage quota is used up: delete workbooks, reports or dashboards, or ask the operator for a larger quota',
    );
  }
}
