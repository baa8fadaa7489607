import type { Node } from 'yaml';
import { parseDuration } from './durations';
import {
  COMPUTED_MEASURE_TYPES,
  type Cube,
  DIMENSION_TYPES,
  type Dimension,
  type Join,
  MEASURE_TYPES,
  type Measure,
  type MemberMeta,
  RELATIONSHIPS,
  type Relationship,
  type Segment,
} from './model.types';
import { readName, readPublic, titleFromName } from './names';
import { readPolicies } from './policies';
import { type PreAggregationDraft, readPreAggregations } from './pre-aggregations';
import type { Fields, YamlFile } from './yaml-reader';

/**
 * What a piece of SQL is for, which decides what it may reference: a cube's own `sql` nothing; a
 * dimension, segment, measure filter or join dimensions; an aggregating measure dimensions; a
 * `number` measure other measures.
 */
export type SqlUse = 'cube' | 'dimension' | 'segment' | 'filter' | 'measure' | 'computed' | 'join';

/** One SQL fragment of a cube, kept with its node so reference errors point into it. */
export interface SqlSite {
  sql: string;
  file: YamlFile;
  node: Node;
  use: SqlUse;
  cube: string;
  /** The member whose SQL this is (`Cube.member`), for the reference graph. */
  member?: string;
  /** For a join's ON condition: the cube joined to. */
  joinTarget?: string;
  /** How messages name the owner, e.g. `measure "orders.total"`. */
  owner: string;
}

/** A cube as read from its file, before the checks that need every cube. */
export interface CubeDraft {
  cube: Cube;
  file: YamlFile;
  sqlSites: SqlSite[];
  /** Every member name the cube declares, those too broken to compile included. */
  declared: Set<string>;
  /** Its `pre_aggregations`, member references resolved once every cube is read. */
  preAggregations: PreAggregationDraft[];
}

const CUBE_KEYS = {
  allowed: [
    'name',
    'sql_table',
    'sql',
    'title',
    'description',
    'public',
    'shown',
    'meta',
    'refresh_key',
    'joins',
    'measures',
    'dimensions',
    'segments',
    'access_policy',
    'pre_aggregations',
  ],
  unsupported: [
    'extends',
    'data_source',
    'sql_alias',
    'rewrite_queries',
    'hierarchies',
    'calendar',
    'folders',
  ],
};
const MEMBER_COMMON = ['name', 'sql', 'title', 'description', 'public', 'shown', 'meta'];
const MEASURE_KEYS = {
  allowed: [...MEMBER_COMMON, 'type', 'filters', 'format'],
  unsupported: [
    'rolling_window',
    'multi_stage',
    'time_shift',
    'drill_members',
    'cumulative',
    'reduce_by',
    'group_by',
    'add_group_by',
    'order_by',
    'case',
  ],
};
const DIMENSION_KEYS = {
  allowed: [...MEMBER_COMMON, 'type', 'primary_key', 'format', 'case'],
  unsupported: [
    'sub_query',
    'propagate_filters_to_sub_query',
    'granularities',
    'multi_stage',
    'time_shift',
    'add_group_by',
    'key',
    'order',
  ],
};
const SEGMENT_KEYS = { allowed: MEMBER_COMMON };
const CASE_KEYS = { allowed: ['when', 'else'] };
const WHEN_KEYS = { allowed: ['sql', 'label'] };
const ELSE_KEYS = { allowed: ['label'] };
const JOIN_KEYS = { allowed: ['name', 'sql', 'relationship'] };
const FILTER_KEYS = { allowed: ['sql'] };
const REFRESH_KEY_KEYS = {
  allowed: ['every', 'sql'],
  unsupported: ['timezone', 'immutable', 'incremental', 'update_window'],
};

/** Cube's relationship names, old and new, to the three this model knows. */
const RELATIONSHIP_ALIASES: Record<string, Relationship> = {
  many_to_one: 'many_to_one',
  one_to_many: 'one_to_many',
  one_to_one: 'one_to_one',
  belongs_to: 'many_to_one',
  belongsTo: 'many_to_one',
  has_many: 'one_to_many',
  hasMany: 'one_to_many',
  has_one: 'one_to_one',
  hasOne: 'one_to_one',
};

/** Reads one entry of a file's `cubes:` list; null when it is too broken to name. */
export function readCube(file: YamlFile, node: Node): CubeDraft | null {
  const fields = file.mapping(node, labelOf(file, node, 'cube'), CUBE_KEYS);
  if (!fields) return null;
  const name = readName(fields);
  if (name === undefined) return null;
  const draft: CubeDraft = {
    file,
    sqlSites: [],
    declared: new Set(),
    preAggregations: [],
    cube: {
      name,
      title: fields.string('title') ?? titleFromName(name),
      public: readPublic(fields),
      measures: {},
      dimensions: {},
      segments: {},
      joins: {},
      accessPolicies: [],
      position: fields.position,
    },
  };
  const { cube } = draft;
  const description = fields.string('description');
  if (description !== undefined) cube.description = description;
  const meta = fields.plain('meta');
  if (meta) cube.meta = meta;

  if (fields.has('sql') === fields.has('sql_table')) {
    fields.error(fields.has('sql') ? 'sql_table' : null, 'give exactly one of sql and sql_table');
  } else if (fields.has('sql')) {
    cube.sql = addSql(draft, fields, 'sql', { use: 'cube', owner: `cube "${name}"` });
  } else {
    cube.sqlTable = addSql(draft, fields, 'sql_table', { use: 'cube', owner: `cube "${name}"` });
  }

  const refreshEvery = readRefreshKey(fields);
  if (refreshEvery !== undefined) cube.refreshEvery = refreshEvery;

  const taken = draft.declared;
  for (const item of fields.sequence('dimensions') ?? []) {
    const dimension = readDimension(draft, item, taken);
    if (dimension) cube.dimensions[dimension.shortName] = dimension;
  }
  for (const item of fields.sequence('measures') ?? []) {
    const measure = readMeasure(draft, item, taken);
    if (measure) cube.measures[measure.shortName] = measure;
  }
  for (const item of fields.sequence('segments') ?? []) {
    const segment = readSegment(draft, item, taken);
    if (segment) cube.segments[segment.shortName] = segment;
  }
  for (const item of fields.sequence('joins') ?? []) {
    const join = readJoin(draft, item);
    if (!join) continue;
    if (cube.joins[join.cube])
      file.error(item, `cube "${name}": the join to "${join.cube}" is defined twice`);
    else cube.joins[join.cube] = join;
  }
  const preAggregations = fields.sequence('pre_aggregations');
  if (preAggregations) draft.preAggregations = readPreAggregations(file, preAggregations, name);
  if (fields.has('access_policy')) {
    cube.accessPolicies = readPolicies(file, fields.value('access_policy'), {
      kind: 'cube',
      name,
      members: taken,
    });
  }
  return draft;
}

/** `cube "orders"` when the mapping has a usable name, for messages about its other keys. */
export function labelOf(file: YamlFile, node: Node, kind: string): string {
  const map = file.resolve(node) as { get?: (key: string) => unknown } | null;
  const name = typeof map?.get === 'function' ? map.get('name') : undefined;
  return typeof name === 'string' ? `${kind} "${name}"` : kind;
}

function addSql(
  draft: CubeDraft,
  fields: Fields,
  key: string,
  site: Omit<SqlSite, 'sql' | 'file' | 'node' | 'cube'>,
  required = true,
): string | undefined {
  const sql = fields.sql(key, required);
  const node = fields.value(key);
  if (sql !== undefined && node) {
    draft.sqlSites.push({ ...site, sql, node, file: draft.file, cube: draft.cube.name });
  }
  return sql;
}

function readRefreshKey(fields: Fields): number | undefined {
  const refreshKey = fields.mapping('refresh_key', `${fields.what}: refresh_key`, REFRESH_KEY_KEYS);
  if (!refreshKey) return undefined;
  if (refreshKey.has('sql')) {
    refreshKey.error('sql', 'refresh_key.sql is not supported; use every');
    return undefined;
  }
  const every = refreshKey.string('every', true);
  if (every === undefined) return undefined;
  const seconds = parseDuration(every);
  if (seconds === null) {
    refreshKey.error(
      'every',
      `"${every}" is not an interval (write e.g. "30 seconds", "10 minutes", "1 hour", "1 day")`,
    );
    return undefined;
  }
  return seconds;
}

/** The fields every member shares; null when the member has no usable name or repeats one. */
function readMemberMeta(draft: CubeDraft, fields: Fields, taken: Set<string>): MemberMeta | null {
  const shortName = readName(fields);
  if (shortName === undefined) return null;
  if (taken.has(shortName)) {
    fields.error('name', `cube "${draft.cube.name}" already has a member named "${shortName}"`);
    return null;
  }
  taken.add(shortName);
  const member: MemberMeta = {
    name: `${draft.cube.name}.${shortName}`,
    shortName,
    title: fields.string('title') ?? titleFromName(shortName),
    public: readPublic(fields),
    position: fields.position,
  };
  const description = fields.string('description');
  if (description !== undefined) member.description = description;
  const meta = fields.plain('meta');
  if (meta) member.meta = meta;
  return member;
}

function readDimension(draft: CubeDraft, node: Node, taken: Set<string>): Dimension | null {
  const cube = draft.cube.name;
  const fields = draft.file.mapping(
    node,
    labelOf(draft.file, node, `cube "${cube}": dimension`),
    DIMENSION_KEYS,
  );
  if (!fields) return null;
  const member = readMemberMeta(draft, fields, taken);
  const type = readType(fields, 'dimension', DIMENSION_TYPES);
  if (member && fields.has('case') && fields.has('sql')) {
    fields.error('case', 'a dimension takes sql or case, not both');
    return null;
  }
  const site = member && {
    use: 'dimension' as const,
    member: member.name,
    owner: `dimension "${member.name}"`,
  };
  const sql = !site
    ? undefined
    : fields.has('case')
      ? readCase(draft, fields, site)
      : addSql(draft, fields, 'sql', site);
  if (!member || !type || sql === undefined) return null;
  const dimension: Dimension = { ...member, type, sql, primaryKey: fields.boolean('primary_key') ?? false };
  const format = fields.string('format');
  if (format !== undefined) dimension.format = format;
  return dimension;
}

/**
 * Cube's `case` of a dimension as SQL: `CASE WHEN <when.sql> THEN '<label>' … ELSE '<label>' END`,
 * each condition checked like a dimension's sql, each label a string literal (no `else`: NULL).
 */
function readCase(
  draft: CubeDraft,
  fields: Fields,
  site: Omit<SqlSite, 'sql' | 'file' | 'node' | 'cube'>,
): string | undefined {
  const spec = fields.mapping('case', `${fields.what}: case`, CASE_KEYS);
  if (!spec) return undefined;
  const whens = spec.sequence('when');
  if (!whens || whens.length === 0) {
    spec.error('when', 'case needs a list of when conditions, each with sql and label');
    return undefined;
  }
  const label = (from: Fields): string | undefined => {
    const text = from.string('label', true);
    if (text === undefined) return undefined;
    // A brace would read as a member reference when the SQL is resolved.
    if (/[{}]/.test(text)) {
      from.error('label', 'a case label cannot contain { or }');
      return undefined;
    }
    return `'${text.replaceAll("'", "''")}'`;
  };
  const branches: string[] = [];
  for (const node of whens) {
    const when = draft.file.mapping(node, `${spec.what}: when`, WHEN_KEYS);
    if (!when) return undefined;
    const condition = addSql(draft, when, 'sql', site);
    const then = label(when);
    if (condition === undefined || then === undefined) return undefined;
    branches.push(`WHEN (${condition}) THEN ${then}`);
  }
  let otherwise = '';
  if (spec.has('else')) {
    const fallback = spec.mapping('else', `${spec.what}: else`, ELSE_KEYS);
    const text = fallback && label(fallback);
    if (text === undefined) return undefined;
    otherwise = ` ELSE ${text}`;
  }
  return `CASE ${branches.join(' ')}${otherwise} END`;
}

function readMeasure(draft: CubeDraft, node: Node, taken: Set<string>): Measure | null {
  const cube = draft.cube.name;
  const fields = draft.file.mapping(node, labelOf(draft.file, node, `cube "${cube}": measure`), MEASURE_KEYS);
  if (!fields) return null;
  const member = readMemberMeta(draft, fields, taken);
  const type = readType(fields, 'measure', MEASURE_TYPES);
  if (!member || !type) return null;
  const sql = addSql(
    draft,
    fields,
    'sql',
    {
      use: COMPUTED_MEASURE_TYPES.has(type) ? 'computed' : 'measure',
      member: member.name,
      owner: `measure "${member.name}"`,
    },
    type !== 'count',
  );
  if (sql === undefined && type !== 'count') return null;
  const measure: Measure = { ...member, type, filters: [] };
  if (sql !== undefined) measure.sql = sql;
  const format = fields.string('format');
  if (format !== undefined) measure.format = format;
  for (const item of fields.sequence('filters') ?? []) {
    const filter = draft.file.mapping(item, `${fields.what}: filters`, FILTER_KEYS);
    if (!filter) continue;
    const filterSql = addSql(draft, filter, 'sql', {
      use: 'filter',
      member: member.name,
      owner: `a filter of measure "${member.name}"`,
    });
    if (filterSql !== undefined) measure.filters.push({ sql: filterSql });
  }
  if (COMPUTED_MEASURE_TYPES.has(type) && fields.has('filters'))
    fields.error('filters', `a ${type} measure cannot have filters`);
  return measure;
}

function readSegment(draft: CubeDraft, node: Node, taken: Set<string>): Segment | null {
  const cube = draft.cube.name;
  const fields = draft.file.mapping(node, labelOf(draft.file, node, `cube "${cube}": segment`), SEGMENT_KEYS);
  if (!fields) return null;
  const member = readMemberMeta(draft, fields, taken);
  if (!member) return null;
  const sql = addSql(draft, fields, 'sql', {
    use: 'segment',
    member: member.name,
    owner: `segment "${member.name}"`,
  });
  return sql === undefined ? null : { ...member, sql };
}

function readJoin(draft: CubeDraft, node: Node): Join | null {
  const cube = draft.cube.name;
  const fields = draft.file.mapping(node, labelOf(draft.file, node, `cube "${cube}": join`), JOIN_KEYS);
  if (!fields) return null;
  const target = readName(fields);
  const text = fields.string('relationship', true);
  const relationship = text === undefined ? undefined : RELATIONSHIP_ALIASES[text];
  if (text !== undefined && !relationship) {
    fields.error(
      'relationship',
      `unknown relationship "${text}" (expected one of: ${RELATIONSHIPS.join(', ')})`,
    );
  }
  if (target === undefined) return null;
  const sql = addSql(draft, fields, 'sql', {
    use: 'join',
    joinTarget: target,
    owner: `the join ${cube} → ${target}`,
  });
  if (sql === undefined || !relationship) return null;
  return { cube: target, relationship, sql, position: fields.position };
}

function readType<T extends string>(fields: Fields, kind: string, types: readonly T[]): T | undefined {
  const type = fields.string('type', true);
  if (type === undefined) return undefined;
  if ((types as readonly string[]).includes(type)) return type as T;
  fields.error('type', `${kind} type ${type} is not supported (supported: ${types.join(', ')})`);
  return undefined;
}
