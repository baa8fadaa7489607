import { type SQL, sql } from 'drizzle-orm';
import type { AttributeType } from '../../schema/embedding';
import { runBatch } from '../core/db';
import type { AccountScope } from '../core/scope';
import {
  type AttributeRow,
  type GroupRow,
  type TenantRow,
  toAttribute,
  toGroup,
  toTenant,
} from './embedding.rows';
import { ATTRIBUTES_PER_CATALOGUE, type EmbedAttribute, type EmbedGroup } from './embedding.schemas';

/**
 * A request about one catalogue of the account: the account-wide one (`tenant: null`) or one
 * embed tenant's, by name.
 */
export interface CatalogueScope extends AccountScope {
  tenant: string | null;
}

type Catalogue = Pick<CatalogueScope, 'accountId' | 'tenant'>;

export const tenantIdOf = (accountId: number, tenant: string): SQL =>
  sql`(SELECT id FROM embed_tenants WHERE account_id = ${accountId} AND name = ${tenant})`;

/** The rows of `catalogue` in a table aliased `alias` (every query filters by account). */
function inCatalogue(catalogue: Catalogue, alias: string): SQL {
  const a = sql.raw(alias);
  return catalogue.tenant === null
    ? sql`${a}.account_id = ${catalogue.accountId} AND ${a}.tenant_id IS NULL`
    : sql`${a}.account_id = ${catalogue.accountId} AND ${a}.tenant_id = ${tenantIdOf(catalogue.accountId, catalogue.tenant)}`;
}

const tenantIdValue = (catalogue: Catalogue): SQL =>
  catalogue.tenant === null ? sql`NULL` : tenantIdOf(catalogue.accountId, catalogue.tenant);

/** Creating in a tenant's catalogue creates the tenant first if needed (same batch). */
const ensureTenant = (catalogue: Catalogue, now: string): SQL[] =>
  catalogue.tenant === null
    ? []
    : [
        sql`INSERT INTO embed_tenants (account_id, name, created_at)
          VALUES (${catalogue.accountId}, ${catalogue.tenant}, ${now}) ON CONFLICT DO NOTHING`,
      ];

const tenantExists = (catalogue: Catalogue): SQL[] =>
  catalogue.tenant === null
    ? []
    : [
        sql`SELECT id FROM embed_tenants
          WHERE account_id = ${catalogue.accountId} AND name = ${catalogue.tenant}`,
      ];

const groupColumns = sql`c.id, c.name, c.description,
  (SELECT count(*) FROM embed_memberships m WHERE m.group_id = c.id) AS user_count`;

/** `taken` when the name is taken in that catalogue (the unique index decides, atomically). */
export async function insertGroup(
  catalogue: CatalogueScope,
  input: { name: string; description?: string },
): Promise<InsertOutcome<EmbedGroup>> {
  const { db } = catalogue;
  const now = catalogue.now.toISOString();
  const results = await runBatch<GroupRow>(db, [
    ...ensureTenant(catalogue, now),
    sql`INSERT INTO embed_groups (account_id, tenant_id, name, description, created_at, updated_at)
      VALUES (${catalogue.accountId}, ${tenantIdValue(catalogue)}, ${input.name}, ${input.description ?? ''}, ${now}, ${now})
      ON CONFLICT DO NOTHING RETURNING id, name, description, 0 AS user_count`,
  ]);
  const row = results.at(-1)?.results[0];
  return row ? { kind: 'created', item: toGroup(row) } : { kind: 'taken' };
}

export type UpdateOutcome<T> = { kind: 'updated'; item: T } | { kind: 'not_found' } | { kind: 'conflict' };

/**
 * Rename and/or describe a group. The update refuses a name another group of the same
 * catalogue holds (NOT EXISTS in its WHERE); the read after it tells "not found" from
 * "name taken" and carries userCount. One batch, one round trip.
 */
export async function updateGroup(
  catalogue: CatalogueScope,
  id: number,
  input: { name?: string; description?: string },
): Promise<UpdateOutcome<EmbedGroup>> {
  const { db } = catalogue;
  const now = catalogue.now.toISOString();
  // The UPDATE returns only the id; the read after it returns the whole group row.
  const [updated, current] = await runBatch<GroupRow>(db, [
    sql`UPDATE embed_groups AS g SET
        name = coalesce(${input.name ?? null}, g.name),
        description = coalesce(${input.description ?? null}, g.description),
        updated_at = ${now}
      WHERE g.id = ${id} AND ${inCatalogue(catalogue, 'g')}
        AND NOT EXISTS (SELECT 1 FROM embed_groups o WHERE o.account_id = g.account_id
          AND o.tenant_id IS g.tenant_id AND o.name = ${input.name ?? null} AND o.id <> g.id)
      RETURNING id`,
    sql`SELECT ${groupColumns} FROM embed_groups c WHERE c.id = ${id} AND ${inCatalogue(catalogue, 'c')}`,
  ]);
  const row = current?.results[0];
  if (!row) return { kind: 'not_found' };
  if ((updated?.results.length ?? 0) === 0) return { kind: 'conflict' };
  return { kind: 'updated', item: toGroup(row) };
}

const attributeColumns = sql.raw('id, name, type, display_name, default_value, description, created_at');

/** A create's typed result: the new item, or why there is none. */
export type InsertOutcome<T> = { kind: 'created'; item: T } | { kind: 'taken' } | { kind: 'full' };

/**
 * Defines an attribute unless its name is taken in that catalogue (the unique index decides)
 * or the catalogue already holds ATTRIBUTES_PER_CATALOGUE of them (the INSERT's own WHERE
 * decides, in the same statement, so two concurrent creates cannot pass the cap together).
 */
export async function insertAttribute(
  catalogue: CatalogueScope,
  input: {
    name: string;
    type: AttributeType;
    displayName?: string;
    defaultValue?: string;
    description?: string;
  },
): Promise<InsertOutcome<EmbedAttribute>> {
  const { db } = catalogue;
  const now = catalogue.now.toISOString();
  const results = await runBatch<AttributeRow & { n: number }>(db, [
    ...ensureTenant(catalogue, now),
    sql`INSERT INTO embed_attributes
        (account_id, tenant_id, name, type, display_name, default_value, description, created_at, updated_at)
      SELECT ${catalogue.accountId}, ${tenantIdValue(catalogue)}, ${input.name}, ${input.type},
        ${input.displayName ?? null}, ${input.defaultValue ?? null}, ${input.description ?? null}, ${now}, ${now}
      WHERE (SELECT count(*) FROM embed_attributes c WHERE ${inCatalogue(catalogue, 'c')}) < ${ATTRIBUTES_PER_CATALOGUE}
      ON CONFLICT DO NOTHING RETURNING ${attributeColumns}`,
    sql`SELECT count(*) AS n FROM embed_attributes c WHERE ${inCatalogue(catalogue, 'c')}`,
  ]);
  const row = results.at(-2)?.results[0];
  if (row) return { kind: 'created', item: toAttribute(row) };
  return (results.at(-1)?.results[0]?.n ?? 0) >= ATTRIBUTES_PER_CATALOGUE
    ? { kind: 'full' }
    : { kind: 'taken' };
}

/** Both kinds of catalogue item: their table, the columns a read selects and the mapper of their rows. */
const KINDS = {
  groups: { table: sql.raw('embed_groups'), columns: groupColumns, map: toGroup },
  attributes: { table: sql.raw('embed_attributes'), columns: attributeColumns, map: toAttribute },
};

export type CatalogueKind = keyof typeof KINDS;
export type CatalogueItem<K extends CatalogueKind> = K extends 'groups' ? EmbedGroup : EmbedAttribute;

/** The page's rows (limit + 1) of one kind and, for a tenant, whether the tenant exists: one round trip. */
export async function listItems<K extends CatalogueKind>(
  catalogue: CatalogueScope,
  kind: K,
  afterId: number | null,
  limit: number,
): Promise<{ tenantFound: boolean; rows: CatalogueItem<K>[] }> {
  const { db } = catalogue;
  const { table, columns, map } = KINDS[kind];
  // One raw row type for both kinds: each kind's mapper reads only its own columns.
  const results = await runBatch<GroupRow & AttributeRow>(db, [
    ...tenantExists(catalogue),
    sql`SELECT ${columns} FROM ${table} c
      WHERE ${inCatalogue(catalogue, 'c')} ${afterId === null ? sql`` : sql`AND c.id > ${afterId}`}
      ORDER BY c.id LIMIT ${limit + 1}`,
  ]);
  const rows = results.at(-1)?.results ?? [];
  return {
    tenantFound: catalogue.tenant === null || (results[0]?.results.length ?? 0) > 0,
    rows: rows.map((row) => map(row) as CatalogueItem<K>),
  };
}

/**
 * Deletes one item of a catalogue; false when there is none with this id there. A group's
 * memberships and an attribute's stored values go with it (ON DELETE CASCADE).
 */
export async function deleteItem(
  catalogue: CatalogueScope,
  kind: CatalogueKind,
  id: number,
): Promise<boolean> {
  const rows = await catalogue.db.all(
    sql`DELETE FROM ${KINDS[kind].table} AS c WHERE c.id = ${id} AND ${inCatalogue(catalogue, 'c')} RETURNING id`,
  );
  return rows.length > 0;
}

/** One group of a catalogue with its member count; null when there is none with this id there. */
export async function findGroup(catalogue: CatalogueScope, id: number): Promise<EmbedGroup | null> {
  const rows = await catalogue.db.all<GroupRow>(
    sql`SELECT ${groupColumns} FROM embed_groups c WHERE c.id = ${id} AND ${inCatalogue(catalogue, 'c')}`,
  );
  return rows[0] ? toGroup(rows[0]) : null;
}

/**
 * Cube's PUT of a user attribute: displayName, defaultValue, description (name and type never
 * change). Omitted keeps a field, null clears it. null when there is no such attribute.
 */
export async function updateAttribute(
  catalogue: CatalogueScope,
  id: number,
  input: { displayName?: string | null; defaultValue?: string | null; description?: string | null },
): Promise<EmbedAttribute | null> {
  const { db } = catalogue;
  const now = catalogue.now.toISOString();
  const column = (given: string | null | undefined, name: string) =>
    given === undefined ? sql.raw(name) : sql`${given}`;
  const rows = await db.all<AttributeRow>(sql`
    UPDATE embed_attributes AS c SET
      display_name = ${column(input.displayName, 'display_name')},
      default_value = ${column(input.defaultValue, 'default_value')},
      description = ${column(input.description, 'description')},
      updated_at = ${now}
    WHERE c.id = ${id} AND ${inCatalogue(catalogue, 'c')}
    RETURNING ${attributeColumns}`);
  return rows[0] ? toAttribute(rows[0]) : null;
}

/** Cube's filters of the attribute list: a substring of the name, the type. */
export interface AttributeFilter {
  name?: string;
  type?: AttributeType;
}

/**
 * A page of one catalogue's attributes matching `filter`, and how many match in all (Cube's
 * `count`). A catalogue holds at most ATTRIBUTES_PER_CATALOGUE, so the count reads few rows.
 */
export async function listAttributes(
  catalogue: CatalogueScope,
  filter: AttributeFilter,
  afterId: number | null,
  limit: number,
): Promise<{ tenantFound: boolean; rows: EmbedAttribute[]; count: number }> {
  const matches = sql`${inCatalogue(catalogue, 'c')}
    ${filter.name === undefined ? sql`` : sql`AND instr(lower(c.name), lower(${filter.name})) > 0`}
    ${filter.type === undefined ? sql`` : sql`AND c.type = ${filter.type}`}`;
  const results = await runBatch<AttributeRow & { n: number }>(catalogue.db, [
    ...tenantExists(catalogue),
    sql`SELECT ${attributeColumns} FROM embed_attributes c
      WHERE ${matches} ${afterId === null ? sql`` : sql`AND c.id > ${afterId}`}
      ORDER BY c.id LIMIT ${limit + 1}`,
    sql`SELECT count(*) AS n FROM embed_attributes c WHERE ${matches}`,
  ]);
  return {
    tenantFound: catalogue.tenant === null || (results[0]?.results.length ?? 0) > 0,
    rows: (results.at(-2)?.results ?? []).map(toAttribute),
    count: results.at(-1)?.results[0]?.n ?? 0,
  };
}

export async function listTenantsMatching(
  { db, accountId }: AccountScope,
  search: string | undefined,
  afterId: number | null,
  limit: number,
) {
  const rows = await db.all<TenantRow & { user_count: number }>(sql`
    SELECT t.id, t.name, t.created_at,
      (SELECT count(*) FROM embed_users u WHERE u.tenant_id = t.id) AS user_count
    FROM embed_tenants t
    WHERE t.account_id = ${accountId}
      ${search === undefined ? sql`` : sql`AND instr(t.name, lower(${search})) > 0`}
      ${afterId === null ? sql`` : sql`AND t.id > ${afterId}`}
    ORDER BY t.id LIMIT ${limit + 1}`);
  return rows.map((row) => ({ ...toTenant(row), userCount: row.user_count, displayName: null }));
}

/**
 * Deletes a tenant with everything in it (users, groups, attributes, values and memberships
 * cascade) and, in the same batch, records the revocation of all its sessions until the
 * longest of them would have expired. null when the account has no such tenant.
 */
export async function deleteTenant(scope: AccountScope, name: string): Promise<number | null> {
  const { db, accountId } = scope;
  const now = scope.now.toISOString();
  const tenant = tenantIdOf(accountId, name);
  const [, deleted] = await runBatch<{ id: number }>(db, [
    sql`INSERT INTO embed_session_revocations (session_id, account_id, expires_at, revoked_at)
      SELECT 'tenant:' || t.id, t.account_id,
        strftime('%Y-%m-%dT%H:%M:%fZ', ${now}, '+' || a.embed_session_ttl_seconds || ' seconds'), ${now}
      FROM embed_tenants t JOIN accounts a ON a.id = t.account_id
      WHERE t.id = ${tenant}
      ON CONFLICT DO NOTHING`,
    sql`DELETE FROM embed_tenants WHERE account_id = ${accountId} AND name = ${name} RETURNING id`,
  ]);
  return deleted?.results[0]?.id ?? null;
}

/** Cube's EmbedUser as a row gives it. */
export interface EmbedUserRow {
  id: number;
  external_id: string;
  email: string | null;
  display_name: string | null;
  created_at: string;
}

export const toEmbedUser = (row: EmbedUserRow) => ({
  id: row.id,
  username: row.external_id,
  externalId: row.external_id,
  email: row.email,
  firstName: row.display_name,
  createdAt: row.created_at,
  lastLogin: null,
});

/**
 * A page of a group's members, newest user first (memberships carry no date), and whether the
 * group exists in the catalogue: one round trip, served by the membership index.
 */
export async function listGroupMembers(
  catalogue: CatalogueScope,
  groupId: number,
  beforeId: number | null,
  limit: number,
) {
  const [group, members] = await runBatch<EmbedUserRow>(catalogue.db, [
    sql`SELECT c.id FROM embed_groups c WHERE c.id = ${groupId} AND ${inCatalogue(catalogue, 'c')}`,
    sql`SELECT u.id, u.external_id, u.email, u.display_name, u.created_at
      FROM embed_memberships m JOIN embed_users u ON u.id = m.user_id
      WHERE m.group_id = ${groupId} AND u.account_id = ${catalogue.accountId}
        ${beforeId === null ? sql`` : sql`AND m.user_id < ${beforeId}`}
      ORDER BY m.user_id DESC LIMIT ${limit + 1}`,
  ]);
  return {
    groupFound: (group?.results.length ?? 0) > 0,
    rows: (members?.results ?? []).map(toEmbedUser),
  };
}

/** A page of a tenant's users ordered by id, optionally matching a substring of email or externalId. */
export async function listTenantUsers(
  { db, accountId }: AccountScope,
  tenant: string,
  search: string | undefined,
  afterId: number | null,
  limit: number,
) {
  const [found, users] = await runBatch<EmbedUserRow>(db, [
    sql`SELECT id FROM embed_tenants WHERE account_id = ${accountId} AND name = ${tenant}`,
    sql`SELECT u.id, u.external_id, u.email, u.display_name, u.created_at FROM embed_users u
      WHERE u.tenant_id = ${tenantIdOf(accountId, tenant)}
        ${
          search === undefined
            ? sql``
            : sql`AND (instr(u.external_id, lower(${search})) > 0 OR instr(lower(coalesce(u.email, '')), lower(${search})) > 0)`
        }
        ${afterId === null ? sql`` : sql`AND u.id > ${afterId}`}
      ORDER BY u.id LIMIT ${limit + 1}`,
  ]);
  return { tenantFound: (found?.results.length ?? 0) > 0, rows: (users?.results ?? []).map(toEmbedUser) };
}

/** Who a member change names: embed user ids and externalIds of the tenant. */
export interface MemberRefs {
  embedUserIds: number[];
  externalIds: string[];
}

/**
 * The tenant users `refs` name, each with whether it is a member of the group, and whether the
 * group is in this tenant's catalogue: one round trip. The id lists travel as JSON (one bind
 * each), so 1,000 members stay within D1's bound parameters.
 */
export async function readMembers(catalogue: CatalogueScope, groupId: number, refs: MemberRefs) {
  const [group, users] = await runBatch<EmbedUserRow & { member: number }>(catalogue.db, [
    sql`SELECT c.id FROM embed_groups c WHERE c.id = ${groupId} AND ${inCatalogue(catalogue, 'c')}`,
    sql`SELECT u.id, u.external_id, u.email, u.display_name, u.created_at,
        EXISTS (SELECT 1 FROM embed_memberships m WHERE m.user_id = u.id AND m.group_id = ${groupId}) AS member
      FROM embed_users u
      WHERE u.tenant_id = ${tenantIdValue(catalogue)}
        AND (u.id IN (SELECT value FROM json_each(${JSON.stringify(refs.embedUserIds)}))
          OR u.external_id IN (SELECT value FROM json_each(${JSON.stringify(refs.externalIds)})))`,
  ]);
  return {
    groupFound: (group?.results.length ?? 0) > 0,
    users: (users?.results ?? []).map((row) => ({ ...toEmbedUser(row), member: row.member === 1 })),
  };
}

/** Adds or removes memberships of users of the group's own tenant (ids already resolved). */
export async function changeMembers(
  catalogue: CatalogueScope,
  groupId: number,
  userIds: number[],
  change: 'add' | 'remove',
): Promise<void> {
  const ids = JSON.stringify(userIds);
  await catalogue.db.run(
    change === 'add'
      ? sql`INSERT INTO embed_memberships (user_id, group_id)
          SELECT u.id, c.id FROM embed_groups c JOIN embed_users u ON u.tenant_id = c.tenant_id
          WHERE c.id = ${groupId} AND ${inCatalogue(catalogue, 'c')}
            AND u.id IN (SELECT value FROM json_each(${ids}))
          ON CONFLICT DO NOTHING`
      : sql`DELETE FROM embed_memberships
          WHERE group_id = (SELECT c.id FROM embed_groups c WHERE c.id = ${groupId} AND ${inCatalogue(catalogue, 'c')})
            AND user_id IN (SELECT value FROM json_each(${ids}))`,
  );
}
