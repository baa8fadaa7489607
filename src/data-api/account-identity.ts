import { Column, getTableName, is, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { Identity } from '../semantic/query/policies';

/**
 * Who an account user (the account's own users, not embed users) is to the data access policies:
 * no groups, no security context, and the values they hold for the account-wide catalogue's
 * attributes (upsertUserAttributeValue). Every place an account user's queries run builds their
 * identity here, from ONE column of a statement it already runs: the render endpoint and exports
 * (the dashboard's read), notifications (the leased recipients' read: all their values in that
 * one statement) and internal embed sessions (the user's read).
 */

/**
 * The attribute values of account user `userId` as one JSON object `{name: value}` (`{}` when
 * they hold none): a column for the caller's statement. `userId` is a number, or a column of that
 * statement (one row per user). Only values of the account-wide catalogue of the user's own
 * account count. Alias it (`.as(…)`) where the statement's rows are read by column name.
 */
export function accountAttributesColumn(userId: number | SQLWrapper): SQL<unknown> {
  // Qualified by its table: drizzle writes a column bare in a statement without joins.
  const user = is(userId, Column)
    ? sql`${sql.identifier(getTableName(userId.table))}.${sql.identifier(userId.keyAsName ? toSnakeCase(userId.name) : userId.name)}`
    : userId;
  // Hand-written: a correlated scalar subquery aggregated into one JSON object (json_group_object),
  // its tables under their own aliases, written out: drizzle would strip their qualifiers in the
  // field list of a single-table select, where they would name the caller's columns.
  return sql`(SELECT json_group_object(uav_a.name, json(uav.value)) FROM user_attribute_values uav
    JOIN embed_attributes uav_a ON uav_a.id = uav.attribute_id AND uav_a.tenant_id IS NULL
    JOIN users uav_u ON uav_u.id = uav.user_id AND uav_u.account_id = uav_a.account_id
    WHERE uav.user_id = ${user})`;
}

/** The values `accountAttributesColumn` read, by name: `{}` for no row, no value or anything else. */
export function accountAttributesOf(column: unknown): Record<string, unknown> {
  if (typeof column !== 'string') return {};
  const parsed: unknown = JSON.parse(column);
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : {};
}

/** An account user's identity from the column `accountAttributesColumn` read for them. */
export function accountUserIdentity(column: unknown): Identity {
  return { groups: [], userAttributes: accountAttributesOf(column), securityContext: {} };
}
