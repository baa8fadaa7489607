/**
 * The refresh of pre-aggregations in numbers (docs/pre-aggregations.md). The store's own bounds
 * (rows per partition, partitions per rollup, bytes per deployment) are in
 * src/sources/rollup-store.ts.
 */

/** Partitions one tick claims per shard: one `sendBatch` (at most 100 messages). */
export const PARTITIONS_PER_TICK = 100;
/** Deployments whose partitions one tick registers again per shard. */
export const PLANS_PER_TICK = 20;
/** A claimed partition or plan whose message never finished is due again after this long. */
export const CLAIM_TIMEOUT_MS = 20 * 60_000;
/** Partitions are registered again this often (a build range grows with time). */
export const PLAN_EVERY_MS = 60 * 60_000;
/** Cube's default `refresh_key` of a pre-aggregation: every hour. */
export const DEFAULT_REFRESH_EVERY_SECONDS = 3_600;
/** The cron ticks once a minute: no refresh is checked more often. */
export const MIN_REFRESH_SECONDS = 60;
/** A failed build is tried again after this delay, doubled per failure in a row, up to an hour. */
export const RETRY_BASE_MS = 60_000;
export const RETRY_MAX_MS = 60 * 60_000;
/** Time zones a deployment's rollups are built in, UTC included. */
export const MAX_TIMEZONES = 8;
/** The env var listing the zones to build besides UTC (Cube's, comma-separated IANA names). */
export const TIMEZONES_VAR = 'CUBEJS_SCHEDULED_REFRESH_TIMEZONES';
/** When an incremental partition outside its update window is refreshed: never. */
export const NEVER = '9999-12-31T00:00:00.000Z';

/** The retry delay after `failures` failed builds in a row. */
export const retryDelayMs = (failures: number) =>
  Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, Math.min(failures - 1, 20)));
