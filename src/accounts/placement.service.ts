import { findAccountShard, insertDirectoryEntry, readShardLoads } from '../control/directory.repository';
import { notFound } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { shardCount } from '../core/shards';
import { deleteAccount } from './accounts.repository';

/**
 * Where accounts live (docs/sharding.md). A new account goes to the least-loaded shard: the one
 * holding the fewest accounts, as the control database counts them (the lowest-numbered on a
 * tie). Two provisionings at the same instant may both pick it; the next ones even that out.
 */
export async function placeAccount(scope: RequestScope): Promise<number> {
  const loads = await readShardLoads(scope.control, shardCount(scope.env));
  return loads.indexOf(Math.min(...loads));
}

/**
 * Lists an account in the directory once its rows exist on the scope's shard (its id is the one
 * that shard handed out). When the directory cannot take it, the account's rows are removed
 * again (best effort) and the error stands: an account nobody can find must not keep working.
 */
export async function registerAccount(scope: RequestScope, accountId: number): Promise<void> {
  try {
    await insertDirectoryEntry(scope.control, accountId, scope.shard, scope.now.toISOString());
  } catch (error) {
    await deleteAccount(scope.db, accountId).catch(() => {});
    throw error;
  }
}

/** The shard account `id` lives in, from the directory; an account it does not list is a 404. */
export async function accountShard(scope: RequestScope, id: number): Promise<number> {
  const shard = await findAccountShard(scope.control, id);
  if (shard === null) throw notFound('Account');
  return shard;
}
