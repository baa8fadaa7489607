import { createMessageBatch, env } from 'cloudflare:test';
import { expect } from 'vitest';
import { MOVE_PLAN, shapeOf } from '../../src/accounts/move-plan';
import type { MoveMessage } from '../../src/core/env';
import { shardDatabase } from '../../src/core/shards';
import { MOVES_CRON } from '../../src/worker';
import { OPERATOR } from '../helpers/harness';
import { type ApiResponse, api } from '../helpers/http';
import { cronTick, deliverBatch, platform } from '../helpers/platform';

/** The steps a move enqueued, kept for the test to deliver (the move's queue on the test's platform). */
export const movesSent: MoveMessage[] = [];

/** Puts the recording queue of move steps on the test's platform (test/setup.ts empties it after each test). */
export function recordMoves(): void {
  platform.movesQueue = {
    async send(body) {
      movesSent.push(body);
    },
  };
}

let delivered = 0;

/** Delivers move messages to the Worker's queue handler, as the builds queue would; answers acks and retries. */
export async function deliverMoves(messages: MoveMessage[]) {
  const batch = createMessageBatch(
    'edgeboard-builds',
    messages.map((body) => ({ id: `move-${++delivered}`, timestamp: new Date(), attempts: 1, body })),
  );
  return deliverBatch(batch);
}

export const startMove = (accountId: number, shard: unknown): Promise<ApiResponse> =>
  api('POST', `/admin/v1/accounts/${accountId}/move`, { auth: OPERATOR, body: { shard } });

export const moveOf = (accountId: number): Promise<ApiResponse> =>
  api('GET', `/admin/v1/accounts/${accountId}/move`, { auth: OPERATOR });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Delivers the enqueued steps one by one until none is left, or `until` holds for the move;
 * answers the move as the operator then sees it. A move waiting for background work in flight
 * gets a moment before its next look.
 */
export async function driveMove(
  accountId: number,
  until: (move: Record<string, any>) => boolean = () => false,
): Promise<Record<string, any>> {
  for (let i = 0; i < 500; i++) {
    const move = (await moveOf(accountId)).body;
    const next = movesSent[0];
    if (!next || until(move)) return move;
    movesSent.shift();
    await deliverMoves([next]);
    if (move.state === 'freezing') await sleep(200);
  }
  throw new Error('the move did not end in 500 steps');
}

/** Every row of the account on `shard`, table by table as the move plan reads them (by primary key). */
export async function dumpAccount(shard: number, accountId: number): Promise<Record<string, unknown[]>> {
  const db = shardDatabase(env, shard);
  const dump: Record<string, unknown[]> = {};
  for (const step of MOVE_PLAN) {
    if (step.kind !== 'rows') continue;
    const shape = shapeOf(step.table);
    const { results } = await db
      .prepare(`SELECT * FROM ${shape.name} WHERE ${step.owner} ORDER BY ${shape.primaryKey.join(', ')}`)
      .bind(accountId)
      .all();
    dump[shape.name] = results;
  }
  return dump;
}

/** How many rows of the account each table holds on `shard`. */
export async function rowCounts(shard: number, accountId: number): Promise<Record<string, number>> {
  const dump = await dumpAccount(shard, accountId);
  return Object.fromEntries(Object.entries(dump).map(([table, rows]) => [table, rows.length]));
}

/** Waits until none of the account's builds is queued or building on `shard` (the seed's first builds). */
export async function buildsSettled(shard: number, accountId: number): Promise<void> {
  const db = shardDatabase(env, shard);
  for (let i = 0; i < 100; i++) {
    const row = await db
      .prepare(
        `SELECT count(*) AS n FROM builds WHERE status IN ('queued', 'building')
          AND deployment_id IN (SELECT id FROM deployments WHERE account_id = ?)`,
      )
      .bind(accountId)
      .first<{ n: number }>();
    if (row?.n === 0) return;
    await sleep(100);
  }
  expect.fail('the seed’s builds did not finish');
}

/** The directory's shard of the account, and every shard's load. */
export async function directory(accountId: number) {
  const row = await env.CONTROL_DB.prepare('SELECT shard FROM accounts WHERE id = ?')
    .bind(accountId)
    .first<{ shard: number }>();
  const { results } = await env.CONTROL_DB.prepare(
    'SELECT shard, accounts FROM shard_loads ORDER BY shard',
  ).all<{ shard: number; accounts: number }>();
  return { shard: row?.shard, loads: Object.fromEntries(results.map((r) => [r.shard, r.accounts])) };
}

/** A tick of the trigger that enqueues stalled moves again, at `at`. */
export const resumeTick = (at: Date): Promise<void> => cronTick(at, { cron: MOVES_CRON });
