import type { Bindings } from '../core/env';
import type { PartitionBuildQuery } from '../semantic/model/pre-aggregations.types';
import { type DataSourceConfig, DataSourceError } from './data-source';
import { deploymentStore, isFailure, type StoreAnswer } from './deployment-store';
import { pagePostgres } from './postgres.source';
import { APPEND_BATCH, type BuildAttempt, type CommitAnswer, type PartitionBuildSpec } from './rollup-store';

/**
 * Builds one partition of a pre-aggregation into the deployment's store, whatever its data
 * source: from PostgreSQL, the build query is read page by page (read-only, each statement
 * bounded like a query) and written to the store in appends sized to its limits; from the
 * embedded store, `INSERT … SELECT` inside it. Either way the partition is swapped in only when
 * complete and only when no newer build began (rollup-store.ts).
 */

/** Each statement of a build on the source has a query's time limit (data.service.ts's QUERY_TIMEOUT_MS). */
export const BUILD_STATEMENT_TIMEOUT_MS = 30_000;
/** A whole build's read of the source, all pages together. */
export const BUILD_TOTAL_TIMEOUT_MS = 5 * 60_000;
/** Rows fetched from PostgreSQL per page (each page goes to the store in one or more appends). */
export const BUILD_PAGE_ROWS = 2_000;

/** How a build ended: swapped in, nothing to do (a newer or equal version serves or began), or failed. */
export type BuildOutcome =
  | (Extract<CommitAnswer, { state: 'swapped' }> & { buildMs: number })
  | { state: 'current' | 'stale'; version: number }
  | { state: 'failed'; message: string };

/** The store's answer as an outcome; the RPC types a union answer loosely. */
const outcomeOf = (answer: StoreAnswer<unknown>): BuildOutcome => answer as BuildOutcome;

/**
 * Builds `build` at `version` into the deployment's store. A failure (the source's, or a bound)
 * leaves the last good partition serving and answers `failed` with a message safe to show.
 */
export async function buildPartition(
  env: Bindings,
  deploymentId: number,
  config: DataSourceConfig,
  definition: string,
  build: PartitionBuildQuery,
  version: number,
  clock: () => number = Date.now,
): Promise<BuildOutcome> {
  const store = deploymentStore(env, deploymentId);
  const spec: PartitionBuildSpec = {
    preAggregation: build.preAggregation,
    tableName: build.tableName,
    timezone: build.timezone,
    range: build.range,
    definition,
    version,
    columns: build.columns,
    indexes: build.indexes,
  };
  const started = clock();
  if (config.type === 'embedded') {
    if (build.dialect !== 'sqlite')
      return { state: 'failed', message: `${build.preAggregation}: not a store query` };
    const answer = (await store.buildPartitionInStore(spec, build.sql, build.params)) as StoreAnswer<
      CommitAnswer | { state: 'current'; version: number }
    >;
    if (isFailure(answer)) return { state: 'failed', message: answer.error.message };
    return answer.state === 'swapped' ? { ...answer, buildMs: clock() - started } : outcomeOf(answer);
  }
  if (config.type !== 'postgres' || build.dialect !== 'postgres') {
    return { state: 'failed', message: `${build.preAggregation}: the data source cannot build rollups` };
  }
  const begun = await store.beginPartitionBuild(spec);
  if (isFailure(begun)) return { state: 'failed', message: begun.error.message };
  if (begun.state === 'current') return begun;
  const attempt: BuildAttempt = { ...spec, attempt: begun.attempt };
  let written = { rows: 0, bytes: 0 };
  try {
    await pagePostgres(
      env,
      config,
      build.sql,
      build.params,
      {
        statementTimeoutMs: BUILD_STATEMENT_TIMEOUT_MS,
        totalTimeoutMs: BUILD_TOTAL_TIMEOUT_MS,
        pageRows: BUILD_PAGE_ROWS,
      },
      async (page) => {
        for (const batch of appendBatches(page.map((row) => build.columns.map((c) => row[c.name] ?? null)))) {
          const answer = await store.appendPartitionRows(attempt, batch, written);
          if (isFailure(answer)) throw new BuildFailed(answer.error.message);
          written = answer;
        }
      },
    );
  } catch (err) {
    if (err instanceof BuildFailed) return { state: 'failed', message: err.message };
    const message =
      err instanceof DataSourceError
        ? `${build.preAggregation}: ${err.message}`
        : `${build.preAggregation}: the build failed`;
    await store.failPartitionBuild(attempt, message);
    return { state: 'failed', message };
  }
  const committed = await store.commitPartitionBuild(attempt, { ...written, buildMs: clock() - started });
  if (isFailure(committed)) return { state: 'failed', message: committed.error.message };
  return committed.state === 'swapped' ? { ...committed, buildMs: clock() - started } : committed;
}

/** The store already recorded this failure (and dropped the attempt's table). */
class BuildFailed extends Error {}

/** Rows in appends of at most APPEND_BATCH's rows and (approximate) bytes each. */
function* appendBatches(rows: unknown[][]): Generator<unknown[][]> {
  let batch: unknown[][] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length * 3 : 9), 0);
    if (batch.length > 0 && (batch.length >= APPEND_BATCH.maxRows || bytes + size > APPEND_BATCH.maxBytes)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(row);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
