import type { CompiledModel, DimensionType, Granularity, MeasureType } from '../../model/model.types';
import type { PreAggregation, RollupColumn } from '../../model/pre-aggregations.types';
import { cubeMemberOf } from '../members';
import { QueryError } from '../query-error';

/** Where a rollup's rows come from: their values are stored in the form that source yields them. */
export type SourceDialect = 'postgres' | 'sqlite';

/** Measures whose partial values re-aggregate exactly: a sum of sums, of counts, a min of mins. */
export const ADDITIVE_MEASURES: ReadonlySet<MeasureType> = new Set(['count', 'sum', 'min', 'max']);

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
 * granularity), `m<i>` per measure (and `m<i>_scale` where the source is PostgreSQL and the
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
  layout.measures = preAggregation.measures.map((member, index): LayoutMeasure => {
    const found = cubeMemberOf(model, member);
    if (found?.kind !== 'measure') throw new QueryError(`Unknown measure: ${member}`);
    const type = found.measure.type;
    const column = `m${index}`;
    const counted = type === 'count' || type === 'count_distinct';
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
    default:
      // Time dimensions are local wall-clock text in the partition's zone.
      return 'text';
  }
}
