import type { PreAggregationMessage } from '../core/env';
import { ApiError } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { isKnownTimeZone } from '../core/time-zone';
import { activeModel } from '../deployments/deployments.service';
import { envVarsNamed } from '../deployments/env-vars.repository';
import { readDataSourceConfig } from '../deployments/env-vars.service';
import { forgetServingState } from '../deployments/serving-state';
import { postgres } from '../semantic/dialects/postgres';
import { sqlite } from '../semantic/dialects/sqlite';
import type { CompiledModel } from '../semantic/model/model.types';
import type { PreAggregation } from '../semantic/model/pre-aggregations.types';
import { storedDefinitionOf } from '../semantic/query/pre-aggregations/layout';
import { type DataSourceConfig, DataSourceError } from '../sources/data-source';
import { deploymentStore } from '../sources/deployment-store';
import { openDataSource } from '../sources/open-data-source';
import { buildPartition } from '../sources/rollup-build';
import { definitionOf, ROLLUP_LIMITS } from '../sources/rollup-store';
import {
  CLAIM_TIMEOUT_MS,
  DEFAULT_REFRESH_EVERY_SECONDS,
  MAX_TIMEZONES,
  MIN_REFRESH_SECONDS,
  NEVER,
  PARTITIONS_PER_TICK,
  PLAN_EVERY_MS,
  PLANS_PER_TICK,
  retryDelayMs,
  TIMEZONES_VAR,
} from './pre-aggregations.limits';
import * as repo from './pre-aggregations.repository';
import type { RollupCompiler } from './rollup-compiler';

/**
 * The refresh of pre-aggregations, by the platform's primitives: the Cron Trigger claims what is
 * due in D1 and enqueues it; the queue consumer registers a deployment's partitions (a plan) or
 * builds one partition per message into the deployment's store (src/sources/rollup-build.ts).
 */

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

/** What one tick did on one shard. */
export interface RefreshTick {
  plans: number;
  partitions: number;
}

/**
 * Every minute, per shard: claim the plans and partitions due at the tick (the scope's `now`)
 * and send one message each. A doubled tick claims nothing twice; a missed one leaves them due.
 * A message lost after its claim makes its row due again after CLAIM_TIMEOUT_MS.
 */
export async function refreshTick(scope: RequestScope): Promise<RefreshTick> {
  const until = later(scope.now, CLAIM_TIMEOUT_MS);
  const { plans, partitions } = await repo.claimDue(scope.db, scope.now, until, {
    plans: PLANS_PER_TICK,
    partitions: PARTITIONS_PER_TICK,
  });
  const messages: MessageSendRequest<PreAggregationMessage>[] = [
    ...plans.map((p) => ({
      body: {
        kind: 'pre-aggregation-plan' as const,
        deploymentId: p.id,
        version: p.version,
        shard: scope.shard,
      },
    })),
    ...partitions.map((p) => ({
      body: {
        kind: 'pre-aggregation-build' as const,
        partitionId: p.id,
        version: p.version,
        shard: scope.shard,
      },
    })),
  ];
  // At most PLANS_PER_TICK + PARTITIONS_PER_TICK: two sends of at most 100.
  for (let i = 0; i < messages.length; i += 100) {
    await scope.ports.preAggregationsQueue.sendBatch(messages.slice(i, i + 100));
  }
  return { plans: plans.length, partitions: partitions.length };
}

/** Every pre-aggregation of the model, in definition order, by `Cube.name`. */
export function preAggregationsOf(model: CompiledModel): Map<string, PreAggregation> {
  const all = new Map<string, PreAggregation>();
  for (const cube of Object.values(model.cubes)) {
    for (const p of cube.preAggregations ?? []) all.set(`${p.cube}.${p.name}`, p);
  }
  return all;
}

/**
 * The time zones a deployment's rollups are built in (Cube's scheduled-refresh time zones): UTC,
 * the zones of its `CUBEJS_SCHEDULED_REFRESH_TIMEZONES` env var, and those asked for through the
 * Orchestration API, known zones only, at most MAX_TIMEZONES.
 */
export function timezonesOf(envValue: string | undefined, requested: readonly string[]): string[] {
  const zones = ['UTC', ...(envValue ?? '').split(','), ...requested].map((z) => z.trim()).filter(Boolean);
  return [...new Set(zones)].filter(isKnownTimeZone).slice(0, MAX_TIMEZONES);
}

const dialectOf = (config: DataSourceConfig) => (config.type === 'postgres' ? postgres : sqlite);
const BOUND_QUERY = { timeoutMs: 30_000, maxRows: 1 };

/** The first value of the first row of `sql` on the source, as text (null when none). */
async function scalar(scope: RequestScope, deploymentId: number, config: DataSourceConfig, sql: string) {
  const { rows } = await openDataSource(scope.env, deploymentId, config).run(sql, [], BOUND_QUERY);
  const value = rows[0] ? Object.values(rows[0])[0] : null;
  return value === null || value === undefined ? null : String(value);
}

/** An instant the source answered (ISO text, a date, or epoch seconds) as ISO, or null. */
function instantOf(value: string | null): string | null {
  if (value === null) return null;
  const ms = /^\d+(\.\d+)?$/.test(value)
    ? Number(value) * 1000
    : Date.parse(value.includes('T') || value.endsWith('Z') ? value : `${value}Z`);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/**
 * Registers a deployment's partitions for its serving model: each scheduled rollup's partitions
 * over its build range (`build_range_start`/`end` on the source; else the range of its time
 * dimension's data, through the compiler) in each of the deployment's time zones. The store then
 * drops the tables of partitions no longer planned. A rollup whose range cannot be read is left
 * out of this plan, with the error on the plan.
 */
export async function runPlan(
  scope: RequestScope,
  compiler: RollupCompiler,
  deploymentId: number,
  version: number,
): Promise<void> {
  const plan = await repo.claimedPlan(scope.db, deploymentId, version);
  if (!plan) return;
  const [serving, config, vars] = await Promise.all([
    activeModel(scope.db, deploymentId),
    readDataSourceConfig(scope, deploymentId),
    envVarsNamed(scope.db, deploymentId, [TIMEZONES_VAR]),
  ]);
  const zones = timezonesOf(vars.find((v) => !v.encrypted)?.value, plan.timezones);
  const partitions: repo.RegisteredPartition[] = [];
  const errors: string[] = [];
  // Rollups whose build range could not be read: their partitions stay as they are, in D1 and
  // in the store, until a plan reads it.
  const failed: string[] = [];
  const model = serving?.model;
  for (const preAggregation of model ? preAggregationsOf(model).values() : []) {
    if (!preAggregation.scheduledRefresh) continue;
    const definition = definitionOf(
      storedDefinitionOf(model as CompiledModel, preAggregation, dialectOf(config).name),
    );
    try {
      const range = preAggregation.partitionGranularity
        ? await buildRangeOf(
            scope,
            compiler,
            serving?.model as CompiledModel,
            preAggregation,
            deploymentId,
            config,
          )
        : (['1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z'] as [string, string]);
      if (!range) continue;
      for (const zone of zones) {
        for (const spec of compiler.partitionsOf(preAggregation, range, zone))
          partitions.push({ ...spec, definition });
      }
    } catch (err) {
      const id = `${preAggregation.cube}.${preAggregation.name}`;
      failed.push(id);
      errors.push(`${id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const registered = await repo.registerPartitions(
    scope.db,
    { deploymentId, accountId: plan.accountId, buildId: serving?.buildId ?? plan.buildId, version },
    partitions,
    failed,
    scope.now,
    later(scope.now, PLAN_EVERY_MS),
    errors.length > 0 ? errors.join('; ').slice(0, 1_000) : null,
  );
  // A newer claim took the plan over, or the account froze for a move: nothing else to do.
  if (!registered) return;
  // Tables of partitions no longer planned go; a rollup whose range failed keeps its tables.
  const store = deploymentStore(scope.env, deploymentId);
  const kept =
    failed.length > 0 ? (await store.listPartitions()).filter((p) => failed.includes(p.preAggregation)) : [];
  await store.retainPartitions([
    ...partitions.map((p) => ({ tableName: p.tableName, timezone: p.timezone })),
    ...kept.map((p) => ({ tableName: p.tableName, timezone: p.timezone })),
  ]);
}

/** A partitioned rollup's build range, read on the source; null when it has no data yet. */
async function buildRangeOf(
  scope: RequestScope,
  compiler: RollupCompiler,
  model: CompiledModel,
  preAggregation: PreAggregation,
  deploymentId: number,
  config: DataSourceConfig,
): Promise<[string, string] | null> {
  const [start, end] = await Promise.all(
    [preAggregation.buildRangeStart, preAggregation.buildRangeEnd].map((sql) =>
      sql ? scalar(scope, deploymentId, config, sql).then(instantOf) : Promise.resolve(null),
    ),
  );
  if (start && end) return [start, end];
  const data = await compiler.dataRangeOf(model, preAggregation, dialectOf(config), (sql, params) =>
    openDataSource(scope.env, deploymentId, config).run(sql, params, { timeoutMs: 30_000, maxRows: 2 }),
  );
  const from = start ?? data?.[0] ?? null;
  const to = end ?? data?.[1] ?? null;
  return from && to ? [from, to] : null;
}

/**
 * Builds one claimed partition, when `version` is its latest claim (a redelivered or superseded
 * message does nothing). With `refresh_key.sql`, an unchanged value and a partition already
 * built for this definition skip the build. The outcome is recorded with the version guard; a
 * failure is due again after a growing delay while the last good partition keeps serving.
 */
export async function runPartitionBuild(
  scope: RequestScope,
  compiler: RollupCompiler,
  partitionId: number,
  version: number,
): Promise<'built' | 'current' | 'failed' | 'skipped'> {
  const row = await repo.startBuilding(scope.db, partitionId, version);
  if (!row) return 'skipped';
  const fail = async (message: string) => {
    await repo.failPartition(
      scope.db,
      row,
      message,
      later(scope.now, retryDelayMs(row.failures + 1)).toISOString(),
    );
    return 'failed' as const;
  };
  // Read after the partition is marked building: a failure here (settings that no longer read,
  // a secret that no longer decrypts) is recorded as the build's, not left building.
  let serving: Awaited<ReturnType<typeof activeModel>>;
  let config: DataSourceConfig;
  try {
    [serving, config] = await Promise.all([
      activeModel(scope.db, row.deploymentId),
      readDataSourceConfig(scope, row.deploymentId),
    ]);
  } catch (err) {
    // A redelivery would find the partition building and skip it: the failure is recorded now,
    // and the partition is claimed again after the retry delay.
    const reason =
      err instanceof ApiError || err instanceof DataSourceError
        ? err.message
        : "the deployment's settings could not be read";
    return fail(`${row.preAggregation}: ${reason}`);
  }
  const preAggregation = serving ? preAggregationsOf(serving.model).get(row.preAggregation) : undefined;
  if (
    !serving ||
    !preAggregation ||
    definitionOf(storedDefinitionOf(serving.model, preAggregation, dialectOf(config).name)) !== row.definition
  ) {
    // The plan registers the serving model's partitions again; until then this one waits.
    return fail(
      `${row.preAggregation}: the serving model defines this pre-aggregation otherwise; it is planned again`,
    );
  }
  const refresh = preAggregation.refreshKey;
  const every = Math.max(
    MIN_REFRESH_SECONDS,
    refresh.every ?? (refresh.sql ? MIN_REFRESH_SECONDS : DEFAULT_REFRESH_EVERY_SECONDS),
  );
  const nextRefreshAt = () => {
    // Incremental: a partition that ended before the update window is final once built.
    const windowStart = scope.now.getTime() - (refresh.updateWindow ?? 0) * 1000;
    if (refresh.incremental && row.rangeEnd && Date.parse(row.rangeEnd) < windowStart) return NEVER;
    return later(scope.now, every * 1000).toISOString();
  };
  try {
    const key = refresh.sql ? await scalar(scope, row.deploymentId, config, refresh.sql) : null;
    if (refresh.sql && row.builtVersion > 0 && key === row.refreshKeyValue) {
      await repo.finishPartition(scope.db, row, {
        builtVersion: row.builtVersion,
        swapped: false,
        builtAt: row.lastBuiltAt ?? scope.now.toISOString(),
        nextRefreshAt: nextRefreshAt(),
        refreshKeyValue: key,
      });
      return 'current';
    }
    const spec = {
      preAggregation: row.preAggregation,
      tableName: row.tableName,
      timezone: row.timezone,
      ...(row.rangeStart && row.rangeEnd
        ? { range: [row.rangeStart, row.rangeEnd] as [string, string] }
        : {}),
    };
    const build = compiler.buildQueryOf(serving.model, preAggregation, spec, dialectOf(config), {
      maxRows: ROLLUP_LIMITS.maxRowsPerPartition,
    });
    const outcome = await buildPartition(scope.env, row.deploymentId, config, row.definition, build, version);
    if (outcome.state === 'failed') return fail(outcome.message);
    if (outcome.state === 'stale') return 'skipped';
    await repo.finishPartition(scope.db, row, {
      builtVersion: outcome.version,
      swapped: outcome.state === 'swapped',
      builtAt: outcome.state === 'swapped' ? outcome.builtAt : (row.lastBuiltAt ?? scope.now.toISOString()),
      nextRefreshAt: nextRefreshAt(),
      refreshKeyValue: key,
    });
    // The generation just moved: this isolate's loads key on it at once, others within the bound.
    if (outcome.state === 'swapped') forgetServingState(row.deploymentId);
    return outcome.state === 'swapped' ? 'built' : 'current';
  } catch (err) {
    return fail(`${row.preAggregation}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
