import { beforeAll, describe, expect, it } from 'vitest';
import { CUBE_ACTIONS } from '../../src/core/permissions';
import { cubeDocument, holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf, routedDb } from '../helpers/shards';
import { ACTIONS, assign, deploymentPolicy, globalPolicy, newRole, newUser, userWithRole } from './fixtures';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

const storedRole = (id: number) =>
  routedDb
    .prepare('SELECT account_id, name, description, policies, grants FROM roles WHERE id = ?')
    .bind(id)
    .first<{
      account_id: number;
      name: string;
      description: string | null;
      policies: string;
      grants: string;
    }>();

const heldBy = async (userId: number) =>
  (
    await routedDb
      .prepare('SELECT role_id FROM user_roles WHERE user_id = ? ORDER BY role_id')
      .bind(userId)
      .all<{ role_id: number }>()
  ).results.map((r) => r.role_id);

describe('createRole — POST /api/v1/roles', () => {
  it('takes Cube’s RoleCreateBody, answers the Role and stores its policies and compiled grants', async () => {
    const [d0, d1] = world.acme.deployments;
    const res = await api('POST', '/api/v1/roles', {
      auth: world.acme.admin,
      body: {
        name: 'team-analytics',
        description: 'Edits the workspace of two deployments',
        policies: [
          // WorkbookManage includes WorkbookEdit: with the Deployment policy's FolderEdit and
          // ReportEdit, the workspace is editable on d0 and d1 only.
          globalPolicy('WorkbookManage'),
          {
            resourceType: 'Deployment',
            actions: ['FolderEdit', 'ReportEdit', ...ACTIONS.NotificationsManage, 'FolderEdit'],
            resources: [String(d0), String(d1), String(d0)],
          },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      name: 'team-analytics',
      description: 'Edits the workspace of two deployments',
      policies: [
        globalPolicy('WorkbookManage'),
        {
          resourceType: 'Deployment',
          actions: ['FolderEdit', 'ReportEdit', ...ACTIONS.NotificationsManage],
          resources: [String(d0), String(d1)],
        },
      ],
    });
    expect(typeof res.body.id).toBe('number');
    const row = await storedRole(res.body.id);
    expect(row?.account_id).toBe(world.acme.accountId);
    expect(JSON.parse(row?.grants ?? '')).toEqual({
      WorkspaceEdit: [d0, d1].sort((a, b) => a - b),
      DashboardsPublish: true,
      NotificationsManage: [d0, d1].sort((a, b) => a - b),
    });
  });

  it('accepts an empty policy list and no description, and compiles `All` to every permission a role grants', async () => {
    const empty = await api('POST', '/api/v1/roles', {
      auth: world.acme.admin,
      body: { name: 'nothing yet', policies: [] },
    });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ name: 'nothing yet', description: null, policies: [] });
    expect(JSON.parse((await storedRole(empty.body.id))?.grants ?? '')).toEqual({});

    const d0 = world.acme.deployments[0];
    const deploymentAll = await newRole(world.acme, [deploymentPolicy([d0], 'All')]);
    expect(JSON.parse((await storedRole(deploymentAll))?.grants ?? '')).toEqual({
      WorkspaceEdit: [d0],
      DashboardsPublish: [d0],
      NotificationsManage: [d0],
      DeploymentsManage: [d0],
      SchemaUpdate: [d0],
      SecretsManage: [d0],
      PreAggregationBuild: [d0],
      DataStoreManage: [d0],
    });
    const globalAll = await newRole(world.acme, [globalPolicy('All')]);
    const grants = JSON.parse((await storedRole(globalAll))?.grants ?? '');
    // Managing users and embedding stays the admin role's: no Cube action grants it.
    expect(Object.keys(grants).sort()).toEqual(
      [
        'DashboardsPublish',
        'DataStoreManage',
        'DeploymentsManage',
        'NotificationsManage',
        'PreAggregationBuild',
        'SchemaUpdate',
        'SecretsManage',
        'WorkspaceEdit',
      ].sort(),
    );
    expect(Object.values(grants).every((g) => g === true)).toBe(true);
  });

  it('answers 409 for a name the account already has, but not for another account’s', async () => {
    await newRole(world.acme, [], 'Analysts');
    const again = await api('POST', '/api/v1/roles', {
      auth: world.acme.admin,
      body: { name: 'Analysts', policies: [] },
    });
    expectError(again, 409, 'CONFLICT');
    expect(again.body.error).toContain('name');
    const elsewhere = await api('POST', '/api/v1/roles', {
      auth: world.other.admin,
      body: { name: 'Analysts', policies: [] },
    });
    expect(elsewhere.status).toBe(200);
  });

  const tooManyIds = Array.from({ length: 101 }, (_, i) => i + 1);
  it.each([
    ['a built-in name', { name: 'admin', policies: [] }, 'name'],
    ['a built-in name of Cube’s, in another case', { name: 'EMBEDUSER', policies: [] }, 'name'],
    ['a blank name', { name: '   ', policies: [] }, 'name'],
    ['a name of 256 characters', { name: 'x'.repeat(256), policies: [] }, 'name'],
    [
      'a description of 256 characters',
      { name: 'x', description: 'd'.repeat(256), policies: [] },
      'description',
    ],
    ['no policies', { name: 'x' }, 'policies'],
    ['null policies', { name: 'x', policies: null }, 'policies'],
    ['an unknown field', { name: 'x', policies: [], extra: 1 }, 'extra'],
    [
      'an action outside Cube’s enum',
      { name: 'x', policies: [globalPolicy('WorkbookEdit', 'WorkbooksEdit')] },
      'policies.0.actions.1',
    ],
    [
      'edgeboard’s former permission name',
      { name: 'x', policies: [globalPolicy('WorkspaceEdit')] },
      'policies.0.actions.0',
    ],
    ['a policy without actions', { name: 'x', policies: [globalPolicy()] }, 'policies.0.actions'],
    [
      'a per-object resource type',
      { name: 'x', policies: [{ resourceType: 'Workbook', actions: ['All'], resources: ['1'] }] },
      'policies.0.resourceType',
    ],
    [
      'a Global policy naming an id',
      { name: 'x', policies: [{ resourceType: 'Global', actions: ['All'], resources: ['1'] }] },
      'policies.0.resources',
    ],
    [
      'a policy without resources',
      { name: 'x', policies: [{ resourceType: 'Deployment', actions: ['All'], resources: [] }] },
      'policies.0.resources',
    ],
    [
      'a deployment named by slug',
      { name: 'x', policies: [{ resourceType: 'Deployment', actions: ['All'], resources: ['prod'] }] },
      'policies.0.resources',
    ],
    [
      'UsersManage, which no action grants',
      { name: 'x', policies: [globalPolicy('UsersManage')] },
      'policies.0.actions.0',
    ],
    [
      'EmbeddingManage on a deployment',
      { name: 'x', policies: [deploymentPolicy([1], 'EmbeddingManage')] },
      'policies.0.actions.0',
    ],
    [
      '51 policies',
      { name: 'x', policies: Array.from({ length: 51 }, () => globalPolicy('WorkbookEdit')) },
      'policies',
    ],
    ['101 resources', { name: 'x', policies: [deploymentPolicy(tooManyIds, 'All')] }, 'policies.0.resources'],
    [
      '101 distinct deployments over two policies',
      {
        name: 'x',
        policies: [deploymentPolicy(tooManyIds.slice(0, 100), 'All'), deploymentPolicy([1000], 'All')],
      },
      'policies',
    ],
  ])('answers 400 to %s, naming %s', async (_label, body, path) => {
    const res = await api('POST', '/api/v1/roles', { auth: world.acme.admin, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('caps an account at 100 roles with a 409, and nothing is written past it', async () => {
    const { other } = await seedWorld();
    for (let i = 0; i < 100; i++) await newRole(other, [], `capped ${i}`);
    const res = await api('POST', '/api/v1/roles', {
      auth: other.admin,
      body: { name: 'one more', policies: [] },
    });
    expectError(res, 409, 'CONFLICT');
    expect(res.body.error).toContain('100');
    const count = await routedDb
      .prepare('SELECT count(*) AS n FROM roles WHERE account_id = ?')
      .bind(other.accountId)
      .first<{ n: number }>();
    expect(count?.n).toBe(100);
  });
});

describe('policy actions are Cube’s', () => {
  it('are exactly the enum of Cube’s Policy schema', () => {
    const policy = cubeDocument.components.schemas.Policy as {
      properties: { actions: { items: { enum: string[] } } };
    };
    expect([...CUBE_ACTIONS]).toEqual(policy.properties.actions.items.enum);
  });

  it('takes every Cube action; those no permission needs are stored, answered and grant nothing', async () => {
    const policies = [
      globalPolicy('AIBIDevelop', 'DownloadData', 'WorkbookRead', 'AgentManage'),
      // One of the three actions edgeboard's workspace edits need grants none of them.
      deploymentPolicy(['All'], 'WorkbookEdit'),
    ];
    const res = await api('POST', '/api/v1/roles', {
      auth: world.acme.admin,
      body: { name: 'from Cube', policies },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.policies).toEqual(policies);
    expect(JSON.parse((await storedRole(res.body.id))?.grants ?? '')).toEqual({});
    const user = await newUser(world.acme);
    await assign(world.acme, res.body.id, user.id);
    const folder = await api('POST', `/api/v1/deployments/${world.acme.deployments[0]}/folders`, {
      auth: user.auth,
      body: { name: 'No' },
    });
    expectError(folder, 403, 'FORBIDDEN');
    expect(folder.body.error).toContain('WorkbookEdit + FolderEdit + ReportEdit');
  });

  it('refuses edgeboard’s former permission names, naming the actions that grant them now', async () => {
    const res = await api('POST', '/api/v1/roles', {
      auth: world.acme.admin,
      body: { name: 'old names', policies: [globalPolicy('NotificationsManage', 'UsersManage')] },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    const messages = Object.fromEntries(
      res.body.details.map((d: { path: string; message: string }) => [d.path, d.message]),
    );
    expect(messages['policies.0.actions.0']).toContain(
      'AlertsRead + AlertsCreate + AlertsUpdate + AlertsDelete',
    );
    expect(messages['policies.0.actions.1']).toContain('admin role');
  });

  it('answers a role stored with edgeboard’s former names in Cube’s actions, granting what it did', async () => {
    const d0 = world.acme.deployments[0];
    const user = await userWithRole(world.acme, []);
    // A role as written before roles spoke Cube's actions: permission names in its policies and grants.
    await dbOf(world.acme.accountId)
      .prepare('UPDATE roles SET policies = ?, grants = ? WHERE id = ?')
      .bind(
        JSON.stringify([
          { resourceType: 'Global', actions: ['WorkspaceEdit', 'UsersManage'], resources: ['All'] },
          { resourceType: 'Deployment', actions: ['EmbeddingManage'], resources: [String(d0)] },
        ]),
        JSON.stringify({ WorkspaceEdit: true, UsersManage: true, EmbeddingManage: true }),
        user.roleId,
      )
      .run();
    const res = await api('GET', `/api/v1/roles/${user.roleId}`, { auth: world.acme.admin });
    expect(res.status).toBe(200);
    expect(res.body.policies).toEqual([globalPolicy(...ACTIONS.WorkspaceEdit)]);
    const listed = await api('GET', '/api/v1/roles?first=100', { auth: world.acme.admin });
    expect(listed.body.items.find((r: { id: number }) => r.id === user.roleId).policies).toEqual(
      res.body.policies,
    );
    // Its workspace grant holds; the admin role's permissions it lists do not.
    const folder = await api('POST', `/api/v1/deployments/${d0}/folders`, {
      auth: user.auth,
      body: { name: 'Ok' },
    });
    expect(folder.status).toBe(200);
    for (const path of ['/api/v1/users', '/api/v1/groups']) {
      const refused = await api('GET', path, { auth: user.auth });
      expectError(refused, 403, 'FORBIDDEN');
      expect(refused.body.error).toContain('only the admin role');
    }
  });
});

describe('getRoles — GET /api/v1/roles', () => {
  it('pages through the account’s roles only, newest first', async () => {
    const { acme, other } = await seedWorld();
    const ids = [await newRole(acme, []), await newRole(acme, []), await newRole(acme, [])];
    await newRole(other, []);
    const seen: number[] = [];
    let after: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await api('GET', `/api/v1/roles?first=2${after ? `&after=${after}` : ''}`, {
        auth: acme.admin,
      });
      expect(res.status).toBe(200);
      expect(res.body.pageInfo.hasPreviousPage).toBe(after !== undefined);
      seen.push(...res.body.items.map((r: { id: number }) => r.id));
      if (!res.body.pageInfo.hasNextPage) break;
      after = res.body.pageInfo.endCursor;
    }
    expect(seen).toEqual([...ids].reverse());
  });

  it('rejects a bad page size or a cursor of another list', async () => {
    expectError(
      await api('GET', '/api/v1/roles?first=0', { auth: world.acme.admin }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await api('GET', '/api/v1/roles?after=nonsense', { auth: world.acme.admin }),
      400,
      'INVALID_CURSOR',
    );
    const users = await api('GET', '/api/v1/users?first=1', { auth: world.acme.admin });
    expectError(
      await api('GET', `/api/v1/roles?after=${users.body.pageInfo.endCursor}`, { auth: world.acme.admin }),
      400,
      'INVALID_CURSOR',
    );
  });
});

describe('getRole — GET /api/v1/roles/{roleId}', () => {
  it('answers the role with its policies; another account’s role and an unknown id are 404', async () => {
    const id = await newRole(world.acme, [globalPolicy(...ACTIONS.WorkspaceEdit)], 'Editors');
    const res = await api('GET', `/api/v1/roles/${id}`, { auth: world.acme.admin });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      name: 'Editors',
      policies: [globalPolicy(...ACTIONS.WorkspaceEdit)],
    });
    expectError(await api('GET', `/api/v1/roles/${id}`, { auth: world.other.admin }), 404, 'NOT_FOUND');
    expectError(await api('GET', '/api/v1/roles/999999', { auth: world.acme.admin }), 404, 'NOT_FOUND');
    expectError(await api('GET', '/api/v1/roles/abc', { auth: world.acme.admin }), 400, 'VALIDATION_FAILED');
  });
});

describe('updateRole — PUT /api/v1/roles/{roleId}', () => {
  it('changes only the fields sent; policies replace the old ones and recompile the grants', async () => {
    const id = await newRole(world.acme, [globalPolicy(...ACTIONS.WorkspaceEdit)], 'Before');
    await api('PUT', `/api/v1/roles/${id}`, { auth: world.acme.admin, body: { description: 'kept' } });
    const renamed = await api('PUT', `/api/v1/roles/${id}`, {
      auth: world.acme.admin,
      body: { name: 'After' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'After',
      description: 'kept',
      policies: [globalPolicy(...ACTIONS.WorkspaceEdit)],
    });

    const replaced = await api('PUT', `/api/v1/roles/${id}`, {
      auth: world.acme.admin,
      body: { description: null, policies: [globalPolicy(...ACTIONS.NotificationsManage)] },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      name: 'After',
      description: null,
      policies: [globalPolicy(...ACTIONS.NotificationsManage)],
    });
    const row = await storedRole(id);
    expect(row?.description).toBeNull();
    expect(JSON.parse(row?.grants ?? '')).toEqual({ NotificationsManage: true });

    const cleared = await api('PUT', `/api/v1/roles/${id}`, {
      auth: world.acme.admin,
      body: { policies: [] },
    });
    expect(cleared.body.policies).toEqual([]);
    expect(JSON.parse((await storedRole(id))?.grants ?? '')).toEqual({});
    const unchanged = await api('PUT', `/api/v1/roles/${id}`, { auth: world.acme.admin });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.name).toBe('After');
  });

  it('answers 409 for a name another role holds, 404 for another account’s role, 400 for nulls', async () => {
    const a = await newRole(world.acme, [], 'Taken A');
    const b = await newRole(world.acme, [], 'Taken B');
    expectError(
      await api('PUT', `/api/v1/roles/${b}`, { auth: world.acme.admin, body: { name: 'Taken A' } }),
      409,
      'CONFLICT',
    );
    expect((await storedRole(b))?.name).toBe('Taken B');
    // Renaming a role to its own name is no conflict.
    expect(
      (await api('PUT', `/api/v1/roles/${a}`, { auth: world.acme.admin, body: { name: 'Taken A' } })).status,
    ).toBe(200);
    expectError(
      await api('PUT', `/api/v1/roles/${a}`, { auth: world.other.admin, body: { name: 'Mine' } }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api('PUT', `/api/v1/roles/${a}`, { auth: world.other.admin, body: { name: 'Taken A' } }),
      404,
      'NOT_FOUND',
    );
    expect((await storedRole(a))?.name).toBe('Taken A');
    for (const body of [
      { name: null },
      { policies: null },
      { name: 'Admin' },
      { policies: [globalPolicy('Nope')] },
    ]) {
      expectError(
        await api('PUT', `/api/v1/roles/${a}`, { auth: world.acme.admin, body }),
        400,
        'VALIDATION_FAILED',
      );
    }
  });
});

describe('deleteRole — DELETE /api/v1/roles/{roleId}', () => {
  it('deletes the role and every assignment of it; a second delete and another account’s are 404', async () => {
    const holder = await userWithRole(world.acme, [globalPolicy(...ACTIONS.WorkspaceEdit)]);
    expectError(
      await api('DELETE', `/api/v1/roles/${holder.roleId}`, { auth: world.other.admin }),
      404,
      'NOT_FOUND',
    );
    const res = await api('DELETE', `/api/v1/roles/${holder.roleId}`, { auth: world.acme.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: holder.roleId, deleted: true });
    expect(await storedRole(holder.roleId)).toBeNull();
    expect(await heldBy(holder.id)).toEqual([]);
    expectError(
      await api('DELETE', `/api/v1/roles/${holder.roleId}`, { auth: world.acme.admin }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('assignRoleToUser and removeRoleFromUser — /api/v1/roles/{roleId}/users/{userId}', () => {
  it('assigns and removes idempotently, and the user answers the roles they hold', async () => {
    const user = await newUser(world.acme);
    const roleId = await newRole(world.acme, []);
    const path = `/api/v1/roles/${roleId}/users/${user.id}`;
    for (let i = 0; i < 2; i++) {
      const res = await api('PUT', path, { auth: world.acme.admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ roleId, userId: user.id, assigned: true });
    }
    expect(await heldBy(user.id)).toEqual([roleId]);
    expect((await api('GET', `/api/v1/users/${user.id}`, { auth: world.acme.admin })).body.roleIds).toEqual([
      roleId,
    ]);
    for (let i = 0; i < 2; i++) {
      const res = await api('DELETE', path, { auth: world.acme.admin });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ roleId, userId: user.id, assigned: false });
    }
    expect(await heldBy(user.id)).toEqual([]);
  });

  it('answers 404 for a user or a role of another account, and writes nothing', async () => {
    const mine = await newRole(world.acme, []);
    const theirs = await newRole(world.other, []);
    const cases = [
      `/api/v1/roles/${mine}/users/${world.other.memberUserId}`,
      `/api/v1/roles/${theirs}/users/${world.acme.memberUserId}`,
      `/api/v1/roles/999999/users/${world.acme.memberUserId}`,
      `/api/v1/roles/${mine}/users/999999`,
    ];
    for (const path of cases) {
      expectError(await api('PUT', path, { auth: world.acme.admin }), 404, 'NOT_FOUND');
      expectError(await api('DELETE', path, { auth: world.acme.admin }), 404, 'NOT_FOUND');
    }
    expect(await heldBy(world.other.memberUserId)).toEqual([]);
    expect(await heldBy(world.acme.memberUserId)).toEqual([]);
    // A role of another account held by its own user stays held when this account asks to remove it.
    await assign(world.other, theirs, world.other.memberUserId);
    expectError(
      await api('DELETE', `/api/v1/roles/${theirs}/users/${world.other.memberUserId}`, {
        auth: world.acme.admin,
      }),
      404,
    );
    expect(await heldBy(world.other.memberUserId)).toEqual([theirs]);
    await api('DELETE', `/api/v1/roles/${theirs}/users/${world.other.memberUserId}`, {
      auth: world.other.admin,
    });
  });

  it('caps a user at 10 roles with a 409', async () => {
    const user = await newUser(world.acme);
    const roles: number[] = [];
    for (let i = 0; i < 11; i++) roles.push(await newRole(world.acme, []));
    for (const roleId of roles.slice(0, 10)) await assign(world.acme, roleId, user.id);
    const res = await api('PUT', `/api/v1/roles/${roles[10]}/users/${user.id}`, { auth: world.acme.admin });
    expectError(res, 409, 'CONFLICT');
    expect(await heldBy(user.id)).toHaveLength(10);
    // Re-assigning a role already held is still fine at the cap.
    expect(
      (await api('PUT', `/api/v1/roles/${roles[0]}/users/${user.id}`, { auth: world.acme.admin })).status,
    ).toBe(200);
  });
});

describe('who may manage roles', () => {
  it('is the built-in admin or an unscoped API key: members, UsersManage holders and scoped keys get 403', async () => {
    const roleId = await newRole(world.acme, []);
    const usersManager = await userWithRole(world.acme, [globalPolicy('All')]);
    const calls: [string, string, unknown?][] = [
      ['GET', '/api/v1/roles'],
      ['POST', '/api/v1/roles', { name: 'by someone', policies: [] }],
      ['GET', `/api/v1/roles/${roleId}`],
      ['PUT', `/api/v1/roles/${roleId}`, { name: 'renamed' }],
      ['DELETE', `/api/v1/roles/${roleId}`],
      ['PUT', `/api/v1/roles/${roleId}/users/${world.acme.memberUserId}`],
      ['DELETE', `/api/v1/roles/${roleId}/users/${world.acme.memberUserId}`],
    ];
    for (const [method, path, body] of calls) {
      expectError(await api(method, path, { auth: world.acme.member, body }), 403, 'FORBIDDEN');
      expectError(await api(method, path, { auth: usersManager.auth, body }), 403, 'FORBIDDEN');
      expectError(await api(method, path, { auth: world.acme.scopedKey, body }), 403, 'KEY_SCOPE');
      expectError(await api(method, path, { body }), 401, 'UNAUTHORIZED');
    }
    expect((await storedRole(roleId))?.name).not.toBe('renamed');
    expect((await api('GET', `/api/v1/roles/${roleId}`, { auth: world.acme.key })).status).toBe(200);
    expect(
      (await api('PUT', `/api/v1/roles/${roleId}/users/${world.acme.memberUserId}`, { auth: world.acme.key }))
        .status,
    ).toBe(200);
    expect(await heldBy(world.acme.memberUserId)).toEqual([roleId]);
    await api('DELETE', `/api/v1/roles/${roleId}/users/${world.acme.memberUserId}`, { auth: world.acme.key });
  });
});
