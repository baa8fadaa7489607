import * as v from 'valibot';
import { ATTRIBUTE_TYPES } from '../../schema/embedding';
import { type JsonLimits, jsonBounds } from '../core/json';
import { pageQueryEntries } from '../core/pagination';
import {
  boundedObject,
  httpUrl,
  idNumber,
  idString,
  nonEmptyString,
  obj,
  type WithoutNulls,
  withoutNulls,
} from '../core/validation';
import { CONTROL_OPERATORS, type ControlFilter } from '../semantic/query/controls';

/** A signed session id's longest form (its claims with the most locked filters fit well within it). */
export const MAX_SESSION_ID_LENGTH = 8192;

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

const externalId = v.pipe(
  v.string(),
  v.minLength(1, 'Must not be empty'),
  v.maxLength(255),
  v.check((s) => s === s.trim(), 'Must be trimmed (no leading or trailing spaces)'),
  v.check((s) => s === s.toLowerCase(), 'Must be lowercase'),
);

/** Cube declares almost every optional field nullable: null means "not sent" unless a field says otherwise. */
const nullish = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));

const groupDefinition = obj({ name: catalogueName, description: nullish(description) });

const defaultValue = v.pipe(v.string(), v.maxLength(MINT_LIMITS.defaultValue));

const attributeDefinition = obj({
  name: catalogueName,
  type: v.picklist(ATTRIBUTE_TYPES),
  displayName: nullish(v.pipe(v.string(), v.maxLength(255))),
  defaultValue: nullish(defaultValue),
  description: nullish(description),
});

const shortText = (max: number) => v.pipe(v.string(), v.maxLength(max));

/**
 * Cube's EmbedSessionSettings. `locale` (BCP 47) and `timezone` (IANA) that do not parse fall
 * back to the account's default instead of failing, as in Cube; the AI switches are stored and
 * returned but have no effect (edgeboard has no AI features).
 */
export const sessionSettingsBody = obj({
  allowAi: nullish(v.boolean()),
  allowChatWorkspaceAuthoring: nullish(v.boolean()),
  locale: nullish(shortText(64)),
  showAiWidgets: nullish(v.boolean()),
  showDashboardChat: nullish(v.boolean()),
  showDashboardSettings: nullish(v.boolean()),
  showGroupByCube: nullish(v.boolean()),
  showMemberNames: nullish(v.boolean()),
  showWorkbookChat: nullish(v.boolean()),
  showWorkbookShare: nullish(v.boolean()),
  timezone: nullish(shortText(64)),
});

/**
 * A session's locked filters: at most 10, each on a member (≤ 255 characters) with ≤ 50 values
 * (strings ≤ 255 characters), ≤ 4 KiB of JSON together. They travel in the signed session id,
 * so a session rebuilt after a KV miss keeps them; the bounds keep the id under
 * MAX_SESSION_ID_LENGTH.
 */
export const LOCKED_LIMITS = { filters: 10, values: 50, member: 255, value: 255, bytes: 4 * 1024 } as const;

const VALUELESS_OPERATORS: readonly string[] = ['is_null', 'is_not_null', 'is_empty', 'is_not_empty'];

export const lockedFilterInput = v.pipe(
  obj({
    member: v.pipe(v.string(), v.minLength(1), v.maxLength(LOCKED_LIMITS.member)),
    operator: v.optional(v.picklist(CONTROL_OPERATORS)),
    values: v.pipe(
      v.array(
        v.union([
          v.pipe(v.string(), v.maxLength(LOCKED_LIMITS.value)),
          v.pipe(v.number(), v.finite()),
          v.boolean(),
          v.null(),
        ]),
      ),
      v.maxLength(LOCKED_LIMITS.values, `At most ${LOCKED_LIMITS.values} values`),
    ),
  }),
  // An empty list would be a cleared control, which restricts nothing: a lock must restrict.
  v.check(
    (f) => f.values.length > 0 || VALUELESS_OPERATORS.includes(f.operator ?? 'equals'),
    'A locked filter needs at least one value',
  ),
);

export const lockedFiltersInput = v.pipe(
  v.array(lockedFilterInput),
  v.maxLength(LOCKED_LIMITS.filters, `At most ${LOCKED_LIMITS.filters} locked filters`),
  jsonBounds({ maxDepth: 4, maxBytes: LOCKED_LIMITS.bytes }),
);

/** Locked filters as the controls apply them (the operator defaults to equals). */
export const asControlFilters = (
  locked: v.InferOutput<typeof lockedFiltersInput> | undefined,
): ControlFilter[] => (locked ?? []).map((f) => ({ ...f, operator: f.operator ?? 'equals' }));

/** Cube's EmbedTheme: accepted and bounded; the viewer does not apply it (documented). */
const embedThemeBody = boundedObject({ maxDepth: 4, maxBytes: 4 * 1024 });

export const generateSessionBody = obj({
  deploymentId: idNumber,
  externalId: nullish(externalId),
  internalId: nullish(v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(64))),
  email: nullish(v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('Expected an email address'))),
  userProfile: nullish(
    obj({
      displayName: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(255)))),
      picture: v.optional(v.nullable(httpUrl)),
    }),
  ),
  embedTenantName: nullish(tenantName),
  embedTenantProfile: nullish(obj({ displayName: nullish(shortText(255)) })),
  embedTheme: nullish(embedThemeBody),
  creatorMode: nullish(v.boolean()),
  isEphemeral: nullish(v.boolean()),
  publicDashboardId: nullish(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  branchName: nullish(shortText(255)),
  roles: nullish(v.pipe(v.array(shortText(100)), v.maxLength(100))),
  userAttributes: nullish(
    v.pipe(
      v.array(obj({ name: catalogueName, value: v.optional(attributeValue) })),
      v.maxLength(MINT_LIMITS.userAttributesPerRequest),
      jsonBounds(MINT_LIMITS.userAttributes),
    ),
  ),
  groups: nullish(v.pipe(v.array(catalogueName), v.maxLength(MINT_LIMITS.groupsPerRequest))),
  tenantGroups: nullish(v.pipe(v.array(catalogueName), v.maxLength(MINT_LIMITS.groupsPerRequest))),
  userAttributeDefinitions: nullish(
    v.pipe(v.array(attributeDefinition), v.maxLength(MINT_LIMITS.attributeDefinitionsPerRequest)),
  ),
  groupDefinitions: nullish(
    v.pipe(v.array(groupDefinition), v.maxLength(MINT_LIMITS.groupDefinitionsPerRequest)),
  ),
  tenantGroupDefinitions: nullish(
    v.pipe(v.array(groupDefinition), v.maxLength(MINT_LIMITS.groupDefinitionsPerRequest)),
  ),
  securityContext: v.optional(v.nullable(boundedObject(MINT_LIMITS.securityContext))),
  settings: nullish(sessionSettingsBody),
  /** Filters every load of the session applies, which the viewer cannot change. */
  lockedFilters: nullish(lockedFiltersInput),
});
type RawSessionInput = v.InferOutput<typeof generateSessionBody>;

type GroupDef = { name: string; description?: string };
type AttributeDef = WithoutNulls<NonNullable<RawSessionInput['userAttributeDefinitions']>[number]>;

/**
 * generate-session's body with Cube's nulls read as "not sent" (securityContext and the
 * userProfile leaves keep null: it clears them), `tenantGroups`/`tenantGroupDefinitions`
 * merged into `groups`/`groupDefinitions` (a creator-mode session's groups ARE the tenant's).
 */
export type GenerateSessionInput = Omit<
  WithoutNulls<RawSessionInput>,
  | 'securityContext'
  | 'groupDefinitions'
  | 'userAttributeDefinitions'
  | 'userAttributes'
  | 'settings'
  | 'tenantGroups'
  | 'tenantGroupDefinitions'
> & {
  securityContext?: Record<string, unknown> | null;
  groupDefinitions?: GroupDef[];
  userAttributeDefinitions?: AttributeDef[];
  userAttributes?: { name: string; value: AttributeValue }[];
  settings?: WithoutNulls<NonNullable<RawSessionInput['settings']>>;
  /** Whether the request named the tenant catalogue Cube's way (tenantGroups/tenantGroupDefinitions). */
  tenantFields: boolean;
};

/** Reads a validated generate-session body the way Cube means it (see GenerateSessionInput). */
export function settleSessionInput(raw: RawSessionInput): GenerateSessionInput {
  const { securityContext, tenantGroups, tenantGroupDefinitions, ...rest } = raw;
  const top = withoutNulls(rest);
  const groupDefs = [...(top.groupDefinitions ?? []), ...(tenantGroupDefinitions ?? [])].map(withoutNulls);
  const groups =
    top.groups === undefined && !tenantGroups ? undefined : [...(top.groups ?? []), ...(tenantGroups ?? [])];
  return {
    ...top,
    ...(securityContext !== undefined && { securityContext }),
    groups,
    groupDefinitions: top.groupDefinitions === undefined && !tenantGroupDefinitions ? undefined : groupDefs,
    userAttributeDefinitions: top.userAttributeDefinitions?.map(withoutNulls),
    userAttributes: top.userAttributes?.map((a) => ({ name: a.name, value: a.value ?? null })),
    settings: top.settings && withoutNulls(top.settings),
    tenantFields: Boolean(tenantGroups || tenantGroupDefinitions),
  };
}

export const sessionCreatedSchema = v.object({ sessionId: v.string(), expiresAt: v.string() });

export const revokeSessionBody = obj({ sessionId: v.pipe(v.string(), v.maxLength(MAX_SESSION_ID_LENGTH)) });
export const exchangeSessionBody = obj({ sessionId: v.pipe(v.string(), v.maxLength(MAX_SESSION_ID_LENGTH)) });
export const embedTokenSchema = v.object({ token: v.string() });
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

export const sessionQuery = v.object({
  session: v.optional(v.pipe(v.string(), v.maxLength(MAX_SESSION_ID_LENGTH))),
});

export const viewerSchema = v.object({
  displayName: v.nullable(v.string()),
  picture: v.nullable(v.string()),
  initials: v.string(),
});
/**
 * The session's effective settings as the viewer applies them: `locale` (BCP 47, canonical) and
 * `timezone` (IANA) are null when the session gave none (the viewer then uses its default).
 */
export const effectiveSettingsSchema = v.object({
  showDashboardChat: v.boolean(),
  locale: v.nullable(v.string()),
  timezone: v.nullable(v.string()),
  allowAi: v.nullable(v.boolean()),
  allowChatWorkspaceAuthoring: v.nullable(v.boolean()),
  showAiWidgets: v.nullable(v.boolean()),
  showDashboardSettings: v.nullable(v.boolean()),
  showGroupByCube: v.nullable(v.boolean()),
  showMemberNames: v.nullable(v.boolean()),
  showWorkbookChat: v.nullable(v.boolean()),
  showWorkbookShare: v.nullable(v.boolean()),
});

// ---- Catalogues (account-wide and per tenant) ----

export const createGroupBody = obj({ name: catalogueName, description: nullish(description) });
/** Cube sends no name (group names are immutable there) and may send nothing: an empty body changes nothing. */
export const updateGroupBody = obj({ name: v.optional(catalogueName), description: nullish(description) });
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
  displayName: nullish(v.pipe(v.string(), v.maxLength(255))),
  defaultValue: nullish(defaultValue),
  description: nullish(description),
});
/** Cube's UserAttributeUpdateInput: name and type never change; null clears a field, omitted keeps it. */
export const updateAttributeBody = obj({
  displayName: nullish(v.pipe(v.string(), v.maxLength(255))),
  defaultValue: nullish(defaultValue),
  description: nullish(description),
});
/** Cube's filters of the attribute list (`name`: a case-insensitive substring). */
export const attributeListQuery = obj({
  ...pageQueryEntries,
  name: v.optional(v.pipe(v.string(), v.maxLength(100))),
  type: v.optional(v.picklist(ATTRIBUTE_TYPES)),
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

export const tenantSchema = v.object({
  id: v.number(),
  name: v.string(),
  createdAt: v.string(),
  /** External users stored in the tenant (ephemeral ones are not). */
  userCount: v.number(),
  /** Cube's tenant display name: edgeboard stores none, always null. */
  displayName: v.nullable(v.string()),
});
export const tenantListQuery = obj({
  ...pageQueryEntries,
  search: v.optional(v.pipe(v.string(), v.maxLength(100))),
});
export const tenantDeletedSchema = v.object({ name: v.string(), deleted: v.boolean() });

/** Cube's EmbedUser: `username` and `externalId` are the externalId, `firstName` the display name. */
export const embedUserSchema = v.object({
  id: v.number(),
  username: v.string(),
  externalId: v.string(),
  email: v.nullable(v.string()),
  firstName: v.nullable(v.string()),
  createdAt: v.string(),
  lastLogin: v.null(),
});
export type EmbedUser = v.InferOutput<typeof embedUserSchema>;
export const userListQuery = obj({
  ...pageQueryEntries,
  search: v.optional(v.pipe(v.string(), v.maxLength(255))),
});

export const tenantParams = v.object({ embedTenantName: tenantName });
export const tenantItemParams = v.object({ embedTenantName: tenantName, id: idString });

/** Most members one add or remove names (Cube: 1–1000). */
export const MEMBERS_PER_REQUEST = 1000;

const memberRef = v.pipe(
  obj({
    embedUserId: nullish(idNumber),
    // Cube trims and lowercases externalIds on this route.
    externalId: nullish(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.minLength(1), v.maxLength(255))),
  }),
  v.check(
    (m) => (m.embedUserId == null) !== (m.externalId == null),
    'Send exactly one of embedUserId or externalId',
  ),
);
export const groupMembersBody = obj({
  members: v.pipe(v.array(memberRef), v.minLength(1), v.maxLength(MEMBERS_PER_REQUEST)),
});
export const membersAddedSchema = v.object({
  addedMembers: v.array(embedUserSchema),
  unchangedMembers: v.array(embedUserSchema),
});
export const membersRemovedSchema = v.object({ removed: v.number() });

/** Most users one provisionEmbedUsers call names (Cube: 1–100). */
export const USERS_PER_PROVISION = 100;

/**
 * Cube's ProvisionEmbedUserInput. `externalId` follows edgeboard's rule (already trimmed and
 * lowercase, else 400) so a provisioned user is the one generate-session finds; `email` is
 * trimmed and lowercased. Omitted or null keeps a field; `groups`/`tenantGroups` replace.
 */
export const provisionUserBody = obj({
  externalId,
  email: nullish(
    v.pipe(v.string(), v.trim(), v.toLowerCase(), v.maxLength(254), v.email('Expected an email address')),
  ),
  groups: nullish(v.pipe(v.array(catalogueName), v.maxLength(MINT_LIMITS.groupsPerRequest))),
  tenantGroups: nullish(v.pipe(v.array(catalogueName), v.maxLength(MINT_LIMITS.groupsPerRequest))),
  userProfile: nullish(
    obj({
      displayName: v.optional(v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(255)))),
      picture: v.optional(v.nullable(httpUrl)),
    }),
  ),
});
export type ProvisionUserInput = v.InferOutput<typeof provisionUserBody>;

export const provisionUsersBody = obj({
  users: v.pipe(v.array(provisionUserBody), v.minLength(1), v.maxLength(USERS_PER_PROVISION)),
});

export const provisionUsersSchema = v.object({
  succeeded: v.array(embedUserSchema),
  failed: v.array(
    v.object({
      externalId: v.string(),
      error: v.object({ status: v.number(), message: v.string() }),
    }),
  ),
});
