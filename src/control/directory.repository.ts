import { eq, sql } from 'drizzle-orm';
import { directoryAccounts, pendingAccounts, shardLoads } from '../../schema/control';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';

/**
 * The directory in the control database: which shard each account lives in, and how many
 * accounts each shard holds (what placement balances). See docs/sharding.md.
 */

/**
 * How loaded each of the first `count` shards is, as placement weighs it: the accounts it holds
 * plus the operator's `bias` (a shard with no row yet holds none).
 */
export async function readShardLoads(control: Db, count: number): Promise<number[]> {
  const rows = await control.select().from(shardLoads);
  const loads = Array.from({ length: count }, () => 0);
  for (const row of rows) if (row.shard < count) loads[row.shard] = row.accounts + row.bias;
  return loads;
}

/**
 * Records that account `id` lives in `shard`, counts it in the shard's load and ends its
 * pending provisioning (`keyHash`): one batch, so a provisioning is pending exactly until it is
 * listed.
 */
export async function insertDirectoryEntry(
  control: Db,
  id: number,
  shard: number,
  now: Date,
  keyHash: string,
): Promise<void> {
  await runBatch(control, [
    control.insert(directoryAccounts).values({ id, shard, createdAt: now.toISOString() }),
    control.delete(pendingAccounts).where(eq(pendingAccounts.keyHash, keyHash)),
    control
      .insert(shardLoads)
      .values({ shard, accounts: 1 })
      .onConflictDoUpdate({ target: shardLoads.shard, set: { accounts: sql`${shardLoads.accounts} + 1` } }),
  ]);
}

/** The shard account `id` lives in; null when the directory does not list it. */
export async function findAccountShard(control: Db, id: number): Promise<number | null> {
  const [row] = await control
    .select({ shard: directoryAccounts.shard })
    .from(directoryAccounts)
    .where(eq(directoryAccounts.id, id));
  return row?.shard ?? null;
}
