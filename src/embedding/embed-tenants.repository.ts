import { and, asc, desc, eq, exists, gt, inArray, lt, or, sql } from 'drizzle-orm';
import { embedGroups, embedMemberships, embedTenants, embedUsers } from '../../schema/embedding';
import { mapRow, runBatch } from '../core/db';
import type { IdCursor } from '../core/pagination';
import type { AccountScope } from '../core/scope';
import {
  type CatalogueScope,
  containsText,
  inCatalogue,
  tenantIdOf,
  tenantIdValue,
} from './catalogues.repository';
import type { EmbedUser } from './catalogues.schemas';
import { jsonValues } from './embed-sessions.repository';
import { toEmbedUser } from './embedding.rows';

/**
 * The embed tenants of an account and the external users in them: the tenant list, a tenant's
 * deletion (which revokes its sessions), a tenant's users, and the members of a group.
 */

export async function listTenantsMatching(
  { db, accountId }: AccountScope,
  search: string | undefined,
  { afterId, limit }: IdCursor,
) {
  const rows = await db
    .select({
      id: embedTenants.id,
      name: embedTenants.name,
      createdAt: embedTenants.createdAt,
      userCount: db.$count(embedUsers, eq(embedUsers.tenantId, embedTenants.id)),
    })
    .from(embedTenants)
    .where(
      and(
        eq(embedTenants.accountId, accountId),
        search === undefined ? undefined : containsText(embedTenants.name, search, false),
        afterId === null ? undefined : gt(embedTenants.id, afterId),
      ),
    )
    .orderBy(asc(embedTenants.id))
    .limit(limit + 1);
  return rows.map((row) => ({ ...row, displayName: null }));
}

/**
 * Deletes a tenant with everything in it (users, groups, attributes, values and memberships
 * cascade) and, in the same batch, records the revocation of all its sessions until the
 * longest of them would have expired. null when the account has no such tenant.
 */
export async function deleteTenant(scope: AccountScope, name: string): Promise<number | null> {
  const { db, accountId } = scope;
  const now = scope.now.toISOString();
  const [, deleted] = await runBatch(db, [
    // INSERT … SELECT: the record's key and expiry come from the tenant's and account's rows.
    sql`INSERT INTO embed_session_revocations (session_id, account_id, expires_at, revoked_at)
      SELECT 'tenant:' || t.id, t.account_id,
        strftime('%Y-%m-%dT%H:%M:%fZ', ${now}, '+' || a.embed_session_ttl_seconds || ' seconds'), ${now}
      FROM embed_tenants t JOIN accounts a ON a.id = t.account_id
      WHERE t.account_id = ${accountId} AND t.name = ${name}
      ON CONFLICT DO NOTHING`,
    db
      .delete(embedTenants)
      .where(and(eq(embedTenants.accountId, accountId), eq(embedTenants.name, name)))
      .returning({ id: embedTenants.id }),
  ]);
  const row = deleted?.results[0];
  return row ? Number(row.id) : null;
}

/** The columns of an embed user that Cube's EmbedUser shows. */
export const embedUserColumns = {
  id: embedUsers.id,
  externalId: embedUsers.externalId,
  email: embedUsers.email,
  displayName: embedUsers.displayName,
  createdAt: embedUsers.createdAt,
};

/** An embed user as a batch returns it (`embedUserColumns`). */
export const embedUserOf = (raw: Record<string, unknown>): EmbedUser => toEmbedUser(mapRow(embedUsers, raw));

/** The group `groupId` of the scope's catalogue, as a statement returning its id (none: not there). */
const groupIn = (scope: CatalogueScope, groupId: number) =>
  scope.db
    .select({ id: embedGroups.id })
    .from(embedGroups)
    .where(and(eq(embedGroups.id, groupId), inCatalogue(scope, embedGroups)));

/**
 * A page of a group's members, newest user first (memberships carry no date), and whether the
 * group exists in the catalogue: one round trip, served by the membership index.
 */
export async function listGroupMembers(
  scope: CatalogueScope,
  groupId: number,
  { afterId: beforeId, limit }: IdCursor,
) {
  const [group, members] = await runBatch(scope.db, [
    groupIn(scope, groupId),
    scope.db
      .select(embedUserColumns)
      .from(embedMemberships)
      .innerJoin(embedUsers, eq(embedUsers.id, embedMemberships.userId))
      .where(
        and(
          eq(embedMemberships.groupId, groupId),
          eq(embedUsers.accountId, scope.accountId),
          beforeId === null ? undefined : lt(embedMemberships.userId, beforeId),
        ),
      )
      .orderBy(desc(embedMemberships.userId))
      .limit(limit + 1),
  ]);
  return {
    groupFound: (group?.results.length ?? 0) > 0,
    rows: (members?.results ?? []).map(embedUserOf),
  };
}

/** A page of a tenant's users ordered by id, optionally matching a substring of email or externalId. */
export async function listTenantUsers(
  scope: AccountScope,
  tenant: string,
  search: string | undefined,
  { afterId, limit }: IdCursor,
) {
  const [found, users] = await runBatch(scope.db, [
    tenantIdOf(scope, tenant),
    scope.db
      .select(embedUserColumns)
      .from(embedUsers)
      .where(
        and(
          eq(embedUsers.tenantId, tenantIdOf(scope, tenant)),
          search === undefined
            ? undefined
            : or(
                containsText(embedUsers.externalId, search, false),
                containsText(sql`coalesce(${embedUsers.email}, '')`, search, true),
              ),
          afterId === null ? undefined : gt(embedUsers.id, afterId),
        ),
      )
      .orderBy(asc(embedUsers.id))
      .limit(limit + 1),
  ]);
  return { tenantFound: (found?.results.length ?? 0) > 0, rows: (users?.results ?? []).map(embedUserOf) };
}

/** Who a member change names: embed user ids and externalIds of the tenant. */
export interface MemberRefs {
  embedUserIds: number[];
  externalIds: string[];
}

/**
 * The tenant users `refs` name, each with whether it is a member of the group, and whether the
 * group is in this tenant's catalogue: one round trip.
 */
export async function readMembers(scope: CatalogueScope, groupId: number, refs: MemberRefs) {
  const { db } = scope;
  const member = exists(
    db
      .select({ userId: embedMemberships.userId })
      .from(embedMemberships)
      .where(and(eq(embedMemberships.userId, embedUsers.id), eq(embedMemberships.groupId, groupId))),
  );
  const [group, users] = await runBatch(db, [
    groupIn(scope, groupId),
    db
      .select({ ...embedUserColumns, member: member.as('member') })
      .from(embedUsers)
      .where(
        and(
          eq(embedUsers.tenantId, tenantIdValue(scope)),
          or(
            inArray(embedUsers.id, jsonValues(refs.embedUserIds)),
            inArray(embedUsers.externalId, jsonValues(refs.externalIds)),
          ),
        ),
      ),
  ]);
  return {
    groupFound: (group?.results.length ?? 0) > 0,
    users: (users?.results ?? []).map((row) => ({ ...embedUserOf(row), member: row.member === 1 })),
  };
}

/** Adds or removes memberships of users of the group's own tenant (ids already resolved). */
export async function changeMembers(
  scope: CatalogueScope,
  groupId: number,
  userIds: number[],
  change: 'add' | 'remove',
): Promise<void> {
  const { db } = scope;
  const ids = jsonValues(userIds);
  if (change === 'add') {
    await db
      .insert(embedMemberships)
      .select(
        db
          .select({ userId: embedUsers.id, groupId: embedGroups.id })
          .from(embedGroups)
          .innerJoin(embedUsers, eq(embedUsers.tenantId, embedGroups.tenantId))
          .where(
            and(eq(embedGroups.id, groupId), inCatalogue(scope, embedGroups), inArray(embedUsers.id, ids)),
          ),
      )
      .onConflictDoNothing();
    return;
  }
  await db
    .delete(embedMemberships)
    .where(and(eq(embedMemberships.groupId, groupIn(scope, groupId)), inArray(embedMemberships.userId, ids)));
}
