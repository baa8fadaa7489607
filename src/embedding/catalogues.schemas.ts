import * as v from 'valibot';
import { ATTRIBUTE_TYPES } from '../../schema/embedding';
import { pageQueryEntries } from '../core/pagination';
import { idNumber, idString, obj } from '../core/validation';
import {
  catalogueName,
  defaultValue,
  description,
  externalId,
  MINT_LIMITS,
  nullish,
  tenantName,
  userProfileBody,
} from './embedding.schemas';

/**
 * The schemas of the catalogues (groups and user attributes, account-wide and per embed tenant),
 * of embed tenants and their users, of group members and of provisioning.
 */

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
  userProfile: nullish(userProfileBody),
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
