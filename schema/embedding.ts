import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts } from './accounts';

/**
 * An embed tenant of an account (generate-session's `embedTenantName`). `default` and any other name are
 * created the first time a session (or an admin creating a group) names them.
 */
export const embedTenants = sqliteTable(
  'embed_tenants',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    createdAt: text().notNull(),
  },
  (t) => [uniqueIndex('embed_tenants_account_name_uq').on(t.accountId, t.name)],
);

/**
 * Groups of both catalogues: account-wide ("tenant-wide" in the spec) when `tenantId` is
 * null, else scoped to one embed tenant. Names are unique within their catalogue; the two
 * partial indexes say so because SQLite treats NULLs as distinct in a plain unique index.
 */
export const embedGroups = sqliteTable(
  'embed_groups',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tenantId: integer().references(() => embedTenants.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text().notNull().default(''),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('embed_groups_account_name_uq').on(t.accountId, t.name).where(sql`tenant_id IS NULL`),
    uniqueIndex('embed_groups_tenant_name_uq').on(t.tenantId, t.name).where(sql`tenant_id IS NOT NULL`),
    index('embed_groups_scope_idx').on(t.accountId, t.tenantId, t.id),
  ],
);

export const ATTRIBUTE_TYPES = ['string', 'number', 'boolean', 'string_array', 'number_array'] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** User-attribute definitions of both catalogues, scoped like embed_groups. `type` never changes. */
export const embedAttributes = sqliteTable(
  'embed_attributes',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tenantId: integer().references(() => embedTenants.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    type: text({ enum: ATTRIBUTE_TYPES }).notNull(),
    displayName: text(),
    defaultValue: text(),
    description: text(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('embed_attributes_account_name_uq').on(t.accountId, t.name).where(sql`tenant_id IS NULL`),
    uniqueIndex('embed_attributes_tenant_name_uq').on(t.tenantId, t.name).where(sql`tenant_id IS NOT NULL`),
    index('embed_attributes_scope_idx').on(t.accountId, t.tenantId, t.id),
  ],
);

/**
 * External users (generate-session's `externalId`), one per (tenant, externalId). Their rows are what
 * `externalUserLimit` counts; everything a session needs beyond its token lives here and in
 * the two tables below, so minting for a returning user whose state is unchanged writes nothing.
 */
export const embedUsers = sqliteTable(
  'embed_users',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tenantId: integer()
      .notNull()
      .references(() => embedTenants.id, { onDelete: 'cascade' }),
    externalId: text().notNull(),
    email: text(),
    displayName: text(),
    picture: text(),
    /** JSON text exactly as last sent, so an unchanged context compares equal without parsing. */
    securityContext: text(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('embed_users_tenant_external_uq').on(t.tenantId, t.externalId),
    index('embed_users_account_idx').on(t.accountId),
  ],
);

export const embedMemberships = sqliteTable(
  'embed_memberships',
  {
    userId: integer()
      .notNull()
      .references(() => embedUsers.id, { onDelete: 'cascade' }),
    groupId: integer()
      .notNull()
      .references(() => embedGroups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.userId, t.groupId] }), index('embed_memberships_group_idx').on(t.groupId)],
);

export const embedAttributeValues = sqliteTable(
  'embed_attribute_values',
  {
    userId: integer()
      .notNull()
      .references(() => embedUsers.id, { onDelete: 'cascade' }),
    attributeId: integer()
      .notNull()
      .references(() => embedAttributes.id, { onDelete: 'cascade' }),
    /** JSON text of the value (string, number or array); a cleared value has no row. */
    value: text().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.attributeId] }),
    index('embed_attribute_values_attribute_idx').on(t.attributeId),
  ],
);

/**
 * Revoked sessions, kept until the session would have expired anyway (the cron purges
 * older ones). Every dashboard load checks it, in the same statement as the dashboard.
 */
export const embedSessionRevocations = sqliteTable(
  'embed_session_revocations',
  {
    sessionId: text().primaryKey(),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    expiresAt: text().notNull(),
    revokedAt: text().notNull(),
  },
  (t) => [
    index('embed_session_revocations_expires_idx').on(t.expiresAt),
    index('embed_session_revocations_account_idx').on(t.accountId),
  ],
);

/**
 * The guards a write batch can trip, each a CHECK of embed_write_guards named after itself: the
 * repository reads the name back from D1's error as a typed reason, so the two cannot drift.
 * - `quota_exceeded`: a new external user would pass the account's externalUserLimit;
 * - `type_conflict`: a user-attribute definition would change the stored type;
 * - `catalogue_full`: definitions would take a tenant's catalogue past its attribute cap;
 * - `stale_read`: the user's state on the primary is not the one the plan was made from (a
 *   plan made from a replica's read carries the state's fingerprint; see embed-sessions.repository).
 */
export const WRITE_GUARDS = ['quota_exceeded', 'type_conflict', 'catalogue_full', 'stale_read'] as const;
export type WriteGuard = (typeof WRITE_GUARDS)[number];

/**
 * Never holds a row. SQLite has no RAISE outside triggers, so a write batch aborts itself on
 * purpose by inserting a row these checks refuse (`INSERT … SELECT 'quota_exceeded' WHERE
 * <limit reached>`): the batch is one transaction, so nothing before or after it lands, and
 * the constraint name in the error tells which guard fired.
 */
export const embedWriteGuards = sqliteTable('embed_write_guards', { reason: text().notNull() }, (t) =>
  WRITE_GUARDS.map((guard) => check(guard, sql`${t.reason} <> ${sql.raw(`'${guard}'`)}`)),
);
