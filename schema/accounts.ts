import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A customer of edgeboard: the unit of isolation, billing plan and embedding limits. */
export const accounts = sqliteTable(
  'accounts',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    name: text().notNull(),
    plan: text({ enum: ['free', 'starter', 'premium', 'enterprise'] })
      .notNull()
      .default('premium'),
    useCreatorMode: integer({ mode: 'boolean' }).notNull().default(false),
    externalUserLimit: integer().notNull().default(10000),
    embedSessionTtlSeconds: integer().notNull().default(86400),
    /** Account-wide default of the embedded dashboard chat; a session's settings override it. */
    showDashboardChat: integer({ mode: 'boolean' }).notNull().default(true),
    /** JSON array of origins allowed to frame the embed viewer; null: any origin. */
    allowedEmbedOrigins: text({ mode: 'json' }).$type<string[] | null>(),
    /** Incoming-webhook URL notifications post to for channel recipients. */
    chatWebhookUrl: text(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
    /**
     * External users (embed_users rows) of the account, kept by triggers on embed_users inside
     * the statement that inserts or deletes them: the quota guard reads this instead of counting.
     */
    externalUserCount: integer().notNull().default(0),
    /**
     * Bytes of workspace content the account stores (workbooks, reports, dashboard drafts, published
     * versions and snapshot contents), kept by triggers in the same statement as each write.
     */
    storedBytes: integer().notNull().default(0),
    /** Bytes the account may store (workspace, dashboards, snapshots); set from the plan at provisioning. */
    storedBytesLimit: integer().notNull().default(1_073_741_824),
    /** Generate-session requests per API key per minute; set from the plan at provisioning. */
    sessionRateLimit: integer().notNull().default(1200),
    /**
     * Set while an operator moves the account to another shard (docs/sharding.md, "Moving an
     * account"): its writes are refused (503 ACCOUNT_MOVING) and background work skips it. Read
     * with every credential, so the check costs no round trip.
     */
    frozenAt: text(),
    /**
     * On the shard the account left: the shard it lives on now. Set when a move switches, while the
     * rows left behind are being deleted; a request that still reaches them is sent on.
     */
    movedTo: integer(),
  },
  // Background work skips the accounts being moved: found without reading the others.
  (t) => [index('accounts_frozen_idx').on(t.id).where(sql`frozen_at IS NOT NULL`)],
);

export const users = sqliteTable(
  'users',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    email: text().notNull(),
    username: text().notNull(),
    firstName: text().notNull().default(''),
    picture: text().notNull().default(''),
    role: text({ enum: ['admin', 'member'] }).notNull(),
    createdAt: text().notNull(),
    title: text(),
    /** The notification kinds the user receives (Cube's `notifications`), a JSON array of names. */
    notifications: text({ mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    /** The user's own settings (Cube's UserSettings), a JSON object merged by each change. */
    settings: text({ mode: 'json' }).$type<UserSettings>().notNull().default(sql`'{}'`),
    /** Set while the user is deactivated: their access tokens answer 401 until it is cleared. */
    deactivatedAt: text(),
    /** Null for users no change has touched since they were created before the column existed. */
    updatedAt: text(),
  },
  (t) => [
    uniqueIndex('users_account_email_uq').on(t.accountId, t.email),
    uniqueIndex('users_account_username_uq').on(t.accountId, t.username),
    index('users_account_id_idx').on(t.accountId, t.id),
    // The admin an API key acts as: the account's first admin, found without a scan.
    index('users_account_role_idx').on(t.accountId, t.role, t.id),
  ],
);

/** Bearer tokens of users. Only the SHA-256 of a token is stored. */
export const accessTokens = sqliteTable(
  'access_tokens',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text().notNull(),
    /** The first characters of the token, so a user can tell tokens apart without the secret. */
    tokenPrefix: text().notNull(),
    createdAt: text().notNull(),
  },
  (t) => [
    uniqueIndex('access_tokens_hash_uq').on(t.tokenHash),
    index('access_tokens_user_idx').on(t.userId, t.id),
    // FK child column: deleting an account cascades here without a scan.
    index('access_tokens_account_idx').on(t.accountId),
  ],
);

/** Account API keys (generate-session, revoke, embed-tenant admin). Only the SHA-256 is stored. */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer()
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text().notNull(),
    keyHash: text().notNull(),
    keyPrefix: text().notNull(),
    /** JSON array of deployment ids the key may act on; null: every deployment of the account. */
    deploymentIds: text({ mode: 'json' }).$type<number[] | null>(),
    createdAt: text().notNull(),
  },
  (t) => [uniqueIndex('api_keys_hash_uq').on(t.keyHash), index('api_keys_account_idx').on(t.accountId, t.id)],
);

export const ACCOUNT_PLANS = ['free', 'starter', 'premium', 'enterprise'] as const;
export type AccountPlan = (typeof ACCOUNT_PLANS)[number];

const MiB = 1024 * 1024;

/**
 * What an account gets from its plan when the operator does not say otherwise. A shard (one D1
 * database, 10 GB at most) holds whole accounts, so the stored-bytes limits stay well below that.
 */
export const PLAN_DEFAULTS: Record<AccountPlan, { storedBytesLimit: number; sessionRateLimit: number }> = {
  free: { storedBytesLimit: 50 * MiB, sessionRateLimit: 60 },
  starter: { storedBytesLimit: 250 * MiB, sessionRateLimit: 300 },
  premium: { storedBytesLimit: 1024 * MiB, sessionRateLimit: 1200 },
  enterprise: { storedBytesLimit: 4096 * MiB, sessionRateLimit: 6000 },
};
export const USER_ROLES = ['admin', 'member'] as const;

/** A user's settings as stored: Cube's UserSettings without its deprecated `lastSeenChangelogId`. */
export interface UserSettings {
  alternatingRowColors?: boolean;
  defaultDeploymentId?: number;
  locale?: string;
  theme?: string;
  timezone?: string;
  sheets?: {
    autoRunQueryOnChange?: boolean;
    openExplorationFromSheet?: boolean;
    revealSheetOnOpen?: boolean;
    showAppliedFilters?: boolean;
    suppressDuplicateValues?: boolean;
  };
}
export type UserRole = (typeof USER_ROLES)[number];
