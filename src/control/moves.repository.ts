import { and, asc, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import { accountMoves, directoryAccounts, shardLoads } from '../../schema/control';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';

/** A move as the control database keeps it. */
export type MoveRow = typeof accountMoves.$inferSelect;

/** What a step changes of its move (the version always goes up by one). */
export type MoveChange = Partial<
  Pick<MoveRow, 'state' | 'step' | 'cursor' | 'counts' | 'waits' | 'error' | 'finishedAt'>
>;

/**
 * Records a new move, unless the account has one unfinished (the partial unique index): the
 * new row, or null when another move of the account is running.
 */
export async function insertMove(
  control: Db,
  move: Pick<MoveRow, 'accountId' | 'fromShard' | 'toShard' | 'state'>,
  now: string,
): Promise<MoveRow | null> {
  const [row] = await control
    .insert(accountMoves)
    .values({ ...move, counts: {}, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

export async function findMove(control: Db, id: number): Promise<MoveRow | null> {
  const [row] = await control.select().from(accountMoves).where(eq(accountMoves.id, id));
  return row ?? null;
}

/** The account's latest move. */
export async function latestMove(control: Db, accountId: number): Promise<MoveRow | null> {
  const [row] = await control
    .select()
    .from(accountMoves)
    .where(eq(accountMoves.accountId, accountId))
    .orderBy(desc(accountMoves.id))
    .limit(1);
  return row ?? null;
}

/**
 * Applies a step's change if the move is still at `version` (compare-and-set): the moved-on
 * row, or null when another delivery of the same step got there first.
 */
export async function advanceMove(
  control: Db,
  id: number,
  version: number,
  change: MoveChange,
  now: string,
): Promise<MoveRow | null> {
  const [row] = await control
    .update(accountMoves)
    .set({ ...change, version: version + 1, updatedAt: now })
    .where(and(eq(accountMoves.id, id), eq(accountMoves.version, version)))
    .returning();
  return row ?? null;
}

/**
 * The switch, in one control batch: the directory lists the account on its new shard, each
 * shard's load counts it where it is, and the move goes on to cleaning (compare-and-set on its
 * version, as every step). Null when another delivery switched it first.
 */
export async function switchDirectory(
  control: Db,
  move: MoveRow,
  change: MoveChange,
  now: string,
): Promise<MoveRow | null> {
  const [, , , advanced] = await runBatch<MoveRow>(control, [
    control
      .update(directoryAccounts)
      .set({ shard: move.toShard })
      .where(and(eq(directoryAccounts.id, move.accountId), eq(directoryAccounts.shard, move.fromShard))),
    control
      .update(shardLoads)
      .set({ accounts: sql`max(0, ${shardLoads.accounts} - 1)` })
      .where(
        and(
          eq(shardLoads.shard, move.fromShard),
          // Only while the directory row above still named the old shard: a replayed switch counts once.
          sql`changes() > 0`,
        ),
      ),
    control
      .insert(shardLoads)
      .values({ shard: move.toShard, accounts: 1 })
      .onConflictDoUpdate({
        target: shardLoads.shard,
        set: { accounts: sql`${shardLoads.accounts} + 1` },
        setWhere: sql`(SELECT shard FROM accounts WHERE id = ${move.accountId}) = ${move.toShard}
          AND (SELECT version FROM account_moves WHERE id = ${move.id}) = ${move.version}`,
      }),
    control
      .update(accountMoves)
      .set({ ...change, version: move.version + 1, updatedAt: now })
      .where(and(eq(accountMoves.id, move.id), eq(accountMoves.version, move.version)))
      .returning(),
  ]);
  const row = advanced?.results[0] as Record<string, unknown> | undefined;
  return row ? ((await findMove(control, move.id)) ?? null) : null;
}

/** Unfinished moves no step has changed since `before`: their message may have been lost. */
export async function stalledMoves(control: Db, before: string, limit: number): Promise<MoveRow[]> {
  return control
    .select()
    .from(accountMoves)
    .where(and(isNull(accountMoves.finishedAt), lt(accountMoves.updatedAt, before)))
    .orderBy(asc(accountMoves.updatedAt))
    .limit(limit);
}
