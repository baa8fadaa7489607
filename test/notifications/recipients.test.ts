import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf, shardCount, shardRows } from '../helpers/shards';
import { seedDashboard } from './fixtures';

let world: World;
let memberEmail: string;

beforeAll(async () => {
  world = await seedWorld();
  const users = await api('GET', '/api/v1/users', { auth: world.acme.admin });
  memberEmail = users.body.items.find((u: { id: number }) => u.id === world.acme.memberUserId).email;
});

async function notificationOf(account: SeededAccount) {
  const dashboard = await seedDashboard(account);
  const base = `/api/v1/deployments/${account.deployments[0]}/notifications`;
  const res = await api('POST', base, {
    auth: account.admin,
    body: { dashboardId: dashboard.id, scheduleType: 'DAILY', hour: 8, minute: 0 },
  });
  expect(res.status).toBe(200);
  return `${base}/${res.body.id}`;
}

async function count(sql: string, ...params: unknown[]): Promise<number> {
  return shardCount(sql, ...params);
}

describe('POST …/notifications/{id}/recipients', () => {
  it('adds users, addresses, embed users and channels, then sorts repeats and changes', async () => {
    const url = await notificationOf(world.acme);
    const recipients = [
      { userId: world.acme.adminUserId },
      { email: 'Outside@Example.com', type: 'USER' },
      { email: memberEmail },
      {
        type: 'EMBED_USER',
        externalId: 'cust-42',
        embedTenantName: 'northwind',
        email: 'buyer@northwind.test',
        groups: ['sales', 'emea'],
        userAttributes: [{ name: 'region', value: 'EU' }],
        securityContext: { tenant: 42 },
      },
      { channelId: 'C0123', channelName: '#sales', type: 'SLACK' },
    ];
    const res = await api('POST', `${url}/recipients`, { auth: world.acme.admin, body: { recipients } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.updatedRecipients).toEqual([]);
    expect(res.body.unchangedRecipients).toEqual([]);
    const created = res.body.createdRecipients;
    expect(created).toHaveLength(5);
    expect(created[0]).toMatchObject({
      type: 'USER',
      userId: world.acme.adminUserId,
      username: expect.any(String),
    });
    expect(created[1]).toMatchObject({ type: 'USER', userId: null, email: 'outside@example.com' });
    expect(created[2]).toMatchObject({ type: 'USER', userId: world.acme.memberUserId, email: memberEmail });
    expect(created[3]).toMatchObject({
      type: 'EMBED_USER',
      externalId: 'cust-42',
      embedTenantName: 'northwind',
      embedUserId: expect.any(Number),
      email: 'buyer@northwind.test',
      groups: ['emea', 'sales'],
      userAttributes: [{ name: 'region', value: 'EU' }],
      securityContext: { tenant: 42 },
    });
    expect(created[4]).toMatchObject({ type: 'SLACK', channelId: 'C0123', channelName: '#sales' });
    // The embed tenant and its external user were created with the recipient.
    expect(
      await count(
        `SELECT count(*) AS n FROM embed_users u JOIN embed_tenants t ON t.id = u.tenant_id
         WHERE t.account_id = ? AND t.name = 'northwind' AND u.external_id = 'cust-42'`,
        world.acme.accountId,
      ),
    ).toBe(1);

    // Repeating the request changes nothing.
    const before = {
      results: await shardRows('SELECT id, updated_at FROM notification_recipients ORDER BY id'),
    };
    const again = await api('POST', `${url}/recipients`, { auth: world.acme.admin, body: { recipients } });
    expect(again.status).toBe(200);
    expect(again.body.createdRecipients).toEqual([]);
    expect(again.body.updatedRecipients).toEqual([]);
    expect(again.body.unchangedRecipients.map((r: { id: number }) => r.id)).toEqual(
      created.map((r: { id: number }) => r.id),
    );
    const after = {
      results: await shardRows('SELECT id, updated_at FROM notification_recipients ORDER BY id'),
    };
    expect(after.results).toEqual(before.results);

    // Changed groups and channel name are updates; omitted properties keep their values.
    const changed = await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: {
        recipients: [
          { externalId: 'cust-42', embedTenantName: 'northwind', groups: ['sales'] },
          { channelId: 'C0123', channelName: '#sales-emea' },
          { email: 'outside@example.com' },
          { email: 'new@example.com' },
        ],
      },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.updatedRecipients).toHaveLength(2);
    expect(changed.body.updatedRecipients[0]).toMatchObject({
      groups: ['sales'],
      userAttributes: [{ name: 'region', value: 'EU' }],
      securityContext: { tenant: 42 },
      email: 'buyer@northwind.test',
    });
    expect(changed.body.updatedRecipients[1]).toMatchObject({ channelName: '#sales-emea' });
    expect(changed.body.unchangedRecipients).toHaveLength(1);
    expect(changed.body.createdRecipients).toHaveLength(1);
  });

  it('refuses a recipient it cannot resolve, names it, and writes nothing', async () => {
    const url = await notificationOf(world.acme);
    const before = await count('SELECT count(*) AS n FROM notification_recipients');
    const res = await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: {
        recipients: [
          { email: 'fine@example.com' },
          { externalId: 'fresh-user', email: 'fresh@example.com' },
          { userId: world.other.adminUserId },
        ],
      },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details).toEqual([
      { path: 'recipients.2.userId', message: `User ${world.other.adminUserId} not found` },
    ]);
    expect(await count('SELECT count(*) AS n FROM notification_recipients')).toBe(before);
    expect(await count(`SELECT count(*) AS n FROM embed_users WHERE external_id = 'fresh-user'`)).toBe(0);
  });

  it.each([
    [{}, 'recipients.0'],
    [{ userId: 1, email: 'a@example.com' }, 'recipients.0'],
    [{ userId: 1, channelId: 'C1' }, 'recipients.0'],
    [{ email: 'a@example.com', type: 'SLACK' }, 'recipients.0.type'],
    [{ channelId: 'C1', type: 'USER' }, 'recipients.0.type'],
    [{ externalId: 'x-1', email: 'x@example.com', type: 'USER' }, 'recipients.0.type'],
    [{ email: 'a@example.com', groups: ['g'] }, 'recipients.0.groups'],
    [{ email: 'a@example.com', embedTenantName: 'northwind' }, 'recipients.0.embedTenantName'],
    [{ email: 'a@example.com', channelName: '#x' }, 'recipients.0.channelName'],
    [{ externalId: 'Upper', email: 'x@example.com' }, 'recipients.0.externalId'],
    [
      { externalId: 'x-2', embedTenantName: 'Bad Name', email: 'x@example.com' },
      'recipients.0.embedTenantName',
    ],
    [{ externalId: 'x-3' }, 'recipients.0.email'],
    [
      {
        externalId: 'x-4',
        email: 'x@example.com',
        userAttributes: [
          { name: 'a', value: '1' },
          { name: 'a', value: '2' },
        ],
      },
      'recipients.0.userAttributes',
    ],
    [{ email: 'not-an-address' }, 'recipients.0.email'],
    [{ userId: 1, surprise: true }, 'recipients.0.surprise'],
  ])('refuses %j naming %s', async (recipient, path) => {
    const url = await notificationOf(world.acme);
    const res = await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: { recipients: [recipient] },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('refuses the same recipient twice in one request', async () => {
    const url = await notificationOf(world.acme);
    const res = await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: { recipients: [{ userId: world.acme.memberUserId }, { email: memberEmail.toUpperCase() }] },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details).toEqual([
      { path: 'recipients.1', message: 'Names the same recipient as recipients.0' },
    ]);
  });

  it('takes 1 to 100 recipients per request, written in one request', async () => {
    const url = await notificationOf(world.acme);
    expectError(
      await api('POST', `${url}/recipients`, { auth: world.acme.admin, body: { recipients: [] } }),
      400,
    );
    const many = Array.from({ length: 101 }, (_, i) => ({ email: `r${i}@example.com` }));
    const tooMany = await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: { recipients: many },
    });
    expectError(tooMany, 400, 'VALIDATION_FAILED');
    expect(tooMany.body.details[0]).toMatchObject({
      path: 'recipients',
      message: 'At most 100 recipients per request',
    });
    const id = Number(url.split('/').pop());
    expect(
      await count('SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?', id),
    ).toBe(0);
    const ok = await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: { recipients: many.slice(0, 100) },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.createdRecipients).toHaveLength(100);
    expect(
      await count('SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?', id),
    ).toBe(100);
    const again = await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: { recipients: many.slice(0, 100) },
    });
    expect(again.body.unchangedRecipients).toHaveLength(100);
  });

  it('counts new embed recipients against the external-user limit (429, nothing written)', async () => {
    const small = await seedAccount({ externalUserLimit: 2 });
    const url = await notificationOf(small);
    const embed = (id: string) => ({ externalId: id, email: `${id}@example.com` });
    const first = await api('POST', `${url}/recipients`, {
      auth: small.admin,
      body: { recipients: [embed('e-1')] },
    });
    expect(first.status).toBe(200);
    const over = await api('POST', `${url}/recipients`, {
      auth: small.admin,
      body: { recipients: [embed('e-1'), embed('e-2'), embed('e-3')] },
    });
    expectError(over, 429, 'QUOTA_EXCEEDED');
    expect(await count('SELECT count(*) AS n FROM embed_users WHERE account_id = ?', small.accountId)).toBe(
      1,
    );
    const fits = await api('POST', `${url}/recipients`, {
      auth: small.admin,
      body: { recipients: [embed('e-1'), embed('e-2')] },
    });
    expect(fits.status).toBe(200);
    expect(fits.body.createdRecipients).toHaveLength(1);
    expect(fits.body.unchangedRecipients).toHaveLength(1);
  });

  it('reads the account’s external-user counter, not a count of its embed users', async () => {
    const small = await seedAccount({ externalUserLimit: 2 });
    const url = await notificationOf(small);
    const embed = (id: string) => ({ externalId: id, email: `${id}@example.com` });
    const two = await api('POST', `${url}/recipients`, {
      auth: small.admin,
      body: { recipients: [embed('c-1'), embed('c-2')] },
    });
    expect(two.status).toBe(200);
    // The counter (kept by triggers) decides: with it reset, a third user fits although two exist.
    await dbOf(small.accountId)
      .prepare('UPDATE accounts SET external_user_count = 0 WHERE id = ?')
      .bind(small.accountId)
      .run();
    const third = await api('POST', `${url}/recipients`, {
      auth: small.admin,
      body: { recipients: [embed('c-3')] },
    });
    expect(third.status, JSON.stringify(third.body)).toBe(200);
    expect(await count('SELECT external_user_count AS n FROM accounts WHERE id = ?', small.accountId)).toBe(
      1,
    );
  });

  it('guards the notification: another account 404, member 403, no credential 401', async () => {
    const url = await notificationOf(world.acme);
    const body = { recipients: [{ email: 'x@example.com' }] };
    expectError(await api('POST', `${url}/recipients`, { auth: world.other.admin, body }), 404, 'NOT_FOUND');
    expectError(await api('POST', `${url}/recipients`, { auth: world.acme.member, body }), 403);
    expectError(await api('POST', `${url}/recipients`, { body }), 401);
    // A valid API key is accepted on these routes (test/foundation/api-key-credentials.test.ts); an unknown one is a 401.
    expectError(await api('POST', `${url}/recipients`, { auth: { apiKey: 'eb_ak_unknown' }, body }), 401);
    const unknown = url.replace(/\/\d+$/, '/999999');
    expectError(await api('POST', `${unknown}/recipients`, { auth: world.acme.admin, body }), 404);
  });
});

describe('GET and DELETE …/recipients', () => {
  it('lists page by page and removes one', async () => {
    const url = await notificationOf(world.acme);
    await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: { recipients: [{ email: 'a@example.com' }, { email: 'b@example.com' }, { channelId: 'C9' }] },
    });
    const page1 = await api('GET', `${url}/recipients?first=2`, { auth: world.acme.admin });
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((r: { email: string }) => r.email)).toEqual([
      'a@example.com',
      'b@example.com',
    ]);
    expect(page1.body.pageInfo.hasNextPage).toBe(true);
    const page2 = await api('GET', `${url}/recipients?first=2&after=${page1.body.pageInfo.endCursor}`, {
      auth: world.acme.admin,
    });
    expect(page2.body.items).toHaveLength(1);
    expect(page2.body.items[0]).toMatchObject({ type: 'SLACK', channelId: 'C9', channelName: null });

    const id = page1.body.items[0].id;
    expectError(await api('DELETE', `${url}/recipients/${id}`, { auth: world.other.admin }), 404);
    expectError(await api('DELETE', `${url}/recipients/${id}`, { auth: world.acme.member }), 403);
    const res = await api('DELETE', `${url}/recipients/${id}`, { auth: world.acme.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, deleted: true });
    expect(await count('SELECT count(*) AS n FROM notification_recipients WHERE id = ?', id)).toBe(0);
    expectError(await api('DELETE', `${url}/recipients/${id}`, { auth: world.acme.admin }), 404);
    expectError(await api('GET', `${url}/recipients`, { auth: world.other.admin }), 404);
    expectError(await api('GET', `${url}/recipients?after=bad`, { auth: world.acme.admin }), 400);
  });
});
