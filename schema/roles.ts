import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Grants } from '../src/core/permissions';
import { accounts, users } from './accounts';

/** A policy of a role, as Cube writes it: which actions, on which resources of which type. */
export interface RolePolicy {
  resourceType: 'Global' | 'Deployment';
  actions: string[];
  resources: string[];
}

/** An account's custom roles: the policies as written, and the grants they compile to. */
export const roles = sqliteTable(
  'roles',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    description: text(),
    policies: text({ mode: 'json' }).$type<RolePolicy[]>().notNull(),
    /**
     * The policies compiled to per-permission grants (`Grants`), written with them: the
     * credential lookup unions these for a user without parsing policies on every request.
     */
    grants: text({ mode: 'json' }).$type<Grants>().notNull(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('roles_account_name_uq').on(t.accountId, t.name),
    // Lists (newest first) and the per-account cap count read the account's roles by id.
    index('roles_account_idx').on(t.accountId, t.id),
  ],
);

/** Which users hold which custom roles; both sides go by cascade. */
export const userRoles = sqliteTable(
  'user_roles',
  {
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    roleId: integer()
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    createdAt: text().notNull(),
  },
  // FK child column: deleting a role cascades here without a scan.
  (t) => [primaryKey({ columns: [t.userId, t.roleId] }), index('user_roles_role_idx').on(t.roleId)],
);
