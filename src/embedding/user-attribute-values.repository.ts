import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { users } from '../../schema/accounts';
import { embedAttributes } from '../../schema/embedding';
import { userAttributeValues } from '../../schema/user-attributes';
import { runBatch } from '../core/db';
import type { AccountScope } from '../core/scope';

/**
 * The values account users hold for the account-wide catalogue's attributes. Every read and write
 * names the account: a user or an attribute of another account (or of an embed tenant's
 * catalogue) is not found.
 */

export type CatalogueAttributeRow = typeof embedAttributes.$inferSelect;

/** The account-wide catalogue's attributes of the scope's account. */
const accountWide = (scope: AccountScope) =>
  and(eq(embedAttributes.accountId, scope.accountId), isNull(embedAttributes.tenantId));

const userOfAccount = (scope: AccountScope, userId: number) =>
  scope.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.accountId, scope.accountId), eq(users.id, userId)));

/**
 * Whether `userId` is a user of the account, and every attribute of the account-wide catalogue
 * (at most ATTRIBUTES_PER_CATALOGUE) with the value the user holds (JSON text, null: none), in id
 * order: one round trip.
 */
export async function readUserValues(scope: AccountScope, userId: number) {
  const [user, rows] = await scope.db.batch([
    userOfAccount(scope, userId),
    scope.db
      .select({ attribute: embedAttributes, value: userAttributeValues.value })
      .from(embedAttributes)
      .leftJoin(
        userAttributeValues,
        and(eq(userAttributeValues.attributeId, embedAttributes.id), eq(userAttributeValues.userId, userId)),
      )
      .where(accountWide(scope))
      .orderBy(asc(embedAttributes.id)),
  ]);
  return { userFound: user.length > 0, rows };
}

/** Whether `userId` is a user of the account, and attribute `attributeId` of its account-wide catalogue: one round trip. */
export async function readValueTarget(scope: AccountScope, userId: number, attributeId: number) {
  const [user, attributes] = await scope.db.batch([
    userOfAccount(scope, userId),
    scope.db
      .select()
      .from(embedAttributes)
      .where(and(accountWide(scope), eq(embedAttributes.id, attributeId))),
  ]);
  return { userFound: user.length > 0, attribute: attributes[0] ?? null };
}

/** Why a value was not stored: the user or attribute is gone, or the user's values would pass `maxBytes`. */
export type WriteOutcome = 'stored' | 'not_found' | 'too_large';

/**
 * Stores the user's value (JSON text) in ONE batch: an upsert guarded in SQL by the user and the
 * attribute (both of the account, the attribute account-wide) and by the bytes of the user's
 * values with this one (at most `maxBytes`), then a probe of which guard refused, if one did.
 */
export async function storeValue(
  scope: AccountScope,
  userId: number,
  attributeId: number,
  json: string,
  maxBytes: number,
): Promise<WriteOutcome> {
  const bytes = new TextEncoder().encode(json).byteLength;
  const others = sql`(SELECT coalesce(sum(length(CAST(o.value AS BLOB))), 0) FROM user_attribute_values o
    WHERE o.user_id = ${userId} AND o.attribute_id <> ${attributeId})`;
  const [stored, probe] = await runBatch(scope.db, [
    // Hand-written: an INSERT … SELECT guarded by the user's other values in the same statement.
    sql`INSERT INTO user_attribute_values (user_id, attribute_id, value, updated_at)
      SELECT u.id, a.id, ${json}, ${scope.now.toISOString()}
      FROM users u JOIN embed_attributes a ON a.account_id = u.account_id AND a.tenant_id IS NULL
      WHERE u.id = ${userId} AND u.account_id = ${scope.accountId} AND a.id = ${attributeId}
        AND ${others} + ${bytes} <= ${maxBytes}
      ON CONFLICT (user_id, attribute_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
      RETURNING user_id`,
    sql`SELECT ${others} + ${bytes} > ${maxBytes} AS too_large`,
  ]);
  if ((stored?.results.length ?? 0) > 0) return 'stored';
  return probe?.results[0]?.too_large ? 'too_large' : 'not_found';
}

/** Clears the user's value (no row: no value); a value that was not there is no change. */
export async function clearValue(scope: AccountScope, userId: number, attributeId: number): Promise<void> {
  await scope.db
    .delete(userAttributeValues)
    .where(and(eq(userAttributeValues.userId, userId), eq(userAttributeValues.attributeId, attributeId)));
}
