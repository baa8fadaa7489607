import * as v from 'valibot';
import type { AttributeType } from '../../schema/embedding';
import type { JsonLimits } from '../core/json';
import { httpUrl, nonEmptyString, obj } from '../core/validation';

/**
 * What the embedding's request schemas share: names (tenants, catalogue items, external users),
 * the limits of what one session carries, attribute values and Cube's nullable fields. The
 * schemas of sessions are in embed-sessions.schemas.ts, those of catalogues, tenants and
 * provisioning in catalogues.schemas.ts.
 */

/** A signed session id's longest form (its claims with the most locked filters fit well within it). */
export const MAX_SESSION_ID_LENGTH = 8192;

/** An embed tenant's name: lowercase, 5–36 characters, a letter first, a letter or digit last. */
export const TENANT_NAME = /^[a-z][a-z0-9-]{3,34}[a-z0-9]$/;
export const DEFAULT_TENANT = 'default';

export const tenantName = v.pipe(
  v.string(),
  v.regex(
    TENANT_NAME,
    'Expected 5–36 characters a-z, 0-9 or -, starting with a letter and ending with a letter or digit',
  ),
);

/** Group and attribute names: 1–100 characters, trimmed. */
export const catalogueName = nonEmptyString(100);
/** A group's or an attribute's description. */
export const description = v.pipe(v.string(), v.maxLength(500));

/**
 * User attributes one catalogue (account-wide or a tenant's) may define. A session carries the
 * stored values of its catalogue's attributes, so this also caps the attributes per session.
 */
export const ATTRIBUTES_PER_CATALOGUE = 200;

/**
 * What one session may carry. Together they keep a minted session's KV value, and the user
 * row and rebuild result behind it, far below D1's 1 MB per value and KV's 25 MiB:
 * securityContext ≤ 16 KiB, groups ≤ 500 × 100 characters, userAttributes ≤ 64 KiB of JSON.
 */
export const MINT_LIMITS = {
  securityContext: { maxDepth: 8, maxBytes: 16 * 1024 } satisfies JsonLimits,
  /** The whole `userAttributes` list of one request, as JSON. */
  userAttributes: { maxDepth: 3, maxBytes: 64 * 1024 } satisfies JsonLimits,
  userAttributesPerRequest: 200,
  attributeString: 1024,
  attributeArrayItems: 100,
  groupsPerRequest: 500,
  groupDefinitionsPerRequest: 500,
  attributeDefinitionsPerRequest: 200,
  defaultValue: 1024,
} as const;

/** The limits in words, for the OpenAPI description and docs/embedding.md. */
export const MINT_LIMITS_TEXT =
  `securityContext ≤ ${MINT_LIMITS.securityContext.maxDepth} levels and ${MINT_LIMITS.securityContext.maxBytes} bytes of JSON; ` +
  `≤ ${MINT_LIMITS.groupsPerRequest} groups, ≤ ${MINT_LIMITS.userAttributesPerRequest} userAttributes ` +
  `(together ≤ ${MINT_LIMITS.userAttributes.maxBytes} bytes of JSON; strings ≤ ${MINT_LIMITS.attributeString} characters, ` +
  `arrays ≤ ${MINT_LIMITS.attributeArrayItems} items), ≤ ${MINT_LIMITS.groupDefinitionsPerRequest} groupDefinitions, ` +
  `≤ ${MINT_LIMITS.attributeDefinitionsPerRequest} userAttributeDefinitions (defaultValue ≤ ${MINT_LIMITS.defaultValue} characters).`;

const attributeString = v.pipe(v.string(), v.maxLength(MINT_LIMITS.attributeString));
const attributeNumber = v.pipe(v.number(), v.finite());

/** A user-attribute value: string, number, boolean, array of strings or numbers, or null (clears it). */
export const attributeValue = v.union([
  attributeString,
  attributeNumber,
  v.boolean(),
  v.pipe(v.array(attributeString), v.maxLength(MINT_LIMITS.attributeArrayItems)),
  v.pipe(v.array(attributeNumber), v.maxLength(MINT_LIMITS.attributeArrayItems)),
  v.null(),
]);
export type AttributeValue = v.InferOutput<typeof attributeValue>;

function matchesType(value: Exclude<AttributeValue, null>, type: AttributeType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'string_array':
      return Array.isArray(value) && value.every((x) => typeof x === 'string');
    case 'number_array':
      return Array.isArray(value) && value.every((x) => typeof x === 'number');
  }
}

/**
 * Why `value` cannot be a value of an attribute of `type`, or null when it can (null, which
 * clears a value, always can). The one type rule of attribute values: generate-session's
 * `userAttributes` and the values of account users (upsertUserAttributeValue) both go through it,
 * after `attributeValue` has bounded them.
 */
export function attributeTypeProblem(value: AttributeValue, type: AttributeType): string | null {
  return value === null || matchesType(value, type) ? null : `Expected a ${type} value`;
}

/** An external user's id: stored as sent, so it must already be trimmed and lowercase. */
export const externalId = v.pipe(
  v.string(),
  v.minLength(1, 'Must not be empty'),
  v.maxLength(255),
  v.check((s) => s === s.trim(), 'Must be trimmed (no leading or trailing spaces)'),
  v.check((s) => s === s.toLowerCase(), 'Must be lowercase'),
);

/** Cube declares almost every optional field nullable: null means "not sent" unless a field says otherwise. */
export const nullish = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));

/** A defaultValue of a user-attribute definition. */
export const defaultValue = v.pipe(v.string(), v.maxLength(MINT_LIMITS.defaultValue));

/** Cube's userProfile: displayName and picture, null clearing the stored one. */
export const userProfileBody = obj({
  displayName: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(255)))),
  picture: v.optional(v.nullable(httpUrl)),
});
