import {
  type CompiledModel,
  type Granularity,
  type MeasureType,
  measureValueType,
} from '../model/model.types';
import { instantOfText, toIso } from './date-range';
import { findMember } from './members';
import type { CompiledQuery } from './plan';
import type { Annotation, NormalizedQuery, QueryMember } from './query.types';

/**
 * Database rows as Cube's `data`: keyed by member name; a time dimension with a granularity
 * twice (`Orders.createdAt.day` and `Orders.createdAt`); numbers (measures and number
 * dimensions) as text, as Cube answers them from PostgreSQL; booleans as booleans.
 */
export function shapeRows(
  compiled: Pick<CompiledQuery, 'columns'>,
  rows: Record<string, unknown>[],
): Record<string, unknown>[] {
  return rows.map((row) => {
    const shaped: Record<string, unknown> = {};
    for (const column of compiled.columns) {
      const type = column.kind === 'measure' ? measureValueType(column.type as MeasureType) : column.type;
      const value = cubeValue(row[column.alias], type, column.kind === 'measure');
      if (column.kind === 'timeDimension') shaped[`${column.member}.${column.granularity}`] = value;
      shaped[column.member] = value;
    }
    return shaped;
  });
}

function cubeValue(value: unknown, type: string, measure: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (typeof value === 'number' || typeof value === 'bigint') return Number(value) !== 0;
    return value === 'true' || value === 't' || value === '1';
  }
  if (value instanceof Date) return value.toISOString().replace('Z', '');
  const text = typeof value === 'string' ? value : String(value);
  return measure && type === 'time' ? timestampText(text) : text;
}

/**
 * A `time` measure's value as Cube's PostgreSQL driver writes a timestamp: the UTC instant as
 * `YYYY-MM-DDTHH:MM:SS.mmm` (a stored text without an offset is UTC). Text that is no ISO
 * instant is answered as it is.
 */
function timestampText(text: string): string {
  const ms = instantOfText(text);
  return ms === undefined ? text : toIso(ms).slice(0, 23);
}

const INTERVALS: Record<Granularity, string> = {
  second: '1 second',
  minute: '1 minute',
  hour: '1 hour',
  day: '1 day',
  week: '1 week',
  month: '1 month',
  quarter: '3 months',
  year: '1 year',
};

/** Cube's `annotation`: title, short title and type of every member the query names. */
export function annotationOf(model: CompiledModel, query: NormalizedQuery): Annotation {
  const annotation: Annotation = { measures: {}, dimensions: {}, segments: {}, timeDimensions: {} };
  for (const member of query.measures) {
    const titles = titlesOf(model, member);
    annotation.measures[member.name] = { ...titles, type: typeOf(model, member), ...formatOf(model, member) };
  }
  for (const member of query.dimensions) {
    annotation.dimensions[member.name] = {
      ...titlesOf(model, member),
      type: typeOf(model, member),
      ...formatOf(model, member),
    };
  }
  for (const member of query.segments) annotation.segments[member.name] = titlesOf(model, member);
  for (const member of query.timeDimensions) {
    if (!member.granularity) continue;
    const titles = titlesOf(model, member);
    const granularity = {
      name: member.granularity,
      title: member.granularity,
      interval: INTERVALS[member.granularity],
    };
    annotation.timeDimensions[`${member.name}.${member.granularity}`] = {
      ...titles,
      type: 'time',
      granularity,
    };
    annotation.timeDimensions[member.name] = { ...titles, type: 'time' };
  }
  return annotation;
}

/** `title` is the cube's (or view's) title then the member's; `shortTitle` the member's. */
function titlesOf(model: CompiledModel, member: QueryMember): { title: string; shortTitle: string } {
  const found = findMember(model, member.name);
  if (found.viewTitle !== undefined && found.viewMemberTitle !== undefined) {
    return { title: `${found.viewTitle} ${found.viewMemberTitle}`, shortTitle: found.viewMemberTitle };
  }
  const meta = metaOf(found.target);
  return { title: `${found.target.cube.title} ${meta.title}`, shortTitle: meta.title };
}

function metaOf(target: ReturnType<typeof findMember>['target']) {
  return target.kind === 'measure'
    ? target.measure
    : target.kind === 'dimension'
      ? target.dimension
      : target.segment;
}

function typeOf(model: CompiledModel, member: QueryMember): string {
  const target = findMember(model, member.name).target;
  if (target.kind === 'dimension') return target.dimension.type;
  return target.kind === 'measure' ? measureValueType(target.measure.type) : 'number';
}

function formatOf(model: CompiledModel, member: QueryMember): { format?: string } {
  const format = metaOf(findMember(model, member.name).target).format;
  return format === undefined ? {} : { format };
}
