import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { claimsOf, embedState, kvPayload, mint, mintOk, rows } from './fixtures';

let acme: SeededAccount;
let other: SeededAccount;
let dep: number;

beforeAll(async () => {
  acme = await seedAccount({ useCreatorMode: true, embedSessionTtlSeconds: 3600 });
  other = await seedAccount();
  dep = acme.deployments[0];
});

describe('generate-session: credentials, plan, scope', () => {
  it('answers {sessionId, expiresAt}: a signed token and its KV payload', async () => {
    platform.clock = clockAt('2026-11-22T16:00:00.000Z');
    const res = await mint(acme.key, { deploymentId: dep, externalId: 'first-user' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'sessionId']);
    expect(res.body.expiresAt).toBe('2026-11-22T17:00:00.000Z');
    expect(res.body.sessionId).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const header = JSON.parse(atob(res.body.sessionId.split('.')[0]));
    expect(header).toEqual({ alg: 'HS256', kid: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const [user] = await rows<{ id: number; tenant_id: number }>(
      "SELECT id, tenant_id FROM embed_users WHERE account_id = ? AND external_id = 'first-user'",
      acme.accountId,
    );
    const claims = claimsOf(res.body.sessionId);
    expect(claims).toEqual({
      jti: expect.any(String),
      sub: `e:${user?.id}`,
      acc: acme.accountId,
      dep,
      tid: user?.tenant_id,
      ten: 'default',
      cm: false,
      set: {},
      iat: Date.parse('2026-11-22T16:00:00.000Z') / 1000,
      exp: Date.parse('2026-11-22T17:00:00.000Z') / 1000,
    });
    const payload = await kvPayload(res.body.sessionId);
    expect(payload).toMatchObject({
      v: 1,
      sessionId: claims.jti,
      accountId: acme.accountId,
      deploymentId: dep,
      tenant: { id: user?.tenant_id, name: 'default' },
      creatorMode: false,
      expiresAt: '2026-11-22T17:00:00.000Z',
      user: {
        kind: 'external',
        id: user?.id,
        externalId: 'first-user',
        email: null,
        displayName: null,
        picture: null,
      },
      groups: [],
      attributes: {},
      securityContext: null,
    });
  });

  it('refuses missing, malformed, wrong-scheme and unknown credentials with 401', async () => {
    const body = { deploymentId: dep, externalId: 'x-user' };
    expectError(await mint(null, body), 401, 'UNAUTHORIZED');
    expectError(await mint({ raw: 'Api-Key' }, body), 401, 'UNAUTHORIZED');
    expectError(await mint(acme.admin, body), 401, 'UNAUTHORIZED');
    expectError(await mint({ raw: `Basic ${acme.key.apiKey}` }, body), 401, 'UNAUTHORIZED');
    expectError(await mint({ apiKey: 'eb_ak_not-a-real-key' }, body), 401, 'UNAUTHORIZED');
    const users = await rows("SELECT id FROM embed_users WHERE external_id = 'x-user'");
    expect(users).toEqual([]);
  });

  it('stops working at once for a deleted key', async () => {
    const created = await api('POST', '/api/v1/api-keys', { auth: acme.admin, body: { name: 'temp' } });
    const key = { apiKey: created.body.key };
    await mintOk(key, { deploymentId: dep, externalId: 'temp-user' });
    await api('DELETE', `/api/v1/api-keys/${created.body.id}`, { auth: acme.admin });
    expectError(await mint(key, { deploymentId: dep, externalId: 'temp-user' }), 401, 'UNAUTHORIZED');
  });

  it('needs the premium or enterprise plan (403)', async () => {
    for (const plan of ['free', 'starter']) {
      const account = await seedAccount({ plan });
      expectError(
        await mint(account.key, { deploymentId: account.deployments[0], externalId: 'p' }),
        403,
        'PLAN_NOT_ALLOWED',
      );
    }
    const premium = await seedAccount({ plan: 'premium' });
    await mintOk(premium.key, { deploymentId: premium.deployments[0], externalId: 'p' });
  });

  it('holds a scoped key to its deployments; an unscoped key mints for any', async () => {
    await mintOk(acme.scopedKey, { deploymentId: acme.deployments[0], externalId: 'scoped-in' });
    expectError(
      await mint(acme.scopedKey, { deploymentId: acme.deployments[1], externalId: 'scoped-out' }),
      403,
      'KEY_SCOPE',
    );
    expect(await rows("SELECT id FROM embed_users WHERE external_id = 'scoped-out'")).toEqual([]);
    await mintOk(acme.key, { deploymentId: acme.deployments[1], externalId: 'scoped-out' });
  });

  it("answers 404 for another account's or an unknown deployment", async () => {
    expectError(
      await mint(acme.key, { deploymentId: other.deployments[0], externalId: 'z' }),
      404,
      'NOT_FOUND',
    );
    expectError(await mint(acme.key, { deploymentId: 999999, externalId: 'z' }), 404, 'NOT_FOUND');
  });
});

describe('generate-session: request rules (400)', () => {
  const bad = async (body: Record<string, unknown>, path: string, code = 'VALIDATION_FAILED') => {
    const res = await mint(acme.key, { deploymentId: dep, ...body });
    expectError(res, 400, code);
    expect(res.body.details?.map((d: { path: string }) => d.path)).toContain(path);
    return res;
  };

  it('takes exactly one of externalId and internalId', async () => {
    await bad({}, 'externalId');
    await bad({ externalId: 'a', internalId: 'admin' }, 'internalId');
  });

  it('wants externalId lowercase and trimmed, never rewritten', async () => {
    await bad({ externalId: 'Alice' }, 'externalId');
    await bad({ externalId: ' alice' }, 'externalId');
    await bad({ externalId: 'alice ' }, 'externalId');
    await bad({ externalId: '' }, 'externalId');
    expect(await rows("SELECT id FROM embed_users WHERE lower(external_id) = 'alice'")).toEqual([]);
  });

  it('rejects the fields internalId forbids, and email without externalId', async () => {
    for (const [field, value] of Object.entries({
      email: 'a@example.com',
      userProfile: { displayName: 'A' },
      groups: [],
      userAttributes: [],
      groupDefinitions: [],
      userAttributeDefinitions: [],
      securityContext: {},
    })) {
      await bad({ internalId: 'admin', [field]: value }, field);
    }
  });

  it('answers 400 for an internalId that names no user of the account', async () => {
    const res = await bad({ internalId: 'nobody' }, 'internalId', 'BAD_REQUEST');
    expect(res.body.error).toMatch(/internalId/);
    await bad({ internalId: `member${other.memberUserId}` }, 'internalId', 'BAD_REQUEST');
  });

  it('validates userProfile: http(s) picture only, known fields only', async () => {
    await bad(
      { externalId: 'pic', userProfile: { picture: 'ftp://example.com/a.png' } },
      'userProfile.picture',
    );
    await bad({ externalId: 'pic', userProfile: { picture: 'not a url' } }, 'userProfile.picture');
    await bad({ externalId: 'pic', userProfile: { picture: 'javascript:alert(1)' } }, 'userProfile.picture');
    await bad({ externalId: 'pic', userProfile: { avatar: 'x' } }, 'userProfile.avatar');
    await bad({ externalId: 'pic', email: 'not-an-email' }, 'email');
  });

  it('validates embedTenantName', async () => {
    for (const name of [
      'abcd',
      'a'.repeat(37),
      'Tenant-one',
      '1tenant',
      'tenant-',
      'ten_ant',
      'tenant one',
    ]) {
      await bad({ externalId: 'tn', embedTenantName: name }, 'embedTenantName');
    }
    for (const name of ['abcde', `a${'b'.repeat(35)}`, 'tenant-9', 'a1-2-3']) {
      await mintOk(acme.key, { deploymentId: dep, externalId: 'tn', embedTenantName: name });
    }
  });

  it('needs creatorMode true and an embedTenantName for definitions', async () => {
    await bad(
      { externalId: 'd', embedTenantName: 'tenant-d', groupDefinitions: [{ name: 'g' }] },
      'groupDefinitions',
    );
    await bad(
      { externalId: 'd', creatorMode: true, userAttributeDefinitions: [{ name: 'a', type: 'string' }] },
      'userAttributeDefinitions',
    );
  });

  it('rejects duplicate names in userAttributes and in both definition lists', async () => {
    await bad(
      {
        externalId: 'dup',
        userAttributes: [
          { name: 'x', value: 1 },
          { name: 'x', value: 2 },
        ],
      },
      'userAttributes.1.name',
    );
    const tenant = { creatorMode: true, embedTenantName: 'tenant-dup' };
    await bad(
      { externalId: 'dup', ...tenant, groupDefinitions: [{ name: 'g' }, { name: 'g' }] },
      'groupDefinitions.1.name',
    );
    await bad(
      {
        externalId: 'dup',
        ...tenant,
        userAttributeDefinitions: [
          { name: 'a', type: 'string' },
          { name: 'a', type: 'number' },
        ],
      },
      'userAttributeDefinitions.1.name',
    );
  });

  it('rejects unknown fields, wrong types and settings outside the tri-state', async () => {
    await bad({ externalId: 'u', surprise: 1 }, 'surprise');
    await bad({ externalId: 'u', settings: { showDashboardChat: 'yes' } }, 'settings.showDashboardChat');
    await bad({ externalId: 'u', settings: { theme: 'dark' } }, 'settings.theme');
    await bad({ externalId: 'u', securityContext: [1, 2] }, 'securityContext');
    await bad({ externalId: 'u', creatorMode: 'true' }, 'creatorMode');
    await bad(
      { externalId: 'u', userAttributes: [{ name: 'n', value: { nested: true } }] },
      'userAttributes.0.value',
    );
    await bad(
      { externalId: 'u', userAttributes: [{ name: 'n', value: ['a', 1] }] },
      'userAttributes.0.value',
    );
    const res = await mint(acme.key, { externalId: 'u' });
    expectError(res, 400, 'VALIDATION_FAILED');
    const notJson = await api('POST', '/api/v1/embed/generate-session', {
      auth: acme.key,
      rawBody: 'deploymentId=1',
      headers: { 'content-type': 'text/plain' },
    });
    expectError(notJson, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('leaves no trace of a refused request', async () => {
    const before = await embedState(acme.accountId);
    await bad({ externalId: 'Trace', embedTenantName: 'tenant-trace' }, 'externalId');
    await mint(acme.key, {
      deploymentId: dep,
      externalId: 'trace',
      embedTenantName: 'tenant-trace',
      groups: ['nope'],
    });
    expect(await embedState(acme.accountId)).toEqual(before);
  });
});

describe('generate-session: creatorMode and the account flag', () => {
  it("needs the account's useCreatorMode (403) and leaves nothing behind", async () => {
    const plain = await seedAccount({ useCreatorMode: false });
    const before = await embedState(plain.accountId);
    expectError(
      await mint(plain.key, {
        deploymentId: plain.deployments[0],
        externalId: 'creator',
        creatorMode: true,
        embedTenantName: 'tenant-c',
        groupDefinitions: [{ name: 'g' }],
      }),
      403,
      'FORBIDDEN',
    );
    expect(await embedState(plain.accountId)).toEqual(before);
    // Turning the flag on lets the same request through.
    await api('PATCH', `/admin/v1/accounts/${plain.accountId}`, {
      auth: OPERATOR,
      body: { useCreatorMode: true },
    });
    const sid = await mintOk(plain.key, {
      deploymentId: plain.deployments[0],
      externalId: 'creator',
      creatorMode: true,
      embedTenantName: 'tenant-c',
    });
    expect(claimsOf(sid).cm).toBe(true);
  });

  it('mints for an internal user with that user as the viewer and creates the tenant', async () => {
    const sid = await mintOk(acme.key, {
      deploymentId: dep,
      internalId: 'admin',
      embedTenantName: 'internal-t',
    });
    const claims = claimsOf(sid);
    expect(claims.sub).toBe(`i:${acme.adminUserId}`);
    expect(claims.ten).toBe('internal-t');
    const payload = await kvPayload(sid);
    expect(payload.user).toMatchObject({ kind: 'internal', id: acme.adminUserId, username: 'admin' });
    expect(payload.groups).toEqual([]);
    expect(payload.securityContext).toBeNull();
    // Internal users are not external users: nothing in embed_users.
    expect(await rows("SELECT id FROM embed_users WHERE external_id = 'admin'")).toEqual([]);
  });
});
