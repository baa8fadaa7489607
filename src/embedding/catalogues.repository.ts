import {
  type AnyColumn,
  and,
  asc,
  type Column,
  count,
  eq,
  gt,
  isNull,
  ne,
  notExists,
  type SQL,
  sql,
} from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import {
  type AttributeType,
  embedAttributes,
  embedGroups,
  embedMemberships,
  embedTenants,
} from '../../schema/embedding';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { IdCursor } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import type { EmbedAttribute, EmbedGroup } from './catalogues.schemas';
import { attributeOf, toAttribute, toGroup } from './embedding.rows';
import { ATTRIBUTES_PER_CATALOGUE } from './embedding.schemas';

/**
 * A request about one catalogue of the account: the account-wide one (`tenant: null`) or one
 * embed tenant's, by name.
 */
export interface CatalogueScope extends AccountScope {
  tenant: string | null;
}

/** The id of the account's embed tenant `name`, as a subquery: NULL when there is none. */
export const tenantIdOf = ({ db, accountId }: AccountScope, name: string) =>
  db
    .select({ id: embedTenants.id })
    .from(embedTenants)
    .where(and(eq(embedTenants.accountId, accountId), eq(embedTenants.name, name)));

/** A table of catalogue items (groups, attributes, or an alias of one). */
type CatalogueTable = { accountId: Column; tenantId: Column };

/** The rows of the scope's catalogue in `table` (every query filters by account). */
export function inCatalogue(scope: CatalogueScope, table: CatalogueTable): SQL {
  return and(
    eq(table.accountId, scope.accountId),
    scope.tenant === null ? isNull(table.tenantId) : eq(table.tenantId, tenantIdOf(scope, scope.tenant)),
  ) as SQL;
}

/** The catalogue's tenant id as a value: NULL for the account-wide catalogue (and for a tenant not created yet). */
export const tenantIdValue = (scope: CatalogueScope): SQL =>
  // A literal NULL and a subquery, neither of which a column's value type admits.
  scope.tenant === null ? sql`NULL` : sql`${tenantIdOf(scope, scope.tenant)}`;

/** Creating in a tenant's catalogue creates the tenant first if needed (same batch). */
const ensureTenant = (scope: CatalogueScope) =>
  scope.tenant === null
    ? []
    : [
        scope.db
          .insert(embedTenants)
          .values({ accountId: scope.accountId, name: scope.tenant, createdAt: scope.now.toISOString() })
          .onConflictDoNothing(),
      ];

/** For a tenant's catalogue, the statement telling whether the tenant exists (it comes first in a batch). */
const tenantExists = (scope: CatalogueScope) =>
  scope.tenant === null ? [] : [tenantIdOf(scope, scope.tenant)];

/** A group's columns and its member count, aliased for the rows of a batch. */
const groupColumns = (db: Db) => ({
  id: embedGroups.id,
  name: embedGroups.name,
  description: embedGroups.description,
  userCount: db.$count(embedMemberships, eq(embedMemberships.groupId, embedGroups.id)).as('user_count'),
});

/** A create's typed result: the new item, or why there is none. */
export type InsertOutcome<T> = { kind: 'created'; item: T } | { kind: 'taken' } | { kind: 'full' };

/** `taken` when the name is taken in that catalogue (the unique index decides, atomically). */
export async function insertGroup(
  scope: CatalogueScope,
  input: { name: string; description?: string },
): Promise<InsertOutcome<EmbedGroup>> {
  const { db } = scope;
  const now = scope.now.toISOString();
  const results = await runBatch(db, [
    ...ensureTenant(scope),
    db
      .insert(embedGroups)
      .values({
        accountId: scope.accountId,
        tenantId: tenantIdValue(scope),
        name: input.name,
        description: input.description ?? '',
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning(),
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
  scope: CatalogueScope,
  id: number,
  input: { name?: string; description?: string },
): Promise<UpdateOutcome<EmbedGroup>> {
  const { db } = scope;
  const other = alias(embedGroups, 'other');
  const group = and(eq(embedGroups.id, id), inCatalogue(scope, embedGroups));
  const nameFree =
    input.name === undefined
      ? undefined
      : notExists(
          db
            .select({ id: other.id })
            .from(other)
            .where(and(inCatalogue(scope, other), eq(other.name, input.name), ne(other.id, embedGroups.id))),
        );
  // The UPDATE returns only the id; the read after it returns the whole group row.
  const [updated, current] = await runBatch(db, [
    db
      .update(embedGroups)
      .set({
        ...(input.name !== undefined && { name: input.name }),
        ...(input.description !== undefined && { description: input.description }),
        updatedAt: scope.now.toISOString(),
      })
      .where(and(group, nameFree))
      .returning({ id: embedGroups.id }),
    db.select(groupColumns(db)).from(embedGroups).where(group),
  ]);
  const row = current?.results[0];
  if (!row) return { kind: 'not_found' };
  if ((updated?.results.length ?? 0) === 0) return { kind: 'conflict' };
  return { kind: 'updated', item: toGroup(row) };
}

/**
 * Defines an attribute unless its name is taken in that catalogue (the unique index decides)
 * or the catalogue already holds ATTRIBUTES_PER_CATALOGUE of them (the INSERT's own WHERE
 * decides, in the same statement, so two concurrent creates cannot pass the cap together).
 */
export async function insertAttribute(
  scope: CatalogueScope,
  input: {
    name: string;
    type: AttributeType;
    displayName?: string;
    defaultValue?: string;
    description?: string;
  },
): Promise<InsertOutcome<EmbedAttribute>> {
  const { db, accountId } = scope;
  const now = scope.now.toISOString();
  const held = db.$count(embedAttributes, inCatalogue(scope, embedAttributes));
  const results = await runBatch(db, [
    ...ensureTenant(scope),
    // INSERT … SELECT … WHERE: the cap is checked by the insert itself, which drizzle's insert cannot say.
    sql`INSERT INTO embed_attributes
        (account_id, tenant_id, name, type, display_name, default_value, description, created_at, updated_at)
      SELECT ${accountId}, ${tenantIdValue(scope)}, ${input.name}, ${input.type},
        ${input.displayName ?? null}, ${input.defaultValue ?? null}, ${input.description ?? null}, ${now}, ${now}
      WHERE ${held} < ${ATTRIBUTES_PER_CATALOGUE}
      ON CONFLICT DO NOTHING RETURNING *`,
    db
      .select({ n: count().as('n') })
      .from(embedAttributes)
      .where(inCatalogue(scope, embedAttributes)),
  ]);
  const row = results.at(-2)?.results[0];
  if (row) return { kind: 'created', item: attributeOf(row) };
  return Number(results.at(-1)?.results[0]?.n ?? 0) >= ATTRIBUTES_PER_CATALOGUE
    ? { kind: 'full' }
    : { kind: 'taken' };
}

export type CatalogueKind = 'groups' | 'attributes';
export type CatalogueItem<K extends CatalogueKind> = K extends 'groups' ? EmbedGroup : EmbedAttribute;

/** The page's rows (limit + 1) of one kind and, for a tenant, whether the tenant exists: one round trip. */
export async function listItems<K extends CatalogueKind>(
  scope: CatalogueScope,
  kind: K,
  { afterId, limit }: IdCursor,
): Promise<{ tenantFound: boolean; rows: CatalogueItem<K>[] }> {
  const { db } = scope;
  const table = kind === 'groups' ? embedGroups : embedAttributes;
  const page = and(inCatalogue(scope, table), afterId === null ? undefined : gt(table.id, afterId));
  const results = await runBatch(db, [
    ...tenantExists(scope),
    kind === 'groups'
      ? db
          .select(groupColumns(db))
          .from(embedGroups)
          .where(page)
          .orderBy(asc(embedGroups.id))
          .limit(limit + 1)
      : db
          .select()
          .from(embedAttributes)
          .where(page)
          .orderBy(asc(embedAttributes.id))
          .limit(limit + 1),
  ]);
  const rows = results.at(-1)?.results ?? [];
  const map = kind === 'groups' ? toGroup : attributeOf;
  return {
    tenantFound: scope.tenant === null || (results[0]?.results.length ?? 0) > 0,
    rows: rows.map((row) => map(row) as CatalogueItem<K>),
  };
}

/**
 * Deletes one item of a catalogue; false when there is none with this id there. A group's
 * memberships and an attribute's stored values go with it (ON DELETE CASCADE).
 */
export async function deleteItem(scope: CatalogueScope, kind: CatalogueKind, id: number): Promise<boolean> {
  const table = kind === 'groups' ? embedGroups : embedAttributes;
  const rows = await scope.db
    .delete(table)
    .where(and(eq(table.id, id), inCatalogue(scope, table)))
    .returning({ id: table.id });
  return rows.length > 0;
}

/** One group of a catalogue with its member count; null when there is none with this id there. */
export async function findGroup(scope: CatalogueScope, id: number): Promise<EmbedGroup | null> {
  const [row] = await scope.db
    .select(groupColumns(scope.db))
    .from(embedGroups)
    .where(and(eq(embedGroups.id, id), inCatalogue(scope, embedGroups)));
  return row ?? null;
}

/**
 * Cube's PUT of a user attribute: displayName, defaultValue, description (name and type never
 * change). Omitted keeps a field, null clears it. null when there is no such attribute.
 */
export async function updateAttribute(
  scope: CatalogueScope,
  id: number,
  input: { displayName?: string | null; defaultValue?: string | null; description?: string | null },
): Promise<EmbedAttribute | null> {
  const [row] = await scope.db
    .update(embedAttributes)
    .set({
      ...(input.displayName !== undefined && { displayName: input.displayName }),
      ...(input.defaultValue !== undefined && { defaultValue: input.defaultValue }),
      ...(input.description !== undefined && { description: input.description }),
      updatedAt: scope.now.toISOString(),
    })
    .where(and(eq(embedAttributes.id, id), inCatalogue(scope, embedAttributes)))
    .returning();
  return row ? toAttribute(row) : null;
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
  scope: CatalogueScope,
  filter: AttributeFilter,
  { afterId, limit }: IdCursor,
): Promise<{ tenantFound: boolean; rows: EmbedAttribute[]; count: number }> {
  const { db } = scope;
  const matches = and(
    inCatalogue(scope, embedAttributes),
    filter.name === undefined ? undefined : containsText(embedAttributes.name, filter.name, true),
    filter.type === undefined ? undefined : eq(embedAttributes.type, filter.type),
  );
  const results = await runBatch(db, [
    ...tenantExists(scope),
    db
      .select()
      .from(embedAttributes)
      .where(and(matches, afterId === null ? undefined : gt(embedAttributes.id, afterId)))
      .orderBy(asc(embedAttributes.id))
      .limit(limit + 1),
    db
      .select({ n: count().as('n') })
      .from(embedAttributes)
      .where(matches),
  ]);
  return {
    tenantFound: scope.tenant === null || (results[0]?.results.length ?? 0) > 0,
    rows: (results.at(-2)?.results ?? []).map(attributeOf),
    count: Number(results.at(-1)?.results[0]?.n ?? 0),
  };
}

/**
 * `search` as a substring of `column` (a case-insensitive one when `foldColumn`; else the column
 * is stored lowercase already). instr, not LIKE: a search's `%` and `_` are plain characters.
 */
export const containsText = (column: AnyColumn | SQL, search: string, foldColumn: boolean) =>
  foldColumn
    ? sql`instr(lower(${column}), lower(${search})) > 0`
    : sql`instr(${column}, lower(${search})) > 0`;
