import { type SQL, sql } from 'drizzle-orm';
import type { AttributeType } from '../../schema/embedding';
import { runBatch } from '../core/db';
import type { Db } from '../env';
import type { EmbedAttribute, EmbedGroup } from './embedding.schemas';

/** Which catalogue: the account-wide one (`tenant: null`) or one embed tenant's, by name. */
export interface Catalogue {
  accountId: number;
  tenant: string | null;
}

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

interface GroupRow {
  id: number;
  name: string;
  description: string;
  user_count: number;
}

const toGroup = (row: GroupRow): EmbedGroup => ({
  id: row.id,
  name: row.name,
  description: row.description,
  userCount: row.user_count,
});

const groupColumns = sql`g.id, g.name, g.description,
  (SELECT count(*) FROM embed_memberships m WHERE m.group_id = g.id) AS user_count`;

/** null when the name is taken in that catalogue (the unique index decides, atomically). */
export async function insertGroup(
  db: Db,
  catalogue: Catalogue,
  input: { name: string; description?: string },
  now: string,
): Promise<EmbedGroup | null> {
  const results = await runBatch<GroupRow>(db, [
    ...ensureTenant(catalogue, now),
    sql`INSERT INTO embed_groups (account_id, tenant_id, name, description, created_at, updated_at)
      VALUES (${catalogue.accountId}, ${tenantIdValue(catalogue)}, ${input.name}, ${input.description ?? ''}, ${now}, ${now})
      ON CONFLICT DO NOTHING RETURNING id, name, description, 0 AS user_count`,
  ]);
  const row = results.at(-1)?.results[0];
  return row ? toGroup(row) : null;
}

/** The page's rows (limit + 1) and, for a tenant, whether the tenant exists: one round trip. */
export async function listGroups(
  db: Db,
  catalogue: Catalogue,
  afterId: number | null,
  limit: number,
): Promise<{ tenantFound: boolean; rows: EmbedGroup[] }> {
  const results = await runBatch(db, [
    ...tenantExists(catalogue),
    sql`SELECT ${groupColumns} FROM embed_groups g
      WHERE ${inCatalogue(catalogue, 'g')} ${afterId === null ? sql`` : sql`AND g.id > ${afterId}`}
      ORDER BY g.id LIMIT ${limit + 1}`,
  ]);
  return {
    tenantFound: catalogue.tenant === null || (results[0]?.results.length ?? 0) > 0,
    rows: ((results.at(-1)?.results ?? []) as unknown as GroupRow[]).map(toGroup),
  };
}

export type UpdateOutcome<T> = { kind: 'updated'; item: T } | { kind: 'not_found' } | { kind: 'conflict' };

/**
 * Rename and/or describe a group. The update refuses a name another group of the same
 * catalogue holds (NOT EXISTS in its WHERE); the read after it tells "not found" from
 * "name taken" and carries userCount. One batch, one round trip.
 */
export async function updateGroup(
  db: Db,
  catalogue: Catalogue,
  id: number,
  input: { name?: string; description?: string },
  now: string,
): Promise<UpdateOutcome<EmbedGroup>> {
  const [updated, current] = await runBatch(db, [
    sql`UPDATE embed_groups AS g SET
        name = coalesce(${input.name ?? null}, g.name),
        description = coalesce(${input.description ?? null}, g.description),
        updated_at = ${now}
      WHERE g.id = ${id} AND ${inCatalogue(catalogue, 'g')}
        AND NOT EXISTS (SELECT 1 FROM embed_groups o WHERE o.account_id = g.account_id
          AND o.tenant_id IS g.tenant_id AND o.name = ${input.name ?? null} AND o.id <> g.id)
      RETURNING id`,
    sql`SELECT ${groupColumns} FROM embed_groups g WHERE g.id = ${id} AND ${inCatalogue(catalogue, 'g')}`,
  ]);
  const row = current?.results[0] as GroupRow | undefined;
  if (!row) return { kind: 'not_found' };
  if ((updated?.results.length ?? 0) === 0) return { kind: 'conflict' };
  return { kind: 'updated', item: toGroup(row) };
}

/** Its memberships go with it (ON DELETE CASCADE). */
export async function deleteGroup(db: Db, catalogue: Catalogue, id: number): Promise<boolean> {
  const rows = await db.all(
    sql`DELETE FROM embed_groups AS g WHERE g.id = ${id} AND ${inCatalogue(catalogue, 'g')} RETURNING id`,
  );
  return rows.length > 0;
}

interface AttributeRow {
  id: number;
  name: string;
  type: AttributeType;
  display_name: string | null;
  default_value: string | null;
  description: string | null;
  created_at: string;
}

const toAttribute = (row: AttributeRow): EmbedAttribute => ({
  id: row.id,
  name: row.name,
  type: row.type,
  displayName: row.display_name,
  defaultValue: row.default_value,
  description: row.description,
  createdAt: row.created_at,
});

const attributeColumns = sql.raw('id, name, type, display_name, default_value, description, created_at');

export async function insertAttribute(
  db: Db,
  catalogue: Catalogue,
  input: {
    name: string;
    type: AttributeType;
    displayName?: string;
    defaultValue?: string;
    description?: string;
  },
  now: string,
): Promise<EmbedAttribute | null> {
  const results = await runBatch<AttributeRow>(db, [
    ...ensureTenant(catalogue, now),
    sql`INSERT INTO embed_attributes
        (account_id, tenant_id, name, type, display_name, default_value, description, created_at, updated_at)
      VALUES (${catalogue.accountId}, ${tenantIdValue(catalogue)}, ${input.name}, ${input.type},
        ${input.displayName ?? null}, ${input.defaultValue ?? null}, ${input.description ?? null}, ${now}, ${now})
      ON CONFLICT DO NOTHING RETURNING ${attributeColumns}`,
  ]);
  const row = results.at(-1)?.results[0];
  return row ? toAttribute(row) : null;
}

export async function listAttributes(
  db: Db,
  catalogue: Catalogue,
  afterId: number | null,
  limit: number,
): Promise<{ tenantFound: boolean; rows: EmbedAttribute[] }> {
  const results = await runBatch(db, [
    ...tenantExists(catalogue),
    sql`SELECT ${attributeColumns} FROM embed_attributes a
      WHERE ${inCatalogue(catalogue, 'a')} ${afterId === null ? sql`` : sql`AND a.id > ${afterId}`}
      ORDER BY a.id LIMIT ${limit + 1}`,
  ]);
  return {
    tenantFound: catalogue.tenant === null || (results[0]?.results.length ?? 0) > 0,
    rows: ((results.at(-1)?.results ?? []) as unknown as AttributeRow[]).map(toAttribute),
  };
}

/** Its stored values go with it (ON DELETE CASCADE). */
export async function deleteAttribute(db: Db, catalogue: Catalogue, id: number): Promise<boolean> {
  const rows = await db.all(
    sql`DELETE FROM embed_attributes AS a WHERE a.id = ${id} AND ${inCatalogue(catalogue, 'a')} RETURNING id`,
  );
  return rows.length > 0;
}

export async function listTenants(db: Db, accountId: number, afterId: number | null, limit: number) {
  const rows = await db.all<{ id: number; name: string; created_at: string }>(sql`
    SELECT id, name, created_at FROM embed_tenants
    WHERE account_id = ${accountId} ${afterId === null ? sql`` : sql`AND id > ${afterId}`}
    ORDER BY id LIMIT ${limit + 1}`);
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at }));
}
