import type { CompiledModel, Cube, Dimension, Measure, Segment } from '../model/model.types';
import { QueryError } from './query-error';

/** A cube member found by name, with what a query may do with it. */
export type CubeMember =
  | { kind: 'measure'; cube: Cube; name: string; measure: Measure }
  | { kind: 'dimension'; cube: Cube; name: string; dimension: Dimension }
  | { kind: 'segment'; cube: Cube; name: string; segment: Segment };

/** A member as a query names it: a cube member directly, or a view member and its target. */
export interface FoundMember {
  name: string;
  target: CubeMember;
  /** The view's join path to the target's cube, for a view member. */
  joinPath?: string[];
  /** The view, for a view member: its title heads the member's title. */
  viewTitle?: string;
  viewMemberTitle?: string;
}

function splitName(name: string): [string, string] | undefined {
  const dot = name.indexOf('.');
  if (dot <= 0 || dot === name.length - 1) return undefined;
  return [name.slice(0, dot), name.slice(dot + 1)];
}

/** `Cube.member` of the model, public or not (member SQL may reference private members). */
export function cubeMemberOf(model: CompiledModel, name: string): CubeMember | undefined {
  const parts = splitName(name);
  const cube = parts && Object.hasOwn(model.cubes, parts[0]) ? model.cubes[parts[0]] : undefined;
  if (!parts || !cube) return undefined;
  return memberOfCube(cube, parts[1]);
}

export function memberOfCube(cube: Cube, member: string): CubeMember | undefined {
  if (Object.hasOwn(cube.measures, member)) {
    const measure = cube.measures[member] as Measure;
    return { kind: 'measure', cube, name: `${cube.name}.${member}`, measure };
  }
  if (Object.hasOwn(cube.dimensions, member)) {
    const dimension = cube.dimensions[member] as Dimension;
    return { kind: 'dimension', cube, name: `${cube.name}.${member}`, dimension };
  }
  if (Object.hasOwn(cube.segments, member)) {
    const segment = cube.segments[member] as Segment;
    return { kind: 'segment', cube, name: `${cube.name}.${member}`, segment };
  }
  return undefined;
}

/** Looks up a member a caller named; unknown or hidden ones are a `QueryError` naming them. */
export function findMember(model: CompiledModel, name: unknown): FoundMember {
  if (typeof name !== 'string') throw new QueryError(`Unknown member: ${JSON.stringify(name)}`);
  const parts = splitName(name);
  if (parts && Object.hasOwn(model.views, parts[0])) {
    const view = model.views[parts[0]];
    const member = view && Object.hasOwn(view.members, parts[1]) ? view.members[parts[1]] : undefined;
    const target = member && cubeMemberOf(model, member.target);
    if (!view || !member || !target) throw new QueryError(`Unknown member: ${name}`);
    if (!view.public) throw new QueryError(`Member is not public: ${name}`);
    return { name, target, joinPath: member.joinPath, viewTitle: view.title, viewMemberTitle: member.title };
  }
  const target = cubeMemberOf(model, name);
  if (!target) throw new QueryError(`Unknown member: ${name}`);
  const meta =
    target.kind === 'measure'
      ? target.measure
      : target.kind === 'dimension'
        ? target.dimension
        : target.segment;
  if (!target.cube.public || !meta.public) throw new QueryError(`Member is not public: ${name}`);
  return { name, target };
}
