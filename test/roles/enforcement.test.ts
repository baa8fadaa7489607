import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { type Auth, api } from '../helpers/http';
import { routedDb } from '../helpers/shards';
import { seedDashboard } from '../notifications/fixtures';
import { ACTIONS, assign, deploymentPolicy, globalPolicy, newRole, newUser, userWithRole } from './fixtures';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

let acme: SeededAccount;
let d0: number;
let d1: number;
beforeAll(async () => {
  acme = await seedAccount();
  [d0, d1] = acme.deployments;
});

const folders = (d: number) => `/api/v1/deployments/${d}/folders`;
const notifications = (d: number) => `/api/v1/deployments/${d}/notifications`;
const createFolder = (auth: Auth, d = d0) =>
  api('POST', folders(d), { auth, body: { name: `Folder ${Math.random()}` } });

/** The workspace writes WorkspaceEdit governs, each on a workbook made for it. */
async function workspaceWrites(auth: Auth, d = d0) {
  const base = `/api/v1/deployments/${d}`;
  const wb = await api('POST', `${base}/workbooks`, {
    auth: acme.admin,
    body: { name: `Wb ${Math.random()}` },
  });
  const doomed = await api('POST', `${base}/workbooks`, {
    auth: acme.admin,
    body: { name: `Doomed ${Math.random()}` },
  });
  const folder = await api('POST', `${base}/folders`, {
    auth: acme.admin,
    body: { name: `F ${Math.random()}` },
  });
  return [
    await api('POST', `${base}/folders`, { auth, body: { name: 'x' } }),
    await api('PUT', `${base}/folders/${folder.body.id}`, { auth, body: { name: 'renamed' } }),
    await api('DELETE', `${base}/folders/${folder.body.id}`, { auth }),
    await api('POST', `${base}/workbooks`, { auth, body: { name: 'x' } }),
    await api('PUT', `${base}/workbooks/${wb.body.id}`, { auth, body: { name: 'renamed' } }),
    await api('PUT', `${base}/workbooks/by-slug/some-slug`, { auth, body: { name: 'x' } }),
    await api('POST', `${base}/workbooks/${wb.body.id}/duplicate`, { auth }),
    await api('PUT', `${base}/workbooks/${wb.body.id}/dashboard`, {
      auth,
      body: { dashboardDraft: { title: 't', widgets: [] } },
    }),
    await api('POST', `${base}/reports`, { auth, body: { name: 'r', workbookId: wb.body.id } }),
    await api('POST', `${base}/workspace/move`, {
      auth,
      body: { id: wb.body.id, type: 'WORKBOOK', folderId: null },
    }),
    await api('POST', `${base}/workspace/bulk-delete`, {
      auth,
      body: { items: [{ id: wb.body.id, type: 'WORKBOOK' }] },
    }),
    await api('DELETE', `${base}/workbooks/${doomed.body.id}`, { auth }),
  ];
}

describe('members without a custom role keep what members could always do', () => {
  it('edit the workspace and publish, but not manage notifications, deployments or embedding', async () => {
    const member = await newUser(acme);
    for (const res of await workspaceWrites(member.auth))
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    const wb = await api('POST', `/api/v1/deployments/${d0}/workbooks`, {
      auth: member.auth,
      body: { name: 'Mine' },
    });
    const draft = await api('PUT', `/api/v1/deployments/${d0}/workbooks/${wb.body.id}/dashboard`, {
      auth: member.auth,
      body: { dashboardDraft: { title: 'Mine', widgets: [] } },
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    const published = await api('POST', `/api/v1/deployments/${d0}/workbooks/${wb.body.id}/publish`, {
      auth: member.auth,
      body: { title: 'Mine' },
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    for (const [method, path] of [
      ['GET', notifications(d0)],
      ['GET', '/api/v1/groups'],
      ['PUT', `/api/v1/deployments/${d0}`],
      ['POST', '/build/api/v1/deployments'],
      ['GET', '/api/v1/users'],
      ['DELETE', `/api/v1/deployments/${d0}/data/tables/nothing`],
    ] as const) {
      const res = await api(method, path, { auth: member.auth, body: method === 'GET' ? undefined : {} });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.error).toMatch(/needs the \w+ permission/);
    }
  });
});

describe('a custom role replaces the member permissions with its own', () => {
  it('a role granting nothing leaves the user read-only: every workspace write and publishing are 403', async () => {
    const viewer = await userWithRole(acme, []);
    for (const res of await workspaceWrites(viewer.auth)) {
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.error).toContain('WorkspaceEdit');
    }
    const dashboard = await seedDashboard(acme);
    const publish = await api('POST', `/api/v1/deployments/${d0}/workbooks/${dashboard.workbookId}/publish`, {
      auth: viewer.auth,
      body: { title: 'x' },
    });
    expectError(publish, 403, 'FORBIDDEN');
    expect(publish.body.error).toContain('DashboardsPublish');
    // Reading needs no permission.
    for (const path of [
      `/api/v1/deployments/${d0}/workbooks`,
      `/api/v1/deployments/${d0}/workbooks/${dashboard.workbookId}/dashboard`,
      `/api/v1/deployments/${d0}/workspace`,
      `/api/v1/deployments/${d0}`,
    ]) {
      expect((await api('GET', path, { auth: viewer.auth })).status).toBe(200);
    }
    // Nothing was written by the refused calls.
    const count = await routedDb
      .prepare('SELECT count(*) AS n FROM workspace_items WHERE created_by = ?')
      .bind(viewer.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
  });

  it('a Deployment policy grants on the deployments it names only', async () => {
    const editor = await userWithRole(acme, [
      deploymentPolicy([d0], ...ACTIONS.WorkspaceEdit, ...ACTIONS.NotificationsManage),
    ]);
    expect((await createFolder(editor.auth, d0)).status).toBe(200);
    expectError(await createFolder(editor.auth, d1), 403, 'FORBIDDEN');
    expect((await api('GET', notifications(d0), { auth: editor.auth })).status).toBe(200);
    expectError(await api('GET', notifications(d1), { auth: editor.auth }), 403, 'FORBIDDEN');
    // Another account's deployment stays a 403 before anything is looked up: the grant names ids of this account.
    expectError(await api('GET', notifications(999999), { auth: editor.auth }), 403, 'FORBIDDEN');
  });

  it('a Global policy grants on every deployment; embedding stays the admin role’s', async () => {
    const manager = await userWithRole(acme, [globalPolicy(...ACTIONS.NotificationsManage)]);
    expect((await api('GET', notifications(d0), { auth: manager.auth })).status).toBe(200);
    expect((await api('GET', notifications(d1), { auth: manager.auth })).status).toBe(200);
    // It holds only what it grants: no workspace writes.
    expectError(await createFolder(manager.auth), 403, 'FORBIDDEN');
    // Cube reserves embedding to admins: no action grants it, not even All.
    const everything = await userWithRole(acme, [globalPolicy('All')]);
    const dashboard = await seedDashboard(acme, 'Embeddable');
    const embedAccess = `/api/v1/deployments/${d0}/workbooks/${dashboard.workbookId}/embed-access`;
    for (const path of ['/api/v1/groups', embedAccess]) {
      const res = await api('GET', path, { auth: everything.auth });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.error).toContain('EmbeddingManage permission, which only the admin role holds');
      expect((await api('GET', path, { auth: acme.admin })).status).toBe(200);
    }
  });

  it('a permission needs every Cube action of its row, from one policy or several', async () => {
    const partial = await userWithRole(acme, [globalPolicy('WorkbookEdit', 'FolderEdit')]);
    const refused = await createFolder(partial.auth);
    expectError(refused, 403, 'FORBIDDEN');
    expect(refused.body.error).toContain('WorkbookEdit + FolderEdit + ReportEdit');
    // Alerts without AlertsDelete do not manage notifications.
    const alerts = await userWithRole(acme, [globalPolicy('AlertsRead', 'AlertsCreate', 'AlertsUpdate')]);
    expectError(await api('GET', notifications(d0), { auth: alerts.auth }), 403, 'FORBIDDEN');
    // Policies add up per deployment; the Manage actions include the Edit ones.
    const combined = await userWithRole(acme, [
      globalPolicy('WorkbookManage'),
      deploymentPolicy([d0], 'FolderManage', 'ReportEdit'),
    ]);
    expect((await createFolder(combined.auth, d0)).status).toBe(200);
    expectError(await createFolder(combined.auth, d1), 403, 'FORBIDDEN');
    const dashboard = await seedDashboard(acme, 'Publishable');
    const published = await api(
      'POST',
      `/api/v1/deployments/${d0}/workbooks/${dashboard.workbookId}/publish`,
      {
        auth: combined.auth,
        body: { title: 'By WorkbookManage' },
      },
    );
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    // DeploymentsManage includes creating, changing and deleting deployments.
    const deployer = await userWithRole(acme, [
      deploymentPolicy([d1], 'DeploymentCreate', 'DeploymentUpdate'),
    ]);
    expectError(
      await api('PUT', `/api/v1/deployments/${d1}`, { auth: deployer.auth, body: { name: 'No' } }),
      403,
    );
  });

  it('DeploymentsManage, SchemaUpdate, SecretsManage and DataAssetsManage govern the deployment routes', async () => {
    const scoped = await userWithRole(acme, [
      deploymentPolicy([d0], 'DeploymentsManage', 'SecretsManage', 'DataAssetsManage', 'SchemaUpdate'),
    ]);
    const renamed = await api('PUT', `/api/v1/deployments/${d0}`, {
      auth: scoped.auth,
      body: { name: 'Renamed' },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expectError(
      await api('PUT', `/api/v1/deployments/${d1}`, { auth: scoped.auth, body: { name: 'No' } }),
      403,
    );
    // Creating needs an account-wide grant: there is no deployment to scope it to yet.
    expectError(
      await api('POST', '/build/api/v1/deployments', { auth: scoped.auth, body: { name: 'New' } }),
      403,
    );
    const env_variables = [{ name: 'GREETING', value: 'hi' }];
    expect(
      (await api('PUT', `/api/v1/deployments/${d0}/env-vars`, { auth: scoped.auth, body: { env_variables } }))
        .status,
    ).toBe(200);
    expectError(
      await api('PUT', `/api/v1/deployments/${d1}/env-vars`, { auth: scoped.auth, body: { env_variables } }),
      403,
    );
    expectError(
      await api('DELETE', `/api/v1/deployments/${d0}/data/tables/missing`, { auth: scoped.auth }),
      404,
    );
    expectError(
      await api('DELETE', `/api/v1/deployments/${d1}/data/tables/missing`, { auth: scoped.auth }),
      403,
    );
    const files = { files: [{ path: 'model/cubes/missing.yml' }] };
    expectError(
      await api('DELETE', `/build/api/v1/deployments/${d0}/data-model/files`, {
        auth: scoped.auth,
        body: files,
      }),
      404,
    );
    expectError(
      await api('DELETE', `/build/api/v1/deployments/${d1}/data-model/files`, {
        auth: scoped.auth,
        body: files,
      }),
      403,
    );
    const token = await api('POST', `/api/v1/deployments/${d0}/token`, { auth: scoped.auth });
    expect(token.status, JSON.stringify(token.body)).toBe(200);

    const creator = await userWithRole(acme, [globalPolicy('DeploymentsManage')]);
    const created = await api('POST', '/build/api/v1/deployments', {
      auth: creator.auth,
      body: { name: 'By a role' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const row = await routedDb
      .prepare('SELECT created_by FROM deployments WHERE id = ?')
      .bind(created.body.id)
      .first();
    expect(row).toEqual({ created_by: creator.id });
  });

  it('`All` grants every permission a role can, on the policy’s deployments; users and keys stay the admin’s', async () => {
    const onD0 = await userWithRole(acme, [deploymentPolicy([d0], 'All')]);
    expect((await createFolder(onD0.auth, d0)).status).toBe(200);
    expect((await api('GET', notifications(d0), { auth: onD0.auth })).status).toBe(200);
    expectError(await createFolder(onD0.auth, d1), 403);
    expectError(await api('GET', '/api/v1/groups', { auth: onD0.auth }), 403);
    const everything = await userWithRole(acme, [globalPolicy('All')]);
    expect((await createFolder(everything.auth, d1)).status).toBe(200);
    expect((await api('GET', notifications(d1), { auth: everything.auth })).status).toBe(200);
    // Still not the admin role: users, embedding, API keys and roles stay the admin's.
    expectError(await api('GET', '/api/v1/groups', { auth: everything.auth }), 403);
    expectError(await api('GET', '/api/v1/users', { auth: everything.auth }), 403);
    expectError(await api('GET', '/api/v1/api-keys', { auth: everything.auth }), 403);
    expectError(await api('GET', '/api/v1/roles', { auth: everything.auth }), 403);
  });

  it('a user holds the union of their roles', async () => {
    const user = await newUser(acme);
    await assign(acme, await newRole(acme, [deploymentPolicy([d0], ...ACTIONS.WorkspaceEdit)]), user.id);
    await assign(acme, await newRole(acme, [deploymentPolicy([d1], ...ACTIONS.WorkspaceEdit)]), user.id);
    expect((await createFolder(user.auth, d0)).status).toBe(200);
    expect((await createFolder(user.auth, d1)).status).toBe(200);
    expectError(await api('GET', notifications(d0), { auth: user.auth }), 403);
  });

  it('changes apply on the next request: updating, removing and deleting roles', async () => {
    const user = await userWithRole(acme, []);
    expectError(await api('GET', notifications(d0), { auth: user.auth }), 403);
    await api('PUT', `/api/v1/roles/${user.roleId}`, {
      auth: acme.admin,
      body: { policies: [globalPolicy(...ACTIONS.NotificationsManage)] },
    });
    expect((await api('GET', notifications(d0), { auth: user.auth })).status).toBe(200);
    expectError(await createFolder(user.auth), 403);
    // Without any custom role left, the member permissions come back.
    await api('DELETE', `/api/v1/roles/${user.roleId}/users/${user.id}`, { auth: acme.admin });
    expect((await createFolder(user.auth)).status).toBe(200);
    expectError(await api('GET', notifications(d0), { auth: user.auth }), 403);
    await assign(acme, user.roleId, user.id);
    expectError(await createFolder(user.auth), 403);
    await api('DELETE', `/api/v1/roles/${user.roleId}`, { auth: acme.admin });
    expect((await createFolder(user.auth)).status).toBe(200);
  });

  it('admins and API keys hold every permission, whatever roles an admin holds', async () => {
    const admin = await newUser(acme, { isAdmin: true });
    await assign(acme, await newRole(acme, []), admin.id);
    expect((await createFolder(admin.auth)).status).toBe(200);
    expect((await api('GET', notifications(d1), { auth: admin.auth })).status).toBe(200);
    expect((await createFolder(acme.key)).status).toBe(200);
    expect((await createFolder(acme.scopedKey, d0)).status).toBe(200);
    expectError(await createFolder(acme.scopedKey, d1), 403, 'KEY_SCOPE');
  });
});

describe('UsersManage', () => {
  it('is the admin role’s alone (as in Cube): a role granting every action manages no user', async () => {
    const everything = await userWithRole(acme, [globalPolicy('All')]);
    const auth = everything.auth;
    const target = await newUser(acme);
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/v1/users'],
      ['POST', '/api/v1/users', { email: 'um@x.co', username: 'um' }],
      ['GET', `/api/v1/users/${target.id}`],
      ['PUT', `/api/v1/users/${target.id}`, { title: 'Analyst' }],
      ['DELETE', `/api/v1/users/${target.id}`],
      ['POST', '/api/v1/users/bulk', { action: 'DEACTIVATE', userIds: [target.id] }],
      ['POST', `/api/v1/users/${target.id}/access-tokens`],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(method, path, { auth, body });
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.error, `${method} ${path}`).toMatch(/admin role/);
    }
    const stored = await routedDb
      .prepare('SELECT title, deactivated_at FROM users WHERE id = ?')
      .bind(target.id)
      .first();
    expect(stored).toEqual({ title: null, deactivated_at: null });
    // A user still reads themselves and manages their own tokens.
    expect((await api('GET', `/api/v1/users/${everything.id}`, { auth })).status).toBe(200);
    expect((await api('GET', `/api/v1/users/${everything.id}/access-tokens`, { auth })).status).toBe(200);
    // The admin manages them.
    expect((await api('GET', `/api/v1/users/${target.id}`, { auth: acme.admin })).status).toBe(200);
  });
});

describe('where the check happens', () => {
  it('answers 403 before validating the input', async () => {
    const viewer = await userWithRole(acme, []);
    const res = await api('POST', folders(d0), { auth: viewer.auth, body: { nonsense: true } });
    expectError(res, 403, 'FORBIDDEN');
  });

  it('costs no extra round trip: a user with roles is authorized by the credential lookup', async () => {
    const plain = await newUser(acme);
    const withRoles = await newUser(acme);
    await assign(acme, await newRole(acme, [globalPolicy(...ACTIONS.WorkspaceEdit)]), withRoles.id);
    await assign(
      acme,
      await newRole(acme, [deploymentPolicy([d0], ...ACTIONS.NotificationsManage)]),
      withRoles.id,
    );
    const trips = async (auth: Auth, path: string) => {
      const res = await api('GET', path, { auth });
      expect(res.status).toBe(200);
      return res.headers.get('x-d1-round-trips');
    };
    const list = `/api/v1/deployments/${d0}/workspace`;
    expect(await trips(withRoles.auth, list)).toBe(await trips(plain.auth, list));
    expect(await trips(withRoles.auth, list)).toBe(await trips(acme.admin, list));
    expect(await trips(withRoles.auth, notifications(d0))).toBe(await trips(acme.admin, notifications(d0)));
  });

  it('is declared in the OpenAPI document of each governed operation', async () => {
    const doc = (await api('GET', '/api/v1/openapi.json')).body;
    expect(doc.paths['/api/v1/deployments/{deploymentId}/folders'].post.description).toContain(
      'Needs the `WorkspaceEdit` permission',
    );
    expect(doc.paths['/api/v1/users/{id}'].get.description).toContain(
      'except for a user acting on themselves',
    );
    expect(doc.paths['/api/v1/roles'].get.description).toContain('Needs the admin role');
  });
});
