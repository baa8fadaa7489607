import type { AccessPolicy, CompiledModel, PolicyFilter, PolicyValue } from '../model/model.types';
import type { NormalizedFilter, NormalizedQuery } from './query.types';

/**
 * Who is asking: what data access policies are evaluated against. An embed session gives its
 * groups, user attributes and security context; a deployment token its security context (with
 * groups and attributes under `cubeCloud`, as Cube Cloud's tokens carry them).
 */
export interface Identity {
  groups: string[];
  userAttributes: Record<string, unknown>;
  securityContext: Record<string, unknown>;
}

/** A member the caller may not query: the data API answers 403 naming it. */
export class AccessDenied extends Error {
  constructor(readonly member: string) {
    super(`You are not allowed to access ${member}`);
  }
}

/**
 * A filter that holds for no row: a policy value the caller lacks. `or` of nothing is false in
 * the query compiler, so the cube answers nothing instead of everything (fails closed).
 */
export const NO_ROWS: NormalizedFilter = { or: [] };

/** The policies of a cube or view that apply to this caller: those naming one of its groups, or `*`. */
function matching(policies: AccessPolicy[], identity: Identity): AccessPolicy[] {
  return policies.filter((p) => p.groups.includes('*') || p.groups.some((g) => identity.groups.includes(g)));
}

/** May the caller see `member` (`Owner.member`) under these (matching) policies? No member_level: everything. */
function memberAllowed(policies: AccessPolicy[], member: string): boolean {
  return policies.some((p) => {
    const level = p.memberLevel;
    if (!level) return true;
    const included = level.includes === '*' || level.includes.includes(member);
    return included && !level.excludes.includes(member);
  });
}

function lookup(source: Record<string, unknown>, path: string[]): unknown {
  let at: unknown = source;
  for (const key of path) {
    if (at === null || typeof at !== 'object' || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A policy value for this caller: strings to bind, or null when the caller lacks it. */
function valuesOf(value: PolicyValue, identity: Identity): string[] | null {
  if ('literal' in value) return [value.literal];
  const raw =
    'securityContext' in value
      ? lookup(identity.securityContext, value.securityContext)
      : identity.userAttributes[value.userAttribute];
  const list = Array.isArray(raw) ? raw : [raw];
  const scalars = list.filter(
    (x): x is string | number | boolean =>
      typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean',
  );
  // Missing, null, an object, or an empty list: the caller does not have this value.
  if (scalars.length === 0 || scalars.length !== list.length) return null;
  return scalars.map(String);
}

/** A view's member stands for a cube member: filters run on the cube member. */
function targetOf(model: CompiledModel, member: string): string {
  return model.views[ownerOf(member)]?.members[member.slice(member.indexOf('.') + 1)]?.target ?? member;
}

function toFilter(model: CompiledModel, filter: PolicyFilter, identity: Identity): NormalizedFilter {
  if ('and' in filter) return { and: filter.and.map((f) => toFilter(model, f, identity)) };
  if ('or' in filter) return { or: filter.or.map((f) => toFilter(model, f, identity)) };
  const values: string[] = [];
  for (const value of filter.values) {
    const resolved = valuesOf(value, identity);
    if (resolved === null) return NO_ROWS;
    values.push(...resolved);
  }
  return {
    member: { name: filter.member, target: targetOf(model, filter.member) },
    operator: filter.operator as Extract<NormalizedFilter, { operator: string }>['operator'],
    values,
  };
}

/**
 * The rows a set of matching policies lets through: any policy without row-level filters (or
 * with `allow_all`) lets every row through; otherwise a row must pass one policy's filters.
 */
function rowFilterOf(
  model: CompiledModel,
  policies: AccessPolicy[],
  identity: Identity,
): NormalizedFilter | null {
  const alternatives: NormalizedFilter[] = [];
  for (const policy of policies) {
    const level = policy.rowLevel;
    if (!level || 'allowAll' in level) return null;
    alternatives.push({ and: level.filters.map((f) => toFilter(model, f, identity)) });
  }
  return alternatives.length === 1 ? (alternatives[0] as NormalizedFilter) : { or: alternatives };
}

/** Every member a query names, filters included, as `[name as asked, cube member]`. */
function membersOf(query: NormalizedQuery): { name: string; target: string }[] {
  const members = [...query.measures, ...query.dimensions, ...query.segments, ...query.timeDimensions];
  const walk = (filters: NormalizedFilter[]) => {
    for (const f of filters) {
      if ('and' in f) walk(f.and);
      else if ('or' in f) walk(f.or);
      else members.push(f.member);
    }
  };
  walk(query.filters);
  return members;
}

const ownerOf = (member: string): string => member.slice(0, member.indexOf('.'));

/**
 * The data access policies of the model for one caller and one query: throws AccessDenied for
 * the first member the caller may not see, and answers the row filters to AND into the query
 * (one per cube or view with row-level policies). The values in them come from the caller and
 * are bound as parameters by the query compiler like any filter value.
 */
export function policyFilters(
  model: CompiledModel,
  query: NormalizedQuery,
  identity: Identity,
): NormalizedFilter[] {
  const filters: NormalizedFilter[] = [];
  const seen = new Set<string>();
  const apply = (owner: string, policies: AccessPolicy[], names: string[]) => {
    if (policies.length === 0) return;
    const applicable = matching(policies, identity);
    for (const name of names) {
      if (applicable.length === 0 || !memberAllowed(applicable, name)) throw new AccessDenied(name);
    }
    if (seen.has(owner)) return;
    seen.add(owner);
    const rows = rowFilterOf(model, applicable, identity);
    if (rows) filters.push(rows);
  };
  const members = membersOf(query);
  const byOwner = new Map<string, string[]>();
  for (const m of members) {
    for (const name of new Set([m.name, m.target])) {
      const owner = ownerOf(name);
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), name]);
    }
  }
  for (const [owner, names] of byOwner) {
    const view = model.views[owner];
    const cube = model.cubes[owner];
    if (view) apply(owner, view.accessPolicies, names);
    else if (cube) apply(owner, cube.accessPolicies, names);
  }
  return filters;
}

/**
 * Whether the caller may see a member at all (for `/meta`): its cube or view has no policies,
 * or one that applies to the caller includes it.
 */
export function memberVisible(model: CompiledModel, member: string, identity: Identity): boolean {
  const owner = ownerOf(member);
  const policies = model.views[owner]?.accessPolicies ?? model.cubes[owner]?.accessPolicies ?? [];
  if (policies.length === 0) return true;
  const applicable = matching(policies, identity);
  return applicable.length > 0 && memberAllowed(applicable, member);
}
