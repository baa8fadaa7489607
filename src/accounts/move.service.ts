import { advanceMove, insertMove, latestMove, type MoveRow } from '../control/moves.repository';
import { badRequest, conflict, notFound } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { isShard, shardCount } from '../core/shards';
import type { MoveView } from './move.schemas';
import { movedTables } from './move-plan';
import { freezeSource, unfreezeSource } from './move-steps.service';
import { accountShard } from './placement.service';

/** A move as the operator's API shows it: each table's counts in copying order. */
export function presentMove(move: MoveRow): MoveView {
  return {
    id: move.id,
    accountId: move.accountId,
    fromShard: move.fromShard,
    toShard: move.toShard,
    state: move.state,
    tables: movedTables()
      .filter((table) => move.counts[table] !== undefined)
      .map((table) => ({ table, ...move.counts[table], copied: move.counts[table]?.copied ?? 0 })),
    error: move.error,
    createdAt: move.createdAt,
    updatedAt: move.updatedAt,
    finishedAt: move.finishedAt,
  };
}

/**
 * Starts moving account `accountId` to shard `toShard`: records the move (one unfinished move
 * per account: 409 otherwise), freezes the account on its shard (its writes are refused from
 * here on) and enqueues the first step. Any failure on the way finishes the move as failed and
 * leaves the account unfrozen.
 */
export async function startMove(scope: RequestScope, accountId: number, toShard: number): Promise<MoveView> {
  if (!isShard(scope.env, toShard)) {
    throw badRequest('No such shard', [{ path: 'shard', message: `Shards are 0 to ${shardMax(scope)}` }]);
  }
  const fromShard = await accountShard(scope, accountId);
  if (fromShard === toShard) {
    throw badRequest('The account lives on this shard already', [
      { path: 'shard', message: `Account ${accountId} is on shard ${fromShard}` },
    ]);
  }
  // Ids are kept, and SQLite hands out the next id after the highest a table holds: ids of a
  // higher shard's range would make the target hand out ids of that range from then on.
  if (toShard < fromShard) {
    throw badRequest('An account moves only to a shard numbered above its own', [
      { path: 'shard', message: `Account ${accountId} is on shard ${fromShard}: pick a shard above it` },
    ]);
  }
  const now = scope.now.toISOString();
  const move = await insertMove(scope.control, { accountId, fromShard, toShard, state: 'freezing' }, now);
  if (!move) throw conflict('A move of this account is already running');
  const fail = (error: string) =>
    advanceMove(scope.control, move.id, move.version, { state: 'failed', error, finishedAt: now }, now);
  // A freeze that throws is inside the try too: left unfinished, the move would be resumed by the
  // cron tick and copy an account whose writes were never refused.
  let frozen = false;
  try {
    frozen = await freezeSource(scope, move);
    if (frozen)
      await scope.ports.movesQueue.send({ kind: 'account-move', moveId: move.id, version: move.version });
  } catch (error) {
    await unfreezeSource(scope, move);
    await fail(frozen ? 'The first step could not be enqueued' : 'The account could not be frozen');
    throw error;
  }
  if (!frozen) {
    await fail('The account was frozen already on its shard');
    throw conflict('The account is frozen on its shard: another move left it so');
  }
  return presentMove(move);
}

const shardMax = (scope: RequestScope) => shardCount(scope.env) - 1;

/** The account's latest move; 404 when it never moved (or is unknown). */
export async function getMove(scope: RequestScope, accountId: number): Promise<MoveView> {
  const move = await latestMove(scope.control, accountId);
  if (!move) throw notFound('Move');
  return presentMove(move);
}
