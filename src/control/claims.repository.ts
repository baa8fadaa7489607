import { and, eq } from 'drizzle-orm';
import { type ClaimKind, claimedNames } from '../../schema/control';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';

/**
 * Claims `name` of `kind` (a deployment slug, a report public id) for account `accountId`
 * across every shard, before the shard writes the row that uses it: one round trip that inserts
 * the claim unless it exists and reads who holds it. True when the account holds it (now or
 * already); false when another account does. Claims are never released (schema/control.ts).
 */
export async function claimName(
  control: Db,
  kind: ClaimKind,
  name: string,
  accountId: number,
  now: Date,
): Promise<boolean> {
  const [, holder] = await runBatch<{ account_id: number }>(control, [
    control
      .insert(claimedNames)
      .values({ kind, name, accountId, createdAt: now.toISOString() })
      .onConflictDoNothing(),
    control
      .select({ accountId: claimedNames.accountId })
      .from(claimedNames)
      .where(and(eq(claimedNames.kind, kind), eq(claimedNames.name, name))),
  ]);
  return holder?.results[0]?.account_id === accountId;
}

/** The account holding `name` of `kind`, or null when nobody claimed it. */
export async function nameHolder(control: Db, kind: ClaimKind, name: string): Promise<number | null> {
  const [row] = await control
    .select({ accountId: claimedNames.accountId })
    .from(claimedNames)
    .where(and(eq(claimedNames.kind, kind), eq(claimedNames.name, name)));
  return row?.accountId ?? null;
}
