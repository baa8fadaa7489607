import type { Bindings } from '../core/env';
import { ApiError } from '../core/errors';
import type { CompiledModel } from '../semantic/model/model.types';
import type { PreAggregation } from '../semantic/model/pre-aggregations.types';
import { type SourceDialect, storedDefinitionOf } from '../semantic/query/pre-aggregations/layout';
import { matchPreAggregation, partitionsNeeded } from '../semantic/query/pre-aggregations/match';
import { PreAggregationError } from '../semantic/query/pre-aggregations/partitions';
import { type RollupQuery, rollupQueryOf } from '../semantic/query/pre-aggregations/rollup-query';
import type { NormalizedFilter, NormalizedQuery } from '../semantic/query/query.types';
import { deploymentStore, type StoreAnswer } from '../sources/deployment-store';
import { definitionOf, physicalTableOf } from '../sources/rollup-store';
import type { RollupPartitions } from './result-cache';

/**
 * Serving a query from the rollup it matches (Cube's rules, src/semantic/query/pre-aggregations):
 * the partitions its date range needs are named without asking the store (their tables' names
 * are a function of Cube's names), and one call to the deployment's store checks they are all
 * built for the model's definition and runs the rollup's SQL over them. A partition not built
 * yet answers `notBuilt`: the caller reads the source instead, without waiting.
 */

/** A matched rollup and the SQL reading it. */
export interface RollupPlan {
  preAggregation: string;
  query: RollupQuery;
  partitions: { tableName: string; timezone: string; definition: string }[];
}

/**
 * The pre-aggregation that answers `query` for this caller (policy filters included), the
 * partitions its range needs and the SQL reading them, each named by `physical` (the store's
 * table, or Cube's name where `/sql` shows it); null when none matches, or when the range needs
 * more partitions than a rollup may have (the source answers).
 */
export function matchedRollup(
  model: CompiledModel,
  query: NormalizedQuery,
  extraFilters: NormalizedFilter[],
  source: SourceDialect,
  physical: (tableName: string, timezone: string) => string = physicalTable,
) {
  const match = matchPreAggregation(model, query, extraFilters, { source });
  if (!match) return null;
  try {
    const specs = partitionsNeeded(match, query);
    const tables = specs.map((spec) => ({
      tableName: spec.tableName,
      physical: physical(spec.tableName, spec.timezone),
    }));
    return { match, specs, query: rollupQueryOf(model, match, query, tables) };
  } catch (err) {
    if (err instanceof PreAggregationError) return null;
    throw err;
  }
}

/** The rollup that answers `query` for this caller, as the store reads it, or null. */
export function rollupPlanOf(
  model: CompiledModel,
  query: NormalizedQuery,
  extraFilters: NormalizedFilter[],
  source: SourceDialect,
): RollupPlan | null {
  const matched = matchedRollup(model, query, extraFilters, source);
  if (!matched) return null;
  const { match } = matched;
  const definition = definitionFor(model, match.preAggregation, source);
  return {
    preAggregation: `${match.preAggregation.cube}.${match.preAggregation.name}`,
    query: matched.query,
    partitions: matched.query.tables.map((tableName) => ({
      tableName,
      timezone: match.timezone,
      definition,
    })),
  };
}

// A model's pre-aggregations never change (builds are immutable), and a partition's table name is
// a function of its name and zone: both are computed once per isolate, not per load.
const definitions = new WeakMap<PreAggregation, Partial<Record<SourceDialect, string>>>();
const physicalTables = new Map<string, string>();
const MAX_PHYSICAL_NAMES = 10_000;

function definitionFor(model: CompiledModel, pre: PreAggregation, source: SourceDialect): string {
  const bySource = definitions.get(pre) ?? {};
  definitions.set(pre, bySource);
  bySource[source] ??= definitionOf(storedDefinitionOf(model, pre, source));
  return bySource[source];
}

function physicalTable(tableName: string, timezone: string): string {
  const key = `${tableName}\n${timezone}`;
  let physical = physicalTables.get(key);
  if (!physical) {
    if (physicalTables.size >= MAX_PHYSICAL_NAMES) physicalTables.clear();
    physical = physicalTableOf(tableName, timezone);
    physicalTables.set(key, physical);
  }
  return physical;
}

/**
 * What the store answered: the rows and the partitions that served them, or the first not built
 * (`unreachable` when the store could not be asked at all).
 */
export type RollupRows =
  | { rows: Record<string, unknown>[]; partitions: RollupPartitions }
  | { notBuilt: string; unreachable?: true };

/** Runs `sql` over the plan's partitions in the deployment's store. */
export async function readRollup(
  env: Bindings,
  deploymentId: number,
  plan: RollupPlan,
  sql: string,
  params: unknown[],
  maxRows: number,
): Promise<RollupRows> {
  let answer: StoreAnswer<RollupRows>;
  try {
    answer = (await deploymentStore(env, deploymentId).queryRollups(
      sql,
      params,
      plan.partitions,
      maxRows,
    )) as StoreAnswer<RollupRows>;
  } catch {
    // The store could not be reached: the source answers (the same rows), as for a partition
    // not built yet, and nothing of it is cached.
    return { notBuilt: plan.partitions[0]?.tableName ?? plan.preAggregation, unreachable: true };
  }
  if ('error' in answer) {
    throw new ApiError('QUERY_FAILED', `Pre-aggregation ${plan.preAggregation}: ${answer.error.message}`);
  }
  return answer;
}

/** Cube's `usedPreAggregations`: each partition that served, by its table name. */
export function usedPreAggregationsOf(partitions: RollupPartitions) {
  return Object.fromEntries(
    partitions.map((p) => [
      p.tableName,
      {
        targetTableName: `${p.tableName}_v${p.version}`,
        refreshKeyValues: [],
        lastUpdatedAt: Date.parse(p.builtAt),
      },
    ]),
  );
}

/** With CUBEJS_ROLLUP_ONLY=true, a query no built rollup answers is refused, naming the rollup. */
export function rollupOnlyError(plan: RollupPlan | null, notBuilt?: string): ApiError {
  return new ApiError(
    'CONFLICT',
    plan
      ? `CUBEJS_ROLLUP_ONLY is set and pre-aggregation ${plan.preAggregation} is not built yet (partition ${notBuilt}): no query goes to the data source`
      : 'CUBEJS_ROLLUP_ONLY is set and no pre-aggregation matches this query: no query goes to the data source',
  );
}
