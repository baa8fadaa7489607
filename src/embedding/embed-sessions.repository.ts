import { type SQL, sql } from 'drizzle-orm';
import { type AttributeType, WRITE_GUARDS, type WriteGuard } from '../../schema/embedding';
import { failedCheck, runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { AccountScope, RequestScope } from '../core/scope';
import {
  type AttributeRow,
  type CatalogueAttribute,
  type CatalogueGroup,
  type InternalUser,
  type InternalUserRow,
  type KeyAccount,
  type KeyAccountRow,
  type StoredUserState,
  toAttribute,
  toInternalUser,
  toKeyAccount,
  toUserState,
  type UserStateRow,
} from './embedding.rows';
import { ATTRIBUTES_PER_CATALOGUE, type AttributeValue } from './embedding.schemas';

export type { CatalogueAttribute, CatalogueGroup, InternalUser, StoredUserState };

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

/**
 * The rows of `table` (as `alias`) named in `names`, driven from the names so each is found
 * through the catalogue's (scope, name) index: `FROM ${byName(…)} WHERE ${scope}` reads one row
 * per name, never the whole catalogue (CROSS JOIN fixes that order for SQLite).
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
export function replaceMemberships(user: SQL, inCatalogue: SQL, names: string[]): SQL[] {
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
function fingerprintOf(scope: (alias: string) => SQL): SQL {
  return sql`json_array(u.email, u.display_name, u.picture, u.security_context,
    (SELECT json_group_array(id) FROM (SELECT g.id FROM embed_memberships m CROSS JOIN embed_groups g ON g.id = m.group_id
       WHERE m.user_id = u.id AND ${scope('g')} ORDER BY g.id)),
    (SELECT json_group_array(json_array(id, value)) FROM (SELECT a.id, v.value FROM embed_attribute_values v
       CROSS JOIN embed_attributes a ON a.id = v.attribute_id WHERE v.user_id = u.id AND ${scope('a')} ORDER BY a.id)))`;
}

/** The user's profile and, in the session's scope, memberships and attribute values. */
function userStateColumns(scope: (alias: string) => SQL): SQL {
  return sql`u.id, u.external_id, u.email, u.display_name, u.picture, u.security_context,
    ${fingerprintOf(scope)} AS fingerprint,
    (SELECT json_group_array(json_object('id', g.id, 'name', g.name))
       FROM embed_memberships m CROSS JOIN embed_groups g ON g.id = m.group_id
       WHERE m.user_id = u.id AND ${scope('g')}) AS groups_json,
    (SELECT json_group_array(json_object('id', a.id, 'name', a.name, 'value', json(v.value)))
       FROM embed_attribute_values v CROSS JOIN embed_attributes a ON a.id = v.attribute_id
       WHERE v.user_id = u.id AND ${scope('a')}) AS attributes_json`;
}

export interface MintRead {
  /** The key and its account; null: no key with this hash. */
  head: KeyAccount | null;
  externalUser: StoredUserState | null;
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

/** Raw rows of one result of a batch, typed as the row the statement selects. */
const rowsAt = <Row>(results: D1Result<unknown>[], i: number | undefined): Row[] =>
  i === undefined ? [] : ((results[i]?.results ?? []) as Row[]);

/**
 * Everything generate-session checks, keyed by the API key's hash: ONE batch, one round trip.
 * Every statement is served by an index (key hash, account + tenant name, tenant + externalId,
 * account + username, catalogue + name); the quota is the account's counter, never a count.
 */
export async function readMintState(db: Db, q: MintQuery): Promise<MintRead> {
  const account = sql`(SELECT account_id FROM api_keys WHERE key_hash = ${q.keyHash})`;
  const tenant = sql`(SELECT id FROM embed_tenants WHERE account_id = ${account} AND name = ${q.tenantName})`;
  const scope = (alias: string) => inScope(alias, account, tenant, q.creatorMode);
  const user = sql`(SELECT id FROM embed_users WHERE tenant_id = ${tenant} AND external_id = ${q.externalId ?? null})`;

  const statements: SQL[] = [
    sql`SELECT k.id AS key_id, k.key_hash, k.deployment_ids, a.id AS account_id, a.plan, a.use_creator_mode,
        a.external_user_limit, a.external_user_count, a.session_rate_limit, a.embed_session_ttl_seconds,
        a.show_dashboard_chat,
        EXISTS (SELECT 1 FROM deployments d WHERE d.id = ${q.deploymentId} AND d.account_id = a.id) AS deployment_found,
        (SELECT id FROM embed_tenants t WHERE t.account_id = a.id AND t.name = ${q.tenantName}) AS tenant_id
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
        sql`SELECT g.id, g.name, g.description FROM ${byName('g', 'embed_groups', q.groupNames)}
          WHERE ${scope('g')}`,
      ) - 1;
  }
  if (q.attributeNames.length > 0) {
    at.attributes =
      statements.push(
        sql`SELECT a.id, a.name, a.type, a.display_name, a.default_value, a.description, a.created_at
          FROM ${byName('a', 'embed_attributes', q.attributeNames)} WHERE ${scope('a')}`,
      ) - 1;
  }

  const results = await runBatch(db, statements);
  const head = rowsAt<KeyAccountRow>(results, 0)[0];
  const userRow = rowsAt<UserStateRow>(results, at.user)[0];
  const internal = rowsAt<InternalUserRow>(results, at.internal)[0];
  return {
    head: head ? toKeyAccount(head) : null,
    externalUser: userRow ? toUserState(userRow) : null,
    internalUser: internal ? toInternalUser(internal) : null,
    groups: rowsAt<CatalogueGroup>(results, at.groups),
    attributes: rowsAt<AttributeRow>(results, at.attributes).map(toAttribute),
  };
}

/** The D1 writes one mint needs; every part is optional and only present when something changes. */
export interface MintWrites {
  accountId: number;
  tenantName: string;
  creatorMode: boolean;
  /** The read found no tenant: the mint must write (the batch always ensures the tenant exists). */
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
  /**
   * The minting key's hash: the batch aborts with `stale_read` if the primary no longer has the
   * key (a plan read from a replica's copy of a key deleted since). Generate-session always
   * passes it; the check is one probe of the key index.
   */
  keyHash?: string;
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
    /**
     * The fingerprint of the state the plan was made from (null: planned as a new user); the
     * batch aborts with `stale_read` when the primary holds another. Absent: no check.
     */
    expectedFingerprint?: string | null;
  };
}

/** A batch's typed result: the ids it produced, or which guard of embed_write_guards refused it. */
export type WriteOutcome =
  | { ok: true; tenantId: number; userId: number | null }
  | { ok: false; reason: WriteGuard };

/** Which guard aborted a batch, from the constraint name in D1's error; null for any other failure. */
export const guardOf = (error: unknown): WriteGuard | null => failedCheck(error, WRITE_GUARDS);

/** The statement through which a batch aborts itself when `condition` holds (see embed_write_guards). */
const abortWhen = (guard: WriteGuard, from: SQL, condition: SQL): SQL =>
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

const USER_COLUMNS = {
  email: 'email',
  displayName: 'display_name',
  picture: 'picture',
  securityContext: 'security_context',
} as const;

/** The stored fields of an external user a write may set (undefined: left as it is). */
export type EmbedUserFields = { [K in keyof typeof USER_COLUMNS]?: string | null };

/**
 * The upsert of one external user of `tenant`: a new user gets the fields given (the others
 * null); an existing one gets only the fields given, and is left untouched when none is.
 * Generate-session and provisioning write users through this one statement.
 */
export function upsertEmbedUser(
  accountId: number,
  tenant: SQL,
  externalId: string,
  set: EmbedUserFields,
  now: string,
): SQL {
  const fields = (Object.keys(USER_COLUMNS) as (keyof typeof USER_COLUMNS)[]).filter(
    (f) => set[f] !== undefined,
  );
  const value = (f: keyof typeof USER_COLUMNS) => set[f] ?? null;
  const onConflict =
    fields.length === 0
      ? sql`DO NOTHING`
      : sql`DO UPDATE SET ${sql.join(
          fields.map((f) => sql`${sql.raw(USER_COLUMNS[f])} = excluded.${sql.raw(USER_COLUMNS[f])}`),
          sql`, `,
        )}, updated_at = excluded.updated_at`;
  return sql`INSERT INTO embed_users
      (account_id, tenant_id, external_id, email, display_name, picture, security_context, created_at, updated_at)
    VALUES (${accountId}, ${tenant}, ${externalId}, ${value('email')}, ${value('displayName')},
      ${value('picture')}, ${value('securityContext')}, ${now}, ${now})
    ON CONFLICT (tenant_id, external_id) ${onConflict}`;
}

/**
 * All writes of one mint as ONE batch, i.e. one transaction: tenant, definitions, user,
 * memberships and values land together or not at all. Two guards abort the whole batch
 * from inside SQL (see embed_write_guards): a definition whose stored type differs, and a
 * new external user past the account's limit. The limit guard counts inside the same
 * transaction as the insert, so two concurrent mints at the limit cannot both pass.
 */
export async function writeMintState(db: Db, w: MintWrites, at: Date): Promise<WriteOutcome> {
  const now = at.toISOString();
  const tenant = sql`(SELECT id FROM embed_tenants WHERE account_id = ${w.accountId} AND name = ${w.tenantName})`;
  const scope = (alias: string) => inScope(alias, w.accountId, tenant, w.creatorMode);
  const statements: SQL[] = [];

  if (w.keyHash !== undefined) {
    statements.push(
      abortWhen(
        'stale_read',
        sql`(SELECT 1) once`,
        sql`NOT EXISTS (SELECT 1 FROM api_keys WHERE key_hash = ${w.keyHash})`,
      ),
    );
  }
  // Always, not only when the read found no tenant: a tenant deleted since the read (or still on
  // a lagging replica) is created again here, so every statement below finds it instead of NULL.
  statements.push(sql`INSERT INTO embed_tenants (account_id, name, created_at)
    VALUES (${w.accountId}, ${w.tenantName}, ${now}) ON CONFLICT DO NOTHING`);
  if (w.definitionTypes.length > 0) {
    statements.push(
      abortWhen(
        'type_conflict',
        sql`embed_attributes a, json_each(${JSON.stringify(w.definitionTypes)}) d`,
        sql`a.tenant_id = ${tenant} AND a.name = d.value ->> 'name' AND a.type <> d.value ->> 'type'`,
      ),
    );
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
    const names = JSON.stringify(w.attributeDefinitions.map((d) => d.name));
    statements.push(
      abortWhen(
        'catalogue_full',
        sql`(SELECT count(*) AS n FROM embed_attributes a WHERE a.tenant_id = ${tenant}) held`,
        sql`held.n + (SELECT count(*) FROM json_each(${names}) d WHERE NOT EXISTS (
          SELECT 1 FROM embed_attributes a WHERE a.tenant_id = ${tenant} AND a.name = d.value)) > ${ATTRIBUTES_PER_CATALOGUE}`,
      ),
    );
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
    if (u.expectedFingerprint !== undefined) {
      const seen =
        u.expectedFingerprint === null
          ? sql`${user} IS NOT NULL`
          : sql`coalesce((SELECT ${fingerprintOf(scope)} FROM embed_users u WHERE u.id = ${user}), '') <> ${u.expectedFingerprint}`;
      statements.push(abortWhen('stale_read', sql`(SELECT 1) once`, seen));
    }
    if (u.isNew) {
      statements.push(externalUserQuotaGuard(w.accountId, sql`CASE WHEN ${user} IS NULL THEN 1 ELSE 0 END`));
    }
    if (u.isNew || Object.values(u.set).some((value) => value !== undefined)) {
      statements.push(upsertEmbedUser(w.accountId, tenant, u.externalId, u.set, now));
    }
    if (u.groups) statements.push(...replaceMemberships(user, scope('g'), u.groups));
    if (u.values.length > 0) {
      statements.push(sql`INSERT INTO embed_attribute_values (user_id, attribute_id, value)
        SELECT ${user}, a.id, d.value -> 'value'
        FROM json_each(${JSON.stringify(u.values)}) d CROSS JOIN embed_attributes a ON a.name = d.value ->> 'name'
        WHERE ${scope('a')}
        ON CONFLICT (user_id, attribute_id) DO UPDATE SET value = excluded.value`);
    }
    if (u.clear.length > 0) {
      statements.push(sql`DELETE FROM embed_attribute_values WHERE user_id = ${user} AND attribute_id IN (
        SELECT a.id FROM ${byName('a', 'embed_attributes', u.clear)} WHERE ${scope('a')})`);
    }
  }
  // The ids the token needs (a tenant or user this batch may just have created).
  statements.push(sql`SELECT ${tenant} AS tenant_id, ${u ? user : sql`NULL`} AS user_id`);

  try {
    const results = await runBatch(db, statements);
    const ids = rowsAt<{ tenant_id: number; user_id: number | null }>(results, results.length - 1)[0];
    if (!ids) throw new Error('The mint batch returned no ids');
    return { ok: true, tenantId: ids.tenant_id, userId: ids.user_id };
  } catch (error) {
    const guard = guardOf(error);
    if (guard) return { ok: false, reason: guard };
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

/** The row of sessionUserStatement through the mapper of its table. */
export function toRebuiltUser(kind: 'external' | 'internal', row: unknown): RebuiltUser {
  if (!row) return null;
  return kind === 'external'
    ? { kind, state: toUserState(row as UserStateRow) }
    : { kind, user: toInternalUser(row as InternalUserRow) };
}

/**
 * Deleting an embed tenant revokes every session of it with one record under this key, kept as
 * long as the account's longest session lives; each load checks it beside the session's own.
 */
export const tenantRevocationKey = (tenantId: number): string => `tenant:${tenantId}`;

export const revocationStatement = (sessionId: string, tenantId: number): SQL =>
  sql`SELECT session_id FROM embed_session_revocations
    WHERE session_id IN (${sessionId}, ${tenantRevocationKey(tenantId)})`;

/** true when this call recorded the revocation, false when it was already recorded. */
export async function insertRevocation(
  scope: AccountScope,
  r: { sessionId: string; expiresAt: Date },
): Promise<boolean> {
  const now = scope.now.toISOString();
  const rows =
    await scope.db.all(sql`INSERT INTO embed_session_revocations (session_id, account_id, expires_at, revoked_at)
    VALUES (${r.sessionId}, ${scope.accountId}, ${r.expiresAt.toISOString()}, ${now}) ON CONFLICT DO NOTHING RETURNING session_id`);
  return rows.length > 0;
}

/** A record is useless once its session has expired anyway; the cron drops those. */
export async function purgeExpiredRevocations(scope: RequestScope): Promise<number> {
  const result = await scope.db.run(
    sql`DELETE FROM embed_session_revocations WHERE expires_at <= ${scope.now.toISOString()}`,
  );
  return result.meta.changes;
}
