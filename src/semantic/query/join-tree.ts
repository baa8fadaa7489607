import type { CompiledModel, Join } from '../model/model.types';
import { QueryError } from './query-error';

/** One join of the tree: `child` joined to `parent` through `join`, declared on `declaredOn`. */
export interface JoinEdge {
  parent: string;
  child: string;
  join: Join;
  declaredOn: string;
}

/** The cubes a query joins: a root and edges in an order where each parent comes first. */
export interface JoinTree {
  root: string;
  edges: JoinEdge[];
}

function joinOf(model: CompiledModel, from: string, to: string): Join | undefined {
  const cube = model.cubes[from];
  return cube && Object.hasOwn(cube.joins, to) ? cube.joins[to] : undefined;
}

/**
 * The join tree over `cubes` (in first-use order). With view join paths (`hints`), the union of
 * those paths from the view's root, extended to any other cube needed. Without, the first cube
 * from which every other is reachable along joins in their declared direction (A's join to B is
 * an edge A→B), each cube reached by a shortest path.
 */
export function findJoinTree(model: CompiledModel, cubes: string[], hints: string[][]): JoinTree {
  const [first] = cubes;
  if (first === undefined) throw new QueryError('A query needs at least one member');
  const hinted = hints.find((path) => path.length > 0);
  if (hinted) return treeFromHints(model, cubes, hints, hinted[0] as string);
  for (const root of cubes) {
    const tree = treeFrom(model, root, cubes, { root, edges: [] });
    if (tree) return tree;
  }
  throw new QueryError(`Can't find join path to join ${cubes.map((cube) => `'${cube}'`).join(', ')}`);
}

function treeFromHints(model: CompiledModel, cubes: string[], hints: string[][], root: string): JoinTree {
  const tree: JoinTree = { root, edges: [] };
  const reached = new Set([root]);
  for (const path of hints) {
    if (path[0] !== root)
      throw new QueryError(`Views of different roots cannot be joined: '${root}', '${path[0]}'`);
    for (let index = 1; index < path.length; index += 1) {
      const parent = path[index - 1] as string;
      const child = path[index] as string;
      if (reached.has(child)) continue;
      const forward = joinOf(model, parent, child);
      const backward = forward ? undefined : joinOf(model, child, parent);
      const join = forward ?? backward;
      if (!join) throw new QueryError(`Can't find join path to join '${parent}', '${child}'`);
      tree.edges.push({ parent, child, join, declaredOn: forward ? parent : child });
      reached.add(child);
    }
  }
  const extended = treeFrom(model, root, cubes, tree);
  if (!extended)
    throw new QueryError(`Can't find join path to join ${cubes.map((cube) => `'${cube}'`).join(', ')}`);
  return extended;
}

/** Extends `tree` breadth-first from the cubes it reaches until every cube in `needed` is in. */
function treeFrom(
  model: CompiledModel,
  root: string,
  needed: string[],
  tree: JoinTree,
): JoinTree | undefined {
  const inTree = new Set([root, ...tree.edges.map((edge) => edge.child)]);
  const missing = needed.filter((cube) => !inTree.has(cube));
  if (missing.length === 0) return tree;
  const parentOf = new Map<string, string>();
  const queue = [...inTree];
  const seen = new Set(inTree);
  while (queue.length > 0) {
    const cube = queue.shift() as string;
    for (const next of Object.keys(model.cubes[cube]?.joins ?? {})) {
      if (seen.has(next) || !model.cubes[next]) continue;
      seen.add(next);
      parentOf.set(next, cube);
      queue.push(next);
    }
  }
  if (missing.some((cube) => !seen.has(cube))) return undefined;
  const edges = [...tree.edges];
  const added = new Set(inTree);
  for (const cube of missing) {
    const path: string[] = [];
    for (let at = cube; !added.has(at); at = parentOf.get(at) as string) path.unshift(at);
    for (const child of path) {
      const parent = parentOf.get(child) as string;
      edges.push({ parent, child, join: joinOf(model, parent, child) as Join, declaredOn: parent });
      added.add(child);
    }
  }
  return { root: tree.root, edges };
}

/**
 * The cubes whose rows the tree repeats: walking away from the cube, some join goes from one row
 * to many (a `one_to_many` walked as declared, or a `many_to_one` walked against it). Their
 * additive measures would be counted once per repeat if aggregated over the joined rows.
 */
export function multipliedCubes(tree: JoinTree): Set<string> {
  const neighbours = new Map<string, { next: string; toMany: boolean }[]>();
  const link = (from: string, next: string, toMany: boolean) => {
    neighbours.set(from, [...(neighbours.get(from) ?? []), { next, toMany }]);
  };
  for (const edge of tree.edges) {
    const other = edge.declaredOn === edge.parent ? edge.child : edge.parent;
    const relationship = edge.join.relationship;
    // Walking from the declaring cube to the other, and back.
    link(edge.declaredOn, other, relationship === 'one_to_many');
    link(other, edge.declaredOn, relationship === 'many_to_one');
  }
  const cubes = [tree.root, ...tree.edges.map((edge) => edge.child)];
  const multiplied = new Set<string>();
  for (const start of cubes) {
    const stack = [start];
    const seen = new Set([start]);
    while (stack.length > 0 && !multiplied.has(start)) {
      const cube = stack.pop() as string;
      for (const { next, toMany } of neighbours.get(cube) ?? []) {
        if (seen.has(next)) continue;
        if (toMany) multiplied.add(start);
        seen.add(next);
        stack.push(next);
      }
    }
  }
  return multiplied;
}
