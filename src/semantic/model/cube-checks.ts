import type { CubeDraft, SqlSite } from './cubes';
import type { Cube, SourcePosition } from './model.types';
import { type Reference, scanReferences } from './references';
import type { ErrorList } from './yaml-reader';

type MemberKind = 'measure' | 'dimension' | 'segment';

/** What SQL may reference; `declared` also knows members that failed to compile. */
interface Scope {
  cubes: ReadonlyMap<string, Cube>;
  viewNames: ReadonlySet<string>;
  declared: (cube: string, member: string) => boolean;
}

/** What a reference names: a cube's alias, or one member. */
type Target = { alias: string } | { cube: string; member: string; kind: MemberKind };

/**
 * The checks that need every cube: join targets exist and have one primary key on each side,
 * every `{reference}` in SQL names something its SQL may use, and member references have no
 * cycle.
 */
export function checkCubes(
  drafts: ReadonlyMap<string, CubeDraft>,
  viewNames: ReadonlySet<string>,
  errors: ErrorList,
): void {
  const cubes = new Map([...drafts].map(([name, draft]) => [name, draft.cube]));
  checkJoins(cubes, errors);
  const graph = new Map<string, string[]>();
  const scope: Scope = {
    cubes,
    viewNames,
    declared: (cube, member) => drafts.get(cube)?.declared.has(member) ?? false,
  };
  for (const draft of drafts.values()) {
    for (const site of draft.sqlSites) {
      // A join to a cube that does not exist has had its error; its ON condition would only repeat it.
      if (site.joinTarget === undefined || cubes.has(site.joinTarget)) checkSql(site, scope, graph);
    }
  }
  checkCycles(cubes, graph, errors);
}

function checkJoins(cubes: ReadonlyMap<string, Cube>, errors: ErrorList): void {
  const joined = new Map<string, string[]>();
  const note = (cube: string, other: string) => joined.set(cube, [...(joined.get(cube) ?? []), other]);
  for (const cube of cubes.values()) {
    for (const join of Object.values(cube.joins)) {
      if (join.cube === cube.name) {
        errors.add(`cube "${cube.name}": a cube cannot join itself`, join.position);
      } else if (!cubes.has(join.cube)) {
        errors.add(`cube "${cube.name}": the join to "${join.cube}" names no cube`, join.position);
      } else {
        note(cube.name, join.cube);
        note(join.cube, cube.name);
      }
    }
  }
  // Fan-out handling aggregates each side over its primary key, so both sides of a join need one.
  for (const [name, others] of joined) {
    const cube = cubes.get(name);
    if (!cube) continue;
    const keys = Object.values(cube.dimensions).filter((dimension) => dimension.primaryKey);
    const partners = [...new Set(others)].join(', ');
    if (keys.length === 0) {
      errors.add(
        `cube "${name}" takes part in joins (with ${partners}) and needs a dimension with primary_key: true`,
        cube.position,
      );
    } else if (keys.length > 1) {
      errors.add(
        `cube "${name}" has ${keys.length} primary key dimensions (${keys.map((key) => key.shortName).join(', ')}); composite primary keys are not supported`,
        keys[1]?.position ?? cube.position,
      );
    }
  }
}

function checkSql(site: SqlSite, scope: Scope, graph: Map<string, string[]>): void {
  const { references, problems } = scanReferences(site.sql);
  const seen = new Map<string, number>();
  const at = (start: number, end: number): SourcePosition => {
    const needle = site.sql.slice(start, end);
    const occurrence = seen.get(needle) ?? 0;
    seen.set(needle, occurrence + 1);
    return site.file.positionWithin(site.node, needle, occurrence);
  };
  const report = (message: string, position: SourcePosition) =>
    site.file.errors.add(`${site.owner}: ${message}`, position);

  const spans = [
    ...problems.map((problem) => ({ ...problem, reference: null as Reference | null })),
    ...references.map((reference) => ({ ...reference, reference, message: '' })),
  ].sort((a, b) => a.start - b.start);
  for (const span of spans) {
    const position = at(span.start, span.end);
    if (!span.reference) {
      report(span.message, position);
      continue;
    }
    const text = site.sql.slice(span.start, span.end);
    if (site.use === 'cube') {
      report(`a cube's sql cannot hold references such as ${text}`, position);
      continue;
    }
    const target = resolve(span.reference.path, site.cube, scope);
    // A member that failed to compile has had its error; referring to it is not another one.
    if (target === null) continue;
    if (typeof target === 'string') {
      report(`${text}: ${target}`, position);
      continue;
    }
    const problem = misuse(site, target);
    if (problem) {
      report(`${text}: ${problem}`, position);
    } else if ('member' in target && site.member) {
      const edges = graph.get(site.member) ?? [];
      edges.push(`${target.cube}.${target.member}`);
      graph.set(site.member, edges);
    }
  }
}

/** What `path` names from SQL of cube `own`, why it names nothing, or null for a broken member. */
function resolve(path: string[], own: string, { cubes, viewNames, declared }: Scope): Target | string | null {
  const [first = '', second] = path;
  if (path.length > 2) return 'a reference has at most two parts ({cube.member})';
  if (second === undefined) {
    if (first === 'CUBE') return { alias: own };
    const member = memberOf(cubes.get(own), first);
    if (member) return { cube: own, member: first, kind: member };
    if (cubes.has(first)) return { alias: first };
    if (declared(own, first)) return null;
    if (viewNames.has(first)) return `views cannot be referenced in SQL`;
    return `cube "${own}" has no member "${first}", and no cube is named "${first}"`;
  }
  const cubeName = first === 'CUBE' ? own : first;
  const cube = cubes.get(cubeName);
  if (!cube)
    return viewNames.has(cubeName) ? 'views cannot be referenced in SQL' : `no cube is named "${cubeName}"`;
  const member = memberOf(cube, second);
  if (!member) return declared(cubeName, second) ? null : `cube "${cubeName}" has no member "${second}"`;
  return { cube: cubeName, member: second, kind: member };
}

function memberOf(cube: Cube | undefined, name: string): MemberKind | undefined {
  if (!cube) return undefined;
  if (Object.hasOwn(cube.measures, name)) return 'measure';
  if (Object.hasOwn(cube.dimensions, name)) return 'dimension';
  if (Object.hasOwn(cube.segments, name)) return 'segment';
  return undefined;
}

/** Why `site` may not use `target`, if it may not. */
function misuse(site: SqlSite, target: Target): string | undefined {
  if (site.use === 'join') {
    const cube = 'alias' in target ? target.alias : target.cube;
    if (cube !== site.cube && cube !== site.joinTarget) {
      return `a join's sql may only reference the two cubes it joins (${site.cube}, ${site.joinTarget})`;
    }
  }
  if (!('member' in target)) return undefined;
  const named = `${target.kind} "${target.cube}.${target.member}"`;
  switch (site.use) {
    case 'computed':
      // Cube's number, string, time and boolean measures: other measures, or dimensions inside
      // the aggregate functions of their own SQL.
      return target.kind === 'segment'
        ? `a measure may reference measures and dimensions, and ${named} is neither`
        : undefined;
    case 'measure':
      return target.kind === 'dimension'
        ? undefined
        : `an aggregating measure may only reference dimensions (use type number to combine measures), and ${named} is not one`;
    case 'segment':
    case 'filter':
      return target.kind === 'measure'
        ? `${named} cannot be used here; only dimensions and segments can`
        : undefined;
    default:
      return target.kind === 'dimension' ? undefined : `${named} cannot be used here; only dimensions can`;
  }
}

/** Reports each cycle of member references once, at its first member. */
function checkCycles(
  cubes: ReadonlyMap<string, Cube>,
  graph: ReadonlyMap<string, string[]>,
  errors: ErrorList,
): void {
  const done = new Set<string>();
  const reported = new Set<string>();
  const positionOf = (name: string): SourcePosition | null => {
    const [cubeName = '', member = ''] = name.split('.');
    const cube = cubes.get(cubeName);
    return (
      cube?.dimensions[member]?.position ??
      cube?.measures[member]?.position ??
      cube?.segments[member]?.position ??
      null
    );
  };
  const visit = (name: string, stack: string[]) => {
    const index = stack.indexOf(name);
    if (index >= 0) {
      const cycle = stack.slice(index);
      const key = [...cycle].sort().join(' ');
      if (!reported.has(key)) {
        reported.add(key);
        errors.add(`circular reference: ${[...cycle, name].join(' → ')}`, positionOf(cycle[0] ?? name));
      }
      return;
    }
    if (done.has(name)) return;
    stack.push(name);
    for (const next of graph.get(name) ?? []) visit(next, stack);
    stack.pop();
    done.add(name);
  };
  for (const name of graph.keys()) visit(name, []);
}
