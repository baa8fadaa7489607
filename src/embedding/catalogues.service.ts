import { requireAccountWide } from '../auth/auth.middleware';
import { ApiError, conflict, notFound, orNotFound } from '../core/errors';
import { idCursor, idPage, type PageRequest } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import type { CatalogueItem, CatalogueKind, CatalogueScope } from './catalogues.repository';
import * as repo from './catalogues.repository';
import * as tenants from './embed-tenants.repository';
import { ATTRIBUTES_PER_CATALOGUE } from './embedding.schemas';

const where = (tenant: string | null) =>
  tenant === null ? 'the account-wide catalogue' : `embed tenant "${tenant}"`;

const tenantNotFound = () => notFound('Embed tenant');

/**
 * The account-wide catalogue rules row-level security in every deployment, so only a caller
 * acting for the whole account may change it: a key scoped to some deployments gets 403
 * KEY_SCOPE. Tenant catalogues are not deployment-bound and stay open to every key.
 */
export function requireCatalogueWrite(scope: CatalogueScope): void {
  if (scope.tenant === null) requireAccountWide(scope.principal);
}

/** A catalogue (a tenant's, or null: the account-wide one) at ATTRIBUTES_PER_CATALOGUE: a session carries at most that many attribute values. */
export const catalogueFull = (tenant: string | null) =>
  conflict(`${where(tenant)} already holds its maximum of ${ATTRIBUTES_PER_CATALOGUE} user attributes`);

/** What creating an item of each kind takes (the bodies of the create routes). */
export interface CreateInputs {
  groups: { name: string; description?: string };
  attributes: Parameters<typeof repo.insertAttribute>[1];
}

/** Creates a group or an attribute; a name taken in that catalogue is a 409. */
export async function createItem<K extends CatalogueKind>(
  scope: CatalogueScope,
  kind: K,
  input: CreateInputs[K],
): Promise<CatalogueItem<K>> {
  const outcome =
    kind === 'groups'
      ? await repo.insertGroup(scope, input)
      : await repo.insertAttribute(scope, input as CreateInputs['attributes']);
  if (outcome.kind === 'taken')
    throw conflict(`A ${LABELS[kind].noun} named "${input.name}" already exists in ${where(scope.tenant)}`);
  if (outcome.kind === 'full') throw catalogueFull(scope.tenant);
  return outcome.item as CatalogueItem<K>;
}

export async function updateGroup(
  scope: CatalogueScope,
  id: number,
  input: { name?: string; description?: string },
) {
  if (input.name === undefined && input.description === undefined) return getGroup(scope, id);
  const outcome = await repo.updateGroup(scope, id, input);
  if (outcome.kind === 'not_found') throw notFound('Group');
  if (outcome.kind === 'conflict')
    throw conflict(`A group named "${input.name}" already exists in ${where(scope.tenant)}`);
  return outcome.item;
}

/** How each kind of item is named in errors and cursors. */
const LABELS = {
  groups: { what: 'Group', noun: 'group', cursor: 'embed-groups' },
  attributes: { what: 'User attribute', noun: 'user attribute', cursor: 'embed-attributes' },
} as const satisfies Record<CatalogueKind, { what: string; noun: string; cursor: string }>;

/** The cursor tag of a kind's pages (the route parses `after` with it). */
export const cursorOf = (kind: CatalogueKind): string => LABELS[kind].cursor;

/** A page of groups or attributes of one catalogue; an unknown tenant is a 404. */
export async function listItems<K extends CatalogueKind>(
  scope: CatalogueScope,
  kind: K,
  request: PageRequest,
) {
  const { tenantFound, rows } = await repo.listItems(scope, kind, idCursor(request));
  if (!tenantFound) throw tenantNotFound();
  return idPage(rows, request, cursorOf(kind));
}

/** Deletes a group (with its memberships) or an attribute (with its stored values). */
export async function deleteItem(scope: CatalogueScope, kind: CatalogueKind, id: number) {
  if (!(await repo.deleteItem(scope, kind, id))) throw notFound(LABELS[kind].what);
  return { id, deleted: true as const };
}

export async function getGroup(scope: CatalogueScope, id: number) {
  return orNotFound(await repo.findGroup(scope, id), 'Group');
}

export async function updateAttribute(
  scope: CatalogueScope,
  id: number,
  input: Parameters<typeof repo.updateAttribute>[2],
) {
  const attribute = await repo.updateAttribute(scope, id, input);
  if (!attribute) throw notFound('User attribute');
  return attribute;
}

/** Cube's UserAttributesListResponse: the page, the same items as `data` (legacy), the total `count`. */
export async function listAttributes(
  scope: CatalogueScope,
  filter: repo.AttributeFilter,
  request: PageRequest,
) {
  const { tenantFound, rows, count } = await repo.listAttributes(scope, filter, idCursor(request));
  if (!tenantFound) throw tenantNotFound();
  const page = idPage(rows, request, cursorOf('attributes'));
  return { ...page, data: page.items, count };
}

export async function listTenantsMatching(
  scope: AccountScope,
  search: string | undefined,
  request: PageRequest,
) {
  const rows = await tenants.listTenantsMatching(scope, search, idCursor(request));
  return idPage(rows, request, 'embed-tenants');
}

/** Idempotent, as in Cube: an unknown tenant answers `deleted: false`. */
export async function deleteTenant(scope: AccountScope, name: string) {
  const id = await tenants.deleteTenant(scope, name);
  return { name, deleted: id !== null };
}

export async function listGroupMembers(scope: CatalogueScope, groupId: number, request: PageRequest) {
  const { groupFound, rows } = await tenants.listGroupMembers(scope, groupId, idCursor(request));
  if (!groupFound) throw notFound('Group');
  return idPage(rows, request, 'embed-group-members');
}

export async function listTenantUsers(
  scope: AccountScope,
  tenant: string,
  search: string | undefined,
  request: PageRequest,
) {
  const { tenantFound, rows } = await tenants.listTenantUsers(scope, tenant, search, idCursor(request));
  if (!tenantFound) throw tenantNotFound();
  return idPage(rows, request, 'embed-tenant-users');
}

/** Cube's EmbedGroupMembersInput entry: a member named by exactly one of its ids (the other omitted or null). */
export type MemberRef = { embedUserId?: number | null; externalId?: string | null };

/**
 * Cube's addGroupMembers on a tenant group: adds, never replaces, idempotent; answers the added
 * and the unchanged members. Unknown users are a 404 naming them (edgeboard does not provision
 * users here: generate-session and provisionEmbedUser(s) do).
 */
export async function addGroupMembers(scope: CatalogueScope, groupId: number, members: MemberRef[]) {
  const { users, changed } = await changeGroupMembers(scope, groupId, members, 'add');
  return {
    addedMembers: changed.map(presentMember),
    unchangedMembers: users.filter((u) => u.member).map(presentMember),
  };
}

/** Cube's removeGroupMembers: removing a non-member is a no-op. Answers how many were removed. */
export async function removeGroupMembers(scope: CatalogueScope, groupId: number, members: MemberRef[]) {
  const { changed } = await changeGroupMembers(scope, groupId, members, 'remove');
  return { removed: changed.length };
}

type MemberRow = Awaited<ReturnType<typeof tenants.readMembers>>['users'][number];
const presentMember = ({ member: _member, ...user }: MemberRow) => user;

/** Reads the named users (a 404 names any unknown one), then adds or removes those it changes. */
async function changeGroupMembers(
  scope: CatalogueScope,
  groupId: number,
  members: MemberRef[],
  change: 'add' | 'remove',
) {
  const refs = {
    embedUserIds: members.flatMap((m) => (m.embedUserId == null ? [] : [m.embedUserId])),
    externalIds: members.flatMap((m) => (m.externalId == null ? [] : [m.externalId])),
  };
  const { groupFound, users } = await tenants.readMembers(scope, groupId, refs);
  if (!groupFound) throw notFound('Group');
  const byId = new Set(users.map((u) => u.id));
  const byExternal = new Set(users.map((u) => u.externalId));
  const unknown = members.flatMap((m, i) =>
    (m.embedUserId != null && !byId.has(m.embedUserId)) ||
    (m.externalId != null && !byExternal.has(m.externalId))
      ? [{ path: `members.${i}`, message: 'No such embed user in this tenant' }]
      : [],
  );
  if (unknown.length > 0) throw new ApiError('NOT_FOUND', 'Embed users not found', unknown);
  const changed = users.filter((u) => (change === 'add' ? !u.member : u.member));
  if (changed.length > 0)
    await tenants.changeMembers(
      scope,
      groupId,
      changed.map((u) => u.id),
      change,
    );
  return { users, changed };
}
