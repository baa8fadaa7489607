import { and, eq, exists, inArray, type SQL, sql } from 'drizzle-orm';
import { accounts, users as usersTable } from '../../schema/accounts';
import { embedUsers as embedUsersTable } from '../../schema/embedding';
import { notificationRecipients, type RecipientType } from '../../schema/notifications';
import { failedCheck, mapRow, runBatch } from '../core/db';
import type { IdCursor } from '../core/pagination';
import type { DeploymentScope } from '../core/scope';
import { externalUserQuotaGuard } from '../embedding/embed-sessions.repository';
import { ownNotification, type Raw, rowsOf } from './notifications.repository';

/**
 * A recipient row joined with what identifies it to people (username, externalId, tenant).
 * `email` is the address a delivery goes to: the user's, the recipient's own, or the embed user's.
 */
export type RecipientRow = typeof notificationRecipients.$inferSelect & {
  username: string | null;
  externalId: string | null;
  embedTenantName: string | null;
};

const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * The one mapper of a recipient row: the table's columns as drizzle maps them (JSON parsed),
 * plus the columns `selectRecipients` joins in. The security context stays JSON text.
 */
export function toRecipientRow(raw: Raw): RecipientRow {
  return {
    ...mapRow(notificationRecipients, raw),
    username: textOrNull(raw.username),
    email: textOrNull(raw.delivery_email),
    externalId: textOrNull(raw.external_id),
    embedTenantName: textOrNull(raw.tenant_name),
  };
}

/**
 * Recipients with their people-facing identity; the caller adds WHERE/ORDER. Hand-written: the
 * lease batch of a delivery attempt joins it as a subquery of its own raw statement.
 */
export const selectRecipients = sql`SELECT r.*, u.username,
    coalesce(u.email, r.email, eu.email) AS delivery_email, eu.external_id, t.name AS tenant_name,
    eu.account_id AS embed_account_id, eu.tenant_id AS embed_tenant_id
  FROM notification_recipients r
  LEFT JOIN users u ON u.id = r.user_id
  LEFT JOIN embed_users eu ON eu.id = r.embed_user_id
  LEFT JOIN embed_tenants t ON t.id = eu.tenant_id`;

export interface RecipientLookups {
  userIds: number[];
  emails: string[];
  /** `tenant/externalId` pairs. */
  embedUsers: { tenant: string; externalId: string }[];
  keys: string[];
}

export interface RecipientReadState {
  notificationFound: boolean;
  users: { id: number; email: string; username: string }[];
  embedUsers: { tenant: string; externalId: string; id: number; email: string | null }[];
  existing: RecipientRow[];
  externalUserCount: number;
  externalUserLimit: number;
}

/**
 * Everything adding recipients checks before writing, in ONE batch: the notification, the users
 * named by id or email, the embed users named, the recipients that already exist, and the
 * account's external-user count and limit. Lists travel as one JSON parameter each (json_each,
 * hand-written): a request may name more values than D1 binds parameters.
 */
export async function readRecipientState(
  scope: DeploymentScope,
  notificationId: number,
  q: RecipientLookups,
): Promise<RecipientReadState> {
  const { accountId } = scope;
  const [found, users, embed, existing, quota] = await runBatch(scope.db, [
    ownNotification(scope, notificationId),
    sql`SELECT * FROM users WHERE account_id = ${accountId}
      AND (id IN (SELECT value FROM json_each(${JSON.stringify(q.userIds)}))
        OR lower(email) IN (SELECT value FROM json_each(${JSON.stringify(q.emails)})))`,
    sql`SELECT t.name AS tenant, u.* FROM embed_users u
      JOIN embed_tenants t ON t.id = u.tenant_id
      JOIN json_each(${JSON.stringify(q.embedUsers)}) j
        ON t.name = j.value ->> 'tenant' AND u.external_id = j.value ->> 'externalId'
      WHERE t.account_id = ${accountId}`,
    // A recipient named by email may be stored under the key of the user with that address.
    sql`${selectRecipients} WHERE r.notification_id = ${notificationId}
      AND (r.recipient_key IN (SELECT value FROM json_each(${JSON.stringify(q.keys)}))
        OR r.recipient_key IN (SELECT 'user:' || id FROM users WHERE account_id = ${accountId}
          AND lower(email) IN (SELECT value FROM json_each(${JSON.stringify(q.emails)}))))`,
    // The counter triggers keep on embed_users: one row read, whatever the account's size.
    scope.db
      .select({
        externalUserCount: accounts.externalUserCount,
        externalUserLimit: accounts.externalUserLimit,
      })
      .from(accounts)
      .where(eq(accounts.id, accountId)),
  ]);
  const quotaRaw = rowsOf(quota)[0];
  const account = quotaRaw ? mapRow(accounts, quotaRaw) : null;
  return {
    notificationFound: rowsOf(found).length > 0,
    users: rowsOf(users).map((raw) => {
      const u = mapRow(usersTable, raw);
      return { id: u.id, email: u.email, username: u.username };
    }),
    embedUsers: rowsOf(embed).map((raw) => {
      const u = mapRow(embedUsersTable, raw);
      return { tenant: String(raw.tenant), externalId: u.externalId, id: u.id, email: u.email };
    }),
    existing: rowsOf(existing).map(toRecipientRow),
    externalUserCount: account?.externalUserCount ?? 0,
    externalUserLimit: account?.externalUserLimit ?? 0,
  };
}

/** A recipient as written: identity plus the properties an update may change. */
export interface RecipientWrite {
  key: string;
  type: RecipientType;
  userId: number | null;
  email: string | null;
  tenant: string | null;
  externalId: string | null;
  channelId: string | null;
  channelName: string | null;
  /** JSON text, or null. */
  groups: string | null;
  userAttributes: string | null;
  securityContext: string | null;
}

/** Rows per statement: one JSON parameter each, kept well under D1's statement size. */
const CHUNK = 250;

/** The outcome of the recipients' write batch: the rows written, or the limit whose guard rolled it back. */
export type WriteRecipientsResult =
  | { ok: true; rows: RecipientRow[] }
  | { ok: false; refused: 'external_user_quota' | 'recipient_limit' };

/** The guard names of the CHECK constraints that abort a batch, by the limit they stand for. */
const GUARDS = [
  ['quota_exceeded', 'external_user_quota'],
  ['recipient_limit', 'recipient_limit'],
] as const;

/**
 * The recipients' writes as ONE batch (one transaction): embed tenants and external users named
 * for the first time, a guard that aborts the whole batch when they would pass the account's
 * external-user limit (counted inside the transaction, so concurrent requests cannot both
 * pass), the recipients upserted by identity in chunks, a guard that aborts it when the
 * notification would then hold more than `maxRecipients`, and the rows read back. Hand-written
 * throughout: a guarded batch, its rows as JSON parameters (json_each).
 */
export async function writeRecipients(
  scope: DeploymentScope,
  notificationId: number,
  rows: RecipientWrite[],
  maxRecipients: number,
): Promise<WriteRecipientsResult> {
  const { accountId } = scope;
  const now = scope.now.toISOString();
  const statements: SQL[] = [];
  const embed = rows.filter((r) => r.type === 'EMBED_USER');
  if (embed.length > 0) {
    const named = JSON.stringify(
      embed.map((r) => ({ tenant: r.tenant, externalId: r.externalId, email: r.email })),
    );
    const tenants = JSON.stringify([...new Set(embed.map((r) => r.tenant))]);
    statements.push(sql`INSERT INTO embed_tenants (account_id, name, created_at)
      SELECT ${accountId}, value, ${now} FROM json_each(${tenants}) WHERE true ON CONFLICT DO NOTHING`);
    const newUsers = sql`SELECT count(*) FROM json_each(${named}) j WHERE NOT EXISTS (
        SELECT 1 FROM embed_users u JOIN embed_tenants t ON t.id = u.tenant_id
        WHERE t.account_id = ${accountId} AND t.name = j.value ->> 'tenant'
          AND u.external_id = j.value ->> 'externalId')`;
    statements.push(externalUserQuotaGuard(accountId, newUsers));
    statements.push(sql`INSERT INTO embed_users (account_id, tenant_id, external_id, email, created_at, updated_at)
      SELECT ${accountId}, t.id, j.value ->> 'externalId', j.value ->> 'email', ${now}, ${now}
      FROM json_each(${named}) j JOIN embed_tenants t ON t.account_id = ${accountId} AND t.name = j.value ->> 'tenant'
      WHERE true ON CONFLICT (tenant_id, external_id) DO NOTHING`);
  }
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = JSON.stringify(rows.slice(i, i + CHUNK));
    // Only a recipient whose properties differ is touched, so updated_at tells real changes.
    statements.push(sql`INSERT INTO notification_recipients (notification_id, type, recipient_key, user_id, email,
        embed_user_id, channel_id, channel_name, groups, user_attributes, security_context, created_at, updated_at)
      SELECT ${notificationId}, j.value ->> 'type', j.value ->> 'key', j.value ->> 'userId', j.value ->> 'email',
        (SELECT u.id FROM embed_users u JOIN embed_tenants t ON t.id = u.tenant_id
          WHERE t.account_id = ${accountId} AND t.name = j.value ->> 'tenant' AND u.external_id = j.value ->> 'externalId'),
        j.value ->> 'channelId', j.value ->> 'channelName', j.value ->> 'groups', j.value ->> 'userAttributes',
        j.value ->> 'securityContext', ${now}, ${now}
      FROM json_each(${chunk}) j WHERE true
      ON CONFLICT (notification_id, recipient_key) DO UPDATE SET
        email = coalesce(excluded.email, notification_recipients.email),
        channel_name = coalesce(excluded.channel_name, notification_recipients.channel_name),
        groups = coalesce(excluded.groups, notification_recipients.groups),
        user_attributes = coalesce(excluded.user_attributes, notification_recipients.user_attributes),
        security_context = coalesce(excluded.security_context, notification_recipients.security_context),
        updated_at = excluded.updated_at
      WHERE excluded.email IS NOT notification_recipients.email AND excluded.email IS NOT NULL
        OR excluded.channel_name IS NOT notification_recipients.channel_name AND excluded.channel_name IS NOT NULL
        OR excluded.groups IS NOT notification_recipients.groups AND excluded.groups IS NOT NULL
        OR excluded.user_attributes IS NOT notification_recipients.user_attributes AND excluded.user_attributes IS NOT NULL
        OR excluded.security_context IS NOT notification_recipients.security_context AND excluded.security_context IS NOT NULL`);
  }
  // Counted inside the transaction, after the upserts: concurrent requests cannot both pass.
  statements.push(sql`INSERT INTO notification_write_guards (reason) SELECT 'recipient_limit'
    WHERE (SELECT count(*) FROM notification_recipients WHERE notification_id = ${notificationId}) > ${maxRecipients}`);
  statements.push(sql`${selectRecipients} WHERE r.notification_id = ${notificationId}
    AND r.recipient_key IN (SELECT value FROM json_each(${JSON.stringify(rows.map((r) => r.key))}))`);
  try {
    const results = await runBatch(scope.db, statements);
    return {
      ok: true,
      rows: rowsOf(results.at(-1)).map(toRecipientRow),
    };
  } catch (error) {
    const failed = failedCheck(
      error,
      GUARDS.map(([constraint]) => constraint),
    );
    const guard = GUARDS.find(([constraint]) => constraint === failed);
    if (guard) return { ok: false, refused: guard[1] };
    throw error;
  }
}

/** One round trip: the notification check and one page of its recipients (keyset on id). */
export async function listRecipients(
  scope: DeploymentScope,
  notificationId: number,
  { afterId, limit }: IdCursor,
): Promise<{ notificationFound: boolean; rows: RecipientRow[] }> {
  const [found, page] = await runBatch(scope.db, [
    ownNotification(scope, notificationId),
    sql`${selectRecipients} WHERE r.notification_id = ${notificationId}
      ${afterId === null ? sql`` : sql`AND r.id > ${afterId}`} ORDER BY r.id ASC LIMIT ${limit + 1}`,
  ]);
  return { notificationFound: rowsOf(found).length > 0, rows: rowsOf(page).map(toRecipientRow) };
}

/** Its deliveries go with it (foreign key cascade). */
export async function deleteRecipient(
  scope: DeploymentScope,
  notificationId: number,
  recipientId: number,
): Promise<boolean> {
  const rows = await scope.db
    .delete(notificationRecipients)
    .where(
      and(
        eq(notificationRecipients.id, recipientId),
        inArray(notificationRecipients.notificationId, ownNotification(scope, notificationId)),
      ),
    )
    .returning({ id: notificationRecipients.id });
  return rows.length > 0;
}

/**
 * Removes the recipients named by identity key, or by embed user id within a tenant, in ONE
 * batch: the notification check, then both deletes (each served by an index of the recipients).
 * The deletes are hand-written: the names travel as one JSON parameter each (json_each), a
 * request may name more than D1 binds parameters.
 */
export async function removeRecipients(
  scope: DeploymentScope,
  notificationId: number,
  keys: string[],
  embedUsers: { id: number; tenant: string }[],
): Promise<{ notificationFound: boolean; removed: number }> {
  const owned = and(
    eq(notificationRecipients.notificationId, notificationId),
    exists(ownNotification(scope, notificationId)),
  );
  const [found, byKey, byEmbedUser] = await runBatch(scope.db, [
    ownNotification(scope, notificationId),
    sql`DELETE FROM notification_recipients WHERE ${owned}
      AND recipient_key IN (SELECT value FROM json_each(${JSON.stringify(keys)})) RETURNING id`,
    sql`DELETE FROM notification_recipients WHERE ${owned}
      AND embed_user_id IN (SELECT u.id FROM json_each(${JSON.stringify(embedUsers)}) j
        JOIN embed_users u ON u.id = j.value ->> 'id'
        JOIN embed_tenants t ON t.id = u.tenant_id AND t.name = j.value ->> 'tenant'
        WHERE t.account_id = ${scope.accountId}) RETURNING id`,
  ]);
  return {
    notificationFound: rowsOf(found).length > 0,
    removed: rowsOf(byKey).length + rowsOf(byEmbedUser).length,
  };
}
