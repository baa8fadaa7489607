import { and, count, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { accounts, apiKeys } from '../../schema/accounts';
import { directoryAccounts, pendingAccounts, shardLoads, sweepCursors } from '../../schema/control';
import { runBatch, type Statement } from '../core/db';
import type { RequestScope } from '../core/scope';

/**
 * The sweep's statements (src/control/sweep.service.ts), each bounded by an index: on the
 * control database, the pending provisionings and the page of the directory it checks on one
 * shard; on that shard, what it holds of them.
 */

/** Directory rows one pass checks per shard: the shard's lookup binds them all (D1 binds at most 100). */
export const DIRECTORY_PAGE = 50;

/** Pending provisionings one pass settles per shard. */
export const PENDING_PAGE = 20;

/** What one pass on the scope's shard has to look at, read in one control round trip. */
export interface SweepWork {
  /** Key hashes of the shard's provisionings pending since before the grace period's cutoff. */
  pending: string[];
  /** The next page of the accounts the directory lists on the shard, after the stored cursor. */
  listed: number[];
  /** The shard's stored load (`shard_loads.accounts`); null without a row. */
  load: number | null;
}

export async function readSweepWork(scope: RequestScope, cutoff: Date): Promise<SweepWork> {
  const { control, shard } = scope;
  const cursor = control
    .select({ afterId: sweepCursors.afterId })
    .from(sweepCursors)
    .where(eq(sweepCursors.shard, shard));
  const [pending, listed, load] = await control.batch([
    control
      .select({ keyHash: pendingAccounts.keyHash })
      .from(pendingAccounts)
      .where(and(eq(pendingAccounts.shard, shard), lte(pendingAccounts.createdAt, cutoff.toISOString())))
      .orderBy(pendingAccounts.createdAt)
      .limit(PENDING_PAGE),
    // Keyset page through accounts_shard_idx, after the cursor this shard's sweep stored.
    control
      .select({ id: directoryAccounts.id })
      .from(directoryAccounts)
      .where(and(eq(directoryAccounts.shard, shard), gt(directoryAccounts.id, sql`coalesce((${cursor}), 0)`)))
      .orderBy(directoryAccounts.id)
      .limit(DIRECTORY_PAGE),
    control.select({ accounts: shardLoads.accounts }).from(shardLoads).where(eq(shardLoads.shard, shard)),
  ]);
  return {
    pending: pending.map((r) => r.keyHash),
    listed: listed.map((r) => r.id),
    load: load[0]?.accounts ?? null,
  };
}

/** What the scope's shard holds of a pass's work, read in one round trip. */
export interface ShardHoldings {
  /** The account each pending key hash's provisioning wrote, for those it wrote. */
  provisioned: Map<string, number>;
  /** The listed account ids the shard holds. */
  present: Set<number>;
}

export async function readShardHoldings(
  scope: RequestScope,
  keyHashes: string[],
  ids: number[],
): Promise<ShardHoldings> {
  const { db } = scope;
  const keysQuery = db
    .select({ keyHash: apiKeys.keyHash, accountId: apiKeys.accountId })
    .from(apiKeys)
    .where(inArray(apiKeys.keyHash, keyHashes));
  const heldQuery = db.select({ id: accounts.id }).from(accounts).where(inArray(accounts.id, ids));
  // Only the lookups with something to look up (an empty list is a `false` that still plans a scan).
  const [keys, held] =
    keyHashes.length === 0
      ? [[], await heldQuery]
      : ids.length === 0
        ? [await keysQuery, []]
        : await db.batch([keysQuery, heldQuery]);
  return {
    provisioned: new Map(keys.map((k) => [k.keyHash, k.accountId])),
    present: new Set(held.map((a) => a.id)),
  };
}

/**
 * Removes from the scope's shard the accounts `ids` (everything of them, by cascade): what
 * provisionings that never reached the directory wrote, as `readShardHoldings` found them by
 * their API key (account ids are never reused, so the id it read is still that account's).
 * Their secrets were never answered to anyone, so nothing else was written for them.
 */
export async function deleteProvisionedAccounts(scope: RequestScope, ids: number[]): Promise<void> {
  await scope.db.delete(accounts).where(inArray(accounts.id, ids));
}

/** The control database's side of a pass on the scope's shard. */
export interface SweepSettlement {
  /** Pending provisionings to end (their shard rows are gone, or never were). */
  settled: string[];
  /** Accounts to take out of the directory (and the shard's count) while it lists them on this shard. */
  unlisted: number[];
  /** Where the walk resumes next pass (0: from the start). */
  afterId: number;
  /** Whether to recount the shard's load from the directory (at the end of each walk). */
  recount: boolean;
}

/** Writes a pass's settlement in one control batch; answers the recounted load, if recounted. */
export async function settleSweep(scope: RequestScope, s: SweepSettlement): Promise<number | null> {
  const { control, shard } = scope;
  const now = scope.now.toISOString();
  const onShard = (ids: number[]) =>
    and(eq(directoryAccounts.shard, shard), inArray(directoryAccounts.id, ids));
  const statements: Statement[] = [];
  if (s.settled.length > 0) {
    statements.push(
      control
        .delete(pendingAccounts)
        .where(and(eq(pendingAccounts.shard, shard), inArray(pendingAccounts.keyHash, s.settled))),
    );
  }
  if (s.unlisted.length > 0) {
    const listedHere = control.select({ n: count() }).from(directoryAccounts).where(onShard(s.unlisted));
    statements.push(
      // Before the delete: it takes off exactly the rows the delete removes.
      control
        .update(shardLoads)
        .set({ accounts: sql`${shardLoads.accounts} - (${listedHere})` })
        .where(eq(shardLoads.shard, shard)),
      control.delete(directoryAccounts).where(onShard(s.unlisted)),
    );
  }
  statements.push(
    control
      .insert(sweepCursors)
      .values({ shard, afterId: s.afterId, updatedAt: now })
      .onConflictDoUpdate({ target: sweepCursors.shard, set: { afterId: s.afterId, updatedAt: now } }),
  );
  if (s.recount) {
    const listed = control
      .select({ n: count() })
      .from(directoryAccounts)
      .where(eq(directoryAccounts.shard, shard));
    // The exact count in one statement (through accounts_shard_idx): no write falls in between.
    statements.push(
      control
        .insert(shardLoads)
        .values({ shard, accounts: sql`(${listed})` })
        .onConflictDoUpdate({ target: shardLoads.shard, set: { accounts: sql`excluded.accounts` } })
        .returning({ accounts: shardLoads.accounts }),
    );
  }
  const results = await runBatch<{ accounts: number }>(control, statements);
  return s.recount ? (results.at(-1)?.results[0]?.accounts ?? null) : null;
}
