import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { claimsOf, embedState, kvPayload, mint, mintOk, roundTrips, rows } from './fixtures';

let acme: SeededAccount;
let dep: number;

beforeAll(async () => {
  acme = await seedAccount({ useCreatorMode: true });
  dep = acme.deployments[0];
  // Account-wide entries with the same names: creator mode must never touch or use them.
  await api('POST', '/api/v1/groups', {
    auth: acme.admin,
    body: { name: 'editors', description: 'account-wide' },
  });
  await api('POST', '/api/v1/user-attributes', { auth: acme.admin, body: { name: 'plan', type: 'number' } });
});

const creator = (tenant: string, extra: Record<string, unknown>) => ({
  deploymentId: dep,
  externalId: 'creator-1',
  creatorMode: true,
  embedTenantName: tenant,
  ...extra,
});

const tenantGroups = (tenant: string) =>
  rows<Record<string, unknown>>(
    `SELECT g.name, g.description FROM embed_groups g JOIN embed_tenants t ON t.id = g.tenant_id
     WHERE t.account_id = ? AND t.name = ? ORDER BY g.name`,
    acme.accountId,
    tenant,
  );
const tenantAttributes = (tenant: string) =>
  rows<Record<string, unknown>>(
    `SELECT a.name, a.type, a.display_name, a.default_value, a.description FROM embed_attributes a
     JOIN embed_tenants t ON t.id = a.tenant_id WHERE t.account_id = ? AND t.name = ? ORDER BY a.name`,
    acme.accountId,
    tenant,
  );

/** A tenant's groups and attributes defined in one creator-mode generate-session, and the user's. */
const ALPHA_DEFINITIONS = {
  groupDefinitions: [{ name: 'editors', description: 'Can edit' }, { name: 'viewers' }],
  userAttributeDefinitions: [
    {
      name: 'plan',
      type: 'string',
      displayName: 'Plan',
      defaultValue: 'free',
      description: 'Billing plan',
    },
    { name: 'seats', type: 'number' },
  ],
  groups: ['editors'],
  userAttributes: [
    { name: 'plan', value: 'pro' },
    { name: 'seats', value: 5 },
  ],
};

describe('groupDefinitions and userAttributeDefinitions (creator mode)', () => {
  it('upserts definitions into the tenant scope, then applies groups and values against them', async () => {
    const accountWideBefore = await rows(
      'SELECT * FROM embed_groups WHERE account_id = ? AND tenant_id IS NULL',
      acme.accountId,
    );
    const sid = await mintOk(acme.key, creator('tenant-alpha', ALPHA_DEFINITIONS));
    expect(claimsOf(sid)).toMatchObject({ cm: true, ten: 'tenant-alpha' });
    expect(await tenantGroups('tenant-alpha')).toEqual([
      { name: 'editors', description: 'Can edit' },
      { name: 'viewers', description: '' },
    ]);
    expect(await tenantAttributes('tenant-alpha')).toEqual([
      {
        name: 'plan',
        type: 'string',
        display_name: 'Plan',
        default_value: 'free',
        description: 'Billing plan',
      },
      { name: 'seats', type: 'number', display_name: null, default_value: null, description: null },
    ]);
    // The tenant-wide (account-wide) catalogue is untouched, even with the same names.
    expect(
      await rows('SELECT * FROM embed_groups WHERE account_id = ? AND tenant_id IS NULL', acme.accountId),
    ).toEqual(accountWideBefore);
    const payload = await kvPayload(sid);
    expect(payload.groups).toEqual(['editors']);
    expect(payload.attributes).toEqual({ plan: 'pro', seats: 5 });
    // The tenant's group and attribute lists see them.
    const listed = await api('GET', '/api/v1/embed-tenants/tenant-alpha/groups', { auth: acme.key });
    expect(listed.body.items.map((g: any) => [g.name, g.userCount])).toEqual([
      ['editors', 1],
      ['viewers', 0],
    ]);
  });

  it('is idempotent: repeating the request writes nothing and yields the same end state', async () => {
    const request = creator('tenant-alpha', ALPHA_DEFINITIONS);
    const before = await embedState(acme.accountId);
    const res = await mint(acme.key, request);
    expect(res.status).toBe(200);
    expect(roundTrips(res)).toBe(1);
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it('updates descriptions and labels only when supplied and different; a group description is never cleared', async () => {
    await mintOk(
      acme.key,
      creator('tenant-alpha', {
        groupDefinitions: [
          { name: 'editors', description: '' },
          { name: 'viewers', description: 'Read only' },
        ],
        userAttributeDefinitions: [{ name: 'plan', type: 'string', description: 'Plan tier' }],
      }),
    );
    expect(await tenantGroups('tenant-alpha')).toEqual([
      { name: 'editors', description: 'Can edit' },
      { name: 'viewers', description: 'Read only' },
    ]);
    expect((await tenantAttributes('tenant-alpha'))[0]).toEqual({
      name: 'plan',
      type: 'string',
      display_name: 'Plan',
      default_value: 'free',
      description: 'Plan tier',
    });
  });

  it('"cannot change type": 409 and nothing upserted, D1 rows unchanged', async () => {
    const before = await embedState(acme.accountId);
    const res = await mint(
      acme.key,
      creator('tenant-alpha', {
        externalId: 'someone-new',
        userProfile: { displayName: 'New' },
        groupDefinitions: [{ name: 'brand-new-group' }],
        userAttributeDefinitions: [
          { name: 'region', type: 'string' },
          { name: 'seats', type: 'string' },
        ],
        groups: ['brand-new-group'],
      }),
    );
    expectError(res, 409, 'CONFLICT');
    expect(res.body.error).toBe('cannot change type');
    expect(res.body.details).toEqual([
      { path: 'userAttributeDefinitions.1.type', message: expect.any(String) },
    ]);
    expect(await embedState(acme.accountId)).toEqual(before);
    expect(await tenantAttributes('tenant-alpha')).toHaveLength(2);
  });

  it("changing a type works after deleting the attribute through the tenant's attribute route", async () => {
    const list = await api('GET', '/api/v1/embed-tenants/tenant-alpha/user-attributes', { auth: acme.admin });
    const seats = list.body.items.find((a: any) => a.name === 'seats');
    await api('DELETE', `/api/v1/embed-tenants/tenant-alpha/user-attributes/${seats.id}`, {
      auth: acme.admin,
    });
    await mintOk(
      acme.key,
      creator('tenant-alpha', {
        userAttributeDefinitions: [{ name: 'seats', type: 'string' }],
        userAttributes: [{ name: 'seats', value: 'many' }],
      }),
    );
    expect((await tenantAttributes('tenant-alpha')).find((a) => a.name === 'seats')?.type).toBe('string');
  });

  it('resolves creator-mode groups and attributes in the tenant catalogue only', async () => {
    // 'plan' exists account-wide as a number, but creator mode resolves the tenant's (a string).
    await mintOk(acme.key, creator('tenant-alpha', { userAttributes: [{ name: 'plan', value: 'team' }] }));
    const res = await mint(acme.key, creator('tenant-beta', { groups: ['editors'] }));
    expectError(res, 400, 'BAD_REQUEST');
    expect(res.body.error).toBe('Groups with names editors not found');
    const attr = await mint(
      acme.key,
      creator('tenant-beta', { userAttributes: [{ name: 'plan', value: 1 }] }),
    );
    expectError(attr, 400, 'BAD_REQUEST');
    expect(attr.body.error).toBe('User attributes not found');
    // Nothing of the refused requests landed: not even the new tenant.
    expect(await rows("SELECT * FROM embed_tenants WHERE name = 'tenant-beta'")).toEqual([]);
  });

  it('checks value types against a definition sent in the same request', async () => {
    const res = await mint(
      acme.key,
      creator('tenant-gamma', {
        userAttributeDefinitions: [{ name: 'ids', type: 'number_array' }],
        userAttributes: [{ name: 'ids', value: ['a'] }],
      }),
    );
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(await rows("SELECT * FROM embed_tenants WHERE name = 'tenant-gamma'")).toEqual([]);
  });
});
