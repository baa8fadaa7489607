import * as v from 'valibot';
import { ATTRIBUTE_TYPES } from '../../schema/embedding';
import { type JsonLimits, jsonBounds } from '../core/json';
import { boundedObject, httpUrl, idNumber, idString, nonEmptyString, obj } from '../core/validation';

/** Contract §6: lowercase, 5–36 characters, a letter first, a letter or digit last. */
export const TENANT_NAME = /^[a-z][a-z0-9-]{3,34}[a-z0-9]$/;
export const DEFAULT_TENANT = 'default';

export const tenantName = v.pipe(
  v.string(),
  v.regex(
    TENANT_NAME,
    'Expected 5–36 characters a-z, 0-9 or -, starting with a letter and ending with a letter or digit',
  ),
);

/** Group and attribute names: 1–100 characters (contract §6), trimmed. */
export const catalogueName = nonEmptyString(100);
const description = v.pipe(v.string(), v.maxLength(500));

/**
 * User attributes one catalogue (account-wide or a tenant's) may define. A session carries the
 * stored values of its catalogue's attributes, so this also caps the attributes per session.
 */
export const ATTRIBUTES_PER_CATALOGUE = 200;

// ---- E9 generate-session ----

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

/** A user-attribute value: string, number, array of either, or null (clears it). */
export const attributeValue = v.union([
  attributeString,
  attributeNumber,
  v.pipe(v.array(attributeString), v.maxLength(MINT_LIMITS.attributeArrayItems)),
  v.pipe(v.array(attributeNumber), v.maxLength(MINT_LIMITS.attributeArrayItems)),
  v.null(),
]);
export type AttributeValue = v.InferOutput<typeof attributeValue>;

const externalId = v.pipe(
  v.string(),
  v.minLength(1, 'Must not be empty'),
  v.maxLength(255),
  v.check((s) => s === s.trim(), 'Must be trimmed (no leading or trailing spaces)'),
  v.check((s) => s === s.toLowerCase(), 'Must be lowercase'),
);

const groupDefinition = obj({ name: catalogueName, description: v.optional(description) });

const defaultValue = v.pipe(v.string(), v.maxLength(MINT_LIMITS.defaultValue));

const attributeDefinition = obj({
  name: catalogueName,
  type: v.picklist(ATTRIBUTE_TYPES),
  displayName: v.optional(v.pipe(v.string(), v.maxLength(255))),
  defaultValue: v.optional(defaultValue),
  description: v.optional(description),
});

export const generateSessionBody = obj({
  deploymentId: idNumber,
  externalId: v.optional(externalId),
  internalId: v.optional(v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(64))),
  email: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('Expected an email address'))),
  userProfile: v.optional(
    obj({
      displayName: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(255)))),
      picture: v.optional(v.nullable(httpUrl)),
    }),
  ),
  embedTenantName: v.optional(tenantName),
  creatorMode: v.optional(v.boolean()),
  userAttributes: v.optional(
    v.pipe(
      v.array(obj({ name: catalogueName, value: attributeValue })),
      v.maxLength(MINT_LIMITS.userAttributesPerRequest),
      jsonBounds(MINT_LIMITS.userAttributes),
    ),
  ),
  groups: v.optional(v.pipe(v.array(catalogueName), v.maxLength(MINT_LIMITS.groupsPerRequest))),
  userAttributeDefinitions: v.optional(
    v.pipe(v.array(attributeDefinition), v.maxLength(MINT_LIMITS.attributeDefinitionsPerRequest)),
  ),
  groupDefinitions: v.optional(
    v.pipe(v.array(groupDefinition), v.maxLength(MINT_LIMITS.groupDefinitionsPerRequest)),
  ),
  securityContext: v.optional(v.nullable(boundedObject(MINT_LIMITS.securityContext))),
  settings: v.optional(obj({ showDashboardChat: v.optional(v.boolean()) })),
});
export type GenerateSessionInput = v.InferOutput<typeof generateSessionBody>;

export const sessionCreatedSchema = v.object({ sessionId: v.string(), expiresAt: v.string() });

export const revokeSessionBody = obj({ sessionId: v.pipe(v.string(), v.maxLength(4096)) });
export const revokedSchema = v.object({ revoked: v.boolean() });

// ---- E8 and the embed dashboard ----

export const publicIdParams = v.object({ publicId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const updateEmbedBody = v.pipe(
  obj({ allowEmbed: v.optional(v.boolean()), allEmbedUsers: v.optional(v.boolean()) }),
  v.check(
    (b) => b.allowEmbed !== undefined || b.allEmbedUsers !== undefined,
    'Send allowEmbed, allEmbedUsers or both',
  ),
);
export const embedSwitchSchema = v.object({
  allowEmbed: v.boolean(),
  publicId: v.string(),
  allEmbedUsers: v.boolean(),
});

export const sessionQuery = v.object({ session: v.optional(v.pipe(v.string(), v.maxLength(4096))) });

export const viewerSchema = v.object({
  displayName: v.nullable(v.string()),
  picture: v.nullable(v.string()),
  initials: v.string(),
});
export const effectiveSettingsSchema = v.object({ showDashboardChat: v.boolean() });

// ---- Catalogues (account-wide and per tenant) ----

export const createGroupBody = obj({ name: catalogueName, description: v.optional(description) });
export const updateGroupBody = v.pipe(
  obj({ name: v.optional(catalogueName), description: v.optional(description) }),
  v.check((b) => b.name !== undefined || b.description !== undefined, 'Send name, description or both'),
);
export const groupSchema = v.object({
  id: v.number(),
  name: v.string(),
  description: v.string(),
  userCount: v.number(),
});
export type EmbedGroup = v.InferOutput<typeof groupSchema>;

export const createAttributeBody = obj({
  name: catalogueName,
  type: v.picklist(ATTRIBUTE_TYPES),
  displayName: v.optional(v.pipe(v.string(), v.maxLength(255))),
  defaultValue: v.optional(defaultValue),
  description: v.optional(description),
});
export const attributeSchema = v.object({
  id: v.number(),
  name: v.string(),
  type: v.picklist(ATTRIBUTE_TYPES),
  displayName: v.nullable(v.string()),
  defaultValue: v.nullable(v.string()),
  description: v.nullable(v.string()),
  createdAt: v.string(),
});
export type EmbedAttribute = v.InferOutput<typeof attributeSchema>;

export const tenantSchema = v.object({ id: v.number(), name: v.string(), createdAt: v.string() });

export const tenantParams = v.object({ embedTenantName: tenantName });
export const tenantItemParams = v.object({ embedTenantName: tenantName, id: idString });
