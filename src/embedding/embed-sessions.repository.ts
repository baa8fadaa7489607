import { type SQL, sql } from 'drizzle-orm';
import type { AttributeType } from '../../schema/embedding';
import type { AccountContext } from '../auth/principal';
import { runBatch } from '../core/db';
import type { Db } from '../env';
import type { AttributeValue } from './embedding.schemas';

/**
 * SQL of generate-session (one read batch, at most one write batch) and of the session
 * rebuild. Statements find rows through natural keys (key hash, account + tenant name,
 * tenant + externalId) in subqueries, so no statement needs a value an earlier one produced
 * and each phase is a single round trip.
 */

/** Group and attribute rows visible to a session: the tenant's own in creator mode, else the account-wide ones. */
function inScope(alias: string, account: SQL | number, tenant: SQL | number, creatorMode: boolean): SQL {
  const a = sql.raw(alias);
  return creatorMode
    ? sql`${a}.account_id = ${account} AND ${a}.tenant_id = ${tenant}`
    : sql`${a}.account_id = ${account} AND ${a}.tenant_id IS NULL`;
}

/** The user's profile and, in the session's scope, memberships and attribute values. */
function userStateColumns(scope: (alias: string) => SQL): SQL {
  return sql`u.id, u.external_id, u.email, u.display_name, u.picture, u.security_context,
    (SELECT json_group_array(json_object('id', g.id, 'name', g.name))
       FROM embed_memberships m JOIN embed_groups g ON g.id = m.group_id
       WHERE m.user_id = u.id AND ${scope('g')}) AS groups_json,
    (SELECT json_group_array(json_object('id', a.id, 'name', a.name, 'value', json(v.value)))
       FROM embed_attribute_values v JOIN embed_attributes a ON a.id = v.attribute_id
       WHERE v.user_id = u.id AND ${scope('a')}) AS attributes_json`;
}

interface UserStateRow {
  id: number;
  external_id: string;
  email: string | null;
  display_name: string | null;
  picture: string | null;
  security_context: string | null;
  groups_json: string;
  attributes_json: string;
}

export interface StoredUserState {
  id: number;
  externalId: string;
  email: string | null;
  displayName: string | null;
  picture: string | null;
  /** JSON text as stored. */
  securityContext: string | null;
  groups: { id: number; name: string }[];
  attributes: { id: number; name: string; value: Exclude<AttributeValue, null> }[];
}

function toUserState(row: UserStateRow): StoredUserState {
  return {
    id: row.id,
    externalId: row.external_id,
    email: row.email,
    displayName: row.display_name,
    picture: row.picture,
    securityContext: row.security_context,
    groups: JSON.parse(row.groups_json),
    attributes: JSON.parse(row.attributes_json),
  };
}

export interface CatalogueGroup {
  id: number;
  name: string;
  description: string;
}

export interface CatalogueAttribute {
  id: number;
  name: string;
  type: AttributeType;
  displayName: string | null;
  defaultValue: string | null;
  description: string | null;
}

export interface InternalUser {
  id: number;
  username: string;
  email: string;
  firstName: string;
  picture: string;
}

export interface MintRead {
  /** null: no key with this hash. */
  key: { id: number; hash: string; deploymentIds: number[] | null } | null;
  account: AccountContext | null;
  deploymentFound: boolean;
  tenantId: number | null;
  externalUser: StoredUserState | null;
  /** External users of the account; only read when the user is new (null otherwise). */
  externalUserCount: number | null;
  internalUser: InternalUser | null;
  /** Catalogue rows (in the session's scope) named by the request. */
  groups: CatalogueGroup[];
  attributes: CatalogueAttribute[];
}

export interface MintQuery {
  keyHash: string;
  deploymentId: number;
  tenantName: string;
  creatorMode: boolean;
  externalId?: string;
  internalId?: string;
  groupNames: string[];
  attributeNames: string[];
}

/** Everything generate-session checks, keyed by the API key's hash: ONE batch, one round trip. */
export async function readMintState(db: Db, q: MintQuery): Promise<MintRead> {
  const account = sql`(SELECT account_id FROM api_keys WHERE key_hash = ${q.keyHash})`;
  const tenant = sql`(SELECT id FROM embed_tenants WHERE account_id = ${account} AND name = ${q.tenantName})`;
  const scope = (alias: string) => inScope(alias, account, tenant, q.creatorMode);
  const user = sql`(SELECT id FROM embed_users WHERE tenant_id = ${tenant} AND external_id = ${q.externalId ?? null})`;

  const statements: SQL[] = [
    sql`SELECT k.id AS key_id, k.key_hash, k.deployment_ids, a.id AS account_id, a.plan, a.use_creator_mode,
        a.external_user_limit, a.embed_session_ttl_seconds, a.show_dashboard_chat,
        EXISTS (SELECT 1 FROM deployments d WHERE d.id = ${q.deploymentId} AND d.account_id = a.id) AS deployment_found,
        (SELECT id FROM embed_tenants t WHERE t.account_id = a.id AND t.name = ${q.tenantName}) AS tenant_id,
        ${
          // Counting the account's users is only worth it for a new user: the CASE skips it otherwise.
          q.externalId === undefined
            ? sql`NULL`
            : sql`CASE WHEN ${user} IS NULL THEN (SELECT count(*) FROM embed_users WHERE account_id = a.id) END`
        } AS external_user_count
      FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${q.keyHash}`,
  ];
  const at: Partial<Record<'user' | 'internal' | 'groups' | 'attributes', number>> = {};
  if (q.externalId !== undefined) {
    at.user =
      statements.push(sql`SELECT ${userStateColumns(scope)} FROM embed_users u WHERE u.id = ${user}`) - 1;
  }
  if (q.internalId !== undefined) {
    at.internal =
      statements.push(
        sql`SELECT id, username, email, first_name, picture FROM users
          WHERE account_id = ${account} AND username = ${q.internalId}`,
      ) - 1;
  }
  if (q.groupNames.length > 0) {
    at.groups =
      statements.push(
        sql`SELECT g.id, g.name, g.description FROM embed_groups g
          WHERE ${scope('g')} AND g.name IN (SELECT value FROM json_each(${JSON.stringify(q.groupNames)}))`,
      ) - 1;
  }
  if (q.attributeNames.length > 0) {
    at.attributes =
      statements.push(
        sql`SELECT a.id, a.name, a.type, a.display_name, a.default_value, a.description FROM embed_attributes a
          WHERE ${scope('a')} AND a.name IN (SELECT value FROM json_each(${JSON.stringify(q.attributeNames)}))`,
      ) - 1;
  }

  const results = await runBatch<Record<string, unknown>>(db, statements);
  const rowsOf = (i: number | undefined) => (i === undefined ? [] : (results[i]?.results ?? []));
  const head = rowsOf(0)[0];
  const userRow = rowsOf(at.user)[0] as UserStateRow | undefined;
  const internal = rowsOf(at.internal)[0] as
    | { id: number; username: string; email: string; first_name: string; picture: string }
    | undefined;
  return {
    key: head
      ? {
          id: head.key_id as number,
          hash: head.key_hash as string,
          deploymentIds: head.deployment_ids === null ? null : JSON.parse(head.deployment_ids as string),
        }
      : null,
    account: head
      ? {
          id: head.account_id as number,
          plan: head.plan as AccountContext['plan'],
          useCreatorMode: head.use_creator_mode === 1,
          externalUserLimit: head.external_user_limit as number,
          embedSessionTtlSeconds: head.embed_session_ttl_seconds as number,
          showDashboardChat: head.show_dashboard_chat === 1,
        }
      : null,
    deploymentFound: head?.deployment_found === 1,
    tenantId: (head?.tenant_id as number | null | undefined) ?? null,
    externalUser: userRow ? toUserState(userRow) : null,
    externalUserCount: (head?.external_user_count as number | null | undefined) ?? null,
    internalUser: internal
      ? {
          id: internal.id,
          username: internal.username,
          email: internal.email,
          firstName: internal.first_name,
          picture: internal.picture,
        }
      : null,
    groups: rowsOf(at.groups) as unknown as CatalogueGroup[],
    attributes: (rowsOf(at.attributes) as Record<string, unknown>[]).map((r) => ({
      id: r.id as number,
      name: r.name as string,
      type: r.type as AttributeType,
      displayName: r.display_name as string | null,
      defaultValue: r.default_value as string | null,
      description: r.description as string | null,
    })),
  };
}

/** The D1 writes one mint needs; every part is optional and only present when something changes. */
export interface MintWrites {
  accountId: number;
  tenantName: string;
  creatorMode: boolean;
  createTenant: boolean;
  /** Upserted in the tenant's catalogue; an empty description keeps the stored one. */
  groupDefinitions: { name: string; description: string }[];
  attributeDefinitions: {
    name: string;
    type: AttributeType;
    displayName?: string;
    defaultValue?: string;
    description?: string;
  }[];
  /** Every definition the request sent: the type guard re-checks them all inside the batch. */
  definitionTypes: { name: string; type: AttributeType }[];
  /** Absent for internal users. */
  user?: {
    externalId: string;
    isNew: boolean;
    /** Only the fields to write; a field that is absent keeps the stored value. */
    set: {
      email?: string;
      displayName?: string | null;
      picture?: string | null;
      securityContext?: string | null;
    };
    /** Replace the memberships of the session's scope by exactly these names. */
    groups?: string[];
    values: { name: string; value: Exclude<AttributeValue, null> }[];
    clear: string[];
  };
}

export type WriteOutcome =
  | { ok: true; tenantId: number; userId: number | null }
  | { ok: false; reason: 'quota_exceeded' | 'type_conflict' };

const GUARD = /CHECK constraint failed: (quota_exceeded|type_conflict)/;

/**
 * A statement that aborts its whole batch (the CHECK on embed_write_guards fails) when adding
 * `newUsers` external users would take the account past its externalUserLimit. Every batch
 * that creates embed users carries it, so two concurrent writers cannot both pass the limit.
 */
export function externalUserQuotaGuard(accountId: number, newUsers: SQL): SQL {
  return sql`INSERT INTO embed_write_guards (reason) SELECT 'quota_exceeded'
    WHERE (${newUsers}) > 0
      AND (SELECT count(*) FROM embed_users WHERE account_id = ${accountId}) + (${newUsers})
        > (SELECT external_user_limit FROM accounts WHERE id = ${accountId})`;
}

const USER_COLUMNS = {
  email: 'email',
  displayName: 'display_name',
  picture: 'picture',
  securityContext: 'security_context',
} as const;

/**
 * All writes of one mint as ONE batch, i.e. one transaction: tenant, definitions, user,
 * memberships and values land together or not at all. Two guards abort the whole batch
 * from inside SQL (see embed_write_guards): a definition whose stored type differs, and a
 * new external user past the account's limit. The limit guard counts inside the same
 * transaction as the insert, so two concurrent mints at the limit cannot both pass.
 */
export async function writeMintState(db: Db, w: MintWrites, now: string): Promise<WriteOutcome> {
  const tenant = sql`(SELECT id FROM embed_tenants WHERE account_id = ${w.accountId} AND name = ${w.tenantName})`;
  const scope = (alias: string) => inScope(alias, w.accountId, tenant, w.creatorMode);
  const statements: SQL[] = [];

  if (w.createTenant) {
    statements.push(sql`INSERT INTO embed_tenants (account_id, name, created_at)
      VALUES (${w.accountId}, ${w.tenantName}, ${now}) ON CONFLICT DO NOTHING`);
  }
  if (w.definitionTypes.length > 0) {
    statements.push(sql`INSERT INTO embed_write_guards (reason)
      SELECT 'type_conflict' FROM embed_attributes a, json_each(${JSON.stringify(w.definitionTypes)}) d
      WHERE a.tenant_id = ${tenant} AND a.name = d.value ->> 'name' AND a.type <> d.value ->> 'type' LIMIT 1`);
  }
  if (w.groupDefinitions.length > 0) {
    // "WHERE true" lets SQLite parse the upsert after INSERT … SELECT.
    statements.push(sql`INSERT INTO embed_groups (account_id, tenant_id, name, description, created_at, updated_at)
      SELECT ${w.accountId}, ${tenant}, d.value ->> 'name', d.value ->> 'description', ${now}, ${now}
      FROM json_each(${JSON.stringify(w.groupDefinitions)}) d WHERE true
      ON CONFLICT (tenant_id, name) WHERE tenant_id IS NOT NULL DO UPDATE SET
        description = CASE WHEN excluded.description = '' THEN embed_groups.description ELSE excluded.description END,
        updated_at = excluded.updated_at`);
  }
  if (w.attributeDefinitions.length > 0) {
    statements.push(sql`INSERT INTO embed_attributes
        (account_id, tenant_id, name, type, display_name, default_value, description, created_at, updated_at)
      SELECT ${w.accountId}, ${tenant}, d.value ->> 'name', d.value ->> 'type', d.value ->> 'displayName',
        d.value ->> 'defaultValue', d.value ->> 'description', ${now}, ${now}
      FROM json_each(${JSON.stringify(w.attributeDefinitions)}) d WHERE true
      ON CONFLICT (tenant_id, name) WHERE tenant_id IS NOT NULL DO UPDATE SET
        display_name = coalesce(excluded.display_name, embed_attributes.display_name),
        default_value = coalesce(excluded.default_value, embed_attributes.default_value),
        description = coalesce(excluded.description, embed_attributes.description),
        updated_at = excluded.updated_at`);
  }

  const u = w.user;
  const user = sql`(SELECT id FROM embed_users WHERE tenant_id = ${tenant} AND external_id = ${u?.externalId ?? null})`;
  if (u) {
    if (u.isNew) {
      statements.push(externalUserQuotaGuard(w.accountId, sql`CASE WHEN ${user} IS NULL THEN 1 ELSE 0 END`));
    }
    const fields = (Object.keys(u.set) as (keyof typeof USER_COLUMNS)[]).filter(
      (f) => u.set[f] !== undefined,
    );
    if (u.isNew || fields.length > 0) {
      const value = (f: keyof typeof USER_COLUMNS) => (u.set[f] === undefined ? null : u.set[f]);
      const onConflict =
        fields.length === 0
          ? sql`DO NOTHING`
          : sql`DO UPDATE SET ${sql.join(
              fields.map((f) => sql`${sql.raw(USER_COLUMNS[f])} = excluded.${sql.raw(USER_COLUMNS[f])}`),
              sql`, `,
            )}, updated_at = excluded.updated_at`;
      statements.push(sql`INSERT INTO embed_users
          (account_id, tenant_id, external_id, email, display_name, picture, security_context, created_at, updated_at)
        VALUES (${w.accountId}, ${tenant}, ${u.externalId}, ${value('email')}, ${value('displayName')},
          ${value('picture')}, ${value('securityContext')}, ${now}, ${now})
        ON CONFLICT (tenant_id, external_id) ${onConflict}`);
    }
    if (u.groups) {
      const names = JSON.stringify(u.groups);
      statements.push(sql`DELETE FROM embed_memberships WHERE user_id = ${user} AND group_id IN (
        SELECT g.id FROM embed_groups g WHERE ${scope('g')} AND g.name NOT IN (SELECT value FROM json_each(${names})))`);
      if (u.groups.length > 0) {
        statements.push(sql`INSERT INTO embed_memberships (user_id, group_id)
          SELECT ${user}, g.id FROM embed_groups g
          WHERE ${scope('g')} AND g.name IN (SELECT value FROM json_each(${names}))
          ON CONFLICT DO NOTHING`);
      }
    }
    if (u.values.length > 0) {
      statements.push(sql`INSERT INTO embed_attribute_values (user_id, attribute_id, value)
        SELECT ${user}, a.id, d.value -> 'value' FROM json_each(${JSON.stringify(u.values)}) d, embed_attributes a
        WHERE ${scope('a')} AND a.name = d.value ->> 'name'
        ON CONFLICT (user_id, attribute_id) DO UPDATE SET value = excluded.value`);
    }
    if (u.clear.length > 0) {
      statements.push(sql`DELETE FROM embed_attribute_values WHERE user_id = ${user} AND attribute_id IN (
        SELECT a.id FROM embed_attributes a
        WHERE ${scope('a')} AND a.name IN (SELECT value FROM json_each(${JSON.stringify(u.clear)})))`);
    }
  }
  // The ids the token needs (a tenant or user this batch may just have created).
  statements.push(sql`SELECT ${tenant} AS tenant_id, ${u ? user : sql`NULL`} AS user_id`);

  try {
    const results = await runBatch(db, statements);
    const ids = results.at(-1)?.results[0] as { tenant_id: number; user_id: number | null };
    return { ok: true, tenantId: ids.tenant_id, userId: ids.user_id };
  } catch (error) {
    const guard = GUARD.exec(
      String(error instanceof Error ? `${error.message} ${error.cause ?? ''}` : error),
    );
    if (guard) return { ok: false, reason: guard[1] as 'quota_exceeded' | 'type_conflict' };
    throw error;
  }
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
export function sessionUserStatement(c: RebuildClaims): SQL {
  if (c.user.kind === 'internal') {
    return sql`SELECT id, username, email, first_name, picture FROM users
      WHERE id = ${c.user.id} AND account_id = ${c.accountId}`;
  }
  const scope = (alias: string) => inScope(alias, c.accountId, c.tenantId, c.creatorMode);
  return sql`SELECT ${userStateColumns(scope)} FROM embed_users u
    WHERE u.id = ${c.user.id} AND u.account_id = ${c.accountId} AND u.tenant_id = ${c.tenantId}`;
}

export type RebuiltUser =
  | { kind: 'external'; state: StoredUserState }
  | { kind: 'internal'; user: InternalUser }
  | null;

export function toRebuiltUser(
  kind: 'external' | 'internal',
  row: Record<string, unknown> | undefined,
): RebuiltUser {
  if (!row) return null;
  if (kind === 'external') return { kind, state: toUserState(row as unknown as UserStateRow) };
  return {
    kind,
    user: {
      id: row.id as number,
      username: row.username as string,
      email: row.email as string,
      firstName: row.first_name as string,
      picture: row.picture as string,
    },
  };
}

export const revocationStatement = (sessionId: string): SQL =>
  sql`SELECT session_id FROM embed_session_revocations WHERE session_id = ${sessionId}`;

/** true when this call recorded the revocation, false when it was already recorded. */
export async function insertRevocation(
  db: Db,
  r: { sessionId: string; accountId: number; expiresAt: string },
  now: string,
): Promise<boolean> {
  const rows =
    await db.all(sql`INSERT INTO embed_session_revocations (session_id, account_id, expires_at, revoked_at)
    VALUES (${r.sessionId}, ${r.accountId}, ${r.expiresAt}, ${now}) ON CONFLICT DO NOTHING RETURNING session_id`);
  return rows.length > 0;
}

/** A record is useless once its session has expired anyway; the cron drops those. */
export async function purgeExpiredRevocations(db: Db, now: string): Promise<number> {
  const result = await db.run(sql`DELETE FROM embed_session_revocations WHERE expires_at <= ${now}`);
  return result.meta.changes;
}
