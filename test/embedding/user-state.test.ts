import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { claimsOf, embedState, kvPayload, mint, mintOk, queries, roundTrips, rows } from './fixtures';

let acme: SeededAccount;
let dep: number;

beforeAll(async () => {
  acme = await seedAccount({ useCreatorMode: true });
  dep = acme.deployments[0];
  for (const name of ['sales', 'support', 'finance']) {
    expect((await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name } })).status).toBe(200);
  }
  for (const [name, type] of [
    ['region', 'string'],
    ['level', 'number'],
    ['teams', 'string_array'],
    ['codes', 'number_array'],
  ]) {
    const res = await api('POST', '/api/v1/user-attributes', { auth: acme.admin, body: { name, type } });
    expect(res.status).toBe(200);
  }
});

async function userRow(externalId: string, tenant = 'default') {
  const [row] = await rows<Record<string, any>>(
    `SELECT u.* FROM embed_users u JOIN embed_tenants t ON t.id = u.tenant_id
     WHERE u.account_id = ? AND t.name = ? AND u.external_id = ?`,
    acme.accountId,
    tenant,
    externalId,
  );
  return row;
}

async function groupsOf(externalId: string) {
  const user = await userRow(externalId);
  return (
    await rows<{ name: string }>(
      'SELECT g.name FROM embed_memberships m JOIN embed_groups g ON g.id = m.group_id WHERE m.user_id = ? ORDER BY g.name',
      user?.id,
    )
  ).map((r) => r.name);
}

async function valuesOf(externalId: string) {
  const user = await userRow(externalId);
  const list = await rows<{ name: string; value: string }>(
    'SELECT a.name, v.value FROM embed_attribute_values v JOIN embed_attributes a ON a.id = v.attribute_id WHERE v.user_id = ? ORDER BY a.name',
    user?.id,
  );
  return Object.fromEntries(list.map((r) => [r.name, JSON.parse(r.value)]));
}

describe('userProfile and email', () => {
  it('stores, overwrites and keeps the profile by the rules', async () => {
    await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'pat',
      email: 'pat@example.com',
      userProfile: { displayName: 'Pat Doe', picture: 'https://cdn.example.com/pat.png' },
    });
    expect(await userRow('pat')).toMatchObject({
      email: 'pat@example.com',
      display_name: 'Pat Doe',
      picture: 'https://cdn.example.com/pat.png',
    });
    // Omitting userProfile keeps everything.
    let sid = await mintOk(acme.key, { deploymentId: dep, externalId: 'pat' });
    expect((await kvPayload(sid)).user).toMatchObject({
      displayName: 'Pat Doe',
      picture: 'https://cdn.example.com/pat.png',
      email: 'pat@example.com',
    });
    // Omitting one property keeps it; sending the other overwrites it.
    sid = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'pat',
      userProfile: { displayName: 'Pat D.' },
    });
    expect(await userRow('pat')).toMatchObject({
      display_name: 'Pat D.',
      picture: 'https://cdn.example.com/pat.png',
    });
    expect((await kvPayload(sid)).user).toMatchObject({
      displayName: 'Pat D.',
      picture: 'https://cdn.example.com/pat.png',
    });
    sid = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'pat',
      email: 'pat@new.example.com',
      userProfile: { picture: 'http://cdn.example.com/pat.svg' },
    });
    expect(await userRow('pat')).toMatchObject({
      email: 'pat@new.example.com',
      display_name: 'Pat D.',
      picture: 'http://cdn.example.com/pat.svg',
    });
    // null clears a stored value.
    await mintOk(acme.key, { deploymentId: dep, externalId: 'pat', userProfile: { picture: null } });
    expect((await userRow('pat'))?.picture).toBeNull();
  });
});

describe('groups', () => {
  it('omitted keeps, populated replaces exactly, empty clears', async () => {
    await mintOk(acme.key, { deploymentId: dep, externalId: 'gina', groups: ['sales', 'support'] });
    expect(await groupsOf('gina')).toEqual(['sales', 'support']);
    let sid = await mintOk(acme.key, { deploymentId: dep, externalId: 'gina' });
    expect(await groupsOf('gina')).toEqual(['sales', 'support']);
    expect((await kvPayload(sid)).groups).toEqual(['sales', 'support']);
    sid = await mintOk(acme.key, { deploymentId: dep, externalId: 'gina', groups: ['finance', 'support'] });
    expect(await groupsOf('gina')).toEqual(['finance', 'support']);
    expect((await kvPayload(sid)).groups).toEqual(['finance', 'support']);
    sid = await mintOk(acme.key, { deploymentId: dep, externalId: 'gina', groups: [] });
    expect(await groupsOf('gina')).toEqual([]);
    expect((await kvPayload(sid)).groups).toEqual([]);
  });

  it('names every group it cannot resolve and writes nothing', async () => {
    await mintOk(acme.key, { deploymentId: dep, externalId: 'gus', groups: ['sales'] });
    const before = await embedState(acme.accountId);
    const res = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'gus',
      groups: ['sales', 'ghosts', 'phantoms'],
      userProfile: { displayName: 'Changed' },
    });
    expectError(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toBe('Groups with names ghosts, phantoms not found');
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it('resolves against the account-wide catalogue only, not tenant-scoped groups', async () => {
    await api('POST', '/api/v1/embed-tenants/tenant-scoped/groups', {
      auth: acme.admin,
      body: { name: 'scoped-only' },
    });
    const res = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'gus',
      embedTenantName: 'tenant-scoped',
      groups: ['scoped-only'],
    });
    expectError(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toBe('Groups with names scoped-only not found');
  });

  it('keeps userCount true to memberships, and deleting a group removes its memberships', async () => {
    const g = await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'counted' } });
    for (const externalId of ['c1', 'c2', 'c3']) {
      await mintOk(acme.key, { deploymentId: dep, externalId, groups: ['counted'] });
    }
    await mintOk(acme.key, { deploymentId: dep, externalId: 'c3', groups: [] });
    const list = await api('GET', '/api/v1/groups?first=100', { auth: acme.admin });
    expect(list.body.items.find((x: any) => x.id === g.body.id).userCount).toBe(2);
    await api('DELETE', `/api/v1/groups/${g.body.id}`, { auth: acme.admin });
    expect(await rows('SELECT * FROM embed_memberships WHERE group_id = ?', g.body.id)).toEqual([]);
    expect(await groupsOf('c1')).toEqual([]);
  });
});

describe('userAttributes', () => {
  it('stores typed values, overwrites per name, null clears', async () => {
    let sid = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'ann',
      userAttributes: [
        { name: 'region', value: 'eu' },
        { name: 'level', value: 3 },
        { name: 'teams', value: ['a', 'b'] },
        { name: 'codes', value: [1, 2.5] },
      ],
    });
    expect(await valuesOf('ann')).toEqual({ region: 'eu', level: 3, teams: ['a', 'b'], codes: [1, 2.5] });
    expect((await kvPayload(sid)).attributes).toEqual({
      region: 'eu',
      level: 3,
      teams: ['a', 'b'],
      codes: [1, 2.5],
    });
    sid = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'ann',
      userAttributes: [
        { name: 'region', value: 'us' },
        { name: 'teams', value: null },
      ],
    });
    expect(await valuesOf('ann')).toEqual({ region: 'us', level: 3, codes: [1, 2.5] });
    expect((await kvPayload(sid)).attributes).toEqual({ region: 'us', level: 3, codes: [1, 2.5] });
  });

  it('answers "User attributes not found" for a name outside the catalogue', async () => {
    const before = await embedState(acme.accountId);
    const res = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'ann',
      userAttributes: [
        { name: 'region', value: 'eu' },
        { name: 'shoe_size', value: 44 },
      ],
    });
    expectError(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toBe('User attributes not found');
    expect(res.body.details).toEqual([
      { path: 'userAttributes.1.name', message: expect.stringContaining('shoe_size') },
    ]);
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it('wants the value type of the definition', async () => {
    for (const [name, value] of [
      ['region', 3],
      ['level', '3'],
      ['teams', [1]],
      ['codes', ['1']],
      ['teams', 'a'],
    ] as const) {
      const res = await mint(acme.key, {
        deploymentId: dep,
        externalId: 'ann',
        userAttributes: [{ name, value }],
      });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe('userAttributes.0.value');
    }
    // An empty array fits both array types.
    await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'ann',
      userAttributes: [{ name: 'codes', value: [] }],
    });
    expect((await valuesOf('ann')).codes).toEqual([]);
  });

  it('deleting an attribute definition removes its values', async () => {
    const a = await api('POST', '/api/v1/user-attributes', {
      auth: acme.admin,
      body: { name: 'temp', type: 'string' },
    });
    await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'tia',
      userAttributes: [{ name: 'temp', value: 'x' }],
    });
    expect(await valuesOf('tia')).toEqual({ temp: 'x' });
    await api('DELETE', `/api/v1/user-attributes/${a.body.id}`, { auth: acme.admin });
    expect(await valuesOf('tia')).toEqual({});
  });
});

describe('securityContext and settings', () => {
  it('stores the security context per user: sent replaces, omitted keeps, null clears', async () => {
    let sid = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'sec',
      securityContext: { orgId: 7, roles: ['r'] },
    });
    expect(JSON.parse((await userRow('sec'))?.security_context)).toEqual({ orgId: 7, roles: ['r'] });
    expect((await kvPayload(sid)).securityContext).toEqual({ orgId: 7, roles: ['r'] });
    sid = await mintOk(acme.key, { deploymentId: dep, externalId: 'sec' });
    expect((await kvPayload(sid)).securityContext).toEqual({ orgId: 7, roles: ['r'] });
    sid = await mintOk(acme.key, { deploymentId: dep, externalId: 'sec', securityContext: null });
    expect((await userRow('sec'))?.security_context).toBeNull();
    expect((await kvPayload(sid)).securityContext).toBeNull();
  });

  it('carries settings.showDashboardChat only when sent (tri-state)', async () => {
    expect(claimsOf(await mintOk(acme.key, { deploymentId: dep, externalId: 'set' })).set).toEqual({});
    expect(
      claimsOf(
        await mintOk(acme.key, {
          deploymentId: dep,
          externalId: 'set',
          settings: { showDashboardChat: false },
        }),
      ).set,
    ).toEqual({ showDashboardChat: false });
    expect(
      claimsOf(
        await mintOk(acme.key, {
          deploymentId: dep,
          externalId: 'set',
          settings: { showDashboardChat: true },
        }),
      ).set,
    ).toEqual({ showDashboardChat: true });
    expect(
      claimsOf(await mintOk(acme.key, { deploymentId: dep, externalId: 'set', settings: {} })).set,
    ).toEqual({});
  });
});

describe('cost and idempotence', () => {
  const full = {
    externalId: 'returning',
    email: 'r@example.com',
    userProfile: { displayName: 'Re Turning', picture: 'https://example.com/r.png' },
    groups: ['sales', 'support', 'finance'],
    userAttributes: [
      { name: 'region', value: 'eu' },
      { name: 'level', value: 2 },
      { name: 'teams', value: ['x'] },
    ],
    securityContext: { tenant: 'r' },
  };

  it('a new user costs two round trips: one read batch, one write batch', async () => {
    const res = await mint(acme.key, { deploymentId: dep, ...full });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(roundTrips(res)).toBe(2);
  });

  it('a returning user whose state is unchanged costs one read batch and writes nothing', async () => {
    const before = await embedState(acme.accountId);
    const res = await mint(acme.key, { deploymentId: dep, ...full });
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1);
    expect(await embedState(acme.accountId)).toEqual(before);
    // Same end state as the first mint; the payload in KV is complete all the same.
    const payload = await kvPayload(res.body.sessionId);
    expect(payload.groups).toEqual(['finance', 'sales', 'support']);
    expect(payload.attributes).toEqual({ region: 'eu', level: 2, teams: ['x'] });
    expect(payload.user).toMatchObject({ displayName: 'Re Turning', email: 'r@example.com' });
    // A minimal request (everything omitted) also keeps the state and writes nothing.
    const minimal = await mint(acme.key, { deploymentId: dep, externalId: 'returning' });
    expect(roundTrips(minimal)).toBe(1);
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it('a returning user with one change costs two round trips and writes only that change', async () => {
    const before = await userRow('returning');
    const res = await mint(acme.key, { deploymentId: dep, ...full, groups: ['sales'] });
    expect(roundTrips(res)).toBe(2);
    expect(await groupsOf('returning')).toEqual(['sales']);
    // The profile did not change, so the user row was not touched.
    expect(await userRow('returning')).toEqual(before);
    expect(queries(res)).toBeGreaterThan(1);
  });
});
