import {
  type CompiledModel,
  type Cube,
  type Dimension,
  type Measure,
  type MeasureType,
  measureValueType,
  type Segment,
  type View,
} from './model.types';
import type { PreAggregation } from './pre-aggregations.types';

/** Cube's `/cubejs-api/v1/meta` answer. */
export interface CubeMetaResponse {
  cubes: CubeMeta[];
}

export interface CubeMeta {
  name: string;
  title: string;
  description?: string;
  type: 'cube' | 'view';
  public: boolean;
  isVisible: boolean;
  meta?: Record<string, unknown>;
  measures: MeasureMeta[];
  dimensions: DimensionMeta[];
  segments: SegmentMeta[];
  /** Cube's extended `/meta` (`?extended`) only: the cube's pre-aggregations. */
  preAggregations?: PreAggregationMeta[];
}

/**
 * A pre-aggregation as Cube's extended `/meta` lists it (its definition, Cube's camelCase keys,
 * references as the text of their lists): `type` is `rollup` or `originalSql`.
 */
export interface PreAggregationMeta {
  name: string;
  type: 'rollup' | 'originalSql';
  measureReferences?: string;
  dimensionReferences?: string;
  segmentReferences?: string;
  timeDimensionReference?: string;
  granularity?: string;
  partitionGranularity?: string;
  refreshKey: { every?: string; sql?: string; incremental: boolean; updateWindow?: string };
  scheduledRefresh: boolean;
  allowNonStrictDateRangeMatch: boolean;
  external: true;
}

interface MemberMetaCommon {
  name: string;
  title: string;
  shortTitle: string;
  description?: string;
  isVisible: boolean;
  public: boolean;
}

export interface MeasureMeta extends MemberMetaCommon {
  /** `number` for every aggregating and `number` measure; `string`, `time`, `boolean` as declared. */
  type: 'number' | 'string' | 'time' | 'boolean';
  aggType: string;
  cumulative: false;
  cumulativeTotal: false;
  drillMembers: string[];
  drillMembersGrouped: { measures: string[]; dimensions: string[] };
  format?: string;
  meta?: Record<string, unknown>;
}

export interface DimensionMeta extends MemberMetaCommon {
  type: string;
  suggestFilterValues: true;
  primaryKey: boolean;
  format?: string;
  meta?: Record<string, unknown>;
}

export type SegmentMeta = MemberMetaCommon;

/** Cube names aggregation types in camelCase in `/meta`. */
const AGG_TYPES: Record<MeasureType, string> = {
  count: 'count',
  count_distinct: 'countDistinct',
  count_distinct_approx: 'countDistinctApprox',
  sum: 'sum',
  avg: 'avg',
  min: 'min',
  max: 'max',
  number: 'number',
  string: 'string',
  time: 'time',
  boolean: 'boolean',
};

/**
 * The model as Cube's `/meta` describes it: public cubes and views with their public members.
 * `visible` narrows it further for one caller (member-level access policies); a member it
 * answers false for is left out.
 */
export function metaOf(
  model: CompiledModel,
  visible: (memberName: string) => boolean = () => true,
  options: { extended?: boolean } = {},
): CubeMetaResponse {
  const cubes: CubeMeta[] = [];
  for (const cube of Object.values(model.cubes)) {
    if (!cube.public) continue;
    const meta = cubeMeta(cube, visible);
    // As Cube's: a cube without pre-aggregations has no such field.
    if (options.extended && cube.preAggregations?.length)
      meta.preAggregations = cube.preAggregations.map((pre) => preAggregationMeta(pre, visible));
    cubes.push(meta);
  }
  for (const view of Object.values(model.views)) {
    if (view.public) cubes.push(viewMeta(view, model, visible));
  }
  return { cubes };
}

function cubeMeta(cube: Cube, visible: (memberName: string) => boolean): CubeMeta {
  const shown = <T extends { name: string; public: boolean }>(members: Record<string, T>) =>
    Object.values(members).filter((member) => member.public && visible(member.name));
  return {
    ...header(cube, 'cube'),
    measures: shown(cube.measures).map((measure) =>
      measureMeta(measure.name, cube.title, measure.title, measure),
    ),
    dimensions: shown(cube.dimensions).map((dimension) =>
      dimensionMeta(dimension.name, cube.title, dimension.title, dimension),
    ),
    segments: shown(cube.segments).map((segment) =>
      segmentMeta(segment.name, cube.title, segment.title, segment),
    ),
  };
}

/**
 * A pre-aggregation for Cube's extended `/meta`. Its references are listed as written in a list
 * (`[orders.count, orders.total_amount]`), less the members the caller may not see; an
 * original_sql pre-aggregation lists none (its definition names none). Always `external`: every
 * pre-aggregation lives in the deployment's store, not in the data source.
 */
function preAggregationMeta(
  pre: PreAggregation,
  visible: (memberName: string) => boolean,
): PreAggregationMeta {
  const list = (members: string[]) => `[${members.filter(visible).join(', ')}]`;
  const rollup = pre.type === 'rollup';
  const { every, sql, incremental, updateWindow } = pre.refreshKey;
  return {
    name: pre.name,
    type: rollup ? 'rollup' : 'originalSql',
    ...(rollup && {
      measureReferences: list(pre.measures),
      dimensionReferences: list(pre.dimensions),
      segmentReferences: list(pre.segments),
    }),
    ...(pre.timeDimension && visible(pre.timeDimension) && { timeDimensionReference: pre.timeDimension }),
    ...(rollup && pre.granularity && { granularity: pre.granularity }),
    ...(pre.partitionGranularity && { partitionGranularity: pre.partitionGranularity }),
    refreshKey: {
      ...(every !== undefined && { every: intervalText(every) }),
      ...(sql !== undefined && { sql }),
      incremental,
      ...(updateWindow !== undefined && { updateWindow: intervalText(updateWindow) }),
    },
    scheduledRefresh: pre.scheduledRefresh,
    allowNonStrictDateRangeMatch: pre.allowNonStrictDateRangeMatch,
    external: true,
  };
}

/** Seconds as Cube writes an interval: `1 hour`, `7 days`, `90 seconds`. */
function intervalText(seconds: number): string {
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ] as const) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

function viewMeta(view: View, model: CompiledModel, visible: (memberName: string) => boolean): CubeMeta {
  const meta: CubeMeta = { ...header(view, 'view'), measures: [], dimensions: [], segments: [] };
  for (const member of Object.values(view.members)) {
    if (!visible(member.name)) continue;
    const [cubeName = '', memberName = ''] = member.target.split('.');
    const cube = model.cubes[cubeName];
    const described = { description: member.description };
    if (member.kind === 'measure') {
      const measure = cube?.measures[memberName];
      if (measure)
        meta.measures.push(measureMeta(member.name, view.title, member.title, { ...measure, ...described }));
    } else if (member.kind === 'dimension') {
      const dimension = cube?.dimensions[memberName];
      if (dimension) {
        meta.dimensions.push(
          dimensionMeta(member.name, view.title, member.title, { ...dimension, ...described }),
        );
      }
    } else {
      meta.segments.push(segmentMeta(member.name, view.title, member.title, described));
    }
  }
  return meta;
}

function header(definition: Cube | View, type: 'cube' | 'view') {
  return {
    name: definition.name,
    title: definition.title,
    ...(definition.description === undefined ? {} : { description: definition.description }),
    type,
    public: true,
    isVisible: true,
    ...(definition.meta === undefined ? {} : { meta: definition.meta }),
  };
}

function common(
  name: string,
  ownerTitle: string,
  title: string,
  from: { description?: string },
): MemberMetaCommon {
  return {
    name,
    title: `${ownerTitle} ${title}`,
    shortTitle: title,
    ...(from.description === undefined ? {} : { description: from.description }),
    isVisible: true,
    public: true,
  };
}

function measureMeta(name: string, ownerTitle: string, title: string, measure: Measure): MeasureMeta {
  return {
    ...common(name, ownerTitle, title, measure),
    type: measureValueType(measure.type),
    aggType: AGG_TYPES[measure.type],
    cumulative: false,
    cumulativeTotal: false,
    drillMembers: [],
    drillMembersGrouped: { measures: [], dimensions: [] },
    ...(measure.format === undefined ? {} : { format: measure.format }),
    ...(measure.meta === undefined ? {} : { meta: measure.meta }),
  };
}

function dimensionMeta(name: string, ownerTitle: string, title: string, dimension: Dimension): DimensionMeta {
  return {
    ...common(name, ownerTitle, title, dimension),
    type: dimension.type,
    suggestFilterValues: true,
    primaryKey: dimension.primaryKey,
    ...(dimension.format === undefined ? {} : { format: dimension.format }),
    ...(dimension.meta === undefined ? {} : { meta: dimension.meta }),
  };
}

function segmentMeta(
  name: string,
  ownerTitle: string,
  title: string,
  segment: Pick<Segment, 'description'>,
): SegmentMeta {
  return common(name, ownerTitle, title, segment);
}
