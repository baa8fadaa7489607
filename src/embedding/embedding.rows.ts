import type { AttributeType } from '../../schema/embedding';
import { toAccount } from '../auth/auth.repository';
import type { AccountContext } from '../core/principal';
import type { AttributeValue, EmbedAttribute, EmbedGroup } from './embedding.schemas';

/**
 * The raw rows the embedding repositories read (snake_case, booleans as 0/1, JSON as text)
 * and ONE mapper per table into the types the services use. Every raw row goes through one
 * of these; no repository casts a D1 row to a domain type.
 */

/** A group of either catalogue, with its member count. */
export interface GroupRow {
  id: number;
  name: string;
  description: string;
  user_count: number;
}

export const toGroup = (row: GroupRow): EmbedGroup => ({
  id: row.id,
  name: row.name,
  description: row.description,
  userCount: row.user_count,
});

export interface AttributeRow {
  id: number;
  name: string;
  type: AttributeType;
  display_name: string | null;
  default_value: string | null;
  description: string | null;
  created_at: string;
}

export const toAttribute = (row: AttributeRow): EmbedAttribute => ({
  id: row.id,
  name: row.name,
  type: row.type,
  displayName: row.display_name,
  defaultValue: row.default_value,
  description: row.description,
  createdAt: row.created_at,
});

export interface TenantRow {
  id: number;
  name: string;
  created_at: string;
}

export const toTenant = (row: TenantRow) => ({ id: row.id, name: row.name, createdAt: row.created_at });

/** An internal user (table `users`) as a session shows it. */
export interface InternalUserRow {
  id: number;
  username: string;
  email: string;
  first_name: string;
  picture: string;
}

export interface InternalUser {
  id: number;
  username: string;
  email: string;
  firstName: string;
  picture: string;
}

export const toInternalUser = (row: InternalUserRow): InternalUser => ({
  id: row.id,
  username: row.username,
  email: row.email,
  firstName: row.first_name,
  picture: row.picture,
});

/** An external user (table `embed_users`) with its memberships and values in one scope. */
export interface UserStateRow {
  id: number;
  external_id: string;
  email: string | null;
  display_name: string | null;
  picture: string | null;
  security_context: string | null;
  fingerprint: string;
  groups_json: string;
  attributes_json: string;
}

export interface StoredUserState {
  id: number;
  externalId: string;
  email: string | null;
  displayName: string | null;
  picture: string | null;
  /** JSON text as stored. */
  securityContext: string | null;
  /** The whole state as one text, to tell on the primary whether it is still this one. */
  fingerprint: string;
  groups: { id: number; name: string }[];
  attributes: { id: number; name: string; value: Exclude<AttributeValue, null> }[];
}

export const toUserState = (row: UserStateRow): StoredUserState => ({
  id: row.id,
  externalId: row.external_id,
  email: row.email,
  displayName: row.display_name,
  picture: row.picture,
  securityContext: row.security_context,
  fingerprint: row.fingerprint,
  groups: JSON.parse(row.groups_json),
  attributes: JSON.parse(row.attributes_json),
});

/** A catalogue row named by a mint request (either table; groups have no type). */
export interface CatalogueGroup {
  id: number;
  name: string;
  description: string;
}

/** A user-attribute definition named by a mint request. */
export type CatalogueAttribute = EmbedAttribute;

/** The API key (table `api_keys`) joined with its account, as generate-session reads it. */
export interface KeyAccountRow {
  key_id: number;
  key_hash: string;
  deployment_ids: string | null;
  account_id: number;
  plan: AccountContext['plan'];
  use_creator_mode: number;
  external_user_limit: number;
  external_user_count: number;
  session_rate_limit: number;
  embed_session_ttl_seconds: number;
  show_dashboard_chat: number;
  deployment_found: number;
  tenant_id: number | null;
}

export interface KeyAccount {
  key: { id: number; hash: string; deploymentIds: number[] | null };
  account: AccountContext;
  /** External users of the account now (the counter, not a count). */
  externalUserCount: number;
  /** generate-session requests per API key per minute (the account's `sessionRateLimit`). */
  sessionRateLimit: number;
  deploymentFound: boolean;
  tenantId: number | null;
}

export const toKeyAccount = (row: KeyAccountRow): KeyAccount => ({
  key: {
    id: row.key_id,
    hash: row.key_hash,
    deploymentIds: row.deployment_ids === null ? null : JSON.parse(row.deployment_ids),
  },
  account: toAccount(row),
  externalUserCount: row.external_user_count,
  sessionRateLimit: row.session_rate_limit,
  deploymentFound: row.deployment_found === 1,
  tenantId: row.tenant_id,
});
