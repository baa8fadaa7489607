import { describe, expect, it } from 'vitest';
import { QUOTA_RETRY_AFTER_SECONDS } from '../../src/core/errors';
import { RATE_LIMIT_RETRY_AFTER_SECONDS } from '../../src/embedding/generate-session.service';
import { expectError, OPERATOR, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { platform } from '../helpers/platform';
import { embedState, kvPayload, mint, mintOk, rows } from './fixtures';

const counterOf = async (accountId: number) =>
  (await rows<{ n: number }>('SELECT external_user_count AS n FROM accounts WHERE id = ?', accountId))[0]?.n;

const usersOf = async (accountId: number) =>
  (await rows<{ n: number }>('SELECT count(*) AS n FROM embed_users WHERE account_id = ?', accountId))[0]?.n;

/** `{"a":{"a":…{}…}}` nested `levels` deep, as JSON text. */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;

describe('the external-user quota is a counter', () => {
  it('counts new external users as they are created, and not returning or internal ones', async () => {
    const acme = await seedAccount();
    const dep = acme.deployments[0];
    expect(await counterOf(acme.accountId)).toBe(0);
    await mintOk(acme.key, { deploymentId: dep, externalId: 'one' });
    await mintOk(acme.key, { deploymentId: dep, externalId: 'two', embedTenantName: 'tenant-two' });
    await mintOk(acme.key, { deploymentId: dep, externalId: 'one', userProfile: { displayName: 'One' } });
    await mintOk(acme.key, { deploymentId: dep, internalId: 'admin' });
    expect(await counterOf(acme.accountId)).toBe(2);
    expect(await usersOf(acme.accountId)).toBe(2);
  });

  it('the guard reads the counter, not the rows: a full counter refuses a new user and writes nothing', async () => {
    const acme = await seedAccount();
    const dep = acme.deployments[0];
    await mintOk(acme.key, { deploymentId: dep, externalId: 'kept' });
    // As if the account held 10,000 users (its default limit) without seeding them.
    await rows('UPDATE accounts SET external_user_count = external_user_limit WHERE id = ?', acme.accountId);
    const before = await embedState(acme.accountId);
    const refused = await mint(acme.key, { deploymentId: dep, externalId: 'newcomer' });
    expectError(refused, 429, 'QUOTA_EXCEEDED');
    expect(refused.headers.get('retry-after')).toBe(String(QUOTA_RETRY_AFTER_SECONDS));
    expect(await embedState(acme.accountId)).toEqual(before);
    // A returning user is not new, so the full quota does not stop them.
    await mintOk(acme.key, { deploymentId: dep, externalId: 'kept', userProfile: { displayName: 'Kept' } });
  });

  it('a deleted external user frees its place (the counter follows deletes, cascades included)', async () => {
    const acme = await seedAccount();
    const dep = acme.deployments[0];
    await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { externalUserLimit: 1 },
    });
    await mintOk(acme.key, { deploymentId: dep, externalId: 'first' });
    expectError(await mint(acme.key, { deploymentId: dep, externalId: 'second' }), 429, 'QUOTA_EXCEEDED');
    await rows('DELETE FROM embed_tenants WHERE account_id = ?', acme.accountId);
    expect(await counterOf(acme.accountId)).toBe(0);
    await mintOk(acme.key, { deploymentId: dep, externalId: 'second' });
    expect(await counterOf(acme.accountId)).toBe(1);
  });
});

describe('bounded mint inputs', () => {
  it('refuses a 600 KB securityContext nested 100,000 levels (400) and writes nothing', async () => {
    const acme = await seedAccount();
    const before = await embedState(acme.accountId);
    const body = `{"deploymentId":${acme.deployments[0]},"externalId":"deep","securityContext":${nested(100_000)}}`;
    expect(body.length).toBeGreaterThan(600_000);
    const res = await api('POST', '/api/v1/embed/generate-session', {
      auth: acme.key,
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 400);
    expect(await embedState(acme.accountId)).toEqual(before);
    expect(await counterOf(acme.accountId)).toBe(0);
  });

  it('takes a securityContext of 8 levels, refuses 9 levels or more than 16 KiB, naming the field', async () => {
    const acme = await seedAccount();
    const dep = acme.deployments[0];
    const ok = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'ctx',
      securityContext: JSON.parse(nested(8)),
    });
    expect((await kvPayload(ok)).securityContext).toEqual(JSON.parse(nested(8)));
    const before = await embedState(acme.accountId);
    const tooDeep = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'ctx',
      securityContext: JSON.parse(nested(9)),
    });
    expectError(tooDeep, 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(tooDeep.body)).toContain('securityContext');
    const tooBig = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'ctx',
      securityContext: { blob: 'x'.repeat(16 * 1024) },
    });
    expectError(tooBig, 400, 'VALIDATION_FAILED');
    expect(JSON.stringify(tooBig.body)).toContain('securityContext');
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it('bounds attribute values, their list and defaultValue', async () => {
    const acme = await seedAccount({ useCreatorMode: true });
    const dep = acme.deployments[0];
    const before = await embedState(acme.accountId);
    const cases: Record<string, unknown>[] = [
      { userAttributes: [{ name: 'region', value: 'x'.repeat(1025) }] },
      { userAttributes: [{ name: 'region', value: Array.from({ length: 101 }, () => 'eu') }] },
      {
        // 100 values of 1,000 characters: each within bounds, together past 64 KiB.
        userAttributes: Array.from({ length: 100 }, (_, i) => ({ name: `a${i}`, value: 'x'.repeat(1000) })),
      },
      {
        creatorMode: true,
        embedTenantName: 'tenant-big',
        userAttributeDefinitions: [{ name: 'big', type: 'string', defaultValue: 'x'.repeat(1025) }],
      },
    ];
    for (const extra of cases) {
      const res = await mint(acme.key, { deploymentId: dep, externalId: 'bounded', ...extra });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
    const created = await api('POST', '/api/v1/user-attributes', {
      auth: acme.admin,
      body: { name: 'big', type: 'string', defaultValue: 'x'.repeat(1025) },
    });
    expectError(created, 400, 'VALIDATION_FAILED');
    expect(await embedState(acme.accountId)).toEqual(before);
  });
});

describe('deployment-scoped keys and the account-wide catalogue', () => {
  it('get 403 KEY_SCOPE on every write and change nothing; reads and tenant catalogues stay open', async () => {
    const acme = await seedAccount();
    const group = await api('POST', '/api/v1/groups', { auth: acme.key, body: { name: 'Finance' } });
    expect(group.status).toBe(200);
    const attribute = await api('POST', '/api/v1/user-attributes', {
      auth: acme.key,
      body: { name: 'region', type: 'string' },
    });
    expect(attribute.status).toBe(200);
    const before = await embedState(acme.accountId);

    const writes: [string, string, unknown?][] = [
      ['POST', '/api/v1/groups', { name: 'Sneaky' }],
      ['PATCH', `/api/v1/groups/${group.body.id}`, { name: 'Renamed' }],
      ['DELETE', `/api/v1/groups/${group.body.id}`],
      ['POST', '/api/v1/user-attributes', { name: 'sneaky', type: 'string' }],
      ['DELETE', `/api/v1/user-attributes/${attribute.body.id}`],
    ];
    for (const [method, path, body] of writes) {
      expectError(await api(method, path, { auth: acme.scopedKey, body }), 403, 'KEY_SCOPE');
    }
    expect(await embedState(acme.accountId)).toEqual(before);

    expect((await api('GET', '/api/v1/groups', { auth: acme.scopedKey })).status).toBe(200);
    expect((await api('GET', '/api/v1/user-attributes', { auth: acme.scopedKey })).status).toBe(200);
    const tenantGroup = await api('POST', '/api/v1/embed-tenants/tenant-scoped/groups', {
      auth: acme.scopedKey,
      body: { name: 'Local' },
    });
    expect(tenantGroup.status).toBe(200);
    // The admin and the account-wide key still write.
    const renamed = await api('PATCH', `/api/v1/groups/${group.body.id}`, {
      auth: acme.admin,
      body: { name: 'Finance EU' },
    });
    expect(renamed.body.name).toBe('Finance EU');
  });
});

describe('Retry-After on every 429', () => {
  it('the per-key rate limit says when to come back', async () => {
    const acme = await seedAccount();
    platform.sessionRateLimiter = { limit: async () => ({ success: false }) };
    const refused = await mint(acme.key, { deploymentId: acme.deployments[0], externalId: 'later' });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe(String(RATE_LIMIT_RETRY_AFTER_SECONDS));
    expect(await usersOf(acme.accountId)).toBe(0);
  });
});

/** Fills a catalogue with `n` attributes straight in D1 (seeding, not the path under test). */
async function seedAttributes(accountId: number, tenantId: number | null, n: number) {
  await rows(
    `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)
     INSERT INTO embed_attributes (account_id, tenant_id, name, type, created_at, updated_at)
     SELECT ?, ?, 'seeded-' || i, 'string', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM k`,
    n,
    accountId,
    tenantId,
  );
}

describe('attributes per catalogue (and so per session) are capped at 200', () => {
  it('an account-wide catalogue at 200 refuses another definition (409) and stores nothing', async () => {
    const acme = await seedAccount();
    await seedAttributes(acme.accountId, null, 199);
    const last = await api('POST', '/api/v1/user-attributes', {
      auth: acme.key,
      body: { name: 'two-hundredth', type: 'string' },
    });
    expect(last.status, JSON.stringify(last.body)).toBe(200);
    const before = await embedState(acme.accountId);
    const refused = await api('POST', '/api/v1/user-attributes', {
      auth: acme.key,
      body: { name: 'one-too-many', type: 'string' },
    });
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body.error).toContain('200');
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it("a tenant's catalogue refuses definitions past 200 inside the mint batch, writing nothing", async () => {
    const acme = await seedAccount({ useCreatorMode: true });
    const dep = acme.deployments[0];
    const base = {
      deploymentId: dep,
      externalId: 'creator',
      creatorMode: true,
      embedTenantName: 'tenant-cap',
    };
    await mintOk(acme.key, base);
    const [tenant] = await rows<{ id: number }>(
      "SELECT id FROM embed_tenants WHERE account_id = ? AND name = 'tenant-cap'",
      acme.accountId,
    );
    await seedAttributes(acme.accountId, tenant?.id as number, 199);
    const before = await embedState(acme.accountId);
    const refused = await mint(acme.key, {
      ...base,
      userAttributeDefinitions: [
        { name: 'new-a', type: 'string' },
        { name: 'new-b', type: 'string' },
      ],
      userAttributes: [{ name: 'new-a', value: 'x' }],
    });
    expectError(refused, 409, 'CONFLICT');
    expect(await embedState(acme.accountId)).toEqual(before);
    // Redefining a stored one adds nothing, and one new definition still fits.
    await mintOk(acme.key, {
      ...base,
      userAttributeDefinitions: [
        { name: 'seeded-1', type: 'string', displayName: 'Seeded' },
        { name: 'new-a', type: 'string' },
      ],
    });
    const [held] = await rows<{ n: number }>(
      'SELECT count(*) AS n FROM embed_attributes WHERE tenant_id = ?',
      tenant?.id,
    );
    expect(held?.n).toBe(200);
  });
});
