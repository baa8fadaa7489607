import type { Dialect, ZoneContext } from '../dialects/dialect';
import {
  COMPUTED_MEASURE_TYPES,
  type CompiledModel,
  countsDistinct,
  type Granularity,
  isCount,
  type Measure,
  measureValueType,
} from '../model/model.types';
import { balanced, type FilterTarget, filterMembers, filterSql } from './filters';
import { findJoinTree, type JoinTree, multipliedCubes } from './join-tree';
import { MemberSql } from './member-sql';
import { type CubeMember, cubeMemberOf } from './members';
import type { CompiledSql, NormalizedFilter, NormalizedQuery, QueryMember } from './query.types';
import { QueryError } from './query-error';
import { pageOf, SqlParams } from './sql-params';

/** One column of a compiled query's rows: its SQL alias and the member it answers. */
export interface ResultColumn {
  alias: string;
  member: string;
  kind: 'measure' | 'dimension' | 'timeDimension';
  /** The dimension's type, or the measure's (`count`, `sum`, …, `number`). */
  type: string;
  granularity?: Granularity;
}

/** The result columns of a query's selected members, in order: aliased `c0`, `c1`, … */
export function resultColumns(selected: readonly Omit<ResultColumn, 'alias'>[]): ResultColumn[] {
  return selected.map((column, index) => ({
    alias: `c${index}`,
    member: column.member,
    kind: column.kind,
    type: column.type,
    ...(column.granularity ? { granularity: column.granularity } : {}),
  }));
}

/** SQL for one dialect, its parameters, how to read its rows, and the total-rows count. */
export interface CompiledQuery extends CompiledSql {
  columns: ResultColumn[];
  /** When the query asks for `total`: the number of rows it answers without limit and offset. */
  totalSql?: CompiledSql;
  /** The cubes the query joins (pre-aggregation matching compares a query's with a rollup's). */
  joinTree: JoinTree;
}

/**
 * A measure the query needs, directly or through another: an aggregating one (a leaf), or a
 * computed one (`number`, `string`, `time`, `boolean`) whose SQL is its whole expression.
 */
interface Leaf {
  alias: string;
  cube: string;
  measure: Measure;
  input?: string;
  condition?: string;
  /** 0: aggregated over the joined rows; otherwise the group of its multiplied cube. */
  group: number;
  /** A computed measure's SQL, each measure it reads marked (see `measureSql`). */
  computed?: string;
}

/** Default span of SQLite's zone conversion when the query gives no date range to bound it. */
const DEFAULT_SPAN: [number, number] = [Date.UTC(1990, 0, 1), Date.UTC(2050, 0, 1)];
/**
 * The widest span of SQLite's zone conversion: a date range over centuries (`0001-01-01` to
 * `9999-12-31`) would write thousands of daylight-saving transitions into the statement, past
 * what SQLite takes in one. Rows outside it take the offset at its nearest end.
 */
const WIDEST_SPAN: [number, number] = [Date.UTC(1900, 0, 1), Date.UTC(2100, 0, 1)];
const LEAF_MARK = '\uE001';
/** Measures that a repeated row would count twice; min, max and distinct counts are immune. */
const ADDITIVE = new Set(['count', 'sum', 'avg']);

/**
 * Plans a normalized query as SQL for one dialect. Cubes are joined along the join tree with
 * LEFT JOINs from its root. Measures of cubes the tree multiplies (see `multipliedCubes`) are
 * aggregated the way Cube does: over the distinct primary keys the joined, filtered rows reach
 * (a keys subquery joined back to the cube's own rows), per combination of dimensions; other
 * measures aggregate over the joined rows. The groups meet on the dimension columns with
 * null-safe equality, `number` measures are computed from them, and measure filters apply
 * after aggregation.
 *
 * `extraFilters` (row-level security) are ANDed into the WHERE of every group. An `ungrouped`
 * query selects row values without aggregation (no primary keys are required, unlike Cube).
 */
export function compileQuery(
  model: CompiledModel,
  query: NormalizedQuery,
  dialect: Dialect,
  options: { extraFilters?: NormalizedFilter[] } = {},
): CompiledQuery {
  const params = new SqlParams();
  const sqlOf = new MemberSql(model, dialect);
  const timeColumn = query.dimensions.some((member) => dimensionOf(model, member).dimension.type === 'time');
  const span = timeColumn ? DEFAULT_SPAN : spanOf(query);
  const zone: ZoneContext = { zone: query.timezone, zoneParam: params.add(query.timezone), span };
  const allFilters = [...query.filters, ...(options.extraFilters ?? [])];
  const queried = [...query.measures, ...query.dimensions, ...query.timeDimensions, ...query.segments];
  for (const member of [...queried, ...allFilters.flatMap(filterMembers)])
    sqlOf.cubes.add(lookup(model, member).cube.name);

  // Dimension columns: dimensions, then time dimensions with a granularity.
  const dimensions = [
    ...query.dimensions.map((member) => {
      const dimension = dimensionOf(model, member);
      const sql = sqlOf.dimension(dimension.cube.name, shortName(dimension));
      const isTime = dimension.dimension.type === 'time';
      return {
        member: member.name,
        kind: 'dimension' as const,
        type: dimension.dimension.type,
        expr: isTime ? dialect.localTime(sql, zone) : sql,
      };
    }),
    ...query.timeDimensions.flatMap((member) => {
      if (!member.granularity) return [];
      const dimension = dimensionOf(model, member);
      const sql = sqlOf.dimension(dimension.cube.name, shortName(dimension));
      return [
        {
          member: member.name,
          kind: 'timeDimension' as const,
          type: 'time',
          granularity: member.granularity,
          expr: dialect.localTime(sql, zone, member.granularity),
        },
      ];
    }),
  ];

  // Measures, each marked in the SQL by its alias: an aggregating one (a leaf) is aggregated in a
  // group; a computed one is computed with the rows that hold everything it reads (its own SQL
  // may aggregate columns: `MAX(created_at)`), else from the groups' results (see groupedBody).
  const leaves = new Map<string, Leaf>();
  const measureSql = (cube: string, measure: Measure): string => {
    const key = `${cube}.${measure.shortName}`;
    let leaf = leaves.get(key);
    if (!leaf) {
      if (countsDistinct(measure.type) && measure.sql === undefined) {
        throw new QueryError(`Measure ${key} of type ${measure.type} needs sql`);
      }
      // A computed measure's SQL marks the measures it reads first, so its alias comes after theirs.
      const made: Omit<Leaf, 'alias'> = COMPUTED_MEASURE_TYPES.has(measure.type)
        ? { cube, measure, group: 0, computed: sqlOf.numberMeasure(cube, measure, measureSql) }
        : {
            cube,
            measure,
            input: sqlOf.measureInput(cube, measure) ?? countedKey(sqlOf, cube, measure),
            condition: sqlOf.measureCondition(cube, measure),
            group: 0,
          };
      leaf = { ...made, alias: `m${leaves.size}` };
      leaves.set(key, leaf);
    }
    return `${LEAF_MARK}${leaf.alias}${LEAF_MARK}`;
  };
  const measures = query.measures.map((member) => {
    const found = lookup(model, member);
    if (found.kind !== 'measure') throw new QueryError(`Not a measure: ${member.name}`);
    return {
      member: member.name,
      kind: 'measure' as const,
      type: found.measure.type,
      expr: measureSql(found.cube.name, found.measure),
    };
  });

  const target = (member: QueryMember): FilterTarget => {
    const found = lookup(model, member);
    if (found.kind === 'measure') {
      return { sql: measureSql(found.cube.name, found.measure), type: measureValueType(found.measure.type) };
    }
    if (found.kind === 'dimension') {
      return { sql: sqlOf.dimension(found.cube.name, shortName(found)), type: found.dimension.type };
    }
    throw new QueryError(`A segment cannot be filtered: ${member.name}`);
  };
  const context = { dialect, params, target };
  const rowConditions: string[] = [];
  const aggregateConditions: string[] = [];
  for (const filter of allFilters.flatMap(conjuncts)) {
    const kinds = new Set(filterMembers(filter).map((member) => lookup(model, member).kind));
    if (kinds.has('measure') && kinds.size > 1) {
      throw new QueryError('A filter cannot combine measures and dimensions in one `or`');
    }
    (kinds.has('measure') ? aggregateConditions : rowConditions).push(filterSql(filter, context));
  }
  for (const member of query.segments) {
    const found = lookup(model, member);
    rowConditions.push(`(${sqlOf.segment(found.cube.name, shortName(found))})`);
  }
  for (const member of query.timeDimensions) {
    if (!member.dateRange) continue;
    rowConditions.push(filterSql({ member, operator: 'inDateRange', values: member.dateRange }, context));
  }

  const tree = findJoinTree(model, [...sqlOf.cubes], query.joinHints);
  const from = fromClause(tree, sqlOf);
  const where = rowConditions.length > 0 ? ` WHERE ${balanced(rowConditions, 'AND')}` : '';

  const columns = resultColumns([...dimensions, ...measures]);
  let body: string;
  if (query.ungrouped) {
    const select = [...dimensions, ...measures].map((column, index) => `${column.expr} AS c${index}`);
    const conditions = [...rowConditions, ...aggregateConditions];
    const filtered = conditions.length > 0 ? ` WHERE ${balanced(conditions, 'AND')}` : '';
    body = `SELECT ${select.join(', ')} FROM ${from}${filtered}`;
    const render = (leaf: Leaf): string => {
      if (leaf.computed === undefined) return rowValue(leaf);
      if (readsRows(leaf, leaves, sqlOf)) {
        throw new QueryError(
          `Measure ${leaf.cube}.${leaf.measure.shortName} aggregates its own SQL, which an ungrouped query cannot read`,
        );
      }
      return `(${replaceLeaves(leaf.computed, leaves, render)})`;
    };
    body = replaceLeaves(body, leaves, render);
  } else {
    body = groupedBody(tree, sqlOf, dialect, from, where, dimensions, measures, aggregateConditions, leaves);
  }

  const order = query.order.map(({ member, desc, granularity }) => {
    const column = columns.find((candidate) => orderedBy(candidate, member, granularity));
    if (!column) throw new QueryError(`Order member is not in the query: ${member}`);
    return `${column.alias} ${desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}`;
  });
  const { page, totalSql } = pageOf(params, body, order, query, dialect);
  return { ...page, columns, joinTree: tree, ...(totalSql ? { totalSql } : {}) };
}

/** Whether an order entry names `column`: its member, and its granularity when it gives one. */
export function orderedBy(column: ResultColumn, member: string, granularity?: string): boolean {
  return column.member === member && (granularity === undefined || column.granularity === granularity);
}

function groupedBody(
  tree: JoinTree,
  sqlOf: MemberSql,
  dialect: Dialect,
  from: string,
  where: string,
  dimensions: { expr: string }[],
  measures: { expr: string }[],
  aggregateConditions: string[],
  leaves: Map<string, Leaf>,
): string {
  const multiplied = multipliedCubes(tree);
  const groups: string[] = [];
  const groupOf = (cube: string) => {
    if (!groups.includes(cube)) groups.push(cube);
    return groups.indexOf(cube) + 1;
  };
  for (const leaf of leaves.values()) {
    if (leaf.computed !== undefined || !multiplied.has(leaf.cube) || !ADDITIVE.has(leaf.measure.type))
      continue;
    leaf.group = groupOf(leaf.cube);
  }
  // A computed measure is computed in a group, inline, when that group's rows hold everything it
  // reads: the joined rows (group 0) when its cube is not multiplied and the measures it reads
  // are computed there; its cube's own rows, once each, when its cube is multiplied and it reads
  // measures of that cube only. Otherwise it is computed from the groups' results, and then may
  // read measures only (`outer`).
  const outer = new Set<Leaf>();
  for (const leaf of leaves.values()) {
    if (leaf.computed === undefined) continue;
    const reads = markedLeaves(leaf, leaves);
    if (!multiplied.has(leaf.cube)) {
      if (reads.every((read) => !outer.has(read) && read.group === 0)) continue;
    } else if (reads.every((read) => read.cube === leaf.cube && !outer.has(read))) {
      leaf.group = groupOf(leaf.cube);
      continue;
    }
    if (readsRows(leaf, leaves, sqlOf)) {
      throw new QueryError(
        `Measure ${leaf.cube}.${leaf.measure.shortName} aggregates its own SQL and reads measures this query's joins compute apart; query it without the joins that multiply cube ${leaf.cube}`,
      );
    }
    outer.add(leaf);
  }
  const inline = (leaf: Leaf): string =>
    leaf.computed === undefined ? aggregate(leaf) : `(${replaceLeaves(leaf.computed, leaves, inline)})`;
  const inGroup = (group: number) =>
    [...leaves.values()].filter((leaf) => leaf.group === group && !outer.has(leaf));
  const dimensionSelect = dimensions.map((dimension, index) => `${dimension.expr} AS d${index}`);
  const groupBy =
    dimensions.length > 0 ? ` GROUP BY ${dimensions.map((_, index) => index + 1).join(', ')}` : '';

  // Group 0 holds every combination of dimensions the filtered rows have, so the others join to it.
  const direct = [...dimensionSelect, ...inGroup(0).map((leaf) => `${inline(leaf)} AS ${leaf.alias}`)];
  if (direct.length === 0) direct.push('count(*) AS n');
  let joined = `(SELECT ${direct.join(', ')} FROM ${from}${where}${groupBy}) AS q0`;

  groups.forEach((cubeName, index) => {
    const group = index + 1;
    const cube = sqlOf.cube(cubeName);
    const keys = Object.entries(cube.dimensions).filter(([, dimension]) => dimension.primaryKey);
    if (keys.length === 0) {
      throw new QueryError(`Cube ${cubeName} needs a primary key: its measures are multiplied by a join`);
    }
    const keySelect = keys.map(([name], key) => `${sqlOf.dimension(cubeName, name)} AS k${key}`);
    const keyRows = `SELECT DISTINCT ${[...dimensionSelect, ...keySelect].join(', ')} FROM ${from}${where}`;
    const keyJoin = keys
      .map(([name], key) => `ks.k${key} = ${sqlOf.dimension(cubeName, name)}`)
      .join(' AND ');
    const select = [
      ...dimensions.map((_, position) => `ks.d${position}`),
      ...inGroup(group).map((leaf) => `${inline(leaf)} AS ${leaf.alias}`),
    ];
    const sub = `SELECT ${select.join(', ')} FROM (${keyRows}) AS ks INNER JOIN ${sqlOf.source(cubeName)} ON ${keyJoin}${groupBy}`;
    const on =
      dimensions.length > 0
        ? dimensions
            .map((_, position) => dialect.same(`q0.d${position}`, `q${group}.d${position}`))
            .join(' AND ')
        : '1 = 1';
    joined += ` LEFT JOIN (${sub}) AS q${group} ON ${on}`;
  });

  const select = [
    ...dimensions.map((_, index) => `q0.d${index} AS c${index}`),
    ...measures.map((measure, index) => `${measure.expr} AS c${dimensions.length + index}`),
  ];
  const having = aggregateConditions.length > 0 ? ` WHERE ${balanced(aggregateConditions, 'AND')}` : '';
  const body = `SELECT ${select.join(', ')} FROM ${joined}${having}`;
  const render = (leaf: Leaf): string => {
    if (outer.has(leaf)) return `(${replaceLeaves(leaf.computed ?? 'NULL', leaves, render)})`;
    const column = `q${leaf.group}.${leaf.alias}`;
    // A combination of dimensions a multiplied cube has no rows for counts none.
    const counts = leaf.measure.type === 'count';
    return leaf.group > 0 && counts ? `COALESCE(${column}, 0)` : column;
  };
  return replaceLeaves(body, leaves, render);
}

/**
 * What a `count` without `sql` counts: the primary key, as Cube does, so the NULL row a LEFT JOIN
 * makes for a cube without matching rows counts none. Without a key, rows (`count(*)`).
 */
function countedKey(sqlOf: MemberSql, cubeName: string, measure: Measure): string | undefined {
  if (measure.type !== 'count') return undefined;
  const key = Object.entries(sqlOf.cube(cubeName).dimensions).find(([, dimension]) => dimension.primaryKey);
  return key && sqlOf.dimension(cubeName, key[0]);
}

/** The measures a computed measure's SQL reads, as marked in it. */
function markedLeaves(leaf: Leaf, leaves: Map<string, Leaf>): Leaf[] {
  const reads: Leaf[] = [];
  replaceLeaves(leaf.computed ?? '', leaves, (read) => {
    reads.push(read);
    return '';
  });
  return reads;
}

/** Whether a computed measure's SQL reads rows (a column or a dimension), not only measures. */
function readsRows(leaf: Leaf, leaves: Map<string, Leaf>, sqlOf: MemberSql): boolean {
  return sqlOf.readsRows(replaceLeaves(leaf.computed ?? '', leaves, () => 'NULL'));
}

function replaceLeaves(sql: string, leaves: Map<string, Leaf>, render: (leaf: Leaf) => string): string {
  const byAlias = new Map([...leaves.values()].map((leaf) => [leaf.alias, leaf]));
  return sql.replace(/\uE001(m\d+)\uE001/g, (_, alias: string) => render(byAlias.get(alias) as Leaf));
}

/** The aggregate of a leaf measure, its `filters` as a CASE inside the aggregate. */
function aggregate(leaf: Leaf): string {
  const { input, condition } = leaf;
  const only = (value: string) => (condition ? `CASE WHEN ${condition} THEN ${value} END` : value);
  switch (leaf.measure.type) {
    case 'count':
      if (input === undefined) return condition ? `count(CASE WHEN ${condition} THEN 1 END)` : 'count(*)';
      return `count(${only(input)})`;
    case 'count_distinct':
    case 'count_distinct_approx':
      return `count(DISTINCT ${only(input ?? 'NULL')})`;
    default:
      return `${leaf.measure.type}(${only(input ?? 'NULL')})`;
  }
}

/** A leaf measure's value on one row, for ungrouped queries (a count: 1 or 0). */
function rowValue(leaf: Leaf): string {
  const { input, condition } = leaf;
  if (isCount(leaf.measure.type)) {
    const counted = [...(input ? [`(${input}) IS NOT NULL`] : []), ...(condition ? [condition] : [])];
    return counted.length > 0 ? `CASE WHEN ${counted.join(' AND ')} THEN 1 ELSE 0 END` : '1';
  }
  const value = input ?? 'NULL';
  return condition ? `CASE WHEN ${condition} THEN ${value} END` : value;
}

function fromClause(tree: JoinTree, sqlOf: MemberSql): string {
  let from = sqlOf.source(tree.root);
  for (const edge of tree.edges) {
    from += ` LEFT JOIN ${sqlOf.source(edge.child)} ON ${sqlOf.joinCondition(edge.declaredOn, edge.join)}`;
  }
  return from;
}

/** ANDed filters as separate conditions, so measure and dimension filters can be told apart. */
function conjuncts(filter: NormalizedFilter): NormalizedFilter[] {
  return 'and' in filter ? filter.and.flatMap(conjuncts) : [filter];
}

function lookup(model: CompiledModel, member: QueryMember): CubeMember {
  const found = cubeMemberOf(model, member.target);
  if (!found) throw new QueryError(`Unknown member: ${member.name}`);
  return found;
}

function dimensionOf(model: CompiledModel, member: QueryMember): Extract<CubeMember, { kind: 'dimension' }> {
  const found = lookup(model, member);
  if (found.kind !== 'dimension') throw new QueryError(`Not a dimension: ${member.name}`);
  return found;
}

function shortName(member: CubeMember): string {
  return member.name.slice(member.cube.name.length + 1);
}

/**
 * The instants a query's local times fall in, for SQLite's offset table: the union of the date
 * ranges when every time dimension with a granularity has one, else a fixed span.
 */
function spanOf(query: NormalizedQuery): [number, number] {
  const granular = query.timeDimensions.filter((member) => member.granularity);
  const ranges = granular.map((member) => member.dateRange);
  if (granular.length === 0 || ranges.some((range) => !range)) return DEFAULT_SPAN;
  const day = 86_400_000;
  const starts = ranges.map((range) => Date.parse((range as [string, string])[0]));
  const ends = ranges.map((range) => Date.parse((range as [string, string])[1]));
  const from = Math.max(Math.min(...starts) - day, WIDEST_SPAN[0]);
  const to = Math.min(Math.max(...ends) + day, WIDEST_SPAN[1]);
  // A range wholly outside the widest span converts with the offset at its nearest end.
  return from < to ? [from, to] : to <= WIDEST_SPAN[0] ? [WIDEST_SPAN[0], WIDEST_SPAN[0]] : [to, to];
}
