import * as v from 'valibot';
import { ATTRIBUTE_TYPES } from '../../schema/embedding';
import { jsonBounds } from '../core/json';
import { boundedObject, idNumber, obj, shortText, type WithoutNulls, withoutNulls } from '../core/validation';
import { CONTROL_OPERATORS, type ControlFilter } from '../semantic/query/controls';
import {
  type AttributeValue,
  attributeValue,
  catalogueName,
  defaultValue,
  description,
  externalId,
  MAX_SESSION_ID_LENGTH,
  MINT_LIMITS,
  nullish,
  tenantName,
  userProfileBody,
} from './embedding.schemas';

/**
 * The schemas of embed sessions: generate-session's body (and how Cube's nulls read), the session
 * exchange and revocation, a dashboard's embedding switches and the embed dashboard load.
 */

const groupDefinition = obj({ name: catalogueName, description: nullish(description) });

const attributeDefinition = obj({
  name: catalogueName,
  type: v.picklist(ATTRIBUTE_TYPES),
  displayName: nullish(v.pipe(v.string(), v.maxLength(255))),
  defaultValue: nullish(defaultValue),
  description: nullish(description),
});

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
  userProfile: nullish(userProfileBody),
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

// ---- The embedding switches and the embed dashboard load ----

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
 * The session's effective settings as the viewer applies them, under the account's app config:
 * `locale` (BCP 47, canonical) is the session's, else the account's embed default; `timezone`
 * (IANA) is the zone of the load's queries and of the times it shows (the account's time zone
 * policy, when it allows no override, else the session's, else the account's embed default,
 * else the policy's); both null when nothing names one (the viewer then uses its default, UTC
 * for times). `restrictDataDownload`: the account restricts data downloads, so the client offers
 * no download or export of the data.
 */
export const effectiveSettingsSchema = v.object({
  showDashboardChat: v.boolean(),
  locale: v.pipe(
    v.nullable(v.string()),
    v.description('The session’s locale, else the account’s embed default (`embedding.locale`); null: none.'),
  ),
  timezone: v.pipe(
    v.nullable(v.string()),
    v.description(
      'The zone the load’s queries that name none run in and its times are shown in: the account’s time zone policy when it allows no override, else the session’s `timezone`, else the account’s `embedding.timezone`, else the policy’s; null: UTC.',
    ),
  ),
  restrictDataDownload: v.pipe(
    v.boolean(),
    v.description(
      'The account restricts data downloads (app config `restrictDataDownload`): offer no download or export (CSV, PNG, PDF) of the dashboard’s data; the render and export endpoints refuse them with 403 DOWNLOAD_RESTRICTED.',
    ),
  ),
  allowAi: v.nullable(v.boolean()),
  allowChatWorkspaceAuthoring: v.nullable(v.boolean()),
  showAiWidgets: v.nullable(v.boolean()),
  showDashboardSettings: v.nullable(v.boolean()),
  showGroupByCube: v.nullable(v.boolean()),
  showMemberNames: v.nullable(v.boolean()),
  showWorkbookChat: v.nullable(v.boolean()),
  showWorkbookShare: v.nullable(v.boolean()),
});
