import { wallClockRepeats } from '../../../core/time-zone';
import { sqlite } from '../../dialects/sqlite';
import type { CompiledModel, Measure } from '../../model/model.types';
import { granularityNests, preAggregationTableName } from '../../model/pre-aggregations';
import type { PartitionSpec, PreAggregation } from '../../model/pre-aggregations.types';
import { filterLeaves, filterMembers } from '../filters';
import { type JoinTree, multipliedCubes } from '../join-tree';
import { cubeMemberOf } from '../members';
import { compileQuery } from '../plan';
import {
  type NormalizedFilter,
  type NormalizedQuery,
  type QueryMember,
  TEXT_FILTER_OPERATORS,
} from '../query.types';
import { rollupAsQuery } from './build';
import { ADDITIVE_MEASURES, numberLeaves, type SourceDialect } from './layout';
import { bucketStart, partitionsOf } from './partitions';

/** A query a rollup can answer, and how. */
export interface PreAggregationMatch {
  preAggregation: PreAggregation;
  /** Cube's table name of the pre-aggregation, without a partition suffix. */
  tableName: string;
  /** The zone of the partitions that serve it: the query's. */
  timezone: string;
  /**
   * Each of the query's groups is exactly one rollup row (same dimensions, granularity and
   * segments, no bucket split across partitions): measures that do not re-aggregate are read
   * as stored.
   */
  exact: boolean;
  source: SourceDialect;
  /** The policy filters the query runs with: applied to the rollup like the query's own. */
  extraFilters: NormalizedFilter[];
}

export interface MatchOptions {
  /** The deployment's data source; a rollup stores values in that source's form. Default postgres. */
  source?: SourceDialect;
  /** The zones the rollups are built in; absent: any (the query's zone is the partitions'). */
  timezones?: readonly string[];
}

const TEXT_OPERATOR_SET: ReadonlySet<string> = new Set(TEXT_FILTER_OPERATORS);

/** Non-additive measures (Cube's rules): served only when each group is one rollup row. */
const NON_ADDITIVE_NOTE =
  'count_distinct, count_distinct_approx, avg, number measures on them, and on PostgreSQL every number measure';
/** Measures a repeated row counts twice (see plan.ts); min and max are immune. */
const MULTIPLIABLE = new Set(['count', 'sum', 'avg']);

/**
 * The first pre-aggregation that answers `query` exactly as the source would, Cube's rules
 * ("Matching queries with pre-aggregations"), or null. Candidates are the rollups of the cubes the
 * query names, cube by cube in the order the query first names them, each cube's in definition
 * order (rollups before original_sql). `extraFilters` are the caller's
 * data access policy filters: filters like any other, so a rollup without their members does
 * not match and the query goes to the source. `ungrouped` queries never match.
 */
export function matchPreAggregation(
  model: CompiledModel,
  query: NormalizedQuery,
  extraFilters: readonly NormalizedFilter[],
  options: MatchOptions = {},
): PreAggregationMatch | null {
  if (query.ungrouped) return null;
  for (const preAggregation of candidatesOf(model, query)) {
    const verdict = checkPreAggregation(model, query, extraFilters, preAggregation, options);
    if (typeof verdict !== 'string') {
      return {
        preAggregation,
        tableName: preAggregationTableName(preAggregation),
        timezone: query.timezone,
        exact: verdict.exact,
        source: options.source ?? 'postgres',
        extraFilters: [...extraFilters],
      };
    }
  }
  return null;
}

/** The pre-aggregations a query could use, in the order Cube tries them. */
export function candidatesOf(model: CompiledModel, query: NormalizedQuery): PreAggregation[] {
  const cubes: string[] = [];
  const note = (member: QueryMember) => {
    const cube = member.target.slice(0, member.target.indexOf('.'));
    if (!cubes.includes(cube)) cubes.push(cube);
  };
  [...query.measures, ...query.dimensions, ...query.timeDimensions, ...query.segments].forEach(note);
  query.filters.flatMap(filterMembers).forEach(note);
  const all = cubes.flatMap((cube) => model.cubes[cube]?.preAggregations ?? []);
  return [...all.filter((pre) => pre.type === 'rollup'), ...all.filter((pre) => pre.type !== 'rollup')];
}

const trees = new WeakMap<PreAggregation, JoinTree>();

/** The join tree a rollup is built with (the same at every build: it depends on its members only). */
function rollupTree(model: CompiledModel, preAggregation: PreAggregation): JoinTree {
  let tree = trees.get(preAggregation);
  if (!tree) {
    tree = compileQuery(model, rollupAsQuery(preAggregation, 'UTC'), sqlite).joinTree;
    trees.set(preAggregation, tree);
  }
  return tree;
}

/**
 * Whether `preAggregation` answers the query, and whether exactly (one rollup row per group), or
 * why not: the reason, for tests and for `/sql`'s look at a refused match.
 */
export function checkPreAggregation(
  model: CompiledModel,
  query: NormalizedQuery,
  extraFilters: readonly NormalizedFilter[],
  preAggregation: PreAggregation,
  options: MatchOptions = {},
): { exact: boolean } | string {
  const pre = preAggregation;
  if (query.ungrouped) return 'an ungrouped query is never served from a pre-aggregation';
  if (options.timezones && !options.timezones.includes(query.timezone)) {
    return `it is not built in the query's time zone ${query.timezone}`;
  }
  const measures = new Set(pre.measures);
  const dimensions = new Set(pre.dimensions);
  for (const member of query.measures) {
    if (!measures.has(member.target)) return `measure ${member.name} is not in it`;
  }
  for (const member of query.dimensions) {
    if (!dimensions.has(member.target)) return `dimension ${member.name} is not in it`;
  }
  const segments = new Set(query.segments.map((member) => member.target));
  if (segments.size !== pre.segments.length || pre.segments.some((segment) => !segments.has(segment))) {
    return `its segments (${pre.segments.join(', ') || 'none'}) are not the query's`;
  }
  for (const { member, operator } of [...query.filters, ...extraFilters].flatMap(filterLeaves)) {
    const found = cubeMemberOf(model, member.target);
    if (found?.kind === 'measure') {
      if (!measures.has(member.target)) return `filter member ${member.name} is not in it`;
    } else if (!dimensions.has(member.target)) {
      return `filter member ${member.name} is not in it`;
    } else if (found?.kind === 'dimension' && found.dimension.type === 'time') {
      return `filter member ${member.name} is a time: only a time dimension's dateRange is applied to a rollup`;
    }
    // A rollup keeps a number or a boolean as a value, not as the text the source matches.
    if (
      TEXT_OPERATOR_SET.has(operator) &&
      (found?.kind !== 'dimension' || found.dimension.type !== 'string')
    ) {
      return `filter ${operator} on ${member.name} matches text, and it is not a string dimension`;
    }
  }
  for (const member of query.timeDimensions) {
    if (member.target === pre.timeDimension && pre.granularity) {
      // Buckets are wall-clock text: in an hour a clock repeats, they cannot say which of the two
      // instants a range's bound is.
      if (member.dateRange?.some((bound) => wallClockRepeats(Date.parse(bound), query.timezone))) {
        return `the date range of ${member.name} starts or ends at a wall-clock time ${query.timezone} repeats`;
      }
      if (member.granularity && !granularityNests(pre.granularity, member.granularity)) {
        return `granularity ${member.granularity} of ${member.name} is not made of its ${pre.granularity} buckets`;
      }
      if (
        member.dateRange &&
        !pre.allowNonStrictDateRangeMatch &&
        !aligned(member.dateRange, pre.granularity, query.timezone)
      ) {
        return `the date range of ${member.name} is not aligned to its ${pre.granularity} buckets`;
      }
    } else if (member.granularity || member.dateRange || !dimensions.has(member.target)) {
      return `time dimension ${member.name} is not its time dimension`;
    }
  }
  // Partitions hold the rows of their ranges only (rows of NULL times in none): without a date range
  // the query asks for rows no partition holds.
  if (
    pre.partitionGranularity &&
    !query.timeDimensions.some((member) => member.target === pre.timeDimension && member.dateRange)
  ) {
    return `it is partitioned, and the query has no date range on ${pre.timeDimension}`;
  }

  const rollup = rollupTree(model, pre);
  const asked = compileQuery(model, query, sqlite, { extraFilters: [...extraFilters] }).joinTree;
  if (asked.root !== rollup.root) return `it joins from ${rollup.root}, the query from ${asked.root}`;
  const edges = new Set(rollup.edges.map((edge) => `${edge.parent}>${edge.child}>${edge.declaredOn}`));
  const foreign = asked.edges.find((edge) => !edges.has(`${edge.parent}>${edge.child}>${edge.declaredOn}`));
  if (foreign) return `the query joins ${foreign.parent} to ${foreign.child} on a path it does not`;

  const multiplied = multipliedCubes(rollup);
  const reaggregates = (target: string) => {
    const [cube = '', name = ''] = target.split('.');
    const measure = model.cubes[cube]?.measures[name] as Measure;
    return ADDITIVE_MEASURES.has(measure.type) && !(multiplied.has(cube) && MULTIPLIABLE.has(measure.type));
  };
  // A number measure re-aggregates when its leaves do, computed from them by the store's SQLite:
  // on the embedded store only, whose arithmetic it is (PostgreSQL's numeric division is not).
  const source = options.source ?? 'postgres';
  const leavesOf = (target: string) => (source === 'sqlite' ? numberLeaves(model, target) : null);
  // Measures in filters are computed over the rollup's rows too (HAVING).
  const filterMeasures = [...query.filters, ...extraFilters]
    .flatMap(filterMembers)
    .filter((member) => cubeMemberOf(model, member.target)?.kind === 'measure');
  const needsExact = [...query.measures, ...filterMeasures].find((member) => {
    const leaves = leavesOf(member.target);
    return leaves ? !leaves.every(reaggregates) : !reaggregates(member.target);
  });
  const exact = exactlyOneRowPerGroup(query, pre);
  if (needsExact && exact !== true) {
    return `measure ${needsExact.name} does not re-aggregate (${NON_ADDITIVE_NOTE}, and measures its joins multiply), and ${exact}`;
  }
  return { exact: exact === true };
}

/** True when each of the query's groups is one rollup row; else why not. */
function exactlyOneRowPerGroup(query: NormalizedQuery, pre: PreAggregation): true | string {
  const asked = new Set(query.dimensions.map((member) => member.target));
  if (asked.size !== pre.dimensions.length || pre.dimensions.some((dimension) => !asked.has(dimension))) {
    return "the query's dimensions are not the rollup's";
  }
  const grained = query.timeDimensions.filter((member) => member.granularity);
  if (pre.timeDimension && pre.granularity) {
    if (grained.length === 0 || grained.some((member) => member.granularity !== pre.granularity)) {
      return `the query does not group by ${pre.timeDimension} by ${pre.granularity}`;
    }
    if (pre.partitionGranularity && !granularityNests(pre.granularity, pre.partitionGranularity)) {
      return `its ${pre.granularity} buckets straddle its ${pre.partitionGranularity} partitions`;
    }
  }
  return true;
}

/** Whether an inclusive UTC range starts and ends on bucket boundaries of `granularity` in `zone`. */
function aligned(
  range: [string, string],
  granularity: NonNullable<PreAggregation['granularity']>,
  zone: string,
) {
  const start = Date.parse(range[0]);
  const after = Date.parse(range[1]) + 1;
  return bucketStart(start, granularity, zone) === start && bucketStart(after, granularity, zone) === after;
}

/**
 * The partitions (in the match's zone) a matched query reads: those its date ranges on the
 * rollup's time dimension reach; the one table of an unpartitioned rollup. A server answers from
 * the rollup only when every one of them is built (else from the source). Throws a
 * `PreAggregationError` when the range needs more partitions than a rollup may have.
 */
export function partitionsNeeded(match: PreAggregationMatch, query: NormalizedQuery): PartitionSpec[] {
  const pre = match.preAggregation;
  if (!pre.partitionGranularity) return partitionsOf(pre, ['', ''], match.timezone);
  const ranges = query.timeDimensions.flatMap((member) =>
    member.target === pre.timeDimension && member.dateRange ? [member.dateRange] : [],
  );
  const [first, ...others] = ranges;
  if (!first) return [];
  const names = others.map(
    (range) => new Set(partitionsOf(pre, range, match.timezone).map((spec) => spec.tableName)),
  );
  return partitionsOf(pre, first, match.timezone).filter((spec) =>
    names.every((set) => set.has(spec.tableName)),
  );
}
