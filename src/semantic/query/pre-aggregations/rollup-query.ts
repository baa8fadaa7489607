import { sqlite } from '../../dialects/sqlite';
import type { CompiledModel } from '../../model/model.types';
import { balanced, type FilterTarget, filterMembers, filterSql } from '../filters';
import { MemberSql } from '../member-sql';
import { cubeMemberOf } from '../members';
import { type CompiledQuery, orderedBy, resultColumns } from '../plan';
import type { CompiledSql, NormalizedFilter, NormalizedQuery, QueryMember } from '../query.types';
import { QueryError } from '../query-error';
import { pageOf, SqlParams } from '../sql-params';
import {
  ADDITIVE_MEASURES,
  type LayoutMeasure,
  numberLeaves,
  type RollupLayout,
  rollupLayoutOf,
} from './layout';
import { type PreAggregationMatch, partitionsNeeded } from './match';
import { bucketStart, localText } from './partitions';

/** One stored partition table: Cube's name for it and the store's table that holds it. */
export interface RollupTable {
  tableName: string;
  physical: string;
}

/** The SQL reading a rollup: like a source query's, with the rollup's partitions as the source. */
export type RollupQuery = CompiledSql & Pick<CompiledQuery, 'columns' | 'totalSql'> & { tables: string[] };

const UTC_CONTEXT = { zone: 'UTC', zoneParam: "'UTC'", span: [0, 0] as [number, number] };

/**
 * The query on the store's SQLite that answers a matched query from its rollup: the partitions
 * its date range needs (UNION ALL of their tables), the query's filters and policy filters on the
 * stored columns, measures re-aggregated (a sum of sums, a sum of counts, a min of mins; measures
 * that do not re-aggregate read as stored, one row per group), grouped, ordered, limited. Its
 * columns are the source query's (`c<i>`, same members, same order), so `shapeRows` answers the
 * same rows and strings. Every value is a bound parameter; table names are quoted.
 */
export function rollupQueryOf(
  model: CompiledModel,
  match: PreAggregationMatch,
  query: NormalizedQuery,
  tables: readonly RollupTable[],
): RollupQuery {
  const pre = match.preAggregation;
  const layout = rollupLayoutOf(model, pre, match.source);
  const params = new SqlParams();

  const dimensionColumn = (member: QueryMember) => {
    const found = layout.dimensions.find((dimension) => dimension.member === member.target);
    if (!found)
      throw new QueryError(`${member.name} is not a column of pre-aggregation ${pre.cube}.${pre.name}`);
    return found;
  };
  const measureColumn = (member: QueryMember): LayoutMeasure => {
    const found = layout.measures.find((measure) => measure.member === member.target);
    if (!found)
      throw new QueryError(`${member.name} is not a measure of pre-aggregation ${pre.cube}.${pre.name}`);
    return found;
  };
  const measureSql = (member: QueryMember) => {
    const column = measureColumn(member);
    if (match.exact || column.type !== 'number' || layout.source !== 'sqlite') {
      return reaggregate(column, layout, match.exact);
    }
    return numberMeasureSql(model, layout, member.target);
  };

  const dimensions = [
    ...query.dimensions.map((member) => {
      const column = dimensionColumn(member);
      return { member: member.name, kind: 'dimension' as const, type: column.type, expr: column.column };
    }),
    ...query.timeDimensions.flatMap((member) => {
      if (!member.granularity) return [];
      if (!layout.time || member.target !== layout.time.member) {
        throw new QueryError(
          `${member.name} is not the time dimension of pre-aggregation ${pre.cube}.${pre.name}`,
        );
      }
      const expr =
        member.granularity === layout.time.granularity
          ? layout.time.column
          : sqlite.localTime(layout.time.column, UTC_CONTEXT, member.granularity);
      return [
        {
          member: member.name,
          kind: 'timeDimension' as const,
          type: 'time',
          granularity: member.granularity,
          expr,
        },
      ];
    }),
  ];
  const measures = query.measures.map((member) => {
    const column = measureColumn(member);
    return { member: member.name, kind: 'measure' as const, type: column.type, ...measureSql(member) };
  });

  const target = (member: QueryMember): FilterTarget => {
    const found = cubeMemberOf(model, member.target);
    if (found?.kind === 'measure') return { sql: measureSql(member).numeric, type: 'number' };
    const column = dimensionColumn(member);
    // Numbers may be stored as text (PostgreSQL's digits): compare them as numbers.
    return {
      sql: column.type === 'number' ? `CAST(${column.column} AS NUMERIC)` : column.column,
      type: column.type,
    };
  };
  const context = { dialect: sqlite, params, target };
  const rowConditions: string[] = [];
  const groupConditions: string[] = [];
  for (const filter of [...query.filters, ...match.extraFilters].flatMap(conjuncts)) {
    const kinds = new Set(filterMembers(filter).map((member) => cubeMemberOf(model, member.target)?.kind));
    if (kinds.has('measure') && kinds.size > 1) {
      throw new QueryError('A filter cannot combine measures and dimensions in one `or`');
    }
    (kinds.has('measure') ? groupConditions : rowConditions).push(filterSql(filter, context));
  }
  for (const member of query.timeDimensions) {
    if (!member.dateRange || !layout.time) continue;
    // Buckets are local wall-clock text in the query's zone: compare with the range's local bounds,
    // from the start of the bucket holding its first instant. A range off the buckets' bounds
    // (`allow_non_strict_date_range_match`) so reads every bucket it touches, whole.
    const first = bucketStart(Date.parse(member.dateRange[0]), layout.time.granularity, query.timezone);
    const from = localText(first, query.timezone);
    const to = localText(Date.parse(member.dateRange[1]), query.timezone);
    rowConditions.push(
      `(${layout.time.column} >= ${params.add(from)} AND ${layout.time.column} <= ${params.add(to)})`,
    );
  }

  const used = neededTables(match, query, tables);
  const from = sourceOf(layout, used);
  const where = rowConditions.length > 0 ? ` WHERE ${balanced(rowConditions, 'AND')}` : '';
  const groupBy =
    dimensions.length > 0 ? ` GROUP BY ${dimensions.map((_, index) => index + 1).join(', ')}` : '';
  const having = groupConditions.length > 0 ? ` HAVING ${balanced(groupConditions, 'AND')}` : '';
  const select = [
    ...dimensions.map((dimension, index) => `${dimension.expr} AS c${index}`),
    ...measures.map((measure, index) => `${measure.value} AS c${dimensions.length + index}`),
  ];
  const body = `SELECT ${select.join(', ')} FROM ${from}${where}${groupBy}${having}`;

  const columns = resultColumns([...dimensions, ...measures]);
  const order = query.order.map(({ member, desc, granularity }) => {
    const index = columns.findIndex((candidate) => orderedBy(candidate, member, granularity));
    const column = columns[index];
    if (!column) throw new QueryError(`Order member is not in the query: ${member}`);
    const key =
      column.kind === 'measure'
        ? (measures[index - dimensions.length]?.numeric ?? column.alias)
        : column.type === 'number'
          ? `CAST(${column.alias} AS NUMERIC)`
          : column.alias;
    return `${key} ${desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}`;
  });
  const { page, totalSql } = pageOf(params, body, order, query, sqlite);
  return {
    ...page,
    columns,
    tables: used.map((table) => table.tableName),
    ...(totalSql ? { totalSql } : {}),
  };
}

/**
 * A measure over the rollup's rows: `value` as the source answers it, `numeric` to compare and
 * order by. PostgreSQL's numerics are summed as numbers and written back with their scale.
 */
function reaggregate(
  measure: LayoutMeasure,
  layout: RollupLayout,
  exact: boolean,
): { value: string; numeric: string } {
  const m = measure.column;
  if (!ADDITIVE_MEASURES.has(measure.type)) {
    if (!exact) throw new QueryError(`Measure ${measure.member} does not re-aggregate`);
    // One row per group: the stored value is the answer.
    return { value: `max(${m})`, numeric: `CAST(max(${m}) AS NUMERIC)` };
  }
  if (measure.type === 'count') {
    const sum = `COALESCE(sum(${m}), 0)`;
    return { value: sum, numeric: sum };
  }
  const fn = measure.type === 'min' ? 'min' : measure.type === 'max' ? 'max' : 'sum';
  if (layout.source !== 'postgres' || !measure.scaleColumn) {
    return { value: `${fn}(${m})`, numeric: `${fn}(${m})` };
  }
  const numeric = `${fn}(CAST(${m} AS NUMERIC))`;
  const scale = `max(${measure.scaleColumn})`;
  return {
    value: `CASE WHEN ${scale} IS NULL THEN ${numeric} ELSE printf('%.' || ${scale} || 'f', ${numeric}) END`,
    numeric,
  };
}

/**
 * A re-aggregating `number` measure over the rollup's rows: its own SQL, compiled by the
 * planner's `MemberSql` as on the source, with each measure it references the re-aggregated
 * column of that leaf (nested number measures likewise), so SQLite computes what the embedded
 * source computes from the same leaf values.
 */
function numberMeasureSql(
  model: CompiledModel,
  layout: RollupLayout,
  target: string,
): { value: string; numeric: string } {
  const found = cubeMemberOf(model, target);
  if (found?.kind !== 'measure' || !numberLeaves(model, target)) {
    throw new QueryError(`Measure ${target} does not re-aggregate`);
  }
  const sqlOf = new MemberSql(model, sqlite);
  const value = sqlOf.numberMeasure(found.cube.name, found.measure, (cube, measure) => {
    const leaf = `${cube}.${measure.shortName}`;
    if (measure.type === 'number') return numberMeasureSql(model, layout, leaf).value;
    const column = layout.measures.find((candidate) => candidate.member === leaf);
    if (!column) throw new QueryError(`${leaf} is not a measure of the pre-aggregation`);
    return reaggregate(column, layout, false).value;
  });
  return { value, numeric: value };
}

/** The partition tables a query reads: those its date ranges on the rollup's time dimension reach. */
function neededTables(
  match: PreAggregationMatch,
  query: NormalizedQuery,
  tables: readonly RollupTable[],
): RollupTable[] {
  if (!match.preAggregation.partitionGranularity) return [...tables];
  let names: Set<string>;
  try {
    names = new Set(partitionsNeeded(match, query).map((spec) => spec.tableName));
  } catch {
    // A range wider than a rollup may have partitions reads every partition there is.
    return [...tables];
  }
  return tables.filter((table) => names.has(table.tableName));
}

/** SQLite in a Durable Object allows at most 5 terms in one compound SELECT. */
const MAX_COMPOUND_TERMS = 5;

/**
 * The partitions as one relation `r` with the layout's columns (none: an empty one): a UNION ALL
 * nested in groups of `MAX_COMPOUND_TERMS`. Every partition has the layout's columns in its order.
 */
function sourceOf(layout: RollupLayout, tables: readonly RollupTable[]): string {
  const names = layout.columns.map((column) => column.name);
  if (tables.length === 0)
    return `(SELECT ${names.map((name) => `NULL AS ${name}`).join(', ')} WHERE 0) AS r`;
  let terms = tables.map((table) => `SELECT * FROM ${sqlite.quote(table.physical)}`);
  while (terms.length > MAX_COMPOUND_TERMS) {
    const grouped: string[] = [];
    for (let at = 0; at < terms.length; at += MAX_COMPOUND_TERMS) {
      grouped.push(`SELECT * FROM (${terms.slice(at, at + MAX_COMPOUND_TERMS).join(' UNION ALL ')})`);
    }
    terms = grouped;
  }
  return `(${terms.join(' UNION ALL ')}) AS r`;
}

function conjuncts(filter: NormalizedFilter): NormalizedFilter[] {
  return 'and' in filter ? filter.and.flatMap(conjuncts) : [filter];
}
