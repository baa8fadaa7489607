import { and, eq, inArray, lte, notInArray, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { accounts, users } from '../../schema/accounts';
import { embedSessionRevocations, WRITE_GUARDS, type WriteGuard } from '../../schema/embedding';
import { FROZEN_ACCOUNTS } from '../core/account-moving';
import { failedCheck } from '../core/db';
import type { Db } from '../core/env';
import type { AccountScope, RequestScope } from '../core/scope';
import { accountAttributesColumn } from '../data-api/account-identity';
import {
  type InternalUser,
  type RawRow,
  type StoredUserState,
  toInternalUser,
  toUserState,
  type UserStateRow,
} from './embedding.rows';

/**
 * What a session reads of its user and what every writer of external users shares
 * (generate-session, provisioning, notification recipients): the user's state in one scope, the
 * guards that abort a write batch, the user upsert and the membership replacement; then the
 * session's own rows, its rebuild after a KV miss and its revocation.
 *
 * The hand-written statements here are those drizzle cannot express: catalogue reads driven from
 * a JSON list of names, JSON aggregates, and the guards (INSERT … SELECT of a row a CHECK refuses).
 */

/*
 * The subqueries below are SQL, not query builders: drizzle compiles a builder again at every place
 * a statement embeds it, and a mint's batches embed the tenant (and through it the key's account)
 * up to a dozen times, which tripled the mint's SQL-building time.
 */

/** The id of the account's embed tenant `name` (the account may be a subquery), as a subquery: NULL when there is none. */
export const tenantIdIn = (accountId: number | SQLWrapper, name: string): SQL =>
  sql`(SELECT id FROM embed_tenants WHERE account_id = ${accountId} AND name = ${name})`;

/** The id of the external user `externalId` of a tenant (a subquery), as a subquery: NULL when there is none. */
export const embedUserIdIn = (tenant: SQLWrapper, externalId: string): SQL =>
  sql`(SELECT id FROM embed_users WHERE tenant_id = ${tenant} AND external_id = ${externalId})`;

/** Group and attribute rows visible to a session: the tenant's own in creator mode, else the account-wide ones. */
export function inScope(
  alias: string,
  account: SQLWrapper | number,
  tenant: SQLWrapper | number,
  creatorMode: boolean,
): SQL {
  const a = sql.raw(alias);
  // Over a raw alias (`g`, `a`) of the statements below, which drizzle's columns cannot name.
  return creatorMode
    ? sql`${a}.account_id = ${account} AND ${a}.tenant_id = ${tenant}`
    : sql`${a}.account_id = ${account} AND ${a}.tenant_id IS NULL`;
}

/**
 * The values of a list as a subquery over one JSON parameter: 1,000 ids stay one bound
 * parameter (D1 takes at most 100 per statement), where `inArray` would bind each.
 */
export const jsonValues = (values: readonly (string | number)[]): SQL =>
  sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;

/**
 * The rows of `table` (as `alias`) named in `names`, driven from the names so each is found
 * through the catalogue's (scope, name) index: `FROM ${byName(…)} WHERE ${scope}` reads one row
 * per name, never the whole catalogue (CROSS JOIN fixes that order for SQLite; drizzle has no
 * join on a table-valued function).
 */
export function byName(alias: 'g' | 'a', table: 'embed_groups' | 'embed_attributes', names: string[]): SQL {
  const a = sql.raw(alias);
  return sql`json_each(${JSON.stringify([...new Set(names)])}) named CROSS JOIN ${sql.raw(table)} ${a} ON ${a}.name = named.value`;
}

/**
 * Makes `user`'s memberships in one catalogue (`inCatalogue`, over alias `g`) exactly the groups
 * named (unknown names are skipped). Both statements read through the user's memberships and the
 * catalogue's name index, never the whole catalogue. Generate-session and provisioning use them.
 */
export function replaceMemberships(user: SQLWrapper, inCatalogue: SQL, names: string[]): SQL[] {
  const statements = [
    sql`DELETE FROM embed_memberships WHERE user_id = ${user} AND group_id IN (
      SELECT m.group_id FROM embed_memberships m CROSS JOIN embed_groups g ON g.id = m.group_id
      WHERE m.user_id = ${user} AND ${inCatalogue}
        AND g.name NOT IN (SELECT value FROM json_each(${JSON.stringify(names)})))`,
  ];
  if (names.length > 0) {
    statements.push(sql`INSERT INTO embed_memberships (user_id, group_id)
      SELECT ${user}, g.id FROM ${byName('g', 'embed_groups', names)} WHERE ${inCatalogue}
      ON CONFLICT DO NOTHING`);
  }
  return statements;
}

/**
 * Everything a session of user `u` carries in one scope, as one text: profile, context, the
 * ids of its groups and its values, in id order. Equal texts mean equal states, so a write
 * planned from a replica's read checks it on the primary (guard `stale_read`) without a
 * version column that every membership change would have to touch.
 */
export function fingerprintOf(scope: (alias: string) => SQL): SQL {
  return sql`json_array(u.email, u.display_name, u.picture, u.security_context,
    (SELECT json_group_array(id) FROM (SELECT g.id FROM embed_memberships m CROSS JOIN embed_groups g ON g.id = m.group_id
       WHERE m.user_id = u.id AND ${scope('g')} ORDER BY g.id)),
    (SELECT json_group_array(json_array(id, value)) FROM (SELECT a.id, v.value FROM embed_attribute_values v
       CROSS JOIN embed_attributes a ON a.id = v.attribute_id WHERE v.user_id = u.id AND ${scope('a')} ORDER BY a.id)))`;
}

/** The user's profile and, in the session's scope, memberships and attribute values (a `UserStateRow`). */
export function userStateColumns(scope: (alias: string) => SQL): SQL {
  return sql`u.id, u.external_id, u.email, u.display_name, u.picture, u.security_context,
    ${fingerprintOf(scope)} AS fingerprint,
    (SELECT json_group_array(json_object('id', g.id, 'name', g.name))
       FROM embed_memberships m CROSS JOIN embed_groups g ON g.id = m.group_id
       WHERE m.user_id = u.id AND ${scope('g')}) AS groups_json,
    (SELECT json_group_array(json_object('id', a.id, 'name', a.name, 'value', json(v.value)))
       FROM embed_attribute_values v CROSS JOIN embed_attributes a ON a.id = v.attribute_id
       WHERE v.user_id = u.id AND ${scope('a')}) AS attributes_json`;
}

/** The columns of an internal user a session shows, and their attribute values (an `InternalUser`). */
export const internalUserColumns = {
  id: users.id,
  username: users.username,
  email: users.email,
  firstName: users.firstName,
  picture: users.picture,
  attributes: accountAttributesColumn(users.id).as('account_attributes'),
};

/** Which guard aborted a batch, from the constraint name in D1's error; null for any other failure. */
export const guardOf = (error: unknown): WriteGuard | null => failedCheck(error, WRITE_GUARDS);

/** The statement through which a batch aborts itself when `condition` holds (see embed_write_guards). */
export const abortWhen = (guard: WriteGuard, from: SQL, condition: SQL): SQL =>
  sql`INSERT INTO embed_write_guards (reason) SELECT ${guard} FROM ${from} WHERE ${condition} LIMIT 1`;

/**
 * A statement that aborts its whole batch (the CHECK on embed_write_guards fails) when adding
 * `newUsers` external users would take the account past its externalUserLimit. Every batch
 * that creates embed users carries it, so two concurrent writers cannot both pass the limit.
 * It reads the account's `external_user_count` (kept by triggers on embed_users), one row by
 * primary key, so its cost does not grow with the account.
 */
export function externalUserQuotaGuard(accountId: number, newUsers: SQL): SQL {
  return abortWhen(
    'quota_exceeded',
    sql`accounts a`,
    sql`a.id = ${accountId} AND (${newUsers}) > 0 AND a.external_user_count + (${newUsers}) > a.external_user_limit`,
  );
}

/** The stored fields of an external user a write may set, and their columns (an upsert reads them from `excluded`). */
const USER_COLUMNS = {
  email: 'email',
  displayName: 'display_name',
  picture: 'picture',
  securityContext: 'security_context',
} as const;

/** The stored fields of an external user a write may set (undefined: left as it is). */
export type EmbedUserFields = { [K in keyof typeof USER_COLUMNS]?: string | null };

/**
 * The upsert of one external user of `tenant` (a subquery): a new user gets the fields given
 * (the others null); an existing one gets only the fields given, and is left untouched when none
 * is. Generate-session and provisioning write users through this one statement. SQL rather than
 * drizzle's insert builder: building it costs a mint more than the rest of its write batch.
 */
export function upsertEmbedUser(w: {
  accountId: number;
  tenant: SQLWrapper;
  externalId: string;
  set: EmbedUserFields;
  now: string;
}): SQL {
  const { set, now } = w;
  const fields = (Object.keys(USER_COLUMNS) as (keyof typeof USER_COLUMNS)[]).filter(
    (f) => set[f] !== undefined,
  );
  const value = (f: keyof typeof USER_COLUMNS) => set[f] ?? null;
  const onConflict =
    fields.length === 0
      ? sql`DO NOTHING`
      : sql`DO UPDATE SET ${sql.raw(fields.map((f) => `${USER_COLUMNS[f]} = excluded.${USER_COLUMNS[f]}`).join(', '))}, updated_at = excluded.updated_at`;
  return sql`INSERT INTO embed_users
      (account_id, tenant_id, external_id, email, display_name, picture, security_context, created_at, updated_at)
    VALUES (${w.accountId}, ${w.tenant}, ${w.externalId}, ${value('email')}, ${value('displayName')},
      ${value('picture')}, ${value('securityContext')}, ${now}, ${now})
    ON CONFLICT (tenant_id, external_id) ${onConflict}`;
}

// ---- Loads: rebuild and revocation ----

export interface RebuildClaims {
  sessionId: string;
  accountId: number;
  tenantId: number;
  creatorMode: boolean;
  user: { kind: 'external' | 'internal'; id: number };
}

/** The statement reading a session's user as of now (a rebuild after a KV miss). */
export function sessionUserStatement(db: Db, c: RebuildClaims) {
  if (c.user.kind === 'internal') {
    return db
      .select(internalUserColumns)
      .from(users)
      .where(and(eq(users.id, c.user.id), eq(users.accountId, c.accountId)));
  }
  const scope = (alias: string) => inScope(alias, c.accountId, c.tenantId, c.creatorMode);
  return sql`SELECT ${userStateColumns(scope)} FROM embed_users u
    WHERE u.id = ${c.user.id} AND u.account_id = ${c.accountId} AND u.tenant_id = ${c.tenantId}`;
}

export type RebuiltUser =
  | { kind: 'external'; state: StoredUserState }
  | { kind: 'internal'; user: InternalUser }
  | null;

/** The row of sessionUserStatement through the mapper of its table. */
export function toRebuiltUser(kind: 'external' | 'internal', row: RawRow | undefined): RebuiltUser {
  if (!row) return null;
  return kind === 'external'
    ? { kind, state: toUserState(row as unknown as UserStateRow) }
    : { kind, user: toInternalUser(row) };
}

/**
 * Deleting an embed tenant revokes every session of it with one record under this key, kept as
 * long as the account's longest session lives; each load checks it beside the session's own.
 */
export const tenantRevocationKey = (tenantId: number): string => `tenant:${tenantId}`;

/** The revocation records of a session: its own and its tenant's (none: not revoked). */
export const revocationStatement = (db: Db, sessionId: string, tenantId: number) =>
  db
    .select({ sessionId: embedSessionRevocations.sessionId })
    .from(embedSessionRevocations)
    .where(inArray(embedSessionRevocations.sessionId, [sessionId, tenantRevocationKey(tenantId)]));

/**
 * The account's row on this shard, for a check made without a route's credential lookup: none,
 * or one marked moved, once the account has left the shard (src/accounts/move-account.*).
 */
export const accountHereStatement = (db: Db, accountId: number) =>
  db.select({ movedTo: accounts.movedTo }).from(accounts).where(eq(accounts.id, accountId));

/** true when this call recorded the revocation, false when it was already recorded. */
export async function insertRevocation(
  scope: AccountScope,
  r: { sessionId: string; expiresAt: Date },
): Promise<boolean> {
  const rows = await scope.db
    .insert(embedSessionRevocations)
    .values({
      sessionId: r.sessionId,
      accountId: scope.accountId,
      expiresAt: r.expiresAt.toISOString(),
      revokedAt: scope.now.toISOString(),
    })
    .onConflictDoNothing()
    .returning({ sessionId: embedSessionRevocations.sessionId });
  return rows.length > 0;
}

/** A record is useless once its session has expired anyway; the cron drops those. */
export async function purgeExpiredRevocations(scope: RequestScope): Promise<number> {
  const result = await scope.db
    .delete(embedSessionRevocations)
    .where(
      and(
        lte(embedSessionRevocations.expiresAt, scope.now.toISOString()),
        notInArray(embedSessionRevocations.accountId, FROZEN_ACCOUNTS),
      ),
    );
  return result.meta.changes;
}
