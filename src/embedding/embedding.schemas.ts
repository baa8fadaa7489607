import * as v from 'valibot';
import { ATTRIBUTE_TYPES } from '../../schema/embedding';
import { httpUrl, idNumber, idString, nonEmptyString, obj } from '../core/validation';

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

// v.record alone would take an array (and turn it into an object), so the shape is checked first.
const plainObject = v.pipe(
  v.unknown(),
  v.check((o) => typeof o === 'object' && o !== null && !Array.isArray(o), 'Expected an object'),
  v.record(v.string(), v.unknown()),
);

// ---- E9 generate-session ----

/** A user-attribute value: string, number, array of either, or null (clears it). */
export const attributeValue = v.union([
  v.pipe(v.string(), v.maxLength(4096)),
  v.pipe(v.number(), v.finite()),
  v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096))), v.maxLength(1000)),
  v.pipe(v.array(v.pipe(v.number(), v.finite())), v.maxLength(1000)),
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

const attributeDefinition = obj({
  name: catalogueName,
  type: v.picklist(ATTRIBUTE_TYPES),
  displayName: v.optional(v.pipe(v.string(), v.maxLength(255))),
  defaultValue: v.optional(v.pipe(v.string(), v.maxLength(4096))),
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
    v.pipe(v.array(obj({ name: catalogueName, value: attributeValue })), v.maxLength(200)),
  ),
  groups: v.optional(v.pipe(v.array(catalogueName), v.maxLength(500))),
  userAttributeDefinitions: v.optional(v.pipe(v.array(attributeDefinition), v.maxLength(200))),
  groupDefinitions: v.optional(v.pipe(v.array(groupDefinition), v.maxLength(500))),
  securityContext: v.optional(v.nullable(plainObject)),
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
  defaultValue: v.optional(v.pipe(v.string(), v.maxLength(4096))),
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
