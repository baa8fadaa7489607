import { and, eq, type SQL, sql } from 'drizzle-orm';
import { accessTokens, users } from '../../schema/accounts';
import { deployments } from '../../schema/deployments';
import { runBatch } from '../core/db';
import type { AccountScope } from '../core/scope';
import { toUserWithRoles, USER_WITH_ROLES } from './accounts.repository';
import type { User } from './accounts.schemas';
import type { BulkUserAction } from './users.schemas';

/**
 * What a change of users may touch, decided by the service: whether the caller may act on
 * admins, and whether the change takes an active admin away (deactivating, demoting, deleting).
 */
export interface UserGuard {
  actorIsAdmin: boolean;
  removesActiveAdmin: boolean;
}

/**
 * The guards of a write to a user, in its WHERE clause so the check and the write are one
 * statement (D1 has no interactive transactions): a caller who is not an admin cannot touch an
 * admin, and an account keeps at least one active admin. Raw: correlated subqueries.
 */
function guarded(scope: AccountScope, id: number, guard: UserGuard): SQL | undefined {
  return and(
    eq(users.accountId, scope.accountId),
    eq(users.id, id),
    guard.actorIsAdmin ? undefined : sql`${users.role} <> 'admin'`,
    guard.removesActiveAdmin
      ? sql`(${users.role} <> 'admin' OR ${users.deactivatedAt} IS NOT NULL OR EXISTS (
          SELECT 1 FROM users o WHERE o.account_id = ${scope.accountId} AND o.role = 'admin'
          AND o.deactivated_at IS NULL AND o.id <> ${users.id}))`
      : undefined,
  );
}

/** Raw: deactivating a deactivated user keeps the time it first happened, in the same statement. */
const deactivatedSince = (now: string) => sql`coalesce(${users.deactivatedAt}, ${now})`;

/** The columns a change of one user writes, as the service settled them. */
export interface UserChanges {
  firstName?: string;
  picture?: string;
  title?: string;
  role?: 'admin' | 'member';
  /** true: deactivated now (or kept as it was); false: active. */
  deactivated?: boolean;
  notifications?: string[];
  /** A merge patch of the settings (RFC 7396: null clears a field). */
  settingsPatch?: Record<string, unknown>;
  /** A deployment the settings name, which must be the account's. */
  defaultDeploymentId?: number;
}

/**
 * Changes one user of the account under its guards, and answers them with their roles; null
 * when nothing was written (unknown user, a guard refused, or `defaultDeploymentId` is not a
 * deployment of the account: the service tells which).
 */
export async function updateUser(
  scope: AccountScope,
  id: number,
  changes: UserChanges,
  guard: UserGuard,
): Promise<User | null> {
  const now = scope.now.toISOString();
  const { deactivated, settingsPatch, defaultDeploymentId, ...plain } = changes;
  const [row] = await scope.db
    .update(users)
    .set({
      ...plain,
      ...(deactivated === undefined ? {} : { deactivatedAt: deactivated ? deactivatedSince(now) : null }),
      // Raw: json_patch merges in the statement (RFC 7396), so concurrent changes of other fields survive.
      ...(settingsPatch
        ? { settings: sql`json_patch(${users.settings}, ${JSON.stringify(settingsPatch)})` }
        : {}),
      updatedAt: now,
    })
    .where(
      and(
        guarded(scope, id, guard),
        defaultDeploymentId === undefined
          ? undefined
          : // Raw: the settings may name only a deployment of the account, checked by the write itself.
            sql`EXISTS (SELECT 1 FROM ${deployments} WHERE ${deployments.id} = ${defaultDeploymentId}
              AND ${deployments.accountId} = ${scope.accountId})`,
      ),
    )
    .returning(USER_WITH_ROLES);
  return row ? toUserWithRoles(row) : null;
}

/**
 * Why a guarded write of user `id` did nothing, in one round trip: the user's role
 * (null when not the account's) and whether `deploymentId`, when given, is a deployment of the account.
 */
export async function refusalState(scope: AccountScope, id: number, deploymentId?: number) {
  const { db, accountId } = scope;
  const [user, deployment] = await runBatch<{ role: string }>(db, [
    db
      .select({ role: users.role })
      .from(users)
      .where(and(eq(users.accountId, accountId), eq(users.id, id))),
    ...(deploymentId === undefined
      ? []
      : [
          db
            .select({ id: deployments.id })
            .from(deployments)
            .where(and(eq(deployments.accountId, accountId), eq(deployments.id, deploymentId))),
        ]),
  ]);
  return {
    user: user?.results[0] ?? null,
    deploymentFound: deploymentId === undefined || (deployment?.results.length ?? 0) > 0,
  };
}

/**
 * Revokes the access tokens of whichever of `ids` no longer exist: the batch's last statement,
 * so a deleted user's tokens go in the same transaction as the user (the foreign key's cascade
 * already does; this keeps it true whatever the schema says). Raw: json_each binds any number
 * of ids as one parameter (D1 binds at most 100 per statement).
 */
function revokeTokensOfDeleted(scope: AccountScope, ids: number[]) {
  return scope.db
    .delete(accessTokens)
    .where(
      and(
        eq(accessTokens.accountId, scope.accountId),
        sql`${accessTokens.userId} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
        sql`NOT EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${accessTokens.userId})`,
      ),
    );
}

/** Deletes one user under its guards, with their access tokens and role assignments; false when refused. */
export async function deleteUser(scope: AccountScope, id: number, guard: UserGuard): Promise<boolean> {
  const [deleted] = await runBatch(scope.db, [
    scope.db
      .delete(users)
      .where(guarded(scope, id, guard))
      .returning({ id: users.id }),
    revokeTokensOfDeleted(scope, [id]),
  ]);
  return (deleted?.results.length ?? 0) > 0;
}

/** The users of the account among `ids`, with their role and state (one statement, any number of ids). */
export async function findUserStates(scope: AccountScope, ids: number[]) {
  return scope.db
    .select({ id: users.id, role: users.role, deactivatedAt: users.deactivatedAt })
    .from(users)
    .where(
      and(
        eq(users.accountId, scope.accountId),
        // Raw: json_each binds the ids as one parameter (D1 binds at most 100 per statement).
        sql`${users.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
      ),
    );
}

/**
 * Applies `action` to each of `ids` in order, one guarded statement per user in one batch (one
 * transaction): each statement sees what the earlier ones did, so the guard refuses exactly the
 * change that would take the last active admin away. Answers the ids each statement changed.
 */
export async function applyBulk(
  scope: AccountScope,
  action: BulkUserAction,
  ids: number[],
  actorIsAdmin: boolean,
): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const now = scope.now.toISOString();
  const { db } = scope;
  const statements = ids.map((id) => {
    if (action === 'DELETE') {
      return db
        .delete(users)
        .where(guarded(scope, id, { actorIsAdmin, removesActiveAdmin: true }))
        .returning({ id: users.id });
    }
    const deactivate = action === 'DEACTIVATE';
    return db
      .update(users)
      .set({
        deactivatedAt: deactivate ? deactivatedSince(now) : null,
        updatedAt: now,
      })
      .where(guarded(scope, id, { actorIsAdmin, removesActiveAdmin: deactivate }))
      .returning({ id: users.id });
  });
  const results = await runBatch<{ id: number }>(db, [
    ...statements,
    ...(action === 'DELETE' ? [revokeTokensOfDeleted(scope, ids)] : []),
  ]);
  const changed = new Set<number>();
  for (const result of results.slice(0, ids.length)) {
    for (const row of result.results) changed.add(row.id);
  }
  return changed;
}
