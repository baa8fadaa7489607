import { PLAN_DEFAULTS } from '../../schema/accounts';
import { ACCESS_TOKEN_PREFIX, API_KEY_PREFIX, issueSecret } from '../auth/credentials';
import { accountMoving } from '../core/account-moving';
import { ApiError, badRequest, conflict, notFound, orNotFound } from '../core/errors';
import { afterId, idPage, pageRequest } from '../core/pagination';
import type { AccountScope, RequestScope } from '../core/scope';
import { slugify } from '../core/text';
import * as repo from './accounts.repository';
import type { CreateAccountInput, CreateUserInput, UpdateAccountInput } from './accounts.schemas';
import { beginProvisioning, registerAccount } from './placement.service';
import { actsAsAdmin, adminOnly } from './users.service';

/**
 * Provisions an account on the scope's shard (the one placement chose) with its first admin
 * user, lists it in the directory, and shows their secrets once (the operator's call).
 */
export async function provisionAccount(scope: RequestScope, request: CreateAccountInput) {
  const plan = request.plan ?? 'premium';
  const input = { ...PLAN_DEFAULTS[plan], ...request, plan };
  // The secrets carry the shard the account lives in: the scope's.
  const { shard } = scope;
  const [token, key] = await Promise.all([
    issueSecret(ACCESS_TOKEN_PREFIX, shard),
    issueSecret(API_KEY_PREFIX, shard),
  ]);
  const adminUsername = input.adminUsername ?? 'admin';
  const adminEmail = input.adminEmail ?? `${adminUsername}@${slugify(input.name) || 'account'}.example.com`;
  // Ordered steps across two databases (docs/sharding.md): pending in the control database,
  // the rows on the shard, then listed in the directory; the sweep finishes what a crash cuts.
  await beginProvisioning(scope, key.hash);
  const { account, user } = await repo.insertAccountWithAdmin(
    scope,
    { ...input, adminEmail, adminUsername },
    {
      tokenHash: token.hash,
      tokenPrefix: token.displayPrefix,
      keyHash: key.hash,
      keyPrefix: key.displayPrefix,
    },
  );
  await registerAccount(scope, account.id, key.hash);
  return { account, user, accessToken: token.secret, apiKey: key.secret };
}

/**
 * Creates a user: `role`, or Cube's `isAdmin` (the two must agree when both are sent). Only an
 * admin (or an API key) may create an admin.
 */
export async function createUser(scope: AccountScope, input: CreateUserInput) {
  const fromIsAdmin = input.isAdmin == null ? undefined : input.isAdmin ? 'admin' : 'member';
  if (input.role !== undefined && fromIsAdmin !== undefined && input.role !== fromIsAdmin)
    throw badRequest('`role` and `isAdmin` disagree', [
      { path: 'isAdmin', message: `Contradicts role ${input.role}` },
    ]);
  const role = input.role ?? fromIsAdmin ?? 'member';
  if (role === 'admin' && !actsAsAdmin(scope.principal)) throw adminOnly();
  const user = await repo.insertUser(scope, { ...input, role });
  if (!user) throw conflict('A user with this email or username already exists in the account');
  return user;
}

export async function createAccessToken(scope: AccountScope, userId: number) {
  const token = await issueSecret(ACCESS_TOKEN_PREFIX, scope.shard);
  const row = await repo.insertAccessToken(scope, userId, token.hash, token.displayPrefix);
  if (!row) throw notFound('User');
  return { id: row.id, token: token.secret, createdAt: row.createdAt };
}

export async function createApiKey(
  scope: AccountScope,
  input: { name: string; deploymentIds?: number[] | null },
) {
  const key = await issueSecret(API_KEY_PREFIX, scope.shard);
  const deploymentIds = input.deploymentIds ? [...new Set(input.deploymentIds)].sort((a, b) => a - b) : null;
  const row = await repo.insertApiKey(scope, input.name, deploymentIds, key.hash, key.displayPrefix);
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

/** Any account, by id (the operator's call). */
export async function getAccount(scope: RequestScope, id: number) {
  return orNotFound(await repo.findAccount(scope, id), 'Account');
}

/** Changes any account's settings (the operator's call). */
export async function changeAccount(scope: RequestScope, id: number, input: UpdateAccountInput) {
  const account = await repo.updateAccount(scope, id, input);
  if (account) return account;
  // Nothing changed: no such account, or one being moved to another shard (a read only then).
  if (await repo.findAccount(scope, id)) throw accountMoving();
  throw notFound('Account');
}

export async function listUsers(scope: AccountScope, query: PageInput) {
  const request = pageRequest(query, 'users', 1);
  const rows = await repo.listUsers(scope, afterId(request), request.limit);
  return idPage(rows, request, 'users');
}

export async function getUser(scope: AccountScope, id: number) {
  return orNotFound(await repo.findUser(scope, id), 'User');
}

/** A user's tokens; a user of another account is a 404 even when they have no tokens. */
export async function listAccessTokens(scope: AccountScope, userId: number, query: PageInput) {
  const request = pageRequest(query, 'tokens', 1);
  const [user, rows] = await Promise.all([
    repo.findUser(scope, userId),
    repo.listAccessTokens(scope, userId, afterId(request), request.limit),
  ]);
  if (!user) throw notFound('User');
  return idPage(rows, request, 'tokens');
}

export async function revokeAccessToken(scope: AccountScope, userId: number, tokenId: number) {
  if (!(await repo.deleteAccessToken(scope, userId, tokenId))) throw notFound('Access token');
  return { id: tokenId, deleted: true as const };
}

export async function listApiKeys(scope: AccountScope, query: PageInput) {
  const request = pageRequest(query, 'api-keys', 1);
  const rows = await repo.listApiKeys(scope, afterId(request), request.limit);
  return idPage(rows, request, 'api-keys');
}

export async function deleteApiKey(scope: AccountScope, id: number) {
  if (!(await repo.deleteApiKey(scope, id))) throw notFound('API key');
  return { id, deleted: true as const };
}
