import { isMap, isScalar, type Node } from 'yaml';
import { labelOf } from './cubes';
import type { Cube, View, ViewMember } from './model.types';
import { IDENTIFIER, readName, readPublic, titleFromName } from './names';
import { readPolicies } from './policies';
import type { Fields, YamlFile } from './yaml-reader';

const VIEW_KEYS = {
  allowed: ['name', 'title', 'description', 'public', 'shown', 'meta', 'cubes', 'access_policy'],
  unsupported: [
    'extends',
    'folders',
    'measures',
    'dimensions',
    'segments',
    'hierarchies',
    'pre_aggregations',
  ],
};
const ENTRY_KEYS = {
  allowed: ['join_path', 'includes', 'excludes', 'prefix', 'alias'],
  unsupported: ['split'],
};
const INCLUDE_KEYS = { allowed: ['name', 'alias', 'title', 'description'], unsupported: ['format', 'meta'] };

type Kind = ViewMember['kind'];

/** Reads one entry of a file's `views:` list against the cubes already read. */
export function readView(file: YamlFile, node: Node, cubes: ReadonlyMap<string, Cube>): View | null {
  const fields = file.mapping(node, labelOf(file, node, 'view'), VIEW_KEYS);
  if (!fields) return null;
  const name = readName(fields);
  if (name === undefined) return null;
  const view: View = {
    name,
    title: fields.string('title') ?? titleFromName(name),
    public: readPublic(fields),
    members: {},
    accessPolicies: [],
    position: fields.position,
  };
  const description = fields.string('description');
  if (description !== undefined) view.description = description;
  const meta = fields.plain('meta');
  if (meta) view.meta = meta;

  const entries = fields.sequence('cubes');
  if (!entries) fields.missing('cubes');
  let root: string | undefined;
  for (const entryNode of entries ?? []) {
    const entry = file.mapping(entryNode, `view "${name}": cubes`, ENTRY_KEYS);
    if (!entry) continue;
    const path = readJoinPath(entry, cubes, root);
    if (!path) continue;
    root ??= path[0];
    addMembers(view, entry, path, cubes);
  }
  if (entries && entries.length === 0) fields.error('cubes', 'a view needs at least one cube');

  if (fields.has('access_policy')) {
    const members = new Set(Object.values(view.members).map((member) => member.name.slice(name.length + 1)));
    view.accessPolicies = readPolicies(file, fields.value('access_policy'), { kind: 'view', name, members });
  }
  return view;
}

/**
 * The cube names of `join_path`, checked: each cube exists, each step follows a join the left
 * cube defines, and the path starts at the view's root (the first path's first cube).
 */
function readJoinPath(
  entry: Fields,
  cubes: ReadonlyMap<string, Cube>,
  root: string | undefined,
): string[] | null {
  const text = entry.string('join_path', true);
  if (text === undefined) return null;
  const path = text.split('.');
  const bad = path.find((part) => !IDENTIFIER.test(part));
  if (bad !== undefined) {
    entry.error('join_path', `join_path "${text}" must be cube names separated by dots`);
    return null;
  }
  const missing = path.find((part) => !cubes.has(part));
  if (missing !== undefined) {
    entry.error('join_path', `join_path "${text}": no cube is named "${missing}"`);
    return null;
  }
  if (root !== undefined && path[0] !== root) {
    entry.error('join_path', `join_path "${text}" must start at the view's root cube "${root}"`);
    return null;
  }
  for (let i = 1; i < path.length; i++) {
    const from = path[i - 1] ?? '';
    const to = path[i] ?? '';
    if (!cubes.get(from)?.joins[to]) {
      entry.error('join_path', `join_path "${text}": cube "${from}" defines no join to "${to}"`);
      return null;
    }
  }
  return path;
}

function addMembers(view: View, entry: Fields, path: string[], cubes: ReadonlyMap<string, Cube>): void {
  const cubeName = path[path.length - 1] ?? '';
  const cube = cubes.get(cubeName);
  if (!cube) return;
  const prefixName = readAlias(entry, 'alias') ?? cubeName;
  const prefix = entry.boolean('prefix') ?? false;

  const excluded = new Set<string>();
  for (const node of entry.sequence('excludes') ?? []) {
    const member = entry.file.text(node, `${entry.what}: excludes`);
    if (member === undefined) continue;
    if (kindOf(cube, member)) excluded.add(member);
    else entry.file.error(node, `${entry.what}: cube "${cubeName}" has no member "${member}" to exclude`);
  }

  const add = (
    member: string,
    node: Node,
    override: { alias?: string; title?: string; description?: string },
  ) => {
    const kind = kindOf(cube, member);
    if (!kind) {
      entry.file.error(node, `${entry.what}: cube "${cubeName}" has no member "${member}"`);
      return;
    }
    if (excluded.has(member)) return;
    const source = cube[`${kind}s`][member];
    const own = override.alias ?? (prefix ? `${prefixName}_${member}` : member);
    const name = `${view.name}.${own}`;
    const existing = view.members[own];
    if (existing) {
      entry.file.error(
        node,
        `view "${view.name}": member "${own}" comes from both ${existing.target} and ${cubeName}.${member} (use prefix or alias)`,
      );
      return;
    }
    const viewMember: ViewMember = {
      name,
      target: `${cubeName}.${member}`,
      joinPath: path,
      kind,
      title: override.title ?? source?.title ?? titleFromName(own),
    };
    const description = override.description ?? source?.description;
    if (description !== undefined) viewMember.description = description;
    view.members[own] = viewMember;
  };

  if (!entry.has('includes')) {
    entry.missing('includes');
    return;
  }
  const includes = entry.value('includes');
  if (isScalar(includes) && includes.value === '*') {
    for (const kind of ['dimensions', 'measures', 'segments'] as const) {
      for (const member of Object.keys(cube[kind])) add(member, includes, {});
    }
    return;
  }
  if (isScalar(includes)) {
    entry.error('includes', 'includes must be "*" or a list of members');
    return;
  }
  for (const node of entry.sequence('includes') ?? []) {
    if (isMap(node)) {
      const item = entry.file.mapping(node, `${entry.what}: includes`, INCLUDE_KEYS);
      const member = item?.string('name', true);
      if (!item || member === undefined) continue;
      const override: { alias?: string; title?: string; description?: string } = {};
      const alias = readAlias(item, 'alias');
      const title = item.string('title');
      const description = item.string('description');
      if (alias !== undefined) override.alias = alias;
      if (title !== undefined) override.title = title;
      if (description !== undefined) override.description = description;
      add(member, node, override);
    } else {
      const member = entry.file.text(node, `${entry.what}: includes`);
      if (member !== undefined) add(member, node, {});
    }
  }
}

function readAlias(fields: Fields, key: string): string | undefined {
  const alias = fields.string(key);
  if (alias === undefined || IDENTIFIER.test(alias)) return alias;
  fields.error(key, `${key} "${alias}" must start with a letter or _ and hold only letters, digits and _`);
  return undefined;
}

function kindOf(cube: Cube, member: string): Kind | undefined {
  if (Object.hasOwn(cube.measures, member)) return 'measure';
  if (Object.hasOwn(cube.dimensions, member)) return 'dimension';
  if (Object.hasOwn(cube.segments, member)) return 'segment';
  return undefined;
}
