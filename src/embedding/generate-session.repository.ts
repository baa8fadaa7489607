import { and, eq, isNull, sql } from 'drizzle-orm';
import { users } from '../../schema/accounts';
import type { AttributeType, WriteGuard } from '../../schema/embedding';
import { runBatch, type Statement } from '../core/db';
import type { Db } from '../core/env';
import {
  abortWhen,
  byName,
  embedUserIdIn,
  externalUserQuotaGuard,
  fingerprintOf,
  guardOf,
  inScope,
  internalUserColumns,
  replaceMemberships,
  tenantIdIn,
  upsertEmbedUser,
  userStateColumns,
} from './embed-sessions.repository';
import {
  attributeOf,
  type CatalogueAttribute,
  type CatalogueGroup,
  type InternalUser,
  type KeyAccount,
  type KeyAccountRow,
  type RawRow,
  type StoredUserState,
  toCatalogueGroup,
  toInternalUser,
  toKeyAccount,
  toUserState,
  type UserStateRow,
} from './embedding.rows';
import { ATTRIBUTES_PER_CATALOGUE, type AttributeValue } from './embedding.schemas';

export type { CatalogueAttribute, CatalogueGroup, InternalUser, StoredUserState };

/**
 * SQL of generate-session: one read batch and at most one write batch. Statements find rows
 * through natural keys (key hash, account + tenant name, tenant + externalId) in subqueries, so
 * no statement needs a value an earlier one produced and each phase is a single round trip.
 * The write batch is guarded (see embed_write_guards) and mostly INSERT … SELECT over JSON lists,
 * which drizzle's builders cannot say; the plain statements in both batches are builders.
 */

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

/** The rows of one result of a batch (none when the statement was not sent). */
const rowsAt = (results: D1Result<RawRow>[], i: number | undefined): RawRow[] =>
  i === undefined ? [] : (results[i]?.results ?? []);

/**
 * Everything generate-session checks, keyed by the API key's hash: ONE batch, one round trip.
 * Every statement is served by an index (key hash, account + tenant name, tenant + externalId,
 * account + username, catalogue + name); the quota is the account's counter, never a count.
 */
export async function readMintState(db: Db, q: MintQuery): Promise<MintRead> {
  // SQL, not a builder, for the reason of tenantIdIn: it is embedded in every statement.
  const account = sql`(SELECT account_id FROM api_keys WHERE key_hash = ${q.keyHash})`;
  const tenant = tenantIdIn(account, q.tenantName);
  const scope = (alias: string) => inScope(alias, account, tenant, q.creatorMode);

  const statements: Statement[] = [
    // The key, its account and what the mint checks of them, in one row: a join with EXISTS and subqueries.
    sql`SELECT k.id AS key_id, k.key_hash, k.deployment_ids, a.id AS account_id, a.plan, a.use_creator_mode,
        a.external_user_limit, a.external_user_count, a.session_rate_limit, a.embed_session_ttl_seconds,
        a.show_dashboard_chat, a.frozen_at,
        EXISTS (SELECT 1 FROM deployments d WHERE d.id = ${q.deploymentId} AND d.account_id = a.id) AS deployment_found,
        (SELECT id FROM embed_tenants t WHERE t.account_id = a.id AND t.name = ${q.tenantName}) AS tenant_id
      FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ${q.keyHash}`,
  ];
  const at: Partial<Record<'user' | 'internal' | 'groups' | 'attributes', number>> = {};
  if (q.externalId !== undefined) {
    const user = embedUserIdIn(tenant, q.externalId);
    at.user =
      statements.push(sql`SELECT ${userStateColumns(scope)} FROM embed_users u WHERE u.id = ${user}`) - 1;
  }
  if (q.internalId !== undefined) {
    at.internal =
      statements.push(
        db
          .select(internalUserColumns)
          .from(users)
          // A deactivated user is no one to mint for: their tokens answer 401 too.
          .where(
            and(eq(users.accountId, account), eq(users.username, q.internalId), isNull(users.deactivatedAt)),
          ),
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
        sql`SELECT a.* FROM ${byName('a', 'embed_attributes', q.attributeNames)} WHERE ${scope('a')}`,
      ) - 1;
  }

  const results = await runBatch(db, statements);
  const head = rowsAt(results, 0)[0] as KeyAccountRow | undefined;
  const userRow = rowsAt(results, at.user)[0] as UserStateRow | undefined;
  const internal = rowsAt(results, at.internal)[0];
  return {
    head: head ? toKeyAccount(head) : null,
    externalUser: userRow ? toUserState(userRow) : null,
    internalUser: internal ? toInternalUser(internal) : null,
    groups: rowsAt(results, at.groups).map(toCatalogueGroup),
    attributes: rowsAt(results, at.attributes).map(attributeOf),
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

/**
 * All writes of one mint as ONE batch, i.e. one transaction: tenant, definitions, user,
 * memberships and values land together or not at all. Two guards abort the whole batch
 * from inside SQL (see embed_write_guards): a definition whose stored type differs, and a
 * new external user past the account's limit. The limit guard counts inside the same
 * transaction as the insert, so two concurrent mints at the limit cannot both pass.
 */
export async function writeMintState(db: Db, w: MintWrites, at: Date): Promise<WriteOutcome> {
  const now = at.toISOString();
  const tenant = tenantIdIn(w.accountId, w.tenantName);
  const scope = (alias: string) => inScope(alias, w.accountId, tenant, w.creatorMode);
  const statements: Statement[] = [];

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
  const user = u ? embedUserIdIn(tenant, u.externalId) : undefined;
  if (u && user) {
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
      statements.push(
        upsertEmbedUser({ accountId: w.accountId, tenant, externalId: u.externalId, set: u.set, now }),
      );
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
  // The ids the token needs (a tenant or user this batch may just have created), read in the batch.
  statements.push(sql`SELECT ${tenant} AS tenant_id, ${user ?? sql`NULL`} AS user_id`);

  try {
    const results = await runBatch(db, statements);
    const ids = results.at(-1)?.results[0];
    if (!ids) throw new Error('The mint batch returned no ids');
    return {
      ok: true,
      tenantId: Number(ids.tenant_id),
      userId: ids.user_id === null ? null : Number(ids.user_id),
    };
  } catch (error) {
    const guard = guardOf(error);
    if (guard) return { ok: false, reason: guard };
    throw error;
  }
}
