import { findAccountShard, insertDirectoryEntry, readShardLoads } from '../control/directory.repository';
import {
  deletePendingAccount,
  insertPendingAccount,
  isPendingAccount,
} from '../control/pending-accounts.repository';
import { orNotFound } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { shardCount } from '../core/shards';
import { deleteAccount } from './accounts.repository';

/**
 * Where accounts live (docs/sharding.md). A new account goes to the least-loaded shard: the one
 * holding the fewest accounts (plus the operator's bias), as the control database counts them
 * (the lowest-numbered on a tie). Two provisionings at the same instant may both pick it; the
 * next ones even that out.
 */
export async function placeAccount(scope: RequestScope): Promise<number> {
  const loads = await readShardLoads(scope.control, shardCount(scope.env));
  return loads.indexOf(Math.min(...loads));
}

/**
 * The first step of provisioning on the scope's shard, before the shard writes anything: the
 * provisioning is recorded as pending in the control database (by its API key's hash), so one
 * cut short after the shard's write is found and undone by the sweep (src/control/sweep.service.ts).
 */
export async function beginProvisioning(scope: RequestScope, keyHash: string): Promise<void> {
  await insertPendingAccount(scope.control, keyHash, scope.shard, scope.now);
}

/**
 * The last step: lists the account in the directory once its rows exist on the scope's shard
 * (its id is the one that shard handed out), counting it and ending its pending record in the
 * same control batch. When that batch fails, the account's rows are removed again and the error
 * stands: the operator was told it failed, and an account nobody holds the secrets of must not
 * linger. Whatever this cannot finish (the control database unreachable), the sweep does.
 */
export async function registerAccount(
  scope: RequestScope,
  accountId: number,
  keyHash: string,
): Promise<void> {
  try {
    await insertDirectoryEntry(scope.control, accountId, scope.shard, scope.now, keyHash);
  } catch (error) {
    // A batch that committed and still reported an error has ended the pending record: keep it.
    if (!(await isPendingAccount(scope.control, keyHash).catch(() => true))) return;
    try {
      await deleteAccount(scope.db, accountId);
      await deletePendingAccount(scope.control, keyHash);
    } catch {
      // Left pending: the sweep removes the rows (if still there) and the record after its grace period.
    }
    throw error;
  }
}

/** The shard account `id` lives in, from the directory; an account it does not list is a 404. */
export async function accountShard(scope: RequestScope, id: number): Promise<number> {
  return orNotFound(await findAccountShard(scope.control, id), 'Account');
}
