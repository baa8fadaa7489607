import { PLAN_DEFAULTS } from '../../schema/accounts';
import { ACCESS_TOKEN_PREFIX, API_KEY_PREFIX, issueSecret } from '../auth/credentials';
import { shardOf } from '../core/db';
import type { Db } from '../core/env';
import { ApiError, conflict, notFound } from '../core/errors';
import { afterId, idPage, pageRequest } from '../core/pagination';
import { slugify } from '../core/text';
import * as repo from './accounts.repository';
import type { CreateAccountInput, CreateUserInput, UpdateAccountInput } from './accounts.schemas';

/** Provisions an account with its first admin user and shows their secrets once. */
export async function provisionAccount(db: Db, request: CreateAccountInput, now: string) {
  const plan = request.plan ?? 'premium';
  const input = { ...PLAN_DEFAULTS[plan], ...request, plan };
  // The secrets carry the shard the account lives in: the shard `db` is.
  const shard = shardOf(db);
  const [token, key] = await Promise.all([
    issueSecret(ACCESS_TOKEN_PREFIX, shard),
    issueSecret(API_KEY_PREFIX, shard),
  ]);
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
  const token = await issueSecret(ACCESS_TOKEN_PREFIX, shardOf(db));
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
  const key = await issueSecret(API_KEY_PREFIX, shardOf(db));
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

/** The `first`/`after` of a list, as the validated query carries them. */
type PageInput = { first?: number; after?: string };

export async function getAccount(db: Db, id: number) {
  const account = await repo.findAccount(db, id);
  if (!account) throw notFound('Account');
  return account;
}

export async function changeAccount(db: Db, id: number, input: UpdateAccountInput, now: string) {
  const account = await repo.updateAccount(db, id, input, now);
  if (!account) throw notFound('Account');
  return account;
}

export async function listUsers(db: Db, accountId: number, query: PageInput) {
  const request = pageRequest(query, 'users', 1);
  const rows = await repo.listUsers(db, accountId, afterId(request), request.limit);
  return idPage(rows, request, 'users');
}

export async function getUser(db: Db, accountId: number, id: number) {
  const user = await repo.findUser(db, accountId, id);
  if (!user) throw notFound('User');
  return user;
}

/** A user's tokens; a user of another account is a 404 even when they have no tokens. */
export async function listAccessTokens(db: Db, accountId: number, userId: number, query: PageInput) {
  const request = pageRequest(query, 'tokens', 1);
  const [user, rows] = await Promise.all([
    repo.findUser(db, accountId, userId),
    repo.listAccessTokens(db, accountId, userId, afterId(request), request.limit),
  ]);
  if (!user) throw notFound('User');
  return idPage(rows, request, 'tokens');
}

export async function revokeAccessToken(db: Db, accountId: number, userId: number, tokenId: number) {
  if (!(await repo.deleteAccessToken(db, accountId, userId, tokenId))) throw notFound('Access token');
  return { id: tokenId, deleted: true as const };
}

export async function listApiKeys(db: Db, accountId: number, query: PageInput) {
  const request = pageRequest(query, 'api-keys', 1);
  const rows = await repo.listApiKeys(db, accountId, afterId(request), request.limit);
  return idPage(rows, request, 'api-keys');
}

export async function deleteApiKey(db: Db, accountId: number, id: number) {
  if (!(await repo.deleteApiKey(db, accountId, id))) throw notFound('API key');
  return { id, deleted: true as const };
}
