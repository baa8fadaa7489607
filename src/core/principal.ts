import type { AccountPlan, UserRole } from '../../schema/accounts';

/** The account fields every authenticated request may need (plan, limits), read with the credential. */
export interface AccountContext {
  id: number;
  plan: AccountPlan;
  useCreatorMode: boolean;
  externalUserLimit: number;
  embedSessionTtlSeconds: number;
  showDashboardChat: boolean;
}

export interface UserPrincipal {
  kind: 'user';
  account: AccountContext;
  userId: number;
  role: UserRole;
  tokenId: number;
}

export interface ApiKeyPrincipal {
  kind: 'apiKey';
  account: AccountContext;
  keyId: number;
  /** null: every deployment of the account. */
  deploymentIds: number[] | null;
}

export interface OperatorPrincipal {
  kind: 'operator';
}

export type Principal = UserPrincipal | ApiKeyPrincipal | OperatorPrincipal;
export type AccountPrincipal = UserPrincipal | ApiKeyPrincipal;
