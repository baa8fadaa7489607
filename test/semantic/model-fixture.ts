import type {
  CompiledModel,
  Cube,
  Dimension,
  DimensionType,
  Join,
  Measure,
  MeasureType,
  Relationship,
  Segment,
  View,
  ViewMember,
} from '../../src/semantic/model/model.types';

/** Builds `CompiledModel` objects by hand, as the model compiler would, for the query tests. */

const position = { file: 'test.yml', line: 1, column: 1 };

function titleOf(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export interface CubeSpec {
  sqlTable?: string;
  sql?: string;
  public?: boolean;
  dimensions?: Record<
    string,
    {
      sql: string;
      type: DimensionType;
      primaryKey?: boolean;
      public?: boolean;
      title?: string;
      format?: string;
    }
  >;
  measures?: Record<
    string,
    { type: MeasureType; sql?: string; filters?: string[]; public?: boolean; title?: string }
  >;
  segments?: Record<string, string>;
  joins?: Record<string, { relationship: Relationship; sql: string }>;
}

export function cube(name: string, spec: CubeSpec): Cube {
  const meta = (member: string, title?: string, isPublic?: boolean) => ({
    name: `${name}.${member}`,
    shortName: member,
    title: title ?? titleOf(member),
    public: isPublic ?? true,
    position,
  });
  const dimensions: Record<string, Dimension> = {};
  for (const [member, dimension] of Object.entries(spec.dimensions ?? {})) {
    dimensions[member] = {
      ...meta(member, dimension.title, dimension.public),
      type: dimension.type,
      sql: dimension.sql,
      primaryKey: dimension.primaryKey ?? false,
      ...(dimension.format ? { format: dimension.format } : {}),
    };
  }
  const measures: Record<string, Measure> = {};
  for (const [member, measure] of Object.entries(spec.measures ?? {})) {
    measures[member] = {
      ...meta(member, measure.title, measure.public),
      type: measure.type,
      ...(measure.sql !== undefined ? { sql: measure.sql } : {}),
      filters: (measure.filters ?? []).map((sql) => ({ sql })),
    };
  }
  const segments: Record<string, Segment> = {};
  for (const [member, sql] of Object.entries(spec.segments ?? {}))
    segments[member] = { ...meta(member), sql };
  const joins: Record<string, Join> = {};
  for (const [other, join] of Object.entries(spec.joins ?? {}))
    joins[other] = { cube: other, ...join, position };
  return {
    name,
    title: titleOf(name),
    ...(spec.sqlTable !== undefined ? { sqlTable: spec.sqlTable } : {}),
    ...(spec.sql !== undefined ? { sql: spec.sql } : {}),
    public: spec.public ?? true,
    measures,
    dimensions,
    segments,
    joins,
    accessPolicies: [],
    position,
  };
}

export function view(
  name: string,
  members: Record<string, { target: string; joinPath: string[]; kind: ViewMember['kind'] }>,
): View {
  const built: Record<string, ViewMember> = {};
  for (const [member, spec] of Object.entries(members)) {
    built[member] = { name: `${name}.${member}`, title: titleOf(member), ...spec };
  }
  return { name, title: titleOf(name), public: true, members: built, accessPolicies: [], position };
}

export function model(cubes: Cube[], views: View[] = []): CompiledModel {
  return {
    cubes: Object.fromEntries(cubes.map((entry) => [entry.name, entry])),
    views: Object.fromEntries(views.map((entry) => [entry.name, entry])),
  };
}
