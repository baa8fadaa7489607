import { getTableColumns } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { notifications } from '../../schema/notifications';
import { CONTROL_DATABASE } from '../../src/core/db';
import type { NotificationMessage } from '../../src/core/env';
import { shardOfId } from '../../src/core/shards';
import { CLAIM_PAGE, CLAIM_PER_TICK } from '../../src/notifications/notifications.limits';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, cronTick, platform } from '../helpers/platform';
import { countedShardsEnv, shardDbs, shardsRead, statementsOf } from '../helpers/shards';
import { seedDashboard } from '../notifications/fixtures';
import { recordingPorts } from '../notifications/ports';

const SHARDS = 4;
const PER_SHARD = 2_500;
const DUE = '2026-09-01T10:00:00.000Z';
const minute = (n: number) => new Date(Date.parse(DUE) + n * 60_000).toISOString();

/** Queues refuse a sendBatch of more than 100 messages or 256 KB. */
const SEND_BATCH_MESSAGES = 100;
const SEND_BATCH_BYTES = 256 * 1024;

// One account per shard (placement fills a fresh installation's shards in turn).
let onShard: SeededAccount[];

/** Columns of a notification row, as stored (snake_case), but its id. */
const copiedColumns = Object.entries(getTableColumns(notifications))
  .filter(([key]) => key !== 'id')
  .map(([key, column]) =>
    column.keyAsName ? key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`) : column.name,
  )
  .join(', ');

/** The schedules seeded, each due at DUE, and the next run each moves on to once claimed. */
const SCHEDULES = [
  { body: { scheduleType: 'HOURLY', minute: 0 }, next: '2026-09-01T11:00:00.000Z' },
  // 12:00 in Berlin (CEST, UTC+2) is 10:00 UTC.
  {
    body: { scheduleType: 'DAILY', hour: 12, minute: 0, timezone: 'Europe/Berlin' },
    next: '2026-09-02T10:00:00.000Z',
  },
];
const PER_SCHEDULE = PER_SHARD / SCHEDULES.length;

/**
 * PER_SHARD due notifications on the account's shard: for each schedule, one created through
 * the API and its row copied PER_SCHEDULE - 1 times in one statement — setup, so the rows are
 * exactly the API's without thousands of requests per shard.
 */
async function seedDue(account: SeededAccount, shard: number): Promise<void> {
  const dashboard = await seedDashboard(account, `Shard ${shard}`);
  const db = shardDbs()[shard] as D1Database;
  for (const { body } of SCHEDULES) {
    platform.clock = clockAt('2026-09-01T09:30:00.000Z');
    const created = await api('POST', `/api/v1/deployments/${account.deployments[0]}/notifications`, {
      auth: account.admin,
      body: { dashboardId: dashboard.id, ...body },
    });
    platform.clock = undefined;
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const template = created.body.id as number;
    expect(shardOfId(template)).toBe(shard);
    // A recursive CTE: the copies in one statement.
    await db
      .prepare(
        `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
         INSERT INTO notifications (${copiedColumns}) SELECT ${copiedColumns} FROM notifications, seq WHERE id = ?`,
      )
      .bind(PER_SCHEDULE - 1, template)
      .run();
  }
}

beforeAll(async () => {
  onShard = [];
  for (let i = 0; i < SHARDS; i++) onShard.push(await seedAccount());
  expect(onShard.map((a) => shardOfId(a.accountId))).toEqual([0, 1, 2, 3]);
  for (const [shard, account] of onShard.entries()) await seedDue(account, shard);
});

/** The recording queue, refusing what Queues refuse (so an oversized batch fails the tick's enqueue). */
function limitedRecorder() {
  const rec = recordingPorts();
  const sendBatch = rec.ports.queue.sendBatch.bind(rec.ports.queue);
  rec.ports.queue.sendBatch = async (messages: Iterable<MessageSendRequest<NotificationMessage>>) => {
    const list = [...messages];
    const bytes = list.reduce(
      (sum, m) => sum + new TextEncoder().encode(JSON.stringify(m.body)).byteLength,
      0,
    );
    if (list.length > SEND_BATCH_MESSAGES || bytes > SEND_BATCH_BYTES) {
      throw new Error(`sendBatch of ${list.length} messages, ${bytes} bytes: over the Queues limits`);
    }
    await sendBatch(list);
  };
  return rec;
}

/** Per shard, in shard order: one row of `query` (bound to `binds`). */
const perShard = <T>(query: string, ...binds: unknown[]) =>
  Promise.all(
    shardDbs().map(
      async (db) =>
        (await db
          .prepare(query)
          .bind(...binds)
          .first<T>()) as T,
    ),
  );

const dueLeft = async () =>
  (await perShard<{ n: number }>('SELECT count(*) AS n FROM notifications WHERE next_run_at <= ?', DUE)).map(
    (r) => r.n,
  );

describe('a cron tick at scale', () => {
  it('claims 10,000 due notifications over four shards exactly once, each shard its own', async () => {
    expect(await dueLeft()).toEqual([PER_SHARD, PER_SHARD, PER_SHARD, PER_SHARD]);
    const rec = limitedRecorder();
    platform.deliveryPorts = rec.ports;

    // Two overlapping ticks at the due time: each claims at most CLAIM_PER_TICK per shard, and
    // every row either reads is claimed by one of them.
    const overlapping = await statementsOf(() => Promise.all([cronTick(DUE), cronTick(DUE)]));
    // Every shard's jobs ran; the control database only for the sweep's pass.
    expect(shardsRead(overlapping)).toEqual([CONTROL_DATABASE, 0, 1, 2, 3]);
    // Every claim batch names only ids of the shard it ran on.
    const claims = overlapping.filter((s) => s.sql.includes('INSERT INTO notification_runs'));
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) {
      const ids = (
        JSON.parse(claim.params.find((p) => typeof p === 'string' && p.startsWith('[')) as string) as {
          id: number;
        }[]
      ).map((c) => c.id);
      expect(new Set(ids.map(shardOfId))).toEqual(new Set([claim.shard ?? 0]));
    }
    const afterPair = await dueLeft();
    for (const left of afterPair) {
      expect(left).toBeLessThanOrEqual(PER_SHARD - CLAIM_PER_TICK);
      expect(left).toBeGreaterThanOrEqual(PER_SHARD - 2 * CLAIM_PER_TICK);
    }

    // Then one tick a minute, as many as the bound needs for what the pair left: the slot stays
    // due until claimed, whichever tick takes it. The first two are full ticks (CLAIM_PER_TICK on
    // every shard): the first is counted, the second's statements recorded.
    const ticks = Math.ceil((PER_SHARD - CLAIM_PER_TICK) / CLAIM_PER_TICK);
    const counted = countedShardsEnv();
    const sendsBefore = rec.batchSizes.length;
    await cronTick(minute(1), { bindings: counted.env });
    // What one full tick costs each shard: the claim's two pages (a read and a claim batch each)
    // and its stranded-run sweep, plus one round trip per other job (the pre-aggregations' refresh
    // is one: its claims of plans and partitions go in one batch); the same on every shard.
    const trips = counted.roundTrips();
    expect(new Set(trips).size).toBe(1);
    expect(trips[0]).toBeLessThanOrEqual(11);
    // Each page's runs in sendBatch calls of at most 100: three per page of 250.
    expect(rec.batchSizes.slice(sendsBefore)).toHaveLength(SHARDS * (CLAIM_PER_TICK / CLAIM_PAGE) * 3);
    const second = await statementsOf(() => cronTick(minute(2)));
    for (let shard = 0; shard < SHARDS; shard++) {
      const on = second.filter((st) => (st.shard ?? 0) === shard);
      const reads = on.filter((st) => /^select .* from "notifications"/i.test(st.sql));
      const claimed = on.filter((st) => st.sql.includes('INSERT INTO notification_runs'));
      expect([reads.length, claimed.length]).toEqual([
        CLAIM_PER_TICK / CLAIM_PAGE,
        CLAIM_PER_TICK / CLAIM_PAGE,
      ]);
    }
    for (let i = 3; i <= ticks; i++) await cronTick(minute(i));
    expect(await dueLeft()).toEqual([0, 0, 0, 0]);

    // One more tick finds nothing left.
    const queuedBefore = rec.queued.length;
    await cronTick(minute(ticks + 1));
    expect(rec.queued).toHaveLength(queuedBefore);

    // Exactly one message per due notification, none twice, in batches Queues accept.
    expect(rec.queued).toHaveLength(SHARDS * PER_SHARD);
    expect(new Set(rec.queued).size).toBe(SHARDS * PER_SHARD);
    expect(Math.max(...rec.batchSizes)).toBeLessThanOrEqual(SEND_BATCH_MESSAGES);
    for (let shard = 0; shard < SHARDS; shard++) {
      expect(rec.queued.filter((id) => shardOfId(id) === shard)).toHaveLength(PER_SHARD);
    }

    // Stored: each shard's notifications have exactly one run, for the due slot, made on that
    // shard (its id's range) for that shard's account; each moved on to the next hour.
    const runs = await perShard<{
      runs: number;
      notified: number;
      at_due: number;
      queued: number;
      min_id: number;
      max_id: number;
      orphaned: number;
    }>(
      `SELECT count(*) AS runs, count(DISTINCT r.notification_id) AS notified,
         sum(r.slot = ?) AS at_due, sum(r.status = 'queued') AS queued,
         min(r.id) AS min_id, max(r.id) AS max_id,
         sum(n.id IS NULL) AS orphaned
       FROM notification_runs r LEFT JOIN notifications n ON n.id = r.notification_id`,
      DUE,
    );
    for (const [shard, row] of runs.entries()) {
      expect(row).toMatchObject({
        runs: PER_SHARD,
        notified: PER_SHARD,
        at_due: PER_SHARD,
        queued: PER_SHARD,
        orphaned: 0,
      });
      expect([shardOfId(row.min_id), shardOfId(row.max_id)]).toEqual([shard, shard]);
    }
    const accounts = await perShard<{ accounts: number; account: number }>(
      'SELECT count(DISTINCT account_id) AS accounts, min(account_id) AS account FROM notifications',
    );
    expect(accounts).toEqual(onShard.map((a) => ({ accounts: 1, account: a.accountId })));
    // Each moved on to its own schedule's next run (one computation per schedule, not per row).
    for (const db of shardDbs()) {
      const { results } = await db
        .prepare(
          'SELECT next_run_at AS next, count(*) AS n FROM notifications GROUP BY next_run_at ORDER BY 1',
        )
        .all();
      expect(results).toEqual(SCHEDULES.map((s) => ({ next: s.next, n: PER_SCHEDULE })));
    }
    const queuedIds = new Set(rec.queued);
    for (const db of shardDbs()) {
      const { results } = await db.prepare('SELECT id FROM notification_runs').all<{ id: number }>();
      expect(results.every((r) => queuedIds.has(r.id))).toBe(true);
    }
  });
});
