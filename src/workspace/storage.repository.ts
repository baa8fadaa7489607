import { eq } from 'drizzle-orm';
import { accounts } from '../../schema/accounts';
import type { Db } from '../env';

/** The stored-bytes counter, quota and plan of an account; null when there is no such account. */
export async function findStorage(db: Db, accountId: number) {
  const rows = await db
    .select({ plan: accounts.plan, storedBytes: accounts.storedBytes, quota: accounts.storageQuotaBytes })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return rows[0] ?? null;
}

/** Sets (or, with null, clears back to the plan default) the account's quota. */
export async function saveStorageQuota(db: Db, accountId: number, bytes: number | null): Promise<boolean> {
  const rows = await db
    .update(accounts)
    .set({ storageQuotaBytes: bytes })
    .where(eq(accounts.id, accountId))
    .returning({ id: accounts.id });
  return rows.length > 0;
}
