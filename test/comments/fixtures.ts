import { expect } from 'vitest';
import { mintOk, publishDashboard, rows, setEmbed } from '../embedding/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { type ApiResponse, type Auth, api } from '../helpers/http';

export { mintOk, publishDashboard, rows, setEmbed } from '../embedding/fixtures';

/** The comments path of a dashboard, and of one of its comments. */
export const commentsPath = (publicId: string, rest = '') =>
  `/api/v1/embed/dashboard/${publicId}/comments${rest}`;

const asAuth = (who: string | Auth): Auth => (typeof who === 'string' ? { session: who } : who);

export function listThreads(who: string | Auth, publicId: string, query = ''): Promise<ApiResponse> {
  return api('GET', `${commentsPath(publicId)}${query ? `?${query}` : ''}`, { auth: asAuth(who) });
}

export function postComment(who: string | Auth, publicId: string, body: unknown): Promise<ApiResponse> {
  return api('POST', commentsPath(publicId), { auth: asAuth(who), body });
}

/** Posts and expects success; answers the comment. */
export async function postOk(who: string | Auth, publicId: string, body: unknown): Promise<any> {
  const res = await postComment(who, publicId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export function editComment(who: string | Auth, publicId: string, id: number | string, body: unknown) {
  return api('PATCH', commentsPath(publicId, `/${id}`), { auth: asAuth(who), body });
}

export function removeComment(who: string | Auth, publicId: string, id: number | string) {
  return api('DELETE', commentsPath(publicId, `/${id}`), { auth: asAuth(who) });
}

export function resolveThread(who: string | Auth, publicId: string, id: number | string, body: unknown) {
  return api('POST', commentsPath(publicId, `/${id}/resolve`), { auth: asAuth(who), body });
}

export function mentionable(who: string | Auth, publicId: string, query = ''): Promise<ApiResponse> {
  return api('GET', `${commentsPath(publicId, '/mentionable-users')}${query ? `?${query}` : ''}`, {
    auth: asAuth(who),
  });
}

/** A session of external user `externalId` (tenant `default` unless given) on the account's first deployment. */
export function sessionOf(
  account: SeededAccount,
  externalId: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  return mintOk(account.key, { deploymentId: account.deployments[0], externalId, ...extra });
}

/** The stored id of an embed user. */
export async function embedUserId(account: SeededAccount, externalId: string, tenant = 'default') {
  const [row] = await rows<{ id: number }>(
    `SELECT u.id FROM embed_users u JOIN embed_tenants t ON t.id = u.tenant_id
      WHERE u.account_id = ? AND t.name = ? AND u.external_id = ?`,
    account.accountId,
    tenant,
    externalId,
  );
  expect(row, `embed user ${tenant}/${externalId}`).toBeDefined();
  return (row as { id: number }).id;
}

/** The stored rows of a dashboard's comments, oldest first. */
export function storedComments(dashboardId: number) {
  return rows<Record<string, unknown>>(
    'SELECT * FROM dashboard_comments WHERE dashboard_id = ? ORDER BY id',
    dashboardId,
  );
}

export function storedMentions(commentId: number) {
  return rows<{ user_id: number }>(
    'SELECT user_id FROM dashboard_comment_mentions WHERE comment_id = ? ORDER BY user_id',
    commentId,
  );
}

/** A dashboard of the account, published and open to embedding: where embed users comment. */
export async function embeddableBoard(account: SeededAccount): Promise<{ id: number; publicId: string }> {
  const board = await publishDashboard(account);
  await setEmbed(account, board.publicId, { allowEmbed: true });
  return board;
}

/**
 * What the comment tests start from: a new account, one embeddable dashboard, and sessions of
 * two embed users of the default tenant, alice (with `alice`'s extra generate-session fields)
 * and bob, with their stored ids.
 */
export async function seedCommenters({ alice: aliceExtra = {} }: { alice?: Record<string, unknown> } = {}) {
  const account = await seedAccount();
  const board = await embeddableBoard(account);
  const alice = await sessionOf(account, 'alice', aliceExtra);
  const bob = await sessionOf(account, 'bob');
  const aliceId = await embedUserId(account, 'alice');
  const bobId = await embedUserId(account, 'bob');
  return { account, board, alice, bob, aliceId, bobId };
}
