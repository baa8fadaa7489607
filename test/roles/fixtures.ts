import { expect } from 'vitest';
import type { SeededAccount } from '../helpers/harness';
import { api } from '../helpers/http';

let counter = 0;

/** A new user of `account` (a member unless `isAdmin`) with an access token, made through HTTP. */
export async function newUser(account: SeededAccount, options: { isAdmin?: boolean } = {}) {
  counter += 1;
  const created = await api('POST', '/api/v1/users', {
    auth: account.admin,
    body: { email: `person${counter}@example.com`, username: `person${counter}`, isAdmin: options.isAdmin },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const token = await api('POST', `/api/v1/users/${created.body.id}/access-tokens`, { auth: account.admin });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return { id: created.body.id as number, auth: { bearer: token.body.token as string } };
}

/** A custom role of `account` with `policies`, made through HTTP; answers its id. */
export async function newRole(account: SeededAccount, policies: unknown[], name?: string): Promise<number> {
  counter += 1;
  const res = await api('POST', '/api/v1/roles', {
    auth: account.admin,
    body: { name: name ?? `role ${counter}`, policies },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

/** Assigns a role to a user through HTTP. */
export async function assign(account: SeededAccount, roleId: number, userId: number) {
  const res = await api('PUT', `/api/v1/roles/${roleId}/users/${userId}`, { auth: account.admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A user holding one new role with `policies`. */
export async function userWithRole(account: SeededAccount, policies: unknown[]) {
  const user = await newUser(account);
  const roleId = await newRole(account, policies);
  await assign(account, roleId, user.id);
  return { ...user, roleId };
}

/** A Global policy granting `actions` account-wide. */
export const globalPolicy = (...actions: string[]) => ({
  resourceType: 'Global',
  actions,
  resources: ['All'],
});

/** A Deployment policy granting `actions` on `deploymentIds`. */
export const deploymentPolicy = (deploymentIds: (number | 'All')[], ...actions: string[]) => ({
  resourceType: 'Deployment',
  actions,
  resources: deploymentIds.map(String),
});

/** The Cube actions a role grants each permission with (src/core/permissions.ts), for policies in tests. */
export const ACTIONS = {
  WorkspaceEdit: ['WorkbookEdit', 'FolderEdit', 'ReportEdit'],
  DashboardsPublish: ['WorkbookManage'],
  NotificationsManage: ['AlertsRead', 'AlertsCreate', 'AlertsUpdate', 'AlertsDelete'],
  DeploymentsManage: ['DeploymentsManage'],
  SchemaUpdate: ['SchemaUpdate'],
  SecretsManage: ['SecretsManage'],
  DataStoreManage: ['DataAssetsManage'],
} as const;
