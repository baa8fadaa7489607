import { ACCESS_TOKEN_PREFIX, API_KEY_PREFIX, issueSecret } from '../auth/credentials';
import { ApiError, conflict, notFound } from '../core/errors';
import { slugify } from '../core/text';
import type { Db } from '../env';
import * as repo from './accounts.repository';
import type { CreateAccountInput, CreateUserInput } from './accounts.schemas';

/** Provisions an account with its first admin user and shows their secrets once. */
export async function provisionAccount(db: Db, input: CreateAccountInput, now: string) {
  const [token, key] = await Promise.all([issueSecret(ACCESS_TOKEN_PREFIX), issueSecret(API_KEY_PREFIX)]);
  const adminUsername = input.adminUsername ?? 'admin';
  const adminEmail = input.adminEmail ?? `${adminUsername}@${slugify(input.name) || 'account'}.example.com`;
  const { account, user } = await repo.insertAccountWithAdmin(
    db,
    { ...input, adminEmail, adminUsername },
    {
      tokenHash: token.hash,
      tokenPrefix: token.displayPrefix,
      keyHash: key.hash,
      keyPrefix: key.displayPrefix,
    },
    now,
  );
  return { account, user, accessToken: token.secret, apiKey: key.secret };
}

export async function createUser(db: Db, accountId: number, input: CreateUserInput, now: string) {
  const user = await repo.insertUser(db, accountId, input, now);
  if (!user) throw conflict('A user with this email or username already exists in the account');
  return user;
}

export async function createAccessToken(db: Db, accountId: number, userId: number, now: string) {
  const token = await issueSecret(ACCESS_TOKEN_PREFIX);
  const row = await repo.insertAccessToken(db, accountId, userId, token.hash, token.displayPrefix, now);
  if (!row) throw notFound('User');
  return { id: row.id, token: token.secret, createdAt: row.createdAt };
}

export async function createApiKey(
  db: Db,
  accountId: number,
  input: { name: string; deploymentIds?: number[] | null },
  now: string,
) {
  const key = await issueSecret(API_KEY_PREFIX);
  const scope = input.deploymentIds ? [...new Set(input.deploymentIds)].sort((a, b) => a - b) : null;
  const row = await repo.insertApiKey(db, accountId, input.name, scope, key.hash, key.displayPrefix, now);
  if (!row)
    throw new ApiError('NOT_FOUND', 'deploymentIds names a deployment that does not exist in this account');
  return {
    id: row.id,
    name: row.name,
    deploymentIds: row.deploymentIds ?? null,
    key: key.secret,
    createdAt: row.createdAt,
  };
}
