import type { Node } from 'yaml';
import type { CubeDraft } from './cubes';
import { parseDuration } from './durations';
import {
  type Cube,
  GRANULARITIES,
  type Granularity,
  type MeasureType,
  measureValueType,
  type SourcePosition,
} from './model.types';
import { IDENTIFIER, readName } from './names';
import {
  PRE_AGGREGATION_TYPES,
  PRE_AGGREGATIONS_SCHEMA,
  type PreAggregation,
  type PreAggregationIndex,
  type PreAggregationRefreshKey,
  type PreAggregationType,
} from './pre-aggregations.types';
import type { ErrorList, Fields, YamlFile } from './yaml-reader';

/**
 * Cube's `pre_aggregations` on a cube, read in two passes: `readPreAggregations` reads each
 * entry's keys with positions while its cube is read; `resolvePreAggregations` resolves the
 * member references once every cube is known (a rollup may name members of joined cubes).
 */

/** The most pre-aggregations one cube may define. */
export const MAX_PRE_AGGREGATIONS_PER_CUBE = 20;
/** The most members (measures, dimensions, segments) one rollup may name. */
export const MAX_ROLLUP_MEMBERS = 40;
/** A rollup's table holds at most this many columns (a Durable Object's SQLite allows 100). */
export const MAX_ROLLUP_COLUMNS = 100;
/** The most indexes one rollup may define. */
export const MAX_ROLLUP_INDEXES = 10;

const COMMON_KEYS = [
  'name',
  'type',
  'refresh_key',
  'scheduled_refresh',
  'time_dimension',
  'partition_granularity',
  'build_range_start',
  'build_range_end',
];
/** Keys of Cube's pre-aggregations this compiler refuses by name. */
const UNSUPPORTED_KEYS = [
  'time_dimensions',
  'rollups',
  'use_original_sql_pre_aggregations',
  'union_with_source_data',
  'external',
  'sql_alias',
  'stream_offset',
  'unique_key_columns',
  'output_column_types',
  'read_only',
  'refresh_range_start',
  'refresh_range_end',
  'lambda',
];
const ROLLUP_KEYS = {
  allowed: [
    ...COMMON_KEYS,
    'measures',
    'dimensions',
    'segments',
    'granularity',
    'allow_non_strict_date_range_match',
    'indexes',
  ],
  unsupported: UNSUPPORTED_KEYS,
};
const ORIGINAL_SQL_KEYS = {
  allowed: COMMON_KEYS,
  unsupported: [...UNSUPPORTED_KEYS, 'measures', 'dimensions', 'segments', 'granularity', 'indexes'],
};
const REFRESH_KEYS = {
  allowed: ['every', 'sql', 'incremental', 'update_window'],
  unsupported: ['timezone', 'immutable'],
};
const RANGE_KEYS = { allowed: ['sql'] };
const INDEX_KEYS = { allowed: ['name', 'columns'], unsupported: ['type'] };
/** Cube's other pre-aggregation types, in both spellings: refused by name. */
const UNSUPPORTED_TYPES = [
  'rollup_join',
  'rollupJoin',
  'rollup_lambda',
  'rollupLambda',
  'auto_rollup',
  'autoRollup',
];
const TYPE_ALIASES: Record<string, PreAggregationType> = {
  rollup: 'rollup',
  original_sql: 'original_sql',
  originalSql: 'original_sql',
};

/** A member reference as written, with its node for errors. */
interface RawReference {
  text: string;
  node: Node;
}

/** A pre-aggregation read from its file, its member references not resolved yet. */
export interface PreAggregationDraft {
  preAggregation: PreAggregation;
  file: YamlFile;
  label: string;
  measures: RawReference[];
  dimensions: RawReference[];
  segments: RawReference[];
  timeDimension?: RawReference;
  indexes: { name: string; node: Node; columns: RawReference[] }[];
}

/** Reads a cube's `pre_aggregations:` list (keys, types, durations); members come later. */
export function readPreAggregations(file: YamlFile, items: Node[], cube: string): PreAggregationDraft[] {
  const drafts: PreAggregationDraft[] = [];
  const taken = new Set<string>();
  if (items.length > MAX_PRE_AGGREGATIONS_PER_CUBE) {
    file.error(
      items[MAX_PRE_AGGREGATIONS_PER_CUBE] ?? null,
      `cube "${cube}" defines ${items.length} pre-aggregations; at most ${MAX_PRE_AGGREGATIONS_PER_CUBE} are allowed`,
    );
    return drafts;
  }
  for (const item of items) {
    const draft = readPreAggregation(file, item, cube);
    if (!draft) continue;
    const { name } = draft.preAggregation;
    if (taken.has(name)) {
      file.error(item, `cube "${cube}" already has a pre-aggregation named "${name}"`);
      continue;
    }
    taken.add(name);
    drafts.push(draft);
  }
  return drafts;
}

function typeOf(file: YamlFile, item: Node, label: string): PreAggregationType | null {
  const map = file.resolve(item) as { get?: (key: string, keepScalar: boolean) => unknown } | null;
  const node = typeof map?.get === 'function' ? (map.get('type', true) as Node | undefined) : undefined;
  if (node === undefined) return 'rollup';
  const text = file.text(node, `${label}: type`);
  if (text === undefined) return null;
  if (UNSUPPORTED_TYPES.includes(text)) {
    file.error(
      node,
      `${label}: type ${text} is not supported (supported: ${PRE_AGGREGATION_TYPES.join(', ')})`,
    );
    return null;
  }
  const type = TYPE_ALIASES[text];
  if (!type) {
    file.error(
      node,
      `${label}: unknown type "${text}" (expected one of: ${PRE_AGGREGATION_TYPES.join(', ')})`,
    );
    return null;
  }
  return type;
}

function readPreAggregation(file: YamlFile, item: Node, cube: string): PreAggregationDraft | null {
  const map = file.resolve(item) as { get?: (key: string) => unknown } | null;
  const rawName = typeof map?.get === 'function' ? map.get('name') : undefined;
  const label = `cube "${cube}": pre-aggregation${typeof rawName === 'string' ? ` "${rawName}"` : ''}`;
  const type = typeOf(file, item, label);
  if (type === null) return null;
  const fields = file.mapping(item, label, type === 'rollup' ? ROLLUP_KEYS : ORIGINAL_SQL_KEYS);
  if (!fields) return null;
  const name = readName(fields);
  if (name === undefined) return null;

  const preAggregation: PreAggregation = {
    name,
    cube,
    type,
    measures: [],
    dimensions: [],
    segments: [],
    refreshKey: readRefreshKey(fields),
    scheduledRefresh: fields.boolean('scheduled_refresh') ?? true,
    allowNonStrictDateRangeMatch: fields.boolean('allow_non_strict_date_range_match') ?? false,
    indexes: [],
    position: fields.position,
  };
  const draft: PreAggregationDraft = {
    preAggregation,
    file,
    label,
    measures: references(fields, 'measures'),
    dimensions: references(fields, 'dimensions'),
    segments: references(fields, 'segments'),
    indexes: [],
  };

  if (fields.has('time_dimension')) {
    const text = fields.string('time_dimension');
    if (text !== undefined)
      draft.timeDimension = { text, node: fields.value('time_dimension') ?? fields.node };
  }
  const granularity = readGranularity(fields, 'granularity');
  if (granularity) preAggregation.granularity = granularity;
  const partition = readGranularity(fields, 'partition_granularity');
  if (partition && GRANULARITIES.indexOf(partition) < GRANULARITIES.indexOf('hour')) {
    fields.error(
      'partition_granularity',
      `partition_granularity ${partition} is not supported (hour is the finest)`,
    );
  } else if (partition) preAggregation.partitionGranularity = partition;
  if (type === 'rollup') {
    if (fields.has('time_dimension') && !fields.has('granularity')) fields.missing('granularity');
    if (fields.has('granularity') && !fields.has('time_dimension'))
      fields.error('granularity', 'granularity needs a time_dimension');
    if (granularity && partition && GRANULARITIES.indexOf(partition) < GRANULARITIES.indexOf(granularity)) {
      fields.error(
        'partition_granularity',
        `partition_granularity ${partition} is finer than the rollup's granularity ${granularity}`,
      );
    }
  }
  if (fields.has('partition_granularity') && !fields.has('time_dimension'))
    fields.error('partition_granularity', 'partition_granularity needs a time_dimension');

  const start = readRange(fields, 'build_range_start');
  const end = readRange(fields, 'build_range_end');
  if (start !== undefined) preAggregation.buildRangeStart = start;
  if (end !== undefined) preAggregation.buildRangeEnd = end;
  if (fields.has('build_range_start') !== fields.has('build_range_end'))
    fields.error(null, 'give both build_range_start and build_range_end, or neither');
  if ((fields.has('build_range_start') || fields.has('build_range_end')) && !fields.has('time_dimension'))
    fields.error(null, 'build_range_start and build_range_end need a time_dimension');
  if (preAggregation.refreshKey.incremental && !fields.has('partition_granularity'))
    fields.error('refresh_key', 'refresh_key.incremental needs a partition_granularity');

  for (const indexNode of fields.sequence('indexes') ?? []) {
    const index = file.mapping(indexNode, `${label}: indexes`, INDEX_KEYS);
    if (!index) continue;
    const indexName = readName(index);
    const columns = references(index, 'columns');
    if (!index.has('columns')) index.missing('columns');
    if (indexName !== undefined) draft.indexes.push({ name: indexName, node: indexNode, columns });
  }
  if (draft.indexes.length > MAX_ROLLUP_INDEXES)
    fields.error('indexes', `at most ${MAX_ROLLUP_INDEXES} indexes are allowed`);
  return draft;
}

/** A list of member references (plain strings). */
function references(fields: Fields, key: string): RawReference[] {
  const found: RawReference[] = [];
  for (const node of fields.sequence(key) ?? []) {
    const text = fields.file.text(node, `${fields.what}: ${key}`);
    if (text !== undefined) found.push({ text, node });
  }
  return found;
}

function readGranularity(fields: Fields, key: string): Granularity | undefined {
  const text = fields.string(key);
  if (text === undefined) return undefined;
  const known = GRANULARITIES.find((granularity) => granularity === text);
  if (!known) fields.error(key, `unknown ${key} "${text}" (expected one of: ${GRANULARITIES.join(', ')})`);
  return known;
}

function readRange(fields: Fields, key: string): string | undefined {
  const range = fields.mapping(key, `${fields.what}: ${key}`, RANGE_KEYS);
  if (!range) return undefined;
  const sql = range.sql('sql', true);
  if (sql?.includes('{')) {
    range.error('sql', 'references ({…}) and templates are not supported here: write SQL on the data source');
    return undefined;
  }
  return sql;
}

function readRefreshKey(fields: Fields): PreAggregationRefreshKey {
  const refreshKey: PreAggregationRefreshKey = { incremental: false };
  const key = fields.mapping('refresh_key', `${fields.what}: refresh_key`, REFRESH_KEYS);
  if (!key) return refreshKey;
  const seconds = (name: string): number | undefined => {
    const text = key.string(name);
    if (text === undefined) return undefined;
    const parsed = parseDuration(text);
    if (parsed === null) {
      key.error(name, `"${text}" is not an interval (write e.g. "10 minutes", "1 hour", "7 days")`);
      return undefined;
    }
    return parsed;
  };
  const every = seconds('every');
  if (every !== undefined) refreshKey.every = every;
  const sql = key.sql('sql');
  if (sql !== undefined) {
    if (sql.includes('{'))
      key.error('sql', 'references ({…}) and templates are not supported in refresh_key.sql');
    else refreshKey.sql = sql;
  }
  refreshKey.incremental = key.boolean('incremental') ?? false;
  const window = seconds('update_window');
  if (window !== undefined) refreshKey.updateWindow = window;
  if (key.has('update_window') && !refreshKey.incremental)
    key.error('update_window', 'update_window needs incremental: true');
  return refreshKey;
}

type Kind = 'measure' | 'dimension' | 'segment';

/**
 * Resolves every pre-aggregation's member references against all cubes and puts the compiled
 * pre-aggregations on their cubes. A reference is `member`, `CUBE.member` or `cube.member` of a
 * cube the pre-aggregation's cube reaches through its joins (as Cube allows); Cube's join-path
 * form `a.b.member` is not supported. Table names must be unique across the model.
 */
export function resolvePreAggregations(drafts: ReadonlyMap<string, CubeDraft>, errors: ErrorList): void {
  const cubes = new Map([...drafts].map(([name, draft]) => [name, draft.cube]));
  const tables = new Map<string, string>();
  for (const draft of drafts.values()) {
    const compiled: PreAggregation[] = [];
    for (const pre of draft.preAggregations) {
      const result = resolveOne(pre, cubes);
      if (!result) continue;
      const table = preAggregationTableName(result);
      const first = tables.get(table);
      if (first) {
        errors.add(
          `${pre.label}: its table name ${table} is already the table of pre-aggregation ${first}`,
          result.position,
        );
        continue;
      }
      tables.set(table, `${result.cube}.${result.name}`);
      compiled.push(result);
    }
    if (compiled.length > 0) draft.cube.preAggregations = compiled;
  }
}

function resolveOne(draft: PreAggregationDraft, cubes: ReadonlyMap<string, Cube>): PreAggregation | null {
  const { preAggregation: pre, file, label } = draft;
  const reachable = reachableCubes(pre.cube, cubes);
  let ok = true;
  const resolve = (reference: RawReference, kinds: Kind[], what: string): string | undefined => {
    const problem = (message: string) => {
      file.error(reference.node, `${label}: ${what} "${reference.text}": ${message}`);
      ok = false;
      return undefined;
    };
    const parts = reference.text.split('.');
    if (parts.length > 2)
      return problem('join paths (cube.cube.member) are not supported; write cube.member');
    if (!parts.every((part) => IDENTIFIER.test(part))) return problem('not a member reference');
    const [first = '', second] = parts;
    const cubeName = second === undefined || first === 'CUBE' ? pre.cube : first;
    const memberName = second ?? first;
    const cube = cubes.get(cubeName);
    if (!cube) return problem(`no cube is named "${cubeName}"`);
    if (!reachable.has(cubeName))
      return problem(`cube "${cubeName}" is not joined to cube "${pre.cube}" (through its joins)`);
    const kind: Kind | undefined = Object.hasOwn(cube.measures, memberName)
      ? 'measure'
      : Object.hasOwn(cube.dimensions, memberName)
        ? 'dimension'
        : Object.hasOwn(cube.segments, memberName)
          ? 'segment'
          : undefined;
    if (!kind) return problem(`cube "${cubeName}" has no member "${memberName}"`);
    if (!kinds.includes(kind))
      return problem(`${cubeName}.${memberName} is a ${kind}, not a ${kinds.join(' or ')}`);
    const measureType = kind === 'measure' ? cube.measures[memberName]?.type : undefined;
    if (measureType && !storable(measureType)) {
      return problem(
        `${cubeName}.${memberName} is a ${measureType} measure; a rollup stores numbers only, and a query with it reads the source`,
      );
    }
    return `${cubeName}.${memberName}`;
  };
  const list = (references: RawReference[], kind: Kind, key: string): string[] => {
    const names: string[] = [];
    for (const reference of references) {
      const name = resolve(reference, [kind], key.replace(/s$/, ''));
      if (name === undefined) continue;
      if (names.includes(name)) {
        file.error(reference.node, `${label}: ${name} is listed twice in ${key}`);
        ok = false;
      } else names.push(name);
    }
    return names;
  };
  pre.measures = list(draft.measures, 'measure', 'measures');
  pre.dimensions = list(draft.dimensions, 'dimension', 'dimensions');
  pre.segments = list(draft.segments, 'segment', 'segments');
  if (draft.timeDimension) {
    const name = resolve(draft.timeDimension, ['dimension'], 'time_dimension');
    if (name !== undefined) {
      const [cubeName = '', member = ''] = name.split('.');
      if (cubes.get(cubeName)?.dimensions[member]?.type !== 'time') {
        file.error(draft.timeDimension.node, `${label}: time_dimension ${name} is not a time dimension`);
        ok = false;
      } else pre.timeDimension = name;
    }
  }
  if (pre.type === 'original_sql') {
    const cube = cubes.get(pre.cube);
    if (cube) storeEveryMember(pre, cube);
    const memberCount = pre.measures.length + pre.dimensions.length;
    if (memberCount > MAX_ROLLUP_MEMBERS) {
      errorAt(
        file,
        pre.position,
        `${label}: an original_sql pre-aggregation stores every measure and dimension of its cube, and cube "${pre.cube}" has ${memberCount}; at most ${MAX_ROLLUP_MEMBERS} are allowed`,
      );
      return null;
    }
  }
  if (pre.type === 'rollup') {
    const memberCount = pre.measures.length + pre.dimensions.length + pre.segments.length;
    if (memberCount === 0 && !pre.timeDimension && ok) {
      errorAt(
        file,
        pre.position,
        `${label}: a rollup needs at least one measure, dimension or time_dimension`,
      );
      return null;
    }
    if (memberCount > MAX_ROLLUP_MEMBERS) {
      errorAt(
        file,
        pre.position,
        `${label}: ${memberCount} members; a rollup may name at most ${MAX_ROLLUP_MEMBERS}`,
      );
      return null;
    }
    // Each measure takes up to two columns (a numeric value and its scale), see rollup-layout.ts.
    const columnCount = pre.dimensions.length + (pre.timeDimension ? 1 : 0) + 2 * pre.measures.length;
    if (columnCount > MAX_ROLLUP_COLUMNS) {
      errorAt(
        file,
        pre.position,
        `${label}: its table would have ${columnCount} columns; at most ${MAX_ROLLUP_COLUMNS} are allowed`,
      );
      return null;
    }
  }
  const columns = new Set([...pre.dimensions, ...(pre.timeDimension ? [pre.timeDimension] : [])]);
  const indexes: PreAggregationIndex[] = [];
  for (const index of draft.indexes) {
    const names: string[] = [];
    for (const column of index.columns) {
      const name = resolve(column, ['dimension'], 'index column');
      if (name === undefined) continue;
      if (!columns.has(name)) {
        file.error(
          column.node,
          `${label}: index "${index.name}": ${name} is not a dimension or the time_dimension of the rollup`,
        );
        ok = false;
      } else names.push(name);
    }
    if (index.columns.length === 0) {
      file.error(index.node, `${label}: index "${index.name}" needs at least one column`);
      ok = false;
    }
    indexes.push({ name: index.name, columns: names });
  }
  pre.indexes = indexes;
  return ok ? pre : null;
}

/**
 * An original_sql pre-aggregation as edgeboard keeps it: the cube's rows as its queries read them,
 * that is every measure and dimension of the cube computed by the source itself (its SQL, its
 * arithmetic, its number text) at the finest grain, the time_dimension to the second, stored in
 * the deployment's store like a rollup's. A query on the cube's members is then answered from it
 * by Cube's matching rules, to the same strings as from the source. Time dimensions other than
 * its time_dimension are not stored (a query on them reads the source).
 */
export function storeEveryMember(pre: PreAggregation, cube: Cube): void {
  pre.measures = Object.entries(cube.measures)
    .filter(([, measure]) => storable(measure.type))
    .map(([name]) => `${cube.name}.${name}`);
  pre.dimensions = Object.entries(cube.dimensions)
    .filter(([, dimension]) => dimension.type !== 'time')
    .map(([name]) => `${cube.name}.${name}`);
  if (pre.timeDimension) pre.granularity = 'second';
}

/** Whether a rollup can store a measure of this type: a number (`string`, `time` and `boolean` are not). */
function storable(type: MeasureType): boolean {
  return measureValueType(type) === 'number';
}

function errorAt(file: YamlFile, position: SourcePosition, message: string): void {
  file.errors.add(message, position);
}

/** The cubes `from` reaches along joins in their declared direction, itself included. */
function reachableCubes(from: string, cubes: ReadonlyMap<string, Cube>): Set<string> {
  const seen = new Set([from]);
  const queue = [from];
  while (queue.length > 0) {
    const cube = cubes.get(queue.shift() as string);
    for (const next of Object.keys(cube?.joins ?? {})) {
      if (seen.has(next) || !cubes.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return seen;
}

/** Cube's alias of a name: camelCase to snake_case, lower case (`lineItems` → `line_items`). */
function aliasOf(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** `prod_pre_aggregations.<cube>_<name>`: Cube's table name of an unpartitioned pre-aggregation. */
export function preAggregationTableName(pre: Pick<PreAggregation, 'cube' | 'name'>): string {
  return `${PRE_AGGREGATIONS_SCHEMA}.${aliasOf(pre.cube)}_${aliasOf(pre.name)}`;
}

/**
 * Whether every bucket of granularity `coarse` is a union of buckets of `fine`: seconds make
 * minutes, … days make weeks and months, months make quarters and years; weeks make only weeks.
 */
export function granularityNests(fine: Granularity, coarse: Granularity): boolean {
  if (fine === coarse) return true;
  if (fine === 'week' || (coarse === 'week' && GRANULARITIES.indexOf(fine) > GRANULARITIES.indexOf('day')))
    return false;
  return GRANULARITIES.indexOf(fine) < GRANULARITIES.indexOf(coarse);
}
