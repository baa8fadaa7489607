import { env } from 'cloudflare:test';
import { expect } from 'vitest';
import type { SeededAccount } from '../helpers/harness';
import { type ApiResponse, type Auth, api } from '../helpers/http';
import { shardRows } from '../helpers/shards';

/** A workbook with a one-widget draft, published; answers the PublishedDashboard. */
export async function publishDashboard(account: SeededAccount, deploymentId = account.deployments[0]) {
  const workbook = await api('POST', `/api/v1/deployments/${deploymentId}/workbooks`, {
    auth: account.admin,
    body: { name: 'Revenue' },
  });
  expect(workbook.status, JSON.stringify(workbook.body)).toBe(200);
  const draft = await api(
    'PUT',
    `/api/v1/deployments/${deploymentId}/workbooks/${workbook.body.id}/dashboard`,
    {
      auth: account.admin,
      body: {
        dashboardDraft: {
          kind: 'CLASSIC',
          title: 'Revenue',
          widgets: [
            { id: 'w1', type: 'TEXT', position: { x: 0, y: 0, w: 4, h: 2 }, config: { text: 'Hello' } },
          ],
        },
      },
    },
  );
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
  const published = await api(
    'POST',
    `/api/v1/deployments/${deploymentId}/workbooks/${workbook.body.id}/publish`,
    {
      auth: account.admin,
      body: { title: 'Revenue board' },
    },
  );
  expect(published.status, JSON.stringify(published.body)).toBe(200);
  return published.body as { id: number; publicId: string; deploymentId: number; allowEmbed: boolean };
}

export async function setEmbed(account: SeededAccount, publicId: string, body: Record<string, boolean>) {
  const res = await api('PATCH', `/api/v1/embed/dashboard/${publicId}`, { auth: account.admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export function mint(auth: Auth, body: Record<string, unknown>): Promise<ApiResponse> {
  return api('POST', '/api/v1/embed/generate-session', { auth, body });
}

/** Mints and expects success; answers the sessionId. */
export async function mintOk(auth: Auth, body: Record<string, unknown>): Promise<string> {
  const res = await mint(auth, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.sessionId as string;
}

export function load(publicId: string, sessionId: string): Promise<ApiResponse> {
  return api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: { session: sessionId } });
}

/** The claims of a session token (no verification: tests read what the service signed). */
export function claimsOf(sessionId: string): Record<string, any> {
  const part = sessionId.split('.')[1] as string;
  return JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
}

export async function kvPayload(sessionId: string): Promise<any> {
  return env.SESSIONS.get(`session:${claimsOf(sessionId).jti}`, 'json');
}

/** Rows of `query` from the shard its bound ids name (every shard's when it names none). */
export const rows = shardRows;

export const roundTrips = (res: ApiResponse) => Number(res.headers.get('x-d1-round-trips'));
export const queries = (res: ApiResponse) => Number(res.headers.get('x-d1-queries'));

/** Every row of the embedding tables for an account, to compare before and after a refused request. */
export async function embedState(accountId: number) {
  return {
    tenants: await rows('SELECT * FROM embed_tenants WHERE account_id = ? ORDER BY id', accountId),
    groups: await rows('SELECT * FROM embed_groups WHERE account_id = ? ORDER BY id', accountId),
    attributes: await rows('SELECT * FROM embed_attributes WHERE account_id = ? ORDER BY id', accountId),
    users: await rows('SELECT * FROM embed_users WHERE account_id = ? ORDER BY id', accountId),
    memberships: await rows(
      'SELECT m.* FROM embed_memberships m JOIN embed_users u ON u.id = m.user_id WHERE u.account_id = ? ORDER BY 1, 2',
      accountId,
    ),
    values: await rows(
      'SELECT v.* FROM embed_attribute_values v JOIN embed_users u ON u.id = v.user_id WHERE u.account_id = ? ORDER BY 1, 2',
      accountId,
    ),
  };
}
