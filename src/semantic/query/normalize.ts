import { isDecimalText } from '../../core/text';
import { isKnownTimeZone } from '../../core/time-zone';
import { type CompiledModel, GRANULARITIES, type Granularity, measureValueType } from '../model/model.types';
import { boundOf, resolveDateRange } from './date-range';
import { type FoundMember, findMember } from './members';
import {
  type CubeFilter,
  type CubeQuery,
  type CubeTimeDimension,
  DATE_FILTER_OPERATORS,
  DEFAULT_LIMIT,
  FILTER_OPERATORS,
  type FilterOperator,
  MAX_LIMIT,
  type NormalizedFilter,
  type NormalizedQuery,
  type NormalizedTimeDimension,
  type QueryMember,
} from './query.types';
import { QueryError } from './query-error';

const DATE_OPERATORS = new Set<FilterOperator>(DATE_FILTER_OPERATORS);

/**
 * Checks a Cube query against the model and makes it explicit: members resolved (view members
 * to the cube members behind them), filter values in canonical form, date ranges as UTC
 * instants in the query's time zone (relative ones against `now`), limit, offset and order set.
 * Anything unknown or ill-formed is a `QueryError` naming it: nothing is silently dropped.
 */
export function normalizeQuery(
  model: CompiledModel,
  query: CubeQuery,
  options: { now: Date },
): NormalizedQuery {
  const timezone = query.timezone ?? 'UTC';
  if (typeof timezone !== 'string' || !isKnownTimeZone(timezone)) {
    throw new QueryError(`Unknown time zone: ${String(timezone)}`);
  }
  const hints = new Map<string, string[]>();
  const use = (found: FoundMember): QueryMember => {
    if (found.joinPath && found.joinPath.length > 0) hints.set(found.joinPath.join('\u0000'), found.joinPath);
    return { name: found.name, target: found.target.name };
  };

  const measures = listOf(query.measures, 'measures').map((name) => {
    const found = findMember(model, name);
    if (found.target.kind !== 'measure') throw new QueryError(`Not a measure: ${found.name}`);
    return use(found);
  });
  const asked = listOf(query.dimensions, 'dimensions');
  const shorthand = timeDimensionShorthand(asked);
  const dimensions = asked
    .filter((name) => !grainedName(name))
    .map((name) => {
      const found = findMember(model, name);
      if (found.target.kind !== 'dimension') throw new QueryError(`Not a dimension: ${found.name}`);
      return use(found);
    });
  const segments = listOf(query.segments, 'segments').map((name) => {
    const found = findMember(model, name);
    if (found.target.kind !== 'segment') throw new QueryError(`Not a segment: ${found.name}`);
    return use(found);
  });
  const timeDimensions = [...listOf(query.timeDimensions, 'timeDimensions'), ...shorthand].map(
    (entry): NormalizedTimeDimension => {
      const found = findMember(model, entry?.dimension);
      if (found.target.kind !== 'dimension' || found.target.dimension.type !== 'time') {
        throw new QueryError(`Not a time dimension: ${found.name}`);
      }
      // The Cube REST API expands it into one query per range before a query gets here.
      if (entry.compareDateRange != null) {
        throw new QueryError('compareDateRange is answered only by the Cube REST API, in a single query');
      }
      const timeDimension: NormalizedTimeDimension = use(found);
      if (entry.granularity !== undefined) timeDimension.granularity = granularityOf(entry.granularity);
      if (entry.dateRange !== undefined) {
        timeDimension.dateRange = resolveDateRange(dateRangeOf(entry.dateRange), timezone, options.now);
      }
      return timeDimension;
    },
  );
  const filters = listOf(query.filters, 'filters').map((filter) =>
    normalizeFilter(model, filter, timezone, options.now, use),
  );

  // Cube's own rule (checked after the members, whose errors say more): without these a query
  // has no column to answer with.
  if (measures.length === 0 && dimensions.length === 0 && !timeDimensions.some((t) => t.granularity)) {
    throw new QueryError(
      'Query should contain either measures, dimensions or timeDimensions with granularities in order to be valid',
    );
  }
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 0) throw new QueryError(`Invalid limit: ${String(limit)}`);
  if (limit > MAX_LIMIT) throw new QueryError(`Limit ${limit} is above the maximum of ${MAX_LIMIT}`);
  const offset = query.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new QueryError(
      `Invalid offset: ${String(offset)} (a whole number from 0 to ${Number.MAX_SAFE_INTEGER})`,
    );
  }

  const normalized: NormalizedQuery = {
    measures,
    dimensions,
    segments,
    timeDimensions,
    filters,
    order: [],
    limit,
    offset,
    total: query.total === true,
    timezone,
    ungrouped: query.ungrouped === true,
    joinHints: [...hints.values()],
  };
  normalized.order = orderOf(query.order, normalized);
  return normalized;
}

/** `cube.member.granularity`, split, or null for any other name. */
function grainedName(name: unknown): string[] | null {
  const parts = typeof name === 'string' ? name.split('.') : [];
  return parts.length === 3 && GRANULARITIES.some((granularity) => granularity === parts[2]) ? parts : null;
}

/**
 * Cube's shorthand: `orders.created_at.day` among a query's dimensions is that time dimension by
 * day. The time dimensions the dimensions name so, in their order.
 */
export function timeDimensionShorthand(dimensions: readonly unknown[] | undefined): CubeTimeDimension[] {
  return (Array.isArray(dimensions) ? dimensions : []).flatMap((name): CubeTimeDimension[] => {
    const parts = grainedName(name);
    return parts ? [{ dimension: `${parts[0]}.${parts[1]}`, granularity: parts[2] as Granularity }] : [];
  });
}

function listOf<T>(value: T[] | undefined, field: string): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new QueryError(`${field} must be an array`);
  return value;
}

function granularityOf(value: unknown): Granularity {
  const known = GRANULARITIES.find((granularity) => granularity === value);
  if (!known) throw new QueryError(`Unknown granularity: ${String(value)}`);
  return known;
}

function dateRangeOf(value: unknown): string | [string, string] {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length === 2) {
    const [from, to] = value;
    if (typeof from === 'string' && typeof to === 'string') return [from, to];
  }
  throw new QueryError(`Can't parse date range: ${JSON.stringify(value)}`);
}

function normalizeFilter(
  model: CompiledModel,
  filter: CubeFilter,
  zone: string,
  now: Date,
  use: (found: FoundMember) => QueryMember,
): NormalizedFilter {
  if (filter === null || typeof filter !== 'object') throw new QueryError('Invalid filter');
  if ('and' in filter || 'or' in filter) {
    const branch = 'and' in filter ? filter.and : (filter as { or: CubeFilter[] }).or;
    const children = listOf(branch, 'and' in filter ? 'and' : 'or').map((child) =>
      normalizeFilter(model, child, zone, now, use),
    );
    return 'and' in filter ? { and: children } : { or: children };
  }
  const memberName = filter.member ?? filter.dimension;
  if (memberName === undefined) throw new QueryError('A filter needs a member');
  const operator = FILTER_OPERATORS.find((known) => known === filter.operator);
  if (!operator) throw new QueryError(`Unknown operator: ${String(filter.operator)}`);
  const found = findMember(model, memberName);
  if (found.target.kind === 'segment') throw new QueryError(`A segment cannot be filtered: ${found.name}`);
  const type =
    found.target.kind === 'measure'
      ? measureValueType(found.target.measure.type)
      : found.target.dimension.type;
  const raw = listOf(filter.values, 'values');
  checkValueCount(operator, raw.length);
  const member = use(found);

  if (DATE_OPERATORS.has(operator)) {
    if (type !== 'time') throw new QueryError(`Operator ${operator} needs a time dimension: ${found.name}`);
    const texts = raw.map((value) => {
      if (typeof value !== 'string') throw new QueryError(`Can't parse date: ${JSON.stringify(value)}`);
      return value;
    });
    if (operator === 'inDateRange' || operator === 'notInDateRange') {
      const range = resolveDateRange([texts[0] ?? '', texts[1] ?? ''], zone, now);
      return { member, operator, values: range };
    }
    // Cube compares all four with the first instant the value stands for (a date: its local
    // midnight), `afterDate` strictly and `beforeOrOnDate` inclusively: never with the day's end.
    return { member, operator, values: [boundOf(texts[0] ?? '', zone, 'start')] };
  }

  const values = raw.map((value): string | null => {
    if (value === null) {
      if (operator === 'equals' || operator === 'notEquals') return null;
      throw new QueryError(`Operator ${operator} takes no null value`);
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new QueryError(`Invalid filter value for ${found.name}: ${JSON.stringify(value)}`);
    }
    const text = String(value);
    const likeOperator = /contains|startsWith|endsWith/i.test(operator);
    if (likeOperator) return text;
    if (type === 'number') {
      if (!isDecimalText(text)) throw new QueryError(`Invalid number for ${found.name}: ${text}`);
      return String(Number(text));
    }
    if (type === 'boolean') {
      if (text === 'true' || text === '1') return 'true';
      if (text === 'false' || text === '0') return 'false';
      throw new QueryError(`Invalid boolean for ${found.name}: ${text}`);
    }
    if (type === 'time') return boundOf(text, zone, 'start');
    return text;
  });
  return { member, operator, values };
}

function checkValueCount(operator: FilterOperator, count: number): void {
  const expected =
    operator === 'set' || operator === 'notSet'
      ? [0, 0]
      : operator === 'inDateRange' || operator === 'notInDateRange'
        ? [2, 2]
        : ['gt', 'gte', 'lt', 'lte', 'beforeDate', 'beforeOrOnDate', 'afterDate', 'afterOrOnDate'].includes(
              operator,
            )
          ? [1, 1]
          : [1, Number.POSITIVE_INFINITY];
  const [least, most] = expected as [number, number];
  if (count < least || count > most) {
    const wanted = least === most ? `${least}` : `at least ${least}`;
    throw new QueryError(
      `Operator ${operator} takes ${wanted} value${least === 1 && most === 1 ? '' : 's'}, got ${count}`,
    );
  }
}

function orderOf(order: CubeQuery['order'], query: NormalizedQuery): NormalizedQuery['order'] {
  const names = new Set([
    ...query.measures.map((member) => member.name),
    ...query.dimensions.map((member) => member.name),
    ...query.timeDimensions.filter((member) => member.granularity).map((member) => member.name),
  ]);
  if (order === undefined) {
    const time = query.timeDimensions.find((member) => member.granularity);
    if (time) return [{ member: time.name, desc: false }];
    if (query.measures[0]) return [{ member: query.measures[0].name, desc: true }];
    if (query.dimensions[0]) return [{ member: query.dimensions[0].name, desc: false }];
    return [];
  }
  // A time dimension may also be named with its granularity, as Cube reads it.
  const grained = new Map<string, NormalizedTimeDimension>();
  for (const member of query.timeDimensions) {
    if (member.granularity) grained.set(`${member.name}.${member.granularity}`, member);
  }
  const pairs = Array.isArray(order) ? order : Object.entries(order ?? {});
  return pairs.map((pair) => {
    const [member, direction] = Array.isArray(pair) ? pair : [undefined, undefined];
    const byGranularity = typeof member === 'string' ? grained.get(member) : undefined;
    if (typeof member !== 'string' || !(names.has(member) || byGranularity)) {
      throw new QueryError(`Order member is not in the query: ${String(member)}`);
    }
    if (direction !== 'asc' && direction !== 'desc') {
      throw new QueryError(`Unknown order direction for ${member}: ${String(direction)}`);
    }
    const desc = direction === 'desc';
    if (byGranularity && !names.has(member)) {
      return { member: byGranularity.name, desc, granularity: byGranularity.granularity };
    }
    return { member, desc };
  });
}
