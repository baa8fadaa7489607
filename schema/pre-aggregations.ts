import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts } from './accounts';
import { deployments } from './deployments';

/**
 * A partition's refresh states: `queued` once the cron (or the Orchestration API) claimed it and
 * sent its message, `building` while a consumer builds it, then `built` or `failed` (with
 * `lastError`; the last good build, if any, keeps serving from the store).
 */
export const PARTITION_STATES = ['queued', 'building', 'built', 'failed'] as const;

/**
 * The refresh state of one partition of one pre-aggregation in one time zone. The tables
 * themselves live in the deployment's store (src/sources/rollup-store.ts), which also keeps their
 * rows, bytes and build times; this row says when the partition is due and which build version
 * the cron last claimed. `version` only grows: a claim is `UPDATE … WHERE version = <read>`, so
 * of two overlapping ticks only one claims, and a build message names the version it builds.
 */
export const preAggregationPartitions = sqliteTable(
  'pre_aggregation_partitions',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    /** The serving build whose model defines the partition (a newer one registers its own). */
    buildId: integer().notNull(),
    /** `Cube.preAggregation`. */
    preAggregation: text().notNull(),
    /** Cube's table name, partition suffix included. */
    tableName: text().notNull(),
    timezone: text().notNull(),
    /**
     * A fingerprint of the pre-aggregation's definition: a model that changes it makes the
     * partition due at once, and the store serves no partition built for another definition.
     */
    definition: text().notNull(),
    /** The partition's inclusive UTC range; null for an unpartitioned rollup. */
    rangeStart: text(),
    rangeEnd: text(),
    state: text({ enum: PARTITION_STATES }).notNull(),
    /** The version last claimed (0: never); a build message carries it. */
    version: integer().notNull().default(0),
    /** The version serving from the store (0: none yet). */
    builtVersion: integer().notNull().default(0),
    /**
     * When the cron next claims it: the refresh interval after a build, a retry delay after a
     * failure, a claim timeout while queued or building (a lost message is claimed again), and
     * never (9999-…) for an incremental partition outside its update window.
     */
    nextRefreshAt: text().notNull(),
    /** `refresh_key.sql`'s value at the last build: an unchanged value skips the rebuild. */
    refreshKeyValue: text(),
    lastBuiltAt: text(),
    lastError: text(),
    /** Failed builds in a row, for the retry delay. */
    failures: integer().notNull().default(0),
    createdAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('pre_aggregation_partitions_uq').on(t.deploymentId, t.tableName, t.timezone),
    // The listing's pages, by id within a deployment.
    index('pre_aggregation_partitions_deployment_idx').on(t.deploymentId, t.id),
    // The cron's bounded scan of due partitions, earliest first.
    index('pre_aggregation_partitions_due_idx').on(t.nextRefreshAt),
    // The operator's shard view counts queued and failed builds through this index alone.
    index('pre_aggregation_partitions_state_idx').on(t.state),
    index('pre_aggregation_partitions_account_idx').on(t.accountId),
  ],
);

/**
 * One deployment's pre-aggregation plan: which serving build and time zones its partitions were
 * last registered for, and when to register them again (a build range grows with time, so new
 * partitions appear). A published build makes it due at once.
 */
export const preAggregationPlans = sqliteTable(
  'pre_aggregation_plans',
  {
    deploymentId: integer()
      .primaryKey()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    buildId: integer().notNull(),
    /** Time zones requested on demand (the Orchestration API), besides UTC and the env var's. */
    timezones: text({ mode: 'json' }).$type<string[]>().notNull(),
    nextPlanAt: text().notNull(),
    /** Bumped on each claim: of two overlapping ticks, one plans. */
    version: integer().notNull().default(0),
    lastError: text(),
    /**
     * Bumped whenever a partition of the deployment swaps in: answers cached from rollups key on
     * it, read in the statement that already reads the serving build.
     */
    generation: integer().notNull().default(0),
  },
  (t) => [
    index('pre_aggregation_plans_due_idx').on(t.nextPlanAt),
    index('pre_aggregation_plans_account_idx').on(t.accountId),
  ],
);
