import { expect } from 'vitest';
import { api } from './http';

export const OPERATOR = { bearer: 'test-operator-token' };

export interface SeededAccount {
  accountId: number;
  adminUserId: number;
  memberUserId: number;
  /** Bearer credentials. */
  admin: { bearer: string };
  member: { bearer: string };
  /** Api-Key credentials: all deployments, and only `deployments[0]`. */
  key: { apiKey: string };
  scopedKey: { apiKey: string };
  deployments: [number, number];
}

export interface World {
  acme: SeededAccount;
  /** A second account, for isolation checks. */
  other: SeededAccount;
}

let counter = 0;

/**
 * An account as a customer would have it: an admin, a member, two deployments, an
 * unscoped API key and one scoped to the first deployment. Everything through HTTP.
 */
export async function seedAccount(overrides: Record<string, unknown> = {}): Promise<SeededAccount> {
  counter += 1;
  const created = await api('POST', '/admin/v1/accounts', {
    auth: OPERATOR,
    body: { name: `Account ${counter}`, plan: 'enterprise', ...overrides },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const admin = { bearer: created.body.accessToken as string };
  const deployments: number[] = [];
  for (const name of ['Production', 'Staging']) {
    const d = await api('POST', '/build/api/v1/deployments', { auth: admin, body: { name } });
    expect(d.status, JSON.stringify(d.body)).toBe(200);
    deployments.push(d.body.id);
  }
  const user = await api('POST', '/api/v1/users', {
    auth: admin,
    body: { email: `member${counter}@example.com`, username: `member${counter}` },
  });
  expect(user.status, JSON.stringify(user.body)).toBe(200);
  const token = await api('POST', `/api/v1/users/${user.body.id}/access-tokens`, { auth: admin });
  expect(token.status).toBe(200);
  const scoped = await api('POST', '/api/v1/api-keys', {
    auth: admin,
    body: { name: 'scoped', deploymentIds: [deployments[0]] },
  });
  expect(scoped.status, JSON.stringify(scoped.body)).toBe(200);
  return {
    accountId: created.body.account.id,
    adminUserId: created.body.user.id,
    memberUserId: user.body.id,
    admin,
    member: { bearer: token.body.token },
    key: { apiKey: created.body.apiKey },
    scopedKey: { apiKey: scoped.body.key },
    deployments: deployments as [number, number],
  };
}

export async function seedWorld(): Promise<World> {
  return { acme: await seedAccount(), other: await seedAccount() };
}

/** The contract's error envelope, with the code and status the test expects. */
export function expectError(
  res: { status: number; body: any; headers: Headers },
  status: number,
  code?: string,
) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(typeof res.body.error).toBe('string');
  expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
  if (code) expect(res.body.code).toBe(code);
}
