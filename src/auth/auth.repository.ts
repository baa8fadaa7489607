import type { Grants } from '../core/permissions';
import type { AccountContext } from '../core/principal';

const ACCOUNT_COLUMNS = `a.id AS account_id, a.plan, a.use_creator_mode, a.external_user_limit,
  a.embed_session_ttl_seconds, a.show_dashboard_chat, a.frozen_at`;

/** The account columns every credential lookup reads (`ACCOUNT_COLUMNS`). */
export interface AccountRow {
  account_id: number;
  plan: AccountContext['plan'];
  use_creator_mode: number;
  external_user_limit: number;
  embed_session_ttl_seconds: number;
  show_dashboard_chat: number;
  frozen_at: string | null;
}

export function toAccount(row: AccountRow): AccountContext {
  return {
    id: row.account_id,
    plan: row.plan,
    useCreatorMode: row.use_creator_mode === 1,
    externalUserLimit: row.external_user_limit,
    embedSessionTtlSeconds: row.embed_session_ttl_seconds,
    showDashboardChat: row.show_dashboard_chat === 1,
    frozen: row.frozen_at !== null,
  };
}

export interface TokenLookup {
  tokenId: number;
  tokenHash: string;
  userId: number;
  role: 'admin' | 'member';
  /** The user is deactivated: the token answers 401 until they are reactivated. */
  deactivated: boolean;
  /** The grants of each custom role the user holds; empty when they hold none. */
  roleGrants: Grants[];
  account: AccountContext;
}

/**
 * One round trip: the token, its user (with the grants of the user's custom roles, served by the
 * user_roles primary key) and the user's account.
 */
export async function findAccessToken(d1: D1Database, hash: string): Promise<TokenLookup | null> {
  const row = await d1
    .prepare(
      `SELECT t.id AS token_id, t.token_hash, u.id AS user_id, u.role, u.deactivated_at, ${ACCOUNT_COLUMNS},
         (SELECT json_group_array(json(r.grants)) FROM user_roles ur JOIN roles r ON r.id = ur.role_id
          WHERE ur.user_id = u.id) AS role_grants
       FROM access_tokens t JOIN users u ON u.id = t.user_id JOIN accounts a ON a.id = t.account_id
       WHERE t.token_hash = ?`,
    )
    .bind(hash)
    .first<
      AccountRow & {
        token_id: number;
        token_hash: string;
        user_id: number;
        role: 'admin' | 'member';
        deactivated_at: string | null;
        role_grants: string;
      }
    >();
  if (!row) return null;
  return {
    tokenId: row.token_id,
    tokenHash: row.token_hash,
    userId: row.user_id,
    role: row.role,
    deactivated: row.deactivated_at !== null,
    roleGrants: JSON.parse(row.role_grants) as Grants[],
    account: toAccount(row),
  };
}

export interface KeyLookup {
  keyId: number;
  keyHash: string;
  deploymentIds: number[] | null;
  actingUserId: number | null;
  account: AccountContext;
}

/**
 * One round trip: the API key, its account and the active admin it acts as (served by
 * users_account_role_idx).
 */
export async function findApiKey(d1: D1Database, hash: string): Promise<KeyLookup | null> {
  const row = await d1
    .prepare(
      `SELECT k.id AS key_id, k.key_hash, k.deployment_ids, ${ACCOUNT_COLUMNS},
         (SELECT u.id FROM users u WHERE u.account_id = k.account_id AND u.role = 'admin'
          AND u.deactivated_at IS NULL ORDER BY u.id LIMIT 1) AS acting_user_id
       FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
    )
    .bind(hash)
    .first<
      AccountRow & {
        key_id: number;
        key_hash: string;
        deployment_ids: string | null;
        acting_user_id: number | null;
      }
    >();
  if (!row) return null;
  return {
    keyId: row.key_id,
    keyHash: row.key_hash,
    deploymentIds: row.deployment_ids === null ? null : (JSON.parse(row.deployment_ids) as number[]),
    actingUserId: row.acting_user_id,
    account: toAccount(row),
  };
}
