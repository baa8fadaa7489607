import { notFound } from '../core/errors';
import { STORAGE_QUOTA_BY_PLAN } from '../core/storage-quota';
import type { Db } from '../env';
import { findStorage, saveStorageQuota } from './storage.repository';

/** An account's stored bytes and the quota that bounds them. */
export interface StorageUsage {
  storedBytes: number;
  quotaBytes: number;
  /** `plan`: the plan's default applies; `account`: the operator set this account's quota. */
  quotaSource: 'plan' | 'account';
}

/**
 * What the account stores and may store. For the operator's account routes (the counter is
 * kept by triggers; this reads one row, it never counts).
 */
export async function getStorageUsage(db: Db, accountId: number): Promise<StorageUsage> {
  const row = await findStorage(db, accountId);
  if (!row) throw notFound('Account');
  return {
    storedBytes: row.storedBytes,
    quotaBytes: row.quota ?? STORAGE_QUOTA_BY_PLAN[row.plan],
    quotaSource: row.quota === null ? 'plan' : 'account',
  };
}

/**
 * Sets the account's stored-bytes quota (null: back to its plan's default). A quota below what
 * the account already stores refuses every growing write until it deletes enough; deletes
 * always go through.
 */
export async function setStorageQuota(
  db: Db,
  accountId: number,
  bytes: number | null,
): Promise<StorageUsage> {
  if (bytes !== null && (!Number.isSafeInteger(bytes) || bytes < 0)) {
    throw new RangeError('A storage quota is a whole number of bytes ≥ 0');
  }
  if (!(await saveStorageQuota(db, accountId, bytes))) throw notFound('Account');
  return getStorageUsage(db, accountId);
}
