import { sql } from 'drizzle-orm';
import { preAggregationPartitions } from '../../schema/pre-aggregations';
import { FROZEN_ACCOUNTS } from '../core/account-moving';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';

/**
 * The refresh state of pre-aggregations in D1 (schema/pre-aggregations.ts). Raw SQL where a
 * statement claims rows (UPDATE … WHERE id IN (SELECT … LIMIT) RETURNING) or takes a list as one
 * JSON parameter: both beyond drizzle's builder.
 */

export type PartitionRow = typeof preAggregationPartitions.$inferSelect;

/** A claimed partition or plan: what its message carries. */
export interface Claimed {
  id: number;
  version: number;
}

/**
 * Claims the plans and the partitions due at `now` (at most `limits` of each, earliest first):
 * each one's version is bumped (a partition's state queued too), and its next refresh or plan
 * moved to `claimUntil` so a lost message makes it due again. Two statements through the due
 * indexes, in one batch: one round trip for the tick's whole job. Of two overlapping ticks, the
 * second finds nothing due. An account being moved keeps its plans and partitions due: a claim
 * would change rows the move is copying (verification would fail), so they are claimed where the
 * account lives after it.
 */
export async function claimDue(
  db: Db,
  now: Date,
  claimUntil: Date,
  limits: { plans: number; partitions: number },
): Promise<{ plans: Claimed[]; partitions: Claimed[] }> {
  const [plans, partitions] = await runBatch<Claimed>(db, [
    sql`
    UPDATE pre_aggregation_plans
       SET version = version + 1, next_plan_at = ${claimUntil.toISOString()}
     WHERE deployment_id IN (SELECT deployment_id FROM pre_aggregation_plans INDEXED BY pre_aggregation_plans_due_idx
                              WHERE next_plan_at <= ${now.toISOString()} AND account_id NOT IN ${FROZEN_ACCOUNTS}
                              ORDER BY next_plan_at LIMIT ${limits.plans})
    RETURNING deployment_id AS id, version`,
    sql`
    UPDATE pre_aggregation_partitions
       SET version = version + 1, state = 'queued', next_refresh_at = ${claimUntil.toISOString()}
     WHERE id IN (SELECT id FROM pre_aggregation_partitions INDEXED BY pre_aggregation_partitions_due_idx
                   WHERE next_refresh_at <= ${now.toISOString()} AND account_id NOT IN ${FROZEN_ACCOUNTS}
                   ORDER BY next_refresh_at LIMIT ${limits.partitions})
    RETURNING id, version`,
  ]);
  return { plans: plans?.results ?? [], partitions: partitions?.results ?? [] };
}

/**
 * Claims partitions `ids` of the deployment whatever their next refresh (a new version, queued,
 * due again at `claimUntil` if no build takes the claim), as a statement for a caller's batch;
 * it returns each claimed partition's id and version (the Orchestration API). A partition
 * building already is claimed too: its version moves on, so the running build cannot record over
 * the new one. A moving account's partitions are not claimed.
 */
export function claimStatement(deploymentId: number, ids: readonly number[], claimUntil: Date) {
  return sql`
    UPDATE pre_aggregation_partitions
       SET version = version + 1, state = 'queued', next_refresh_at = ${claimUntil.toISOString()}
     WHERE deployment_id = ${deploymentId} AND id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
       AND account_id NOT IN ${FROZEN_ACCOUNTS}
    RETURNING id, version`;
}

/**
 * Marks a claimed partition building, when the message is the latest claim and nothing started
 * it yet: null for a redelivery, a superseded claim, or a partition gone.
 */
export async function startBuilding(db: Db, id: number, version: number): Promise<PartitionRow | null> {
  const rows = await db.all<Record<string, unknown>>(sql`
    UPDATE pre_aggregation_partitions SET state = 'building'
     WHERE id = ${id} AND version = ${version} AND state = 'queued'
    RETURNING *`);
  return rows[0] ? mapRow(preAggregationPartitions, rows[0]) : null;
}

/**
 * Records a build that serves (swapped in, or already current), and bumps the deployment's
 * rollup generation when it swapped: one batch, so the answer cache never keys a swapped
 * partition under the old generation for longer than the batch. Only for the latest claim.
 */
export async function finishPartition(
  db: Db,
  row: Pick<PartitionRow, 'id' | 'deploymentId' | 'version'>,
  outcome: {
    builtVersion: number;
    swapped: boolean;
    builtAt: string;
    nextRefreshAt: string;
    refreshKeyValue: string | null;
  },
): Promise<boolean> {
  const [updated] = await runBatch(db, [
    sql`UPDATE pre_aggregation_partitions
           SET state = 'built', built_version = ${outcome.builtVersion}, last_built_at = ${outcome.builtAt},
               next_refresh_at = ${outcome.nextRefreshAt}, refresh_key_value = ${outcome.refreshKeyValue},
               last_error = NULL, failures = 0
         WHERE id = ${row.id} AND version = ${row.version}`,
    sql`UPDATE pre_aggregation_plans SET generation = generation + 1
         WHERE deployment_id = ${row.deploymentId} AND ${outcome.swapped ? 1 : 0} = 1`,
  ]);
  return (updated?.meta.changes ?? 0) > 0;
}

/** Records a failed build of the latest claim: due again after `retryAt`. */
export async function failPartition(
  db: Db,
  row: Pick<PartitionRow, 'id' | 'version'>,
  message: string,
  retryAt: string,
): Promise<void> {
  await db.run(sql`
    UPDATE pre_aggregation_partitions
       SET state = 'failed', last_error = ${message.slice(0, 1_000)}, failures = failures + 1,
           next_refresh_at = ${retryAt}
     WHERE id = ${row.id} AND version = ${row.version}`);
}

/** The plan of a deployment, when `version` is its latest claim. */
export async function claimedPlan(
  db: Db,
  deploymentId: number,
  version: number,
): Promise<{ accountId: number; buildId: number; timezones: string[] } | null> {
  const rows = await db.all<{ account_id: number; build_id: number; timezones: string }>(sql`
    SELECT account_id, build_id, timezones FROM pre_aggregation_plans
     WHERE deployment_id = ${deploymentId} AND version = ${version}`);
  const row = rows[0];
  return row
    ? { accountId: row.account_id, buildId: row.build_id, timezones: JSON.parse(row.timezones) as string[] }
    : null;
}

/** One partition a plan registers. */
export interface RegisteredPartition {
  preAggregation: string;
  tableName: string;
  timezone: string;
  definition: string;
  range?: [string, string];
}

/**
 * Registers a deployment's partitions for `buildId`, in one batch: new ones are due at once, one
 * whose definition changed is due at once, partitions no longer planned are deleted (but those of
 * the pre-aggregations in `keep`, which the plan could not list), and the plan
 * is due again at `nextPlanAt`. The list is one JSON parameter (D1 binds at most 100). Every
 * statement writes nothing once a newer claim took the plan over (its list wins) or while the
 * account is frozen (a move copies it): a plan claimed before the freeze registers nothing, and
 * stays claimed until its claim lapses, after the move. Answers whether it registered.
 */
export async function registerPartitions(
  db: Db,
  plan: { deploymentId: number; accountId: number; buildId: number; version: number },
  partitions: readonly RegisteredPartition[],
  /** Pre-aggregations whose partitions are kept as they are (their build range could not be read). */
  keep: readonly string[],
  now: Date,
  nextPlanAt: Date,
  error: string | null,
): Promise<boolean> {
  const list = JSON.stringify(
    partitions.map((p) => [
      p.preAggregation,
      p.tableName,
      p.timezone,
      p.definition,
      p.range?.[0] ?? null,
      p.range?.[1] ?? null,
    ]),
  );
  const at = now.toISOString();
  // Every statement writes only while the account is not frozen and this claim is the newest.
  const current = sql`${plan.accountId} NOT IN ${FROZEN_ACCOUNTS} AND EXISTS (SELECT 1 FROM pre_aggregation_plans
      WHERE deployment_id = ${plan.deploymentId} AND version = ${plan.version})`;
  const results = await runBatch(db, [
    sql`INSERT INTO pre_aggregation_partitions
          (account_id, deployment_id, build_id, pre_aggregation, table_name, timezone, definition,
           range_start, range_end, state, next_refresh_at, created_at)
        SELECT ${plan.accountId}, ${plan.deploymentId}, ${plan.buildId}, j.value ->> 0, j.value ->> 1,
               j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, 'queued', ${at}, ${at}
          FROM json_each(${list}) j WHERE ${current}
        ON CONFLICT (deployment_id, table_name, timezone) DO UPDATE
          SET build_id = excluded.build_id, range_start = excluded.range_start, range_end = excluded.range_end,
              definition = excluded.definition,
              next_refresh_at = CASE WHEN definition = excluded.definition THEN next_refresh_at ELSE ${at} END`,
    sql`DELETE FROM pre_aggregation_partitions
         WHERE deployment_id = ${plan.deploymentId} AND ${current}
           AND pre_aggregation NOT IN (SELECT value FROM json_each(${JSON.stringify(keep)}))
           AND NOT EXISTS (SELECT 1 FROM json_each(${list}) j
                            WHERE j.value ->> 1 = table_name AND j.value ->> 2 = timezone)`,
    sql`UPDATE pre_aggregation_plans SET next_plan_at = ${nextPlanAt.toISOString()}, last_error = ${error}
         WHERE deployment_id = ${plan.deploymentId} AND ${current}`,
  ]);
  return (results[2]?.meta.changes ?? 0) > 0;
}

/**
 * A page of a deployment's partitions, by id, with the account check in the same statement:
 * another account's deployment reads nothing.
 */
export async function listPartitions(
  db: Db,
  accountId: number,
  deploymentId: number,
  afterId: number | null,
  limit: number,
): Promise<PartitionRow[]> {
  const rows = await db.all<Record<string, unknown>>(sql`
    SELECT p.* FROM pre_aggregation_partitions p
     WHERE p.deployment_id = ${deploymentId} AND p.account_id = ${accountId} AND p.id > ${afterId ?? 0}
     ORDER BY p.id LIMIT ${limit + 1}`);
  return rows.map((r) => mapRow(preAggregationPartitions, r));
}
