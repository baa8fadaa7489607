import type { MoveTableCounts } from '../../schema/control';
import {
  advanceMove,
  findMove,
  type MoveChange,
  type MoveRow,
  stalledMoves,
  switchDirectory,
} from '../control/moves.repository';
import type { Db, MoveMessage } from '../core/env';
import type { RequestScope } from '../core/scope';
import { openShard } from '../core/shards';
import {
  arriveOnShard,
  freezeAccount,
  leaveShard,
  unfreezeAccount,
  workInFlight,
} from './move-account.repository';
import { MOVE_PLAN, type MoveStep, shapeOf } from './move-plan';
import {
  chainDigest,
  countRows,
  type Key,
  keyOf,
  readRows,
  removeRows,
  restoreColumns,
  rowsText,
  writeRows,
} from './move-rows.repository';

/**
 * The steps of a move (docs/sharding.md, "Moving an account"). Each queue message drives one
 * bounded step of one move and enqueues the next: `freezing` waits until none of the account's
 * background work is in flight, `copying` copies the account's rows table by table (keyset pages
 * by primary key, ids kept), `verifying` compares each table's row count and checksum on both
 * shards, `switching` leaves forwards on the source and points the directory at the target,
 * `cleaning` deletes the account's rows from the source. A failure before the switch unfreezes
 * the source and removes what was copied (`failed`, finished once the target is clean).
 */

/** Rows one step reads at most (a page per table read, each of at most `PAGE_ROWS`). */
export const STEP_ROWS = 400;
/** Rows of one read: D1 answers them in one round trip. */
export const PAGE_ROWS = 100;
/** Bytes of rows one step copies at most: a page whose rows are large ends the step early. */
const STEP_BYTES = 4_000_000;
/** How long a move waits before looking again at the account's background work in flight. */
export const DRAIN_DELAY_SECONDS = 10;
/** How many times it looks before giving up (the move fails, and the account is unfrozen). */
export const MAX_DRAIN_WAITS = 60;

/** What a step does to its move: the change, and how long before the next step runs. */
interface Outcome {
  change: MoveChange;
  delaySeconds?: number;
}

/** The shards a move reads and writes, each counted on its own. */
interface Shards {
  source: { d1: D1Database; db: Db };
  target: { d1: D1Database; db: Db };
}

/** A verification that found the shards differ. */
class MoveMismatch extends Error {}

const ROW_STEPS = MOVE_PLAN.map((step, index) => ({ step, index })).filter((s) => s.step.kind === 'rows');

const tableOf = (step: MoveStep) => shapeOf(step.table).name;

interface CopyCursor {
  after: Key | null;
}

interface VerifyCursor {
  after: Key | null;
  source: { rows: number; digest: string };
  target: { rows: number; digest: string };
}

const parse = <T>(cursor: string | null): T | null => (cursor ? (JSON.parse(cursor) as T) : null);

function counted(counts: Record<string, MoveTableCounts>, table: string): MoveTableCounts {
  counts[table] ??= { copied: 0 };
  return counts[table] as MoveTableCounts;
}

/** Waits until nothing of the account is in flight, then starts copying. */
async function drain(move: MoveRow, shards: Shards, now: string): Promise<Outcome> {
  const inFlight = await workInFlight(shards.source.db, move.accountId, now);
  if (inFlight === 0) return { change: { state: 'copying', step: 0, cursor: null } };
  if (move.waits + 1 >= MAX_DRAIN_WAITS) {
    throw new Error(
      `${inFlight} builds, notification runs, exports or rollup builds of the account were still in flight after ${MAX_DRAIN_WAITS} checks`,
    );
  }
  return { change: { waits: move.waits + 1 }, delaySeconds: DRAIN_DELAY_SECONDS };
}

/** Copies the next pages of the plan to the target, until the step's budget is spent. */
async function copy(move: MoveRow, shards: Shards): Promise<Outcome> {
  const counts = structuredClone(move.counts);
  let index = move.step;
  let after = parse<CopyCursor>(move.cursor)?.after ?? null;
  let rowsLeft = STEP_ROWS;
  let bytes = 0;
  while (index < MOVE_PLAN.length && rowsLeft > 0 && bytes < STEP_BYTES) {
    const step = MOVE_PLAN[index] as MoveStep;
    const limit = Math.min(PAGE_ROWS, rowsLeft);
    const rows = await readRows(shards.source.d1, step, move.accountId, after, limit);
    if (step.kind === 'rows') {
      await writeRows(shards.target.d1, step, rows);
      counted(counts, tableOf(step)).copied += rows.length;
    } else {
      await restoreColumns(shards.target.d1, step, rows);
    }
    // An empty page still costs its reads: it counts against the budget as a small one.
    rowsLeft -= Math.max(rows.length, 10);
    bytes += rowsText(rows).length;
    const last = rows.at(-1);
    if (rows.length < limit || !last) {
      index += 1;
      after = null;
    } else {
      after = keyOf(shapeOf(step.table), last);
    }
  }
  if (index >= MOVE_PLAN.length) return { change: { state: 'verifying', step: 0, cursor: null, counts } };
  return { change: { step: index, cursor: JSON.stringify({ after } satisfies CopyCursor), counts } };
}

/**
 * Compares the next pages of each table on both shards: the same rows by primary key, read
 * the same way and chained into a SHA-256 checksum per side; at a table's end its row counts
 * and checksums must agree, or the move fails.
 */
async function verify(move: MoveRow, shards: Shards): Promise<Outcome> {
  const counts = structuredClone(move.counts);
  let index = move.step;
  let cursor = parse<VerifyCursor>(move.cursor);
  let rowsLeft = STEP_ROWS;
  while (index < ROW_STEPS.length && rowsLeft > 0) {
    const { step } = ROW_STEPS[index] as { step: MoveStep };
    const table = tableOf(step);
    const at: VerifyCursor = cursor ?? {
      after: null,
      source: { rows: 0, digest: '' },
      target: { rows: 0, digest: '' },
    };
    const limit = Math.min(PAGE_ROWS, rowsLeft);
    const source = await readRows(shards.source.d1, step, move.accountId, at.after, limit);
    const last = source.at(-1);
    const shape = shapeOf(step.table);
    // The target's rows in the same range of keys: one the source lacks shows in the checksum.
    const target = last
      ? await readRows(shards.target.d1, step, move.accountId, at.after, limit * 2, keyOf(shape, last))
      : [];
    const next: VerifyCursor = {
      after: last ? keyOf(shape, last) : at.after,
      source: {
        rows: at.source.rows + source.length,
        digest: source.length ? await chainDigest(at.source.digest, rowsText(source)) : at.source.digest,
      },
      target: {
        rows: at.target.rows + target.length,
        digest: target.length ? await chainDigest(at.target.digest, rowsText(target)) : at.target.digest,
      },
    };
    rowsLeft -= Math.max(source.length, 10);
    if (source.length === limit) {
      cursor = next;
      continue;
    }
    // The table's end: rows of the target past the source's last key count too.
    const [sourceRows, targetRows] = await Promise.all([
      countRows(shards.source.d1, step, move.accountId),
      countRows(shards.target.d1, step, move.accountId),
    ]);
    Object.assign(counted(counts, table), { source: sourceRows, target: targetRows });
    if (sourceRows !== targetRows || next.source.digest !== next.target.digest) {
      throw new MoveMismatch(
        `The rows of ${table} differ between the shards (${sourceRows} on shard ${move.fromShard}, ${targetRows} on shard ${move.toShard})`,
      );
    }
    index += 1;
    cursor = null;
  }
  if (index >= ROW_STEPS.length) return { change: { state: 'switching', step: 0, cursor: null, counts } };
  return { change: { step: index, cursor: cursor ? JSON.stringify(cursor) : null, counts } };
}

/**
 * Deletes the account's rows from one shard, the plan backwards (children before parents, the
 * account row last), a page at a time: the source after the switch, or a failed move's target.
 */
async function remove(
  move: MoveRow,
  d1: D1Database,
  record: 'deleted' | null,
): Promise<{ index: number; counts: Record<string, MoveTableCounts> }> {
  const counts = structuredClone(move.counts);
  let index = move.step;
  let rowsLeft = STEP_ROWS;
  while (index >= 0 && rowsLeft > 0) {
    const step = MOVE_PLAN[index] as MoveStep;
    const limit = Math.min(PAGE_ROWS, rowsLeft);
    const removed = await removeRows(d1, step, move.accountId, limit);
    if (record && step.kind === 'rows') {
      const c = counted(counts, tableOf(step));
      c.deleted = (c.deleted ?? 0) + removed;
    }
    rowsLeft -= Math.max(removed, 10);
    if (removed < limit) index -= 1;
  }
  return { index, counts };
}

async function clean(move: MoveRow, shards: Shards, now: string): Promise<Outcome> {
  const { index, counts } = await remove(move, shards.source.d1, 'deleted');
  if (index < 0) return { change: { state: 'done', step: 0, counts, finishedAt: now } };
  return { change: { step: index, counts } };
}

/** A failed move's clean-up: the target loses what was copied; the source was unfrozen already. */
async function rollBack(move: MoveRow, shards: Shards, now: string): Promise<Outcome> {
  const { index } = await remove(move, shards.target.d1, null);
  if (index >= 0) return { change: { step: index } };
  // Once more, in case the unfreezing after the failure was lost: the account never stays frozen.
  await unfreezeAccount(shards.source.db, move.accountId);
  return { change: { step: 0, finishedAt: now } };
}

/** The switch: forwards and the moved mark on the source, the target unfrozen, then the directory. */
async function switchShards(
  scope: RequestScope,
  move: MoveRow,
  shards: Shards,
  now: string,
): Promise<MoveRow | null> {
  const deleted = await leaveShard(shards.source.db, move.accountId, move.toShard, now);
  await arriveOnShard(shards.target.db, move.accountId);
  const counts = structuredClone(move.counts);
  for (const [table, n] of Object.entries(deleted)) counted(counts, table).deleted = n;
  return switchDirectory(scope.control, move, { state: 'cleaning', step: MOVE_PLAN.length - 1, counts }, now);
}

/** What a message found: its step taken (or ignored as done before), or a step not reached yet. */
export type StepResult = 'taken' | 'stale' | 'early';

const PRE_SWITCH = new Set(['freezing', 'copying', 'verifying']);

/**
 * Takes the step `message` names, if the move is still there (a redelivered or doubled message
 * finds it moved on and does nothing), and enqueues the next. A step that fails before the
 * switch fails the move; after it, the error stands and the message is retried.
 */
export async function takeMoveStep(scope: RequestScope, message: MoveMessage): Promise<StepResult> {
  const move = await findMove(scope.control, message.moveId);
  if (!move || move.finishedAt !== null || message.version < move.version) return 'stale';
  if (message.version > move.version) return 'early';
  const counter = { queries: 0, roundTrips: 0 };
  const shards: Shards = {
    source: openShard(scope.env, move.fromShard, counter),
    target: openShard(scope.env, move.toShard, counter),
  };
  const now = scope.ports.clock.now().toISOString();
  let next: MoveRow | null;
  let delaySeconds: number | undefined;
  if (move.state === 'switching') {
    next = await switchShards(scope, move, shards, now);
  } else {
    let outcome: Outcome;
    try {
      outcome = await stepOf(move, shards, now);
    } catch (error) {
      if (!PRE_SWITCH.has(move.state)) throw error;
      console.error(JSON.stringify({ event: 'account_move_failed', moveId: move.id, error: String(error) }));
      outcome = {
        change: {
          state: 'failed',
          error: error instanceof Error ? error.message : String(error),
          step: MOVE_PLAN.length - 1,
          cursor: null,
        },
      };
    }
    next = await advanceMove(scope.control, move.id, move.version, outcome.change, now);
    delaySeconds = outcome.delaySeconds;
    if (next?.state === 'failed' && move.state !== 'failed')
      await unfreezeAccount(shards.source.db, move.accountId);
  }
  if (next && next.finishedAt === null) {
    await scope.ports.movesQueue.send(
      { kind: 'account-move', moveId: next.id, version: next.version },
      delaySeconds ? { delaySeconds } : undefined,
    );
  }
  return 'taken';
}

function stepOf(move: MoveRow, shards: Shards, now: string): Promise<Outcome> {
  switch (move.state) {
    case 'freezing':
      return drain(move, shards, now);
    case 'copying':
      return copy(move, shards);
    case 'verifying':
      return verify(move, shards);
    case 'cleaning':
      return clean(move, shards, now);
    case 'failed':
      return rollBack(move, shards, now);
    default:
      throw new Error(`A move in state ${move.state} takes no step`);
  }
}

/** Freezes the account on the move's source: the first thing a new move does. */
export async function freezeSource(scope: RequestScope, move: MoveRow): Promise<boolean> {
  const { db } = openShard(scope.env, move.fromShard, { queries: 0, roundTrips: 0 });
  return freezeAccount(db, move.accountId, scope.now.toISOString());
}

/** Unfreezes the account on the move's source (a move that could not start). */
export async function unfreezeSource(scope: RequestScope, move: MoveRow): Promise<void> {
  const { db } = openShard(scope.env, move.fromShard, { queries: 0, roundTrips: 0 });
  await unfreezeAccount(db, move.accountId);
}

/** The consumer of move messages (on the builds queue): each message one step. */
export async function consumeMoves(scope: RequestScope, messages: readonly Message<MoveMessage>[]) {
  for (const message of messages) {
    try {
      const result = await takeMoveStep(scope, message.body);
      if (result === 'early') message.retry({ delaySeconds: 5 });
      else message.ack();
    } catch (error) {
      console.error(
        JSON.stringify({
          event: 'account_move_step_failed',
          moveId: message.body.moveId,
          error: String(error),
        }),
      );
      message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts * 5) });
    }
  }
}

/** A move no step changed for this long is enqueued again by the cron tick (its message may be lost). */
export const STALLED_MOVE_MS = 5 * 60_000;

/**
 * Every minute, once (not per shard): enqueues again the step of each unfinished move that has
 * not moved on for STALLED_MOVE_MS, so a lost message (retries run out, an enqueue that failed
 * after its step) never leaves an account frozen. A step already taken ignores it.
 */
export async function resumeStalledMoves(scope: RequestScope): Promise<number> {
  const before = new Date(scope.now.getTime() - STALLED_MOVE_MS).toISOString();
  const moves = await stalledMoves(scope.control, before, 20);
  for (const move of moves) {
    await scope.ports.movesQueue.send({ kind: 'account-move', moveId: move.id, version: move.version });
  }
  return moves.length;
}
