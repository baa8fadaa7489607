import { count, eq, lte, sql } from 'drizzle-orm';
import { accounts } from '../../schema/accounts';
import { pendingAccounts, shardLoads, sweepCursors } from '../../schema/control';
import { builds } from '../../schema/deployments';
import { notificationRuns, notifications } from '../../schema/notifications';
import { preAggregationPartitions } from '../../schema/pre-aggregations';
import { toD1 } from '../core/db';
import type { Db } from '../core/env';
import type { RequestScope } from '../core/scope';

/**
 * What the operator's view of the shards (`GET /admin/v1/shards`) reads: one statement per
 * shard, and one control batch for all of them. See docs/sharding.md, "The operator's view".
 */

/** What one shard says of itself in one statement. */
export interface ShardFigures {
  /** The database's size in bytes, as D1 reports it after the statement (`meta.size_after`). */
  sizeBytes: number | null;
  /** Accounts the shard holds (its own rows, against the directory's count). */
  accounts: number;
  /** Bytes of workspace content its accounts store (each account's `stored_bytes`, kept by triggers). */
  storedBytes: number;
  queuedBuilds: number;
  buildingBuilds: number;
  /** Notifications whose next run is due now (the next tick claims them). */
  dueNotifications: number;
  queuedRuns: number;
  runningRuns: number;
  /** Pre-aggregation partitions claimed and waiting for (or in) a build. */
  queuedPreAggregationBuilds: number;
  /** Pre-aggregation partitions whose last build failed (the last good one serves meanwhile). */
  failedPreAggregationBuilds: number;
}

/**
 * The scope's shard's figures in one statement. Its cost: one row per account of the shard
 * (`accounts` is summed), and for the pending work the index entries of what is pending
 * (never the tables' other rows). Run through `all()`, which carries D1's metadata.
 */
export async function readShardFigures(scope: RequestScope): Promise<ShardFigures> {
  const { db } = scope;
  const statement = db
    .select({
      accounts: count().as('accounts'),
      storedBytes: sql<number>`coalesce(sum(${accounts.storedBytes}), 0)`.as('stored_bytes'),
      // Literal statuses, as the partial indexes builds_queued_idx/builds_building_idx are written.
      queuedBuilds: db.$count(builds, sql`${builds.status} = 'queued'`).as('queued_builds'),
      buildingBuilds: db.$count(builds, sql`${builds.status} = 'building'`).as('building_builds'),
      dueNotifications: db
        .$count(notifications, lte(notifications.nextRunAt, scope.now.toISOString()))
        .as('due_notifications'),
      queuedRuns: db.$count(notificationRuns, eq(notificationRuns.status, 'queued')).as('queued_runs'),
      runningRuns: db.$count(notificationRuns, eq(notificationRuns.status, 'running')).as('running_runs'),
      // Through pre_aggregation_partitions_state_idx.
      queuedPreAggregationBuilds: db
        .$count(preAggregationPartitions, sql`${preAggregationPartitions.state} IN ('queued', 'building')`)
        .as('queued_pre_aggregation_builds'),
      failedPreAggregationBuilds: db
        .$count(preAggregationPartitions, eq(preAggregationPartitions.state, 'failed'))
        .as('failed_pre_aggregation_builds'),
    })
    .from(accounts);
  const result = await toD1(scope.d1, statement).all<Record<string, number>>();
  const row = result.results[0] ?? {};
  const meta = result.meta as { size_after?: unknown };
  return {
    sizeBytes: typeof meta.size_after === 'number' ? meta.size_after : null,
    accounts: row.accounts ?? 0,
    storedBytes: row.stored_bytes ?? 0,
    queuedBuilds: row.queued_builds ?? 0,
    buildingBuilds: row.building_builds ?? 0,
    dueNotifications: row.due_notifications ?? 0,
    queuedRuns: row.queued_runs ?? 0,
    runningRuns: row.running_runs ?? 0,
    queuedPreAggregationBuilds: row.queued_pre_aggregation_builds ?? 0,
    failedPreAggregationBuilds: row.failed_pre_aggregation_builds ?? 0,
  };
}

/** What the control database knows of each shard, by shard number. */
export interface ControlFigures {
  loads: Map<number, { accounts: number; bias: number }>;
  cursors: Map<number, { afterId: number; updatedAt: string }>;
  pending: Map<number, number>;
}

/** The control database's figures of every shard: one batch of three small reads. */
export async function readControlFigures(control: Db): Promise<ControlFigures> {
  const [loads, cursors, pending] = await control.batch([
    control.select().from(shardLoads),
    control.select().from(sweepCursors),
    // Through pending_accounts_shard_idx; the table holds only provisionings in flight.
    control
      .select({ shard: pendingAccounts.shard, n: count() })
      .from(pendingAccounts)
      .groupBy(pendingAccounts.shard),
  ]);
  return {
    loads: new Map(loads.map((l) => [l.shard, { accounts: l.accounts, bias: l.bias }])),
    cursors: new Map(cursors.map((c) => [c.shard, { afterId: c.afterId, updatedAt: c.updatedAt }])),
    pending: new Map(pending.map((p) => [p.shard, p.n])),
  };
}
