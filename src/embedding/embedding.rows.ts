import { users } from '../../schema/accounts';
import { embedAttributes, embedGroups, type embedUsers } from '../../schema/embedding';
import { toAccount } from '../auth/auth.repository';
import { mapRow } from '../core/db';
import type { AccountContext } from '../core/principal';
import { accountAttributesOf } from '../data-api/account-identity';
import type { EmbedAttribute, EmbedGroup, EmbedUser } from './catalogues.schemas';
import type { AttributeValue } from './embedding.schemas';

/**
 * The rows the embedding repositories read, and ONE mapper per kind into the types the services
 * use. Plain reads return their tables' rows (`$inferSelect`: drizzle maps them, or `mapRow` for
 * a row a batch returns); the interfaces written out here are the rows of statements drizzle
 * cannot express (JSON aggregates, the mint's read), as D1 returns them (snake_case, booleans as
 * 0/1, JSON as text). No repository casts a D1 row to a domain type.
 */

/** A row as D1 returns it from a batch. */
export type RawRow = Record<string, unknown>;

/** A group of either catalogue, from a batch: its columns and `user_count` (its members). */
export function toGroup(raw: RawRow): EmbedGroup {
  const row = mapRow(embedGroups, raw);
  return { id: row.id, name: row.name, description: row.description, userCount: Number(raw.user_count ?? 0) };
}

export type AttributeRow = typeof embedAttributes.$inferSelect;

export const toAttribute = (
  row: Pick<
    AttributeRow,
    'id' | 'name' | 'type' | 'displayName' | 'defaultValue' | 'description' | 'createdAt'
  >,
): EmbedAttribute => ({
  id: row.id,
  name: row.name,
  type: row.type,
  displayName: row.displayName,
  defaultValue: row.defaultValue,
  description: row.description,
  createdAt: row.createdAt,
});

/** An attribute definition, from a batch. */
export const attributeOf = (raw: RawRow): EmbedAttribute => toAttribute(mapRow(embedAttributes, raw));

/** An external user (table `embed_users`) as Cube's EmbedUser: `username` is the externalId, `firstName` the display name. */
export const toEmbedUser = (
  row: Pick<typeof embedUsers.$inferSelect, 'id' | 'externalId' | 'email' | 'displayName' | 'createdAt'>,
): EmbedUser => ({
  id: row.id,
  username: row.externalId,
  externalId: row.externalId,
  email: row.email,
  firstName: row.displayName,
  createdAt: row.createdAt,
  lastLogin: null,
});

/**
 * An internal user (table `users`) as a session shows it, with the attribute values they hold
 * (upsertUserAttributeValue): what the session's queries run with, as an embed user's do.
 */
export type InternalUser = Pick<
  typeof users.$inferSelect,
  'id' | 'username' | 'email' | 'firstName' | 'picture'
> & { attributes: Record<string, Exclude<AttributeValue, null>> };

/** An internal user, from a batch (its values in the column `account_attributes`). */
export function toInternalUser(raw: RawRow): InternalUser {
  const row = mapRow(users, raw);
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    firstName: row.firstName,
    picture: row.picture,
    // Stored only after the attribute's type and bounds accepted them.
    attributes: accountAttributesOf(raw.account_attributes) as InternalUser['attributes'],
  };
}

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

/** A group named by a mint request, from its batch. */
export function toCatalogueGroup(raw: RawRow): CatalogueGroup {
  const row = mapRow(embedGroups, raw);
  return { id: row.id, name: row.name, description: row.description };
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
  frozen_at: string | null;
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
