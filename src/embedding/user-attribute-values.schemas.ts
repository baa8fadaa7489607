import * as v from 'valibot';
import { ATTRIBUTE_TYPES } from '../../schema/embedding';
import { jsonBounds } from '../core/json';
import { idString, obj } from '../core/validation';
import { attributeValue, MINT_LIMITS } from './embedding.schemas';

/**
 * Cube's UserAttributeValueCreateInput and UserAttributeValue: the values the account's own
 * users hold for the attributes of the account-wide catalogue.
 */

/**
 * Bytes of JSON the values of one user may take together (their attribute names aside): what a
 * generate-session request may carry for an embed user, since an internal session carries them too.
 */
export const MAX_USER_VALUE_BYTES = MINT_LIMITS.userAttributes.maxBytes;

export const userValuesParams = v.object({ userId: idString });

/**
 * Cube sends both ids as strings (its schema says so); `value` is bounded as generate-session's
 * `userAttributes` values are, and null or omitted clears the user's value.
 */
export const upsertValueBody = obj({
  userId: idString,
  userAttributeId: idString,
  value: v.optional(v.pipe(attributeValue, jsonBounds(MINT_LIMITS.userAttributes))),
});
export type UpsertValueInput = v.InferOutput<typeof upsertValueBody>;

const heldValue = v.union([v.string(), v.number(), v.boolean(), v.array(v.string()), v.array(v.number())]);

export const userAttributeValueSchema = v.object({
  userId: v.number(),
  userAttributeId: v.number(),
  name: v.string(),
  type: v.picklist(ATTRIBUTE_TYPES),
  displayName: v.nullable(v.string()),
  description: v.nullable(v.string()),
  /** The user's value; absent when they hold none (the attribute then lets no row through). */
  value: v.optional(heldValue),
  /** The value as text: itself for a string, its JSON for a number or boolean, an array's items joined by ", ". */
  formattedValue: v.optional(v.string()),
});
export type UserAttributeValue = v.InferOutput<typeof userAttributeValueSchema>;
