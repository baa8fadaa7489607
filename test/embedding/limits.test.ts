import { describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/db';
import { writeMintState } from '../../src/embedding/generate-session.repository';
import { expectError, OPERATOR, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { platform } from '../helpers/platform';
import { dbOf } from '../helpers/shards';
import { embedState, mint, mintOk, rows } from './fixtures';

async function withLimit(limit: number) {
  const account = await seedAccount({ useCreatorMode: true });
  const res = await api('PATCH', `/admin/v1/accounts/${account.accountId}`, {
    auth: OPERATOR,
    body: { externalUserLimit: limit },
  });
  expect(res.body.externalUserLimit).toBe(limit);
  return account;
}

const count = async (accountId: number) =>
  (await rows<{ n: number }>('SELECT count(*) AS n FROM embed_users WHERE account_id = ?', accountId))[0]?.n;

describe('externalUserLimit', () => {
  it('refuses a new external user past the limit (429); returning and internal users still mint', async () => {
    const acme = await withLimit(2);
    const dep = acme.deployments[0];
    await mintOk(acme.key, { deploymentId: dep, externalId: 'one' });
    await mintOk(acme.key, { deploymentId: dep, externalId: 'two', embedTenantName: 'tenant-two' });
    const before = await embedState(acme.accountId);
    const refused = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'three',
      embedTenantName: 'tenant-three',
      userProfile: { displayName: 'Three' },
    });
    expectError(refused, 429, 'QUOTA_EXCEEDED');
    expect(await embedState(acme.accountId)).toEqual(before);
    // The limit counts users, so a returning one (even in another tenant) is fine.
    await mintOk(acme.key, { deploymentId: dep, externalId: 'one', userProfile: { displayName: 'One' } });
    await mintOk(acme.key, { deploymentId: dep, externalId: 'two', embedTenantName: 'tenant-two' });
    await mintOk(acme.key, { deploymentId: dep, internalId: 'admin' });
    expect(await count(acme.accountId)).toBe(2);
    // The same externalId in another tenant is another external user.
    expectError(
      await mint(acme.key, { deploymentId: dep, externalId: 'one', embedTenantName: 'tenant-two' }),
      429,
    );
    // Raising the limit lets the next one in.
    await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { externalUserLimit: 3 },
    });
    await mintOk(acme.key, { deploymentId: dep, externalId: 'three', embedTenantName: 'tenant-three' });
    expect(await count(acme.accountId)).toBe(3);
  });

  it('holds when two new users are minted at the same time at the limit', async () => {
    const acme = await withLimit(1);
    const dep = acme.deployments[0];
    const results = await Promise.all(
      ['racer-a', 'racer-b', 'racer-c'].map((externalId) =>
        mint(acme.key, { deploymentId: dep, externalId }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429, 429]);
    expect(await count(acme.accountId)).toBe(1);
  });

  it('two concurrent mints of the same new user at the limit both succeed as one user', async () => {
    const acme = await withLimit(1);
    const dep = acme.deployments[0];
    const results = await Promise.all([
      mint(acme.key, { deploymentId: dep, externalId: 'twin', userProfile: { displayName: 'A' } }),
      mint(acme.key, { deploymentId: dep, externalId: 'twin', userProfile: { displayName: 'A' } }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(await count(acme.accountId)).toBe(1);
  });

  it('the write batch guards the limit itself: a stale read cannot push past it', async () => {
    const acme = await withLimit(1);
    await mintOk(acme.key, { deploymentId: acme.deployments[0], externalId: 'first' });
    const before = await embedState(acme.accountId);
    // As if the read had happened before `first` landed: the plan thinks a new user still fits.
    const outcome = await writeMintState(
      createDb(dbOf(acme.accountId)),
      {
        accountId: acme.accountId,
        tenantName: 'tenant-late',
        creatorMode: false,
        createTenant: true,
        groupDefinitions: [],
        attributeDefinitions: [],
        definitionTypes: [],
        user: { externalId: 'late', isNew: true, set: { displayName: 'Late' }, values: [], clear: [] },
      },
      new Date(),
    );
    expect(outcome).toEqual({ ok: false, reason: 'quota_exceeded' });
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it('the write batch guards the type itself: a concurrent definition cannot be retyped', async () => {
    const acme = await withLimit(10);
    await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId: 'def',
      creatorMode: true,
      embedTenantName: 'tenant-types',
      userAttributeDefinitions: [{ name: 'score', type: 'number' }],
    });
    const before = await embedState(acme.accountId);
    const outcome = await writeMintState(
      createDb(dbOf(acme.accountId)),
      {
        accountId: acme.accountId,
        tenantName: 'tenant-types',
        creatorMode: true,
        createTenant: false,
        groupDefinitions: [{ name: 'new-group', description: '' }],
        attributeDefinitions: [{ name: 'score', type: 'string', description: 'changed' }],
        definitionTypes: [{ name: 'score', type: 'string' }],
        user: { externalId: 'def', isNew: false, set: { displayName: 'X' }, values: [], clear: [] },
      },
      new Date(),
    );
    expect(outcome).toEqual({ ok: false, reason: 'type_conflict' });
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it('concurrent definitions of one name with two types: one wins, the other is a 409', async () => {
    const acme = await withLimit(10);
    const body = (externalId: string, type: string) => ({
      deploymentId: acme.deployments[0],
      externalId,
      creatorMode: true,
      embedTenantName: 'tenant-race',
      userAttributeDefinitions: [{ name: 'contested', type }],
    });
    const results = await Promise.all([
      mint(acme.key, body('r1', 'string')),
      mint(acme.key, body('r2', 'number')),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const loser = results.find((r) => r.status === 409);
    expect(loser?.body.error).toBe('cannot change type');
    const stored = await rows<{ type: string }>(
      "SELECT type FROM embed_attributes WHERE account_id = ? AND name = 'contested'",
      acme.accountId,
    );
    expect(stored).toHaveLength(1);
  });
});

describe('per-key rate limit (SESSION_RATE_LIMITER)', () => {
  it("spreads a key over ceil(sessionRateLimit / 60) sub-keys once the account's limit is known", async () => {
    const acme = await seedAccount();
    const patched = await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { sessionRateLimit: 120 },
    });
    expect(patched.body.sessionRateLimit).toBe(120);
    const keysSeen: string[] = [];
    platform.sessionRateLimiter = {
      async limit({ key }) {
        keysSeen.push(key);
        return { success: true };
      },
    };
    for (let i = 0; i < 30; i++)
      await mintOk(acme.key, { deploymentId: acme.deployments[0], externalId: 'spread' });
    // After the first mint taught the isolate the account's limit: sub-keys 0 and 1 only.
    const subKeys = new Set(keysSeen.slice(1).map((k) => k.split(':')[1]));
    expect([...subKeys].every((i) => i === '0' || i === '1')).toBe(true);
    // An account over its limit: the binding refuses, 429 with Retry-After.
    platform.sessionRateLimiter = { limit: async () => ({ success: false }) };
    const refused = await mint(acme.key, { deploymentId: acme.deployments[0], externalId: 'spread' });
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('10');
  });

  it('answers 429 RATE_LIMITED when the binding refuses, per key', async () => {
    const acme = await seedAccount();
    const keysSeen: string[] = [];
    platform.sessionRateLimiter = {
      async limit({ key }) {
        keysSeen.push(key);
        return { success: keysSeen.length <= 1 };
      },
    };
    await mintOk(acme.key, { deploymentId: acme.deployments[0], externalId: 'rl' });
    const refused = await mint(acme.key, { deploymentId: acme.deployments[0], externalId: 'rl' });
    expectError(refused, 429, 'RATE_LIMITED');
    // Buckets of one key: the key's hash (never the key itself) and a sub-key (the account's
    // sessionRateLimit is spread over ceil(limit / 60) sub-keys).
    expect(keysSeen).toHaveLength(2);
    expect(keysSeen[0]?.split(':')[0]).toBe(keysSeen[1]?.split(':')[0]);
    expect(keysSeen[0]).toMatch(/^[0-9a-f]{64}:\d+$/);
    expect(keysSeen[0]).not.toContain(acme.key.apiKey);
    // A refused request reads nothing from D1.
    expect(Number(refused.headers.get('x-d1-round-trips'))).toBe(0);
  });
});
