import { createMessageBatch, env } from 'cloudflare:test';
import { expect } from 'vitest';
import type { PreAggregationMessage } from '../../src/core/env';
import { shopModel } from '../data-api/fixtures';
import { cronTick, deliverBatch, platform } from '../helpers/platform';

/** Two rollups on the shop's orders: monthly by status (partitioned by year), and by country. */
export const ROLLUPS = `    pre_aggregations:
      - name: monthly
        measures: [count, total_amount]
        dimensions: [status]
        time_dimension: created_at
        granularity: month
        partition_granularity: year
      - name: by_country
        measures: [count]
        dimensions: [country]
`;

/** The shop's model with `rollups` (YAML under the orders cube) before its access policy. */
export const modelWithRollups = (prefix = '', rollups = ROLLUPS) =>
  shopModel(prefix).replace(
    '    access_policy:\n      - group: managers',
    `${rollups}    access_policy:\n      - group: managers`,
  );

/** Records what the Worker sends to the pre-aggregations queue from now on, into `into`. */
export function recordPreAggregations(into: PreAggregationMessage[] = []): PreAggregationMessage[] {
  platform.preAggregationsQueue = { sendBatch: async (m) => void into.push(...[...m].map((r) => r.body)) };
  return into;
}

let delivered = 0;
/** Delivers `messages` to the Worker's pre-aggregations queue consumer, each a first attempt. */
export function deliverPreAggregations(messages: PreAggregationMessage[], at: Date = new Date()) {
  return deliverBatch(
    createMessageBatch(
      'edgeboard-pre-aggregations',
      messages.map((body) => ({ id: `pa-${++delivered}-${at.getTime()}`, timestamp: at, attempts: 1, body })),
    ),
  );
}

/**
 * Runs the refresh until nothing is due (at most three rounds): a tick of the cron, then the
 * messages it sent delivered, none retried. Whether it settled; the queue stays recorded after.
 */
export async function refreshAll(): Promise<boolean> {
  for (let round = 0; round < 3; round++) {
    const sent = recordPreAggregations();
    const at = new Date(Date.now() + 1_000);
    await cronTick(at);
    if (sent.length === 0) return true;
    const result = await deliverPreAggregations(sent, at);
    expect(result.retryMessages).toEqual([]);
  }
  return false;
}

/**
 * Freezes the account (`at`), as a move to another shard does while it copies the account's rows,
 * or thaws it (`null`).
 */
export const freezeAccount = (accountId: number, at: string | null) =>
  env.DB.prepare('UPDATE accounts SET frozen_at = ? WHERE id = ?').bind(at, accountId).run();
