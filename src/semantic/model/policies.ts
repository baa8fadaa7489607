import { isMap, isScalar, type Node } from 'yaml';
import { FILTER_OPERATORS } from '../query/query.types';
import type { AccessPolicy, PolicyFilter, PolicyValue } from './model.types';
import type { Fields, YamlFile } from './yaml-reader';

/** The cube or view a policy belongs to: its name and its members' own names. */
export interface PolicySubject {
  kind: 'cube' | 'view';
  name: string;
  members: ReadonlySet<string>;
}

const POLICY_KEYS = {
  allowed: ['group', 'groups', 'row_level', 'member_level'],
  unsupported: ['role', 'roles', 'conditions'],
};
const ROW_LEVEL_KEYS = { allowed: ['filters', 'allow_all'] };
const MEMBER_LEVEL_KEYS = { allowed: ['includes', 'excludes'] };
const FILTER_KEYS = { allowed: ['member', 'operator', 'values', 'and', 'or'] };
const VALUELESS_OPERATORS = ['set', 'notSet'];

/** A value taken from the caller: `{ securityContext.a.b }` or `{ userAttributes.x }`. */
const CALLER_VALUE =
  /^\{\s*(securityContext((?:\.[A-Za-z_][A-Za-z0-9_]*)+)|userAttributes\.([A-Za-z_][A-Za-z0-9_]*))\s*\}$/;

/** Reads a cube's or view's `access_policy` list; member names come out qualified (`Cube.member`). */
export function readPolicies(file: YamlFile, node: Node | null, subject: PolicySubject): AccessPolicy[] {
  const what = `${subject.kind} "${subject.name}": access_policy`;
  const items = file.sequence(node, what) ?? [];
  const policies: AccessPolicy[] = [];
  for (const item of items) {
    const fields = file.mapping(item, what, POLICY_KEYS);
    if (!fields) continue;
    const policy: AccessPolicy = { groups: readGroups(fields), position: fields.position };
    const rowLevel = readRowLevel(fields, subject);
    if (rowLevel) policy.rowLevel = rowLevel;
    const memberLevel = readMemberLevel(fields, subject);
    if (memberLevel) policy.memberLevel = memberLevel;
    policies.push(policy);
  }
  return policies;
}

function readGroups(fields: Fields): string[] {
  if (fields.has('group') && fields.has('groups')) {
    fields.error('groups', 'give group or groups, not both');
    return ['*'];
  }
  let groups: string[] = ['*'];
  if (fields.has('group')) {
    const group = fields.string('group');
    if (group !== undefined) groups = [group];
  } else if (fields.has('groups')) {
    groups = (fields.sequence('groups') ?? [])
      .map((node) => fields.file.text(node, `${fields.what}: groups`))
      .filter((group): group is string => group !== undefined);
    if (groups.length === 0) fields.error('groups', 'groups must name at least one group (or "*")');
  }
  return groups.includes('*') ? ['*'] : groups;
}

function readRowLevel(fields: Fields, subject: PolicySubject): AccessPolicy['rowLevel'] {
  const rowLevel = fields.mapping('row_level', `${fields.what}: row_level`, ROW_LEVEL_KEYS);
  if (!rowLevel) return undefined;
  if (rowLevel.has('filters') === rowLevel.has('allow_all')) {
    rowLevel.error(null, 'give either filters or allow_all: true');
    return undefined;
  }
  if (rowLevel.has('allow_all')) {
    if (rowLevel.boolean('allow_all') === true) return { allowAll: true };
    rowLevel.error('allow_all', 'allow_all must be true (leave out row_level to allow every row)');
    return undefined;
  }
  const nodes = rowLevel.sequence('filters') ?? [];
  return { filters: readFilters(fields.file, nodes, `${rowLevel.what}: filters`, subject) };
}

function readFilters(file: YamlFile, nodes: Node[], what: string, subject: PolicySubject): PolicyFilter[] {
  const filters: PolicyFilter[] = [];
  for (const node of nodes) {
    const filter = readFilter(file, node, what, subject);
    if (filter) filters.push(filter);
  }
  return filters;
}

function readFilter(
  file: YamlFile,
  node: Node,
  what: string,
  subject: PolicySubject,
): PolicyFilter | undefined {
  const fields = file.mapping(node, what, FILTER_KEYS);
  if (!fields) return undefined;
  for (const logical of ['and', 'or'] as const) {
    if (!fields.has(logical)) continue;
    if (['member', 'operator', 'values', logical === 'and' ? 'or' : 'and'].some((key) => fields.has(key))) {
      fields.error(null, `a filter with ${logical} holds nothing else`);
      return undefined;
    }
    const inner = readFilters(file, fields.sequence(logical) ?? [], `${what}: ${logical}`, subject);
    return logical === 'and' ? { and: inner } : { or: inner };
  }
  const memberName = fields.string('member', true);
  const operator = fields.string('operator', true);
  const member = memberName === undefined ? undefined : qualify(fields, 'member', memberName, subject);
  if (operator !== undefined && !(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    fields.error(
      'operator',
      `unknown operator "${operator}" (expected one of: ${FILTER_OPERATORS.join(', ')})`,
    );
    return undefined;
  }
  const values = readValues(fields);
  if (member === undefined || operator === undefined || values === undefined) return undefined;
  if (VALUELESS_OPERATORS.includes(operator) ? values.length > 0 : values.length === 0) {
    fields.error(
      fields.has('values') ? 'values' : null,
      VALUELESS_OPERATORS.includes(operator) ? `${operator} takes no values` : `${operator} needs values`,
    );
    return undefined;
  }
  return { member, operator, values };
}

function readValues(fields: Fields): PolicyValue[] | undefined {
  if (!fields.has('values')) return [];
  const nodes = fields.sequence('values');
  if (nodes === undefined) return undefined;
  const values: PolicyValue[] = [];
  let ok = true;
  for (const node of nodes) {
    const value = readValue(fields.file, node, `${fields.what}: values`);
    if (value) values.push(value);
    else ok = false;
  }
  return ok ? values : undefined;
}

function readValue(file: YamlFile, node: Node, what: string): PolicyValue | undefined {
  // `{ securityContext.x }` left unquoted is a YAML flow mapping with one empty entry: take it too.
  if (isMap(node) && node.items.length === 1 && isScalar(node.items[0]?.key)) {
    const entry = node.items[0];
    const key = entry?.key;
    if (
      isScalar(key) &&
      typeof key.value === 'string' &&
      (entry?.value == null || (isScalar(entry.value) && entry.value.value === null))
    ) {
      return readValueText(file, node, `{ ${key.value} }`, what);
    }
  }
  if (isScalar(node) && (typeof node.value === 'number' || typeof node.value === 'boolean')) {
    return { literal: String(node.value) };
  }
  if (isScalar(node) && typeof node.value === 'string') return readValueText(file, node, node.value, what);
  file.error(node, `${what}: each value must be a string, a number or a boolean`);
  return undefined;
}

function readValueText(file: YamlFile, node: Node, text: string, what: string): PolicyValue | undefined {
  if (!text.includes('{') && !text.includes('}')) return { literal: text };
  const match = CALLER_VALUE.exec(text);
  if (match?.[2]) return { securityContext: match[2].slice(1).split('.') };
  if (match?.[3]) return { userAttribute: match[3] };
  file.error(
    node,
    `${what}: "${text}" is neither a literal nor { securityContext.path } or { userAttributes.name }`,
  );
  return undefined;
}

function readMemberLevel(fields: Fields, subject: PolicySubject): AccessPolicy['memberLevel'] {
  const memberLevel = fields.mapping('member_level', `${fields.what}: member_level`, MEMBER_LEVEL_KEYS);
  if (!memberLevel) return undefined;
  let includes: string[] | '*' = '*';
  if (memberLevel.has('includes')) {
    const node = memberLevel.value('includes');
    includes = isScalar(node) && node.value === '*' ? '*' : readMemberNames(memberLevel, 'includes', subject);
  }
  const excludes = memberLevel.has('excludes') ? readMemberNames(memberLevel, 'excludes', subject) : [];
  return { includes, excludes };
}

function readMemberNames(fields: Fields, key: string, subject: PolicySubject): string[] {
  const names: string[] = [];
  for (const node of fields.sequence(key) ?? []) {
    const name = fields.file.text(node, `${fields.what}: ${key}`);
    if (name === undefined) continue;
    const qualified = qualifyAt(fields.file, node, fields.what, name, subject);
    if (qualified) names.push(qualified);
  }
  return names;
}

function qualify(fields: Fields, key: string, name: string, subject: PolicySubject): string | undefined {
  return qualifyAt(fields.file, fields.value(key) ?? fields.node, fields.what, name, subject);
}

/** `member` or `Subject.member` → `Subject.member`, when the subject has that member. */
function qualifyAt(
  file: YamlFile,
  node: Node,
  what: string,
  name: string,
  subject: PolicySubject,
): string | undefined {
  const parts = name.split('.');
  const [owner, member] = parts.length === 2 ? parts : [subject.name, parts[0]];
  if (parts.length > 2 || owner !== subject.name) {
    file.error(
      node,
      `${what}: "${name}" is not a member of ${subject.kind} "${subject.name}" (a policy may only name its own members)`,
    );
    return undefined;
  }
  if (member === undefined || !subject.members.has(member)) {
    file.error(node, `${what}: ${subject.kind} "${subject.name}" has no member "${member}"`);
    return undefined;
  }
  return `${subject.name}.${member}`;
}
