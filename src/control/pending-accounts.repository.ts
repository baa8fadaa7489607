import { eq } from 'drizzle-orm';
import { pendingAccounts } from '../../schema/control';
import type { Db } from '../core/env';

/**
 * Provisionings begun and not yet listed in the directory (schema/control.ts): the first step
 * of provisioning, before the shard writes the account. The directory entry's batch ends one
 * (`insertDirectoryEntry`); the sweep undoes one left older than its grace period.
 */

/** Records that a provisioning whose API key hashes to `keyHash` is writing on `shard`. */
export async function insertPendingAccount(
  control: Db,
  keyHash: string,
  shard: number,
  now: Date,
): Promise<void> {
  // The hash of a fresh random key: a second insert can only be this provisioning's own retry.
  await control
    .insert(pendingAccounts)
    .values({ keyHash, shard, createdAt: now.toISOString() })
    .onConflictDoNothing();
}

/** Whether the provisioning of `keyHash` is still pending (its directory entry not written). */
export async function isPendingAccount(control: Db, keyHash: string): Promise<boolean> {
  const [row] = await control
    .select({ keyHash: pendingAccounts.keyHash })
    .from(pendingAccounts)
    .where(eq(pendingAccounts.keyHash, keyHash));
  return row !== undefined;
}

/** Ends the provisioning of `keyHash` without listing it (its shard rows are gone). */
export async function deletePendingAccount(control: Db, keyHash: string): Promise<void> {
  await control.delete(pendingAccounts).where(eq(pendingAccounts.keyHash, keyHash));
}
