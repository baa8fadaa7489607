import type { AccountPlan, UserRole } from '../../schema/accounts';
import type { Grants } from './permissions';

/** The account fields every authenticated request may need (plan, limits), read with the credential. */
export interface AccountContext {
  id: number;
  plan: AccountPlan;
  useCreatorMode: boolean;
  externalUserLimit: number;
  embedSessionTtlSeconds: number;
  showDashboardChat: boolean;
  /** The operator is moving the account to another shard: its writes are refused until the move ends. */
  frozen: boolean;
}

export interface UserPrincipal {
  kind: 'user';
  account: AccountContext;
  userId: number;
  role: UserRole;
  tokenId: number;
  /**
   * What the user may do on the routes permissions govern: `all` for an admin, else the union of
   * their custom roles' grants, or the member grants while they hold no custom role.
   */
  permissions: 'all' | Grants;
}

export interface ApiKeyPrincipal {
  kind: 'apiKey';
  account: AccountContext;
  keyId: number;
  /** null: every deployment of the account. */
  deploymentIds: number[] | null;
  /**
   * The user a key acts as where a route records authorship (createdBy, publishedBy): the
   * account's first admin (lowest id), read with the key. null when the account has no admin.
   */
  actingUserId?: number | null;
}

/** Who acts on a route that records a user: an access token's user, or the user a key acts as. */
export interface ActingUser {
  kind: 'user' | 'apiKey';
  account: AccountContext;
  userId: number;
  role: UserRole;
}

export interface OperatorPrincipal {
  kind: 'operator';
}

export type Principal = UserPrincipal | ApiKeyPrincipal | OperatorPrincipal;
export type AccountPrincipal = UserPrincipal | ApiKeyPrincipal;
