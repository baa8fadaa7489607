import type { AccountPrincipal } from '../auth/principal';
import { ApiError, conflict, notFound } from '../core/errors';
import { afterId, type PageRequest, toPage } from '../core/pagination';
import type { Db } from '../env';
import type { Catalogue, CatalogueItem, CatalogueKind } from './catalogues.repository';
import * as repo from './catalogues.repository';
import { ATTRIBUTES_PER_CATALOGUE } from './embedding.schemas';

const where = (catalogue: Catalogue) =>
  catalogue.tenant === null ? 'the account-wide catalogue' : `embed tenant "${catalogue.tenant}"`;

const tenantNotFound = () => notFound('Embed tenant');

/**
 * The account-wide catalogue rules row-level security in every deployment, so only a caller
 * acting for the whole account may change it: a key scoped to some deployments gets 403
 * KEY_SCOPE. Tenant catalogues are not deployment-bound and stay open to every key.
 */
export function requireCatalogueWrite(principal: AccountPrincipal, catalogue: Catalogue): void {
  if (catalogue.tenant === null && principal.kind === 'apiKey' && principal.deploymentIds !== null) {
    throw new ApiError(
      'KEY_SCOPE',
      'This API key is scoped to deployments; account-wide groups and user attributes need an account-wide key',
    );
  }
}

/** A catalogue at ATTRIBUTES_PER_CATALOGUE: a session carries at most that many attribute values. */
export const catalogueFull = (catalogue: Catalogue) =>
  conflict(`${where(catalogue)} already holds its maximum of ${ATTRIBUTES_PER_CATALOGUE} user attributes`);

/** What creating an item of each kind takes (the bodies of the create routes). */
export interface CreateInputs {
  groups: { name: string; description?: string };
  attributes: Parameters<typeof repo.insertAttribute>[2];
}

/** Creates a group or an attribute; a name taken in that catalogue is a 409. */
export async function createItem<K extends CatalogueKind>(
  db: Db,
  kind: K,
  catalogue: Catalogue,
  input: CreateInputs[K],
  now: string,
): Promise<CatalogueItem<K>> {
  const outcome =
    kind === 'groups'
      ? await repo.insertGroup(db, catalogue, input, now)
      : await repo.insertAttribute(db, catalogue, input as CreateInputs['attributes'], now);
  if (outcome.kind === 'taken')
    throw conflict(`A ${LABELS[kind].noun} named "${input.name}" already exists in ${where(catalogue)}`);
  if (outcome.kind === 'full') throw catalogueFull(catalogue);
  return outcome.item as CatalogueItem<K>;
}

export async function updateGroup(
  db: Db,
  catalogue: Catalogue,
  id: number,
  input: { name?: string; description?: string },
  now: string,
) {
  const outcome = await repo.updateGroup(db, catalogue, id, input, now);
  if (outcome.kind === 'not_found') throw notFound('Group');
  if (outcome.kind === 'conflict')
    throw conflict(`A group named "${input.name}" already exists in ${where(catalogue)}`);
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
  db: Db,
  kind: K,
  catalogue: Catalogue,
  request: PageRequest,
) {
  const { tenantFound, rows } = await repo.listItems(db, kind, catalogue, afterId(request), request.limit);
  if (!tenantFound) throw tenantNotFound();
  return toPage(
    rows,
    request,
    cursorOf(kind),
    (item) => [item.id],
    (item) => item,
  );
}

/** Deletes a group (with its memberships) or an attribute (with its stored values). */
export async function deleteItem(db: Db, kind: CatalogueKind, catalogue: Catalogue, id: number) {
  if (!(await repo.deleteItem(db, kind, catalogue, id))) throw notFound(LABELS[kind].what);
  return { id, deleted: true as const };
}

export async function listTenants(db: Db, accountId: number, request: PageRequest) {
  const rows = await repo.listTenants(db, accountId, afterId(request), request.limit);
  return toPage(
    rows,
    request,
    'embed-tenants',
    (t) => [t.id],
    (t) => t,
  );
}
