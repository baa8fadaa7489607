import { and, desc, eq, lt, ne, sql } from 'drizzle-orm';
import { users } from '../../schema/accounts';
import { type RolePolicy, roles, userRoles } from '../../schema/roles';
import { mapRow, runBatch, type Statement } from '../core/db';
import type { Grants } from '../core/permissions';
import type { AccountScope } from '../core/scope';
import { cubePolicies, ROLE_LIMITS, type Role } from './roles.schemas';

type RoleRow = typeof roles.$inferSelect;

export const toRole = (row: RoleRow): Role => ({
  id: row.id,
  name: row.name,
  description: row.description ?? null,
  policies: cubePolicies(row.policies),
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** A role as written: its policies and the grants they compile to. */
export interface RoleWrite {
  name: string;
  description: string | null;
  policies: RolePolicy[];
  grants: Grants;
}

/**
 * Inserts a role while the account has fewer than `rolesPerAccount` and none of that name; null
 * otherwise (the service tells which). Raw: the cap is a guard in the same statement (an
 * INSERT … SELECT … WHERE), which the builders cannot say.
 */
export async function insertRole(scope: AccountScope, role: RoleWrite): Promise<Role | null> {
  const now = scope.now.toISOString();
  const rows = await scope.db.all<Record<string, unknown>>(sql`
    INSERT INTO roles (account_id, name, description, policies, grants, created_at, updated_at)
    SELECT ${scope.accountId}, ${role.name}, ${role.description}, ${JSON.stringify(role.policies)},
      ${JSON.stringify(role.grants)}, ${now}, ${now}
    WHERE (SELECT count(*) FROM roles WHERE account_id = ${scope.accountId}) < ${ROLE_LIMITS.rolesPerAccount}
    ON CONFLICT DO NOTHING
    RETURNING *`);
  const row = rows[0];
  return row ? toRole(mapRow(roles, row)) : null;
}

/** The read of whether the account has a role named `name` other than `exceptId`. */
const roleNamed = ({ db, accountId }: AccountScope, name: string, exceptId?: number) =>
  db
    .select({ id: roles.id })
    .from(roles)
    .where(
      and(
        eq(roles.accountId, accountId),
        eq(roles.name, name),
        exceptId === undefined ? undefined : ne(roles.id, exceptId),
      ),
    );

/** Whether the account has a role named `name` other than `exceptId`. */
export async function roleNameTaken(scope: AccountScope, name: string, exceptId?: number): Promise<boolean> {
  const [row] = await roleNamed(scope, name, exceptId);
  return row !== undefined;
}

/** Why a rename did nothing: whether role `id` is the account's and another of its roles has `name` (one round trip). */
export async function renameState(scope: AccountScope, id: number, name: string) {
  const [role, named] = await runBatch(scope.db, [
    scope.db
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.accountId, scope.accountId), eq(roles.id, id))),
    roleNamed(scope, name, id),
  ]);
  return { roleFound: (role?.results.length ?? 0) > 0, nameTaken: (named?.results.length ?? 0) > 0 };
}

/** The account's roles, newest first, before `beforeId` (a page's cursor). */
export async function listRoles(
  scope: AccountScope,
  beforeId: number | null,
  limit: number,
): Promise<Role[]> {
  const rows = await scope.db
    .select()
    .from(roles)
    .where(and(eq(roles.accountId, scope.accountId), beforeId === null ? undefined : lt(roles.id, beforeId)))
    .orderBy(desc(roles.id))
    .limit(limit + 1);
  return rows.map(toRole);
}

export async function findRole(scope: AccountScope, id: number): Promise<Role | null> {
  const [row] = await scope.db
    .select()
    .from(roles)
    .where(and(eq(roles.accountId, scope.accountId), eq(roles.id, id)));
  return row ? toRole(row) : null;
}

/**
 * Changes a role of the account unless another role already has the new name (checked in the
 * same statement); null when the role is not the account's or the name is taken.
 */
export async function updateRole(
  scope: AccountScope,
  id: number,
  changes: Partial<RoleWrite>,
): Promise<Role | null> {
  const [row] = await scope.db
    .update(roles)
    .set({ ...changes, updatedAt: scope.now.toISOString() })
    .where(
      and(
        eq(roles.accountId, scope.accountId),
        eq(roles.id, id),
        changes.name === undefined
          ? undefined
          : // Raw: a NOT EXISTS over the same table, so the check and the rename are one statement.
            sql`NOT EXISTS (SELECT 1 FROM roles r WHERE r.account_id = ${scope.accountId}
              AND r.name = ${changes.name} AND r.id <> ${id})`,
      ),
    )
    .returning();
  return row ? toRole(row) : null;
}

/** Deletes a role of the account; its assignments go by cascade. */
export async function deleteRole(scope: AccountScope, id: number): Promise<boolean> {
  const rows = await scope.db
    .delete(roles)
    .where(and(eq(roles.accountId, scope.accountId), eq(roles.id, id)))
    .returning({ id: roles.id });
  return rows.length > 0;
}

/**
 * Gives a user of the account a role of the account, while they hold fewer than `rolesPerUser`;
 * false when nothing was inserted (already held, unknown user or role, or the cap). Raw: an
 * INSERT … SELECT whose WHERE checks both accounts and the cap in the same statement.
 */
export async function insertAssignment(
  scope: AccountScope,
  roleId: number,
  userId: number,
): Promise<boolean> {
  const rows = await scope.db.all<{ user_id: number }>(sql`
    INSERT INTO user_roles (user_id, role_id, created_at)
    SELECT u.id, r.id, ${scope.now.toISOString()} FROM users u, roles r
    WHERE u.id = ${userId} AND u.account_id = ${scope.accountId}
      AND r.id = ${roleId} AND r.account_id = ${scope.accountId}
      AND (SELECT count(*) FROM user_roles WHERE user_id = ${userId}) < ${ROLE_LIMITS.rolesPerUser}
    ON CONFLICT DO NOTHING
    RETURNING user_id`);
  return rows.length > 0;
}

/** The reads of a batch that finds whether the user and the role are the account's (a row each when they are). */
const accountHolds = ({ db, accountId }: AccountScope, userId: number, roleId: number): Statement[] => [
  db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.id, userId))),
  db
    .select({ id: roles.id })
    .from(roles)
    .where(and(eq(roles.accountId, accountId), eq(roles.id, roleId))),
];

/** Whether the user and the role are the account's, and whether the user holds the role (one round trip). */
export async function assignmentState(scope: AccountScope, roleId: number, userId: number) {
  const { db } = scope;
  const [user, role, held] = await runBatch(db, [
    ...accountHolds(scope, userId, roleId),
    db
      .select({ userId: userRoles.userId })
      .from(userRoles)
      .where(and(eq(userRoles.userId, userId), eq(userRoles.roleId, roleId))),
  ]);
  return {
    userFound: (user?.results.length ?? 0) > 0,
    roleFound: (role?.results.length ?? 0) > 0,
    held: (held?.results.length ?? 0) > 0,
  };
}

/**
 * Takes a role away from a user, reading in the same batch whether the user and the role are
 * the account's (a role of another account is never held by a user of this one).
 */
export async function deleteAssignment(scope: AccountScope, roleId: number, userId: number) {
  const { db } = scope;
  const [user, role] = await runBatch(db, [
    ...accountHolds(scope, userId, roleId),
    db.delete(userRoles).where(
      and(
        eq(userRoles.userId, userId),
        eq(userRoles.roleId, roleId),
        // Raw: the role must be the account's, checked in the statement that deletes.
        sql`${userRoles.roleId} IN (SELECT id FROM roles WHERE account_id = ${scope.accountId})`,
      ),
    ),
  ]);
  return { userFound: (user?.results.length ?? 0) > 0, roleFound: (role?.results.length ?? 0) > 0 };
}
