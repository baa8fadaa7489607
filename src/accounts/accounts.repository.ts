import { and, asc, eq, getTableColumns, gt, isNull, sql } from 'drizzle-orm';
import { accessTokens, accounts, apiKeys, users } from '../../schema/accounts';
import { mapRow, runBatch } from '../core/db';
import type { AccountScope, RequestScope } from '../core/scope';
import type {
  Account,
  CreateAccountInput,
  CreateUserInput,
  UpdateAccountInput,
  User,
} from './accounts.schemas';

type AccountRow = typeof accounts.$inferSelect;
type UserRow = typeof users.$inferSelect;

export const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  useCreatorMode: row.useCreatorMode,
  externalUserLimit: row.externalUserLimit,
  embedSessionTtlSeconds: row.embedSessionTtlSeconds,
  showDashboardChat: row.showDashboardChat,
  allowedEmbedOrigins: row.allowedEmbedOrigins ?? null,
  chatWebhookUrl: row.chatWebhookUrl ?? null,
  storedBytesLimit: row.storedBytesLimit,
  sessionRateLimit: row.sessionRateLimit,
  storedBytes: row.storedBytes,
  externalUserCount: row.externalUserCount,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** A user as answered; `roleIds` are the custom roles they hold (none for a new user). */
export const toUser = (row: UserRow, roleIds: number[] = []): User => ({
  id: row.id,
  email: row.email,
  username: row.username,
  firstName: row.firstName,
  picture: row.picture,
  role: row.role,
  createdAt: row.createdAt,
  isAdmin: row.role === 'admin',
  isDeactivated: row.deactivatedAt !== null,
  notifications: Object.fromEntries(row.notifications.map((kind) => [kind, true as const])),
  title: row.title ?? null,
  settings: row.settings,
  updatedAt: row.updatedAt ?? null,
  roleIds,
});

/**
 * The columns of a user read with the ids of the custom roles they hold, in one statement.
 * Raw: a correlated subquery aggregating user_roles (served by its primary key).
 */
export const USER_WITH_ROLES = {
  ...getTableColumns(users),
  roleIds: sql<string>`(SELECT json_group_array(role_id) FROM (
    SELECT role_id FROM user_roles WHERE user_id = ${users.id} ORDER BY role_id))`,
};

/** A row read with USER_WITH_ROLES, as answered. */
export const toUserWithRoles = ({ roleIds, ...row }: UserRow & { roleIds: string }): User =>
  toUser(row, JSON.parse(roleIds) as number[]);

export interface NewSecrets {
  tokenHash: string;
  tokenPrefix: string;
  keyHash: string;
  keyPrefix: string;
}

/**
 * Account, admin user, access token and API key in one batch (one transaction). Later rows
 * find the ids of earlier ones through last_insert_rowid(): the batch runs its statements in
 * order on one connection.
 */
export async function insertAccountWithAdmin(
  scope: RequestScope,
  input: CreateAccountInput & { adminEmail: string; adminUsername: string },
  secrets: NewSecrets,
): Promise<{ account: Account; user: User }> {
  const { db } = scope;
  const now = scope.now.toISOString();
  const [accountRows, userRows] = await runBatch(db, [
    db
      .insert(accounts)
      .values({
        name: input.name,
        plan: input.plan,
        useCreatorMode: input.useCreatorMode,
        externalUserLimit: input.externalUserLimit,
        embedSessionTtlSeconds: input.embedSessionTtlSeconds,
        // The embedded chat has nothing behind it until the account wires it: off unless asked for.
        showDashboardChat: input.showDashboardChat ?? false,
        allowedEmbedOrigins: input.allowedEmbedOrigins ?? null,
        chatWebhookUrl: input.chatWebhookUrl ?? null,
        storedBytesLimit: input.storedBytesLimit,
        sessionRateLimit: input.sessionRateLimit,
        createdAt: now,
        updatedAt: now,
      })
      .returning(),
    db
      .insert(users)
      .values({
        accountId: sql`last_insert_rowid()`,
        email: input.adminEmail,
        username: input.adminUsername,
        role: 'admin',
        createdAt: now,
        updatedAt: now,
      })
      .returning(),
    // Raw: each row is selected from the one the batch inserted just before (last_insert_rowid()).
    sql`INSERT INTO access_tokens (account_id, user_id, token_hash, token_prefix, created_at)
      SELECT account_id, id, ${secrets.tokenHash}, ${secrets.tokenPrefix}, ${now} FROM users WHERE id = last_insert_rowid()`,
    sql`INSERT INTO api_keys (account_id, name, key_hash, key_prefix, deployment_ids, created_at)
      SELECT account_id, 'Default key', ${secrets.keyHash}, ${secrets.keyPrefix}, NULL, ${now}
      FROM access_tokens WHERE id = last_insert_rowid()`,
  ]);
  const accountRow = accountRows?.results[0];
  const userRow = userRows?.results[0];
  // Both inserts return their row, or the batch (one transaction) threw before this line.
  if (!accountRow || !userRow) throw new Error('provisioning batch returned no rows');
  return { account: toAccount(mapRow(accounts, accountRow)), user: toUser(mapRow(users, userRow)) };
}

/** Removes an account and, by cascade, everything of it on its shard. */
export async function deleteAccount(db: RequestScope['db'], id: number): Promise<void> {
  await db.delete(accounts).where(eq(accounts.id, id));
}

export async function findAccount(scope: RequestScope, id: number): Promise<Account | null> {
  const [row] = await scope.db.select().from(accounts).where(eq(accounts.id, id));
  return row ? toAccount(row) : null;
}

export async function updateAccount(
  scope: RequestScope,
  id: number,
  input: UpdateAccountInput,
): Promise<Account | null> {
  const [row] = await scope.db
    .update(accounts)
    .set({ ...input, updatedAt: scope.now.toISOString() })
    // Not while the operator moves it: the change would land on rows already copied.
    .where(and(eq(accounts.id, id), isNull(accounts.frozenAt)))
    .returning();
  return row ? toAccount(row) : null;
}

/** null when the email or username is taken in the account. */
export async function insertUser(scope: AccountScope, input: CreateUserInput): Promise<User | null> {
  const [row] = await scope.db
    .insert(users)
    .values({
      accountId: scope.accountId,
      email: input.email,
      username: input.username,
      firstName: input.firstName ?? '',
      picture: input.picture ?? '',
      role: input.role ?? 'member',
      createdAt: scope.now.toISOString(),
      updatedAt: scope.now.toISOString(),
    })
    .onConflictDoNothing()
    .returning();
  return row ? toUser(row) : null;
}

export async function listUsers(scope: AccountScope, afterId: number | null, limit: number): Promise<User[]> {
  const rows = await scope.db
    .select(USER_WITH_ROLES)
    .from(users)
    .where(and(eq(users.accountId, scope.accountId), afterId === null ? undefined : gt(users.id, afterId)))
    .orderBy(asc(users.id))
    .limit(limit + 1);
  return rows.map(toUserWithRoles);
}

export async function findUser(scope: AccountScope, id: number): Promise<User | null> {
  const [row] = await scope.db
    .select(USER_WITH_ROLES)
    .from(users)
    .where(and(eq(users.accountId, scope.accountId), eq(users.id, id)));
  return row ? toUserWithRoles(row) : null;
}

/** Inserts the token only if the user belongs to the account; null otherwise. */
export async function insertAccessToken(
  scope: AccountScope,
  userId: number,
  hash: string,
  prefix: string,
): Promise<{ id: number; createdAt: string } | null> {
  // Raw: the check (the user is the account's) and the write are one statement, so they cannot drift.
  const rows = await scope.db.all<{ id: number; created_at: string }>(sql`
    INSERT INTO access_tokens (account_id, user_id, token_hash, token_prefix, created_at)
    SELECT account_id, id, ${hash}, ${prefix}, ${scope.now.toISOString()} FROM users
    WHERE id = ${userId} AND account_id = ${scope.accountId}
    RETURNING id, created_at`);
  const row = rows[0];
  return row ? { id: row.id, createdAt: row.created_at } : null;
}

export async function listAccessTokens(
  scope: AccountScope,
  userId: number,
  afterId: number | null,
  limit: number,
) {
  return scope.db
    .select({
      id: accessTokens.id,
      userId: accessTokens.userId,
      prefix: accessTokens.tokenPrefix,
      createdAt: accessTokens.createdAt,
    })
    .from(accessTokens)
    .where(
      and(
        eq(accessTokens.accountId, scope.accountId),
        eq(accessTokens.userId, userId),
        afterId === null ? undefined : gt(accessTokens.id, afterId),
      ),
    )
    .orderBy(asc(accessTokens.id))
    .limit(limit + 1);
}

export async function deleteAccessToken(
  scope: AccountScope,
  userId: number,
  tokenId: number,
): Promise<boolean> {
  const rows = await scope.db
    .delete(accessTokens)
    .where(
      and(
        eq(accessTokens.accountId, scope.accountId),
        eq(accessTokens.userId, userId),
        eq(accessTokens.id, tokenId),
      ),
    )
    .returning({ id: accessTokens.id });
  return rows.length > 0;
}

type ApiKeyRow = typeof apiKeys.$inferSelect;

export const toApiKey = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.keyPrefix,
  deploymentIds: row.deploymentIds ?? null,
  createdAt: row.createdAt,
});

/**
 * Inserts the key only when every listed deployment belongs to the account (one statement,
 * so the check and the write cannot drift apart); null when one does not.
 */
export async function insertApiKey(
  scope: AccountScope,
  name: string,
  deploymentIds: number[] | null,
  hash: string,
  prefix: string,
): Promise<ApiKeyRow | null> {
  const { accountId } = scope;
  const now = scope.now.toISOString();
  const list = deploymentIds === null ? null : JSON.stringify(deploymentIds);
  // Raw: a conditional INSERT … SELECT over json_each, which the builders cannot say.
  const rows = await scope.db.all<{ id: number }>(sql`
    INSERT INTO api_keys (account_id, name, key_hash, key_prefix, deployment_ids, created_at)
    SELECT ${accountId}, ${name}, ${hash}, ${prefix}, ${list}, ${now}
    WHERE ${list} IS NULL OR (
      SELECT count(*) FROM deployments
      WHERE account_id = ${accountId} AND id IN (SELECT value FROM json_each(${list}))
    ) = json_array_length(${list})
    RETURNING id`);
  const row = rows[0];
  if (!row) return null;
  return { id: row.id, accountId, name, keyHash: hash, keyPrefix: prefix, deploymentIds, createdAt: now };
}

export async function listApiKeys(scope: AccountScope, afterId: number | null, limit: number) {
  const rows = await scope.db
    .select()
    .from(apiKeys)
    .where(
      and(eq(apiKeys.accountId, scope.accountId), afterId === null ? undefined : gt(apiKeys.id, afterId)),
    )
    .orderBy(asc(apiKeys.id))
    .limit(limit + 1);
  return rows.map(toApiKey);
}

export async function deleteApiKey(scope: AccountScope, id: number): Promise<boolean> {
  const rows = await scope.db
    .delete(apiKeys)
    .where(and(eq(apiKeys.accountId, scope.accountId), eq(apiKeys.id, id)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
