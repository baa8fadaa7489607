import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { accessTokens, accounts, apiKeys, users } from '../../schema/accounts';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
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

export const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  username: row.username,
  firstName: row.firstName,
  picture: row.picture,
  role: row.role,
  createdAt: row.createdAt,
});

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
  db: Db,
  input: CreateAccountInput & { adminEmail: string; adminUsername: string },
  secrets: NewSecrets,
  now: string,
): Promise<{ account: Account; user: User }> {
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
      })
      .returning(),
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
export async function deleteAccount(db: Db, id: number): Promise<void> {
  await db.delete(accounts).where(eq(accounts.id, id));
}

export async function findAccount(db: Db, id: number): Promise<Account | null> {
  const [row] = await db.select().from(accounts).where(eq(accounts.id, id));
  return row ? toAccount(row) : null;
}

export async function updateAccount(
  db: Db,
  id: number,
  input: UpdateAccountInput,
  now: string,
): Promise<Account | null> {
  const [row] = await db
    .update(accounts)
    .set({ ...input, updatedAt: now })
    .where(eq(accounts.id, id))
    .returning();
  return row ? toAccount(row) : null;
}

/** null when the email or username is taken in the account. */
export async function insertUser(
  db: Db,
  accountId: number,
  input: CreateUserInput,
  now: string,
): Promise<User | null> {
  const [row] = await db
    .insert(users)
    .values({
      accountId,
      email: input.email,
      username: input.username,
      firstName: input.firstName ?? '',
      picture: input.picture ?? '',
      role: input.role ?? 'member',
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  return row ? toUser(row) : null;
}

export async function listUsers(
  db: Db,
  accountId: number,
  afterId: number | null,
  limit: number,
): Promise<User[]> {
  const rows = await db
    .select()
    .from(users)
    .where(and(eq(users.accountId, accountId), afterId === null ? undefined : gt(users.id, afterId)))
    .orderBy(asc(users.id))
    .limit(limit + 1);
  return rows.map(toUser);
}

export async function findUser(db: Db, accountId: number, id: number): Promise<User | null> {
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.accountId, accountId), eq(users.id, id)));
  return row ? toUser(row) : null;
}

/** Inserts the token only if the user belongs to the account; null otherwise. */
export async function insertAccessToken(
  db: Db,
  accountId: number,
  userId: number,
  hash: string,
  prefix: string,
  now: string,
): Promise<{ id: number; createdAt: string } | null> {
  const rows = await db.all<{ id: number; created_at: string }>(sql`
    INSERT INTO access_tokens (account_id, user_id, token_hash, token_prefix, created_at)
    SELECT account_id, id, ${hash}, ${prefix}, ${now} FROM users WHERE id = ${userId} AND account_id = ${accountId}
    RETURNING id, created_at`);
  const row = rows[0];
  return row ? { id: row.id, createdAt: row.created_at } : null;
}

export async function listAccessTokens(
  db: Db,
  accountId: number,
  userId: number,
  afterId: number | null,
  limit: number,
) {
  return db
    .select({
      id: accessTokens.id,
      userId: accessTokens.userId,
      prefix: accessTokens.tokenPrefix,
      createdAt: accessTokens.createdAt,
    })
    .from(accessTokens)
    .where(
      and(
        eq(accessTokens.accountId, accountId),
        eq(accessTokens.userId, userId),
        afterId === null ? undefined : gt(accessTokens.id, afterId),
      ),
    )
    .orderBy(asc(accessTokens.id))
    .limit(limit + 1);
}

export async function deleteAccessToken(
  db: Db,
  accountId: number,
  userId: number,
  tokenId: number,
): Promise<boolean> {
  const rows = await db
    .delete(accessTokens)
    .where(
      and(
        eq(accessTokens.accountId, accountId),
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
  db: Db,
  accountId: number,
  name: string,
  deploymentIds: number[] | null,
  hash: string,
  prefix: string,
  now: string,
): Promise<ApiKeyRow | null> {
  const scope = deploymentIds === null ? null : JSON.stringify(deploymentIds);
  const rows = await db.all<{ id: number }>(sql`
    INSERT INTO api_keys (account_id, name, key_hash, key_prefix, deployment_ids, created_at)
    SELECT ${accountId}, ${name}, ${hash}, ${prefix}, ${scope}, ${now}
    WHERE ${scope} IS NULL OR (
      SELECT count(*) FROM deployments
      WHERE account_id = ${accountId} AND id IN (SELECT value FROM json_each(${scope}))
    ) = json_array_length(${scope})
    RETURNING id`);
  const row = rows[0];
  if (!row) return null;
  return { id: row.id, accountId, name, keyHash: hash, keyPrefix: prefix, deploymentIds, createdAt: now };
}

export async function listApiKeys(db: Db, accountId: number, afterId: number | null, limit: number) {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), afterId === null ? undefined : gt(apiKeys.id, afterId)))
    .orderBy(asc(apiKeys.id))
    .limit(limit + 1);
  return rows.map(toApiKey);
}

export async function deleteApiKey(db: Db, accountId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), eq(apiKeys.id, id)))
    .returning({ id: apiKeys.id });
  return rows.length > 0;
}
