import type { AccountPrincipal } from '../auth/principal';
import { ApiError, conflict, notFound } from '../core/errors';
import { afterId, type PageRequest, toPage } from '../core/pagination';
import type { Db } from '../env';
import type { Catalogue } from './catalogues.repository';
import * as repo from './catalogues.repository';

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

export async function createGroup(
  db: Db,
  catalogue: Catalogue,
  input: { name: string; description?: string },
  now: string,
) {
  const group = await repo.insertGroup(db, catalogue, input, now);
  if (!group) throw conflict(`A group named "${input.name}" already exists in ${where(catalogue)}`);
  return group;
}

export async function listGroups(db: Db, catalogue: Catalogue, request: PageRequest) {
  const { tenantFound, rows } = await repo.listGroups(db, catalogue, afterId(request), request.limit);
  if (!tenantFound) throw tenantNotFound();
  return toPage(
    rows,
    request,
    'embed-groups',
    (g) => [g.id],
    (g) => g,
  );
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

export async function deleteGroup(db: Db, catalogue: Catalogue, id: number) {
  if (!(await repo.deleteGroup(db, catalogue, id))) throw notFound('Group');
  return { id, deleted: true as const };
}

export async function createAttribute(
  db: Db,
  catalogue: Catalogue,
  input: Parameters<typeof repo.insertAttribute>[2],
  now: string,
) {
  const attribute = await repo.insertAttribute(db, catalogue, input, now);
  if (!attribute)
    throw conflict(`A user attribute named "${input.name}" already exists in ${where(catalogue)}`);
  return attribute;
}

export async function listAttributes(db: Db, catalogue: Catalogue, request: PageRequest) {
  const { tenantFound, rows } = await repo.listAttributes(db, catalogue, afterId(request), request.limit);
  if (!tenantFound) throw tenantNotFound();
  return toPage(
    rows,
    request,
    'embed-attributes',
    (a) => [a.id],
    (a) => a,
  );
}

export async function deleteAttribute(db: Db, catalogue: Catalogue, id: number) {
  if (!(await repo.deleteAttribute(db, catalogue, id))) throw notFound('User attribute');
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
