import type { CompiledModel, Cube, Dimension, Measure, MeasureType, Segment, View } from './model.types';

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
  /** Every measure this model knows is numeric, and Cube reports those as `number`. */
  type: 'number';
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
  sum: 'sum',
  avg: 'avg',
  min: 'min',
  max: 'max',
  number: 'number',
};

/**
 * The model as Cube's `/meta` describes it: public cubes and views with their public members.
 * `visible` narrows it further for one caller (member-level access policies); a member it
 * answers false for is left out.
 */
export function metaOf(
  model: CompiledModel,
  visible: (memberName: string) => boolean = () => true,
): CubeMetaResponse {
  const cubes: CubeMeta[] = [];
  for (const cube of Object.values(model.cubes)) {
    if (cube.public) cubes.push(cubeMeta(cube, visible));
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
    type: 'number',
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
