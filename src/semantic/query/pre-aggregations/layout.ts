import { sqlite } from '../../dialects/sqlite';
import {
  type CompiledModel,
  type DimensionType,
  type Granularity,
  isCount,
  type MeasureType,
} from '../../model/model.types';
import type { PreAggregation, RollupColumn } from '../../model/pre-aggregations.types';
import { MemberSql } from '../member-sql';
import { cubeMemberOf } from '../members';
import { QueryError } from '../query-error';

/** Where a rollup's rows come from: their values are stored in the form that source yields them. */
export type SourceDialect = 'postgres' | 'sqlite';

/** Measures whose partial values re-aggregate exactly: a sum of sums, of counts, a min of mins. */
export const ADDITIVE_MEASURES: ReadonlySet<MeasureType> = new Set(['count', 'sum', 'min', 'max']);

/**
 * The leaf measures of a `number` measure that re-aggregates (Cube's rule: every measure its SQL
 * references, recursively, is additive), or null: a leaf is not additive, or its SQL reads
 * anything but measures (a column, a dimension, `{CUBE}`), which a rollup's rows do not have.
 */
export function numberLeaves(model: CompiledModel, target: string, depth = 0): string[] | null {
  const found = cubeMemberOf(model, target);
  if (found?.kind !== 'measure' || found.measure.type !== 'number' || depth > 32) return null;
  const leaves: string[] = [];
  let additive = true;
  const sqlOf = new MemberSql(model, sqlite);
  let sql: string;
  try {
    sql = sqlOf.numberMeasure(found.cube.name, found.measure, (cube, measure) => {
      const name = `${cube}.${measure.shortName}`;
      const nested = measure.type === 'number' ? numberLeaves(model, name, depth + 1) : [name];
      if (!nested || (measure.type !== 'number' && !ADDITIVE_MEASURES.has(measure.type))) additive = false;
      else leaves.push(...nested);
      return 'NULL';
    });
  } catch {
    return null;
  }
  if (!additive || leaves.length === 0) return null;
  // A column, a dimension or {CUBE} is not in a rollup.
  if (sqlOf.readsRows(sql)) return null;
  return [...new Set(leaves)];
}

/**
 * The measures a rollup stores: those it lists, then the leaves of its re-aggregating `number`
 * measures it does not list (on the embedded store only, where the number measure is computed
 * from them; see `numberLeaves`).
 */
export function storedMeasures(model: CompiledModel, preAggregation: PreAggregation, source: SourceDialect) {
  const stored = [...preAggregation.measures];
  if (source !== 'sqlite') return stored;
  for (const member of preAggregation.measures) {
    for (const leaf of numberLeaves(model, member) ?? []) if (!stored.includes(leaf)) stored.push(leaf);
  }
  return stored;
}

/**
 * What a rollup's partitions are fingerprinted by (`definitionOf`): its definition and, when it
 * stores more measures than it lists, those, so a partition stored without them never serves;
 * likewise, when it has a string dimension, that those are stored as read (`value` columns), so a
 * partition that stored them as text (before 4 December 2026) never serves but is built again.
 */
export function storedDefinitionOf(
  model: CompiledModel,
  preAggregation: PreAggregation,
  source: SourceDialect,
): PreAggregation & { storedMeasures?: string[]; stringsAsRead?: true } {
  const stored = storedMeasures(model, preAggregation, source);
  const strings = preAggregation.dimensions.some((member) => {
    const found = cubeMemberOf(model, member);
    return found?.kind === 'dimension' && found.dimension.type === 'string';
  });
  return {
    ...preAggregation,
    ...(stored.length !== preAggregation.measures.length && { storedMeasures: stored }),
    ...(strings && { stringsAsRead: true as const }),
  };
}

export interface LayoutDimension {
  member: string;
  column: string;
  type: DimensionType;
}

export interface LayoutMeasure {
  member: string;
  column: string;
  /** PostgreSQL sums, mins and maxes: the numeric scale of the value, so answers keep PostgreSQL's digits. */
  scaleColumn?: string;
  type: MeasureType;
}

/**
 * The columns of a rollup's tables, the same at build time and at query time: `d<i>` per
 * dimension, `t` for the time dimension's bucket (local wall-clock text at the rollup's
 * granularity), `m<i>` per stored measure (see `storedMeasures`; and `m<i>_scale` where the source is PostgreSQL and the
 * measure re-aggregates). Names are positional, so no member name ever reaches the store's SQL.
 *
 * Values keep the source's text where SQLite could not reproduce it: PostgreSQL's numbers are
 * stored as text (`10.50` stays `10.50`; a numeric's scale restores its digits after a sum), the
 * embedded store's as they are.
 */
export interface RollupLayout {
  preAggregation: PreAggregation;
  source: SourceDialect;
  dimensions: LayoutDimension[];
  time?: { member: string; column: 't'; granularity: Granularity };
  measures: LayoutMeasure[];
  columns: RollupColumn[];
}

export function rollupLayoutOf(
  model: CompiledModel,
  preAggregation: PreAggregation,
  source: SourceDialect,
): RollupLayout {
  const columns: RollupColumn[] = [];
  const dimensions = preAggregation.dimensions.map((member, index): LayoutDimension => {
    const found = cubeMemberOf(model, member);
    if (found?.kind !== 'dimension') throw new QueryError(`Unknown dimension: ${member}`);
    const type = found.dimension.type;
    const column = `d${index}`;
    columns.push({ name: column, type: dimensionColumnType(type, source) });
    return { member, column, type };
  });
  const layout: RollupLayout = { preAggregation, source, dimensions, measures: [], columns };
  if (preAggregation.timeDimension && preAggregation.granularity) {
    layout.time = {
      member: preAggregation.timeDimension,
      column: 't',
      granularity: preAggregation.granularity,
    };
    columns.push({ name: 't', type: 'text' });
  }
  layout.measures = storedMeasures(model, preAggregation, source).map((member, index): LayoutMeasure => {
    const found = cubeMemberOf(model, member);
    if (found?.kind !== 'measure') throw new QueryError(`Unknown measure: ${member}`);
    const type = found.measure.type;
    const column = `m${index}`;
    const counted = isCount(type);
    columns.push({ name: column, type: counted ? 'integer' : source === 'postgres' ? 'text' : 'real' });
    const measure: LayoutMeasure = { member, column, type };
    if (source === 'postgres' && ADDITIVE_MEASURES.has(type) && !counted) {
      measure.scaleColumn = `${column}_scale`;
      columns.push({ name: measure.scaleColumn, type: 'integer' });
    }
    return measure;
  });
  return layout;
}

function dimensionColumnType(type: DimensionType, source: SourceDialect): RollupColumn['type'] {
  switch (type) {
    case 'number':
      // PostgreSQL's numeric text (`10.50`) has digits a REAL would lose.
      return source === 'postgres' ? 'text' : 'real';
    case 'boolean':
      return 'integer';
    case 'string':
      // As read: a TEXT column would turn a number into its text (20.0 into `20.0`, which the
      // answer prints `20`) and order it as text (`10` before `9`), and its equality would no
      // longer be the source's (see Dialect.textForms).
      return 'value';
    default:
      // Time dimensions are local wall-clock text in the partition's zone.
      return 'text';
  }
}
