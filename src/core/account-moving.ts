import { sql } from 'drizzle-orm';
import { ApiError } from './errors';

/** How long a caller refused during a move is told to wait before trying again. */
export const MOVING_RETRY_AFTER_SECONDS = 30;

/**
 * The refusal of a write to an account the operator is moving to another shard
 * (docs/sharding.md, "Moving an account"): 503 ACCOUNT_MOVING with `Retry-After`. Reads go on.
 */
export const accountMoving = (): ApiError =>
  new ApiError(
    'ACCOUNT_MOVING',
    'This account is being moved to another database: writes resume when the move ends',
    undefined,
    { retryAfterSeconds: MOVING_RETRY_AFTER_SECONDS },
  );

/** Methods that only read: they go on while the account moves. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Refuses a write to a frozen account. */
export function refuseWriteWhileMoving(account: { frozen: boolean }): void {
  if (account.frozen) throw accountMoving();
}

/** Refuses a request that may write (any method but GET, HEAD, OPTIONS) to a frozen account. */
export function refuseWritesWhileMoving(account: { frozen: boolean }, method: string): void {
  if (!READS.has(method.toUpperCase())) refuseWriteWhileMoving(account);
}

/**
 * The accounts of a shard being moved (served by the partial index accounts_frozen_idx), as a
 * subquery: background work that would write their rows (due notifications, sweeps of expired
 * rows) leaves them alone until the move ends.
 */
export const FROZEN_ACCOUNTS = sql`(SELECT id FROM accounts WHERE frozen_at IS NOT NULL)`;
