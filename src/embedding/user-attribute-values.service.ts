import { requireAccountWide, requireAdmin } from '../auth/auth.middleware';
import { ApiError, conflict, notFound } from '../core/errors';
import type { AccountScope } from '../core/scope';
import { attributeTypeProblem } from './embedding.schemas';
import * as repo from './user-attribute-values.repository';
import {
  MAX_USER_VALUE_BYTES,
  type UpsertValueInput,
  type UserAttributeValue,
} from './user-attribute-values.schemas';

/**
 * Cube's user attribute values, for the account's own users: what they hold for the attributes
 * of the account-wide catalogue. Wherever such a user's queries run, the data access policies
 * read these values as `{ userAttributes.<name> }` (src/data-api/account-identity.ts).
 */

/**
 * Values are account-wide (they rule row-level security in every deployment), so a key scoped to
 * deployments gets 403 KEY_SCOPE. Writing needs an admin (a user who could set their own values
 * would choose which rows they see); reading, an admin or the user themself.
 */
function requireAccess(scope: AccountScope, userId: number, action: 'read' | 'write'): void {
  const principal = scope.principal;
  requireAccountWide(principal);
  if (action === 'write' || principal.kind !== 'user' || principal.userId !== userId) requireAdmin(principal);
}

type Held = NonNullable<UserAttributeValue['value']>;

const formatted = (value: Held): string =>
  Array.isArray(value) ? value.map(String).join(', ') : typeof value === 'string' ? value : String(value);

/** Cube's UserAttributeValue; a value the user does not hold is left out (Cube's `oneOf: [{}, null]` matches a null twice). */
function present(
  userId: number,
  attribute: repo.CatalogueAttributeRow,
  value: Held | null,
): UserAttributeValue {
  return {
    userId,
    userAttributeId: attribute.id,
    name: attribute.name,
    type: attribute.type,
    displayName: attribute.displayName,
    description: attribute.description,
    ...(value !== null && { value, formattedValue: formatted(value) }),
  };
}

/** Every attribute of the account-wide catalogue, with the value the user holds where they hold one. */
export async function getUserAttributeValues(scope: AccountScope, userId: number) {
  requireAccess(scope, userId, 'read');
  const { userFound, rows } = await repo.readUserValues(scope, userId);
  if (!userFound) throw notFound('User');
  return rows.map((row) =>
    present(userId, row.attribute, row.value === null ? null : (JSON.parse(row.value) as Held)),
  );
}

/**
 * Sets (or, with null, clears) the user's value of an attribute, checked as generate-session
 * checks an embed user's: bounded by the body's schema, then of the attribute's type. The user's
 * values together stay within MAX_USER_VALUE_BYTES (409 past it).
 */
export async function upsertUserAttributeValue(scope: AccountScope, input: UpsertValueInput) {
  const { userId, userAttributeId } = input;
  const value = input.value ?? null;
  requireAccess(scope, userId, 'write');
  const { userFound, attribute } = await repo.readValueTarget(scope, userId, userAttributeId);
  if (!userFound) throw notFound('User');
  if (!attribute) throw notFound('User attribute');
  const problem = attributeTypeProblem(value, attribute.type);
  if (problem) {
    throw new ApiError('VALIDATION_FAILED', `Invalid request body: value ${problem}`, [
      { path: 'value', message: problem },
    ]);
  }
  if (value === null) {
    await repo.clearValue(scope, userId, userAttributeId);
    return present(userId, attribute, null);
  }
  const outcome = await repo.storeValue(
    scope,
    userId,
    userAttributeId,
    JSON.stringify(value),
    MAX_USER_VALUE_BYTES,
  );
  if (outcome === 'too_large') {
    throw conflict(
      `User ${userId}'s attribute values would take more than ${MAX_USER_VALUE_BYTES} bytes of JSON together`,
    );
  }
  // Deleted between the read and the write.
  if (outcome === 'not_found') throw notFound('User attribute');
  return present(userId, attribute, value);
}
