import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { type Auth, api } from '../helpers/http';
import { routedDb } from '../helpers/shards';

holdAnswersToCube();

let acme: SeededAccount;
let other: SeededAccount;
/** acme's account-wide attributes by name, and one of an embed tenant of acme. */
const attr: Record<string, number> = {};
let tenantAttribute: number;
let otherAttribute: number;

async function createAttribute(
  account: SeededAccount,
  body: Record<string, unknown>,
  path = '/api/v1/user-attributes',
) {
  const res = await api('POST', path, { auth: account.admin, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as number;
}

const upsert = (auth: Auth, body: Record<string, unknown>) =>
  api('POST', '/api/v1/user-attribute-values', { auth, body });
const valuesOf = (auth: Auth, userId: number) =>
  api('GET', `/api/v1/user-attribute-values/${userId}`, { auth });

/** The stored rows of a user, as D1 has them. */
async function storedRows(userId: number) {
  const { results } = await routedDb
    .prepare('SELECT attribute_id, value FROM user_attribute_values WHERE user_id = ? ORDER BY attribute_id')
    .bind(userId)
    .all<{ attribute_id: number; value: string }>();
  return results;
}

beforeAll(async () => {
  acme = await seedAccount({ useCreatorMode: true });
  other = await seedAccount();
  attr.country = await createAttribute(acme, {
    name: 'country',
    type: 'string',
    displayName: 'Country',
    description: 'Where the user sells',
  });
  attr.level = await createAttribute(acme, { name: 'level', type: 'number' });
  attr.regions = await createAttribute(acme, { name: 'regions', type: 'string_array' });
  attr.vip = await createAttribute(acme, { name: 'vip', type: 'boolean' });
  attr.quotas = await createAttribute(acme, { name: 'quotas', type: 'number_array' });
  // An embed tenant's catalogue gets its attribute from a creator-mode definition.
  const minted = await api('POST', '/api/v1/embed/generate-session', {
    auth: { bearer: acme.key.apiKey },
    body: {
      deploymentId: acme.deployments[0],
      externalId: 'tenant-user',
      embedTenantName: 'tenant-one',
      creatorMode: true,
      userAttributeDefinitions: [{ name: 'team', type: 'string' }],
    },
  });
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  const team = await routedDb
    .prepare(
      "SELECT id FROM embed_attributes WHERE account_id = ? AND tenant_id IS NOT NULL AND name = 'team'",
    )
    .bind(acme.accountId)
    .first<{ id: number }>();
  tenantAttribute = team?.id as number;
  expect(tenantAttribute).toBeGreaterThan(0);
  otherAttribute = await createAttribute(other, { name: 'country', type: 'string' });
});

describe('upsertUserAttributeValue (POST /api/v1/user-attribute-values)', () => {
  it('sets a value of each type as Cube sends it (ids as strings) and answers it with its attribute', async () => {
    const member = acme.memberUserId;
    const res = await upsert(acme.admin, {
      userId: String(member),
      userAttributeId: String(attr.country),
      value: 'FR',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      userId: member,
      userAttributeId: attr.country,
      name: 'country',
      type: 'string',
      displayName: 'Country',
      description: 'Where the user sells',
      value: 'FR',
      formattedValue: 'FR',
    });
    const cases: [string, unknown, string][] = [
      ['level', 3, '3'],
      ['regions', ['EMEA', 'APAC'], 'EMEA, APAC'],
      ['vip', false, 'false'],
      ['quotas', [1.5, 2], '1.5, 2'],
    ];
    for (const [name, value, text] of cases) {
      const set = await upsert(acme.admin, {
        userId: String(member),
        userAttributeId: String(attr[name]),
        value,
      });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      expect(set.body).toMatchObject({
        name,
        value,
        formattedValue: text,
        displayName: null,
        description: null,
      });
    }
    expect(await storedRows(member)).toEqual([
      { attribute_id: attr.country, value: '"FR"' },
      { attribute_id: attr.level, value: '3' },
      { attribute_id: attr.regions, value: '["EMEA","APAC"]' },
      { attribute_id: attr.vip, value: 'false' },
      { attribute_id: attr.quotas, value: '[1.5,2]' },
    ]);
  });

  it('replaces a value, and clears it with null or an omitted value (no row, no value in the answer)', async () => {
    const admin = acme.adminUserId;
    const first = await upsert(acme.admin, {
      userId: `${admin}`,
      userAttributeId: `${attr.country}`,
      value: 'IE',
    });
    expect(first.body.value).toBe('IE');
    const second = await upsert(acme.admin, {
      userId: `${admin}`,
      userAttributeId: `${attr.country}`,
      value: 'JP',
    });
    expect(second.body).toMatchObject({ value: 'JP', formattedValue: 'JP' });
    expect(await storedRows(admin)).toEqual([{ attribute_id: attr.country, value: '"JP"' }]);

    const cleared = await upsert(acme.admin, {
      userId: `${admin}`,
      userAttributeId: `${attr.country}`,
      value: null,
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body).toEqual({
      userId: admin,
      userAttributeId: attr.country,
      name: 'country',
      type: 'string',
      displayName: 'Country',
      description: 'Where the user sells',
    });
    expect(await storedRows(admin)).toEqual([]);

    await upsert(acme.admin, { userId: `${admin}`, userAttributeId: `${attr.level}`, value: 7 });
    const omitted = await upsert(acme.admin, { userId: `${admin}`, userAttributeId: `${attr.level}` });
    expect(omitted.status).toBe(200);
    expect(omitted.body).not.toHaveProperty('value');
    expect(await storedRows(admin)).toEqual([]);
  });

  it('refuses a value of another type than its attribute, naming value, and stores nothing', async () => {
    const userId = `${acme.memberUserId}`;
    const before = await storedRows(acme.memberUserId);
    const cases: [string, unknown, string][] = [
      ['country', 3, 'Expected a string value'],
      ['level', '3', 'Expected a number value'],
      ['vip', 'yes', 'Expected a boolean value'],
      ['regions', [1, 2], 'Expected a string_array value'],
      ['quotas', 'EMEA', 'Expected a number_array value'],
    ];
    for (const [name, value, message] of cases) {
      const res = await upsert(acme.admin, { userId, userAttributeId: `${attr[name]}`, value });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details).toEqual([{ path: 'value', message }]);
    }
    expect(await storedRows(acme.memberUserId)).toEqual(before);
  });

  it('bounds values as generate-session does, and checks the body as Cube types it', async () => {
    const base = { userId: `${acme.memberUserId}`, userAttributeId: `${attr.country}` };
    const bad: Record<string, unknown>[] = [
      { ...base, value: 'x'.repeat(1025) },
      { ...base, userAttributeId: `${attr.regions}`, value: Array.from({ length: 101 }, () => 'a') },
      { ...base, value: { nested: true } },
      { ...base, userId: acme.memberUserId },
      { ...base, userId: 'me' },
      { ...base, userAttributeId: '' },
      { userId: base.userId, value: 'FR' },
      { ...base, value: 'FR', extra: 1 },
    ];
    for (const body of bad) {
      const res = await upsert(acme.admin, body);
      expectError(res, 400, 'VALIDATION_FAILED');
    }
    const ok = await upsert(acme.admin, { ...base, value: 'x'.repeat(1024) });
    expect(ok.status).toBe(200);
    await upsert(acme.admin, { ...base, value: 'FR' });
  });

  it("bounds a user's values together (409 past 64 KiB), and a value alone that passes them is a 400", async () => {
    const user = await api('POST', '/api/v1/users', {
      auth: acme.admin,
      body: { email: 'big@example.com', username: 'big' },
    });
    const userId = `${user.body.id}`;
    const big = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(300, 'x'));
    const names = ['b1', 'b2', 'b3'];
    const ids: number[] = [];
    for (const name of names) ids.push(await createAttribute(acme, { name, type: 'string_array' }));
    for (const id of ids.slice(0, 2)) {
      const res = await upsert(acme.admin, { userId, userAttributeId: `${id}`, value: big });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const third = await upsert(acme.admin, { userId, userAttributeId: `${ids[2]}`, value: big });
    expectError(third, 409, 'CONFLICT');
    expect(third.body.error).toContain('65536 bytes');
    expect((await storedRows(user.body.id)).map((r) => r.attribute_id)).toEqual(ids.slice(0, 2));
    // Replacing a stored value counts it once: the same value again fits.
    const again = await upsert(acme.admin, { userId, userAttributeId: `${ids[0]}`, value: big });
    expect(again.status).toBe(200);
    const huge = Array.from({ length: 100 }, () => 'y'.repeat(1000));
    const alone = await upsert(acme.admin, { userId, userAttributeId: `${ids[2]}`, value: huge });
    expectError(alone, 400, 'VALIDATION_FAILED');
    for (const id of ids) await api('DELETE', `/api/v1/user-attributes/${id}`, { auth: acme.admin });
    expect(await storedRows(user.body.id)).toEqual([]);
  });

  it('is for admins: a member may not set even their own, a scoped key is KEY_SCOPE, an unscoped key may', async () => {
    const body = { userId: `${acme.memberUserId}`, userAttributeId: `${attr.country}`, value: 'JP' };
    expectError(await upsert(acme.member, body), 403, 'FORBIDDEN');
    expectError(await upsert(acme.scopedKey, body), 403, 'KEY_SCOPE');
    const byKey = await upsert(acme.key, body);
    expect(byKey.status, JSON.stringify(byKey.body)).toBe(200);
    expect(byKey.body.value).toBe('JP');
    expect((await storedRows(acme.memberUserId)).find((r) => r.attribute_id === attr.country)?.value).toBe(
      '"JP"',
    );
    await upsert(acme.admin, { ...body, value: 'FR' });
  });

  it("answers 404 for another account's user or attribute and for an embed tenant's attribute", async () => {
    const mine = { userId: `${acme.memberUserId}`, userAttributeId: `${attr.country}`, value: 'IE' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...mine, userId: `${other.memberUserId}` }, 'User not found'],
      [{ ...mine, userAttributeId: `${otherAttribute}` }, 'User attribute not found'],
      [{ ...mine, userAttributeId: `${tenantAttribute}` }, 'User attribute not found'],
      [{ ...mine, userAttributeId: '999999999' }, 'User attribute not found'],
    ];
    for (const [body, error] of cases) {
      const res = await upsert(acme.admin, body);
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body.error).toBe(error);
    }
    // The other account's admin cannot reach acme's user or attribute either.
    const res = await upsert(other.admin, { ...mine, userAttributeId: `${otherAttribute}` });
    expectError(res, 404, 'NOT_FOUND');
    expect(res.body.error).toBe('User not found');
    expect(await storedRows(other.memberUserId)).toEqual([]);
    expect((await storedRows(acme.memberUserId)).find((r) => r.attribute_id === attr.country)?.value).toBe(
      '"FR"',
    );
  });
});

describe('getUserAttributeValues (GET /api/v1/user-attribute-values/{userId})', () => {
  it("lists every account-wide attribute, with the user's value where they hold one", async () => {
    const res = await valuesOf(acme.admin, acme.memberUserId);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byName = Object.fromEntries(res.body.map((v: any) => [v.name, v]));
    expect(res.body.map((v: any) => v.userAttributeId)).toEqual(
      [...res.body.map((v: any) => v.userAttributeId)].sort((a: number, b: number) => a - b),
    );
    expect(res.body.every((v: any) => v.userId === acme.memberUserId)).toBe(true);
    expect(byName.country).toEqual({
      userId: acme.memberUserId,
      userAttributeId: attr.country,
      name: 'country',
      type: 'string',
      displayName: 'Country',
      description: 'Where the user sells',
      value: 'FR',
      formattedValue: 'FR',
    });
    expect(byName.regions).toMatchObject({ value: ['EMEA', 'APAC'], formattedValue: 'EMEA, APAC' });
    expect(byName.vip).toMatchObject({ type: 'boolean', value: false, formattedValue: 'false' });
    // The tenant's attribute is not the account-wide catalogue's.
    expect(byName.team).toBeUndefined();

    const admin = await valuesOf(acme.admin, acme.adminUserId);
    expect(admin.status).toBe(200);
    expect(admin.body.map((v: any) => v.name)).toEqual(res.body.map((v: any) => v.name));
    for (const entry of admin.body) {
      expect(entry).not.toHaveProperty('value');
      expect(entry).not.toHaveProperty('formattedValue');
    }
  });

  it('lets a member read their own values only; a scoped key is KEY_SCOPE', async () => {
    const own = await valuesOf(acme.member, acme.memberUserId);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.find((v: any) => v.name === 'country').value).toBe('FR');
    expectError(await valuesOf(acme.member, acme.adminUserId), 403, 'FORBIDDEN');
    expectError(await valuesOf(acme.scopedKey, acme.memberUserId), 403, 'KEY_SCOPE');
    const byKey = await valuesOf(acme.key, acme.memberUserId);
    expect(byKey.status).toBe(200);
  });

  it("answers 404 for another account's user, and 400 for an id that is not one", async () => {
    const res = await valuesOf(acme.admin, other.memberUserId);
    expectError(res, 404, 'NOT_FOUND');
    expect(res.body.error).toBe('User not found');
    expectError(await valuesOf(other.admin, acme.memberUserId), 404, 'NOT_FOUND');
    const bad = await api('GET', '/api/v1/user-attribute-values/me', { auth: acme.admin });
    expectError(bad, 400, 'VALIDATION_FAILED');
  });

  it('reads in one D1 round trip', async () => {
    const res = await valuesOf(acme.admin, acme.memberUserId);
    // The credential's read, then the user and the catalogue with the values in one batch.
    expect(res.headers.get('x-d1-round-trips')).toBe('2');
  });

  it("loses an attribute's values when the attribute is deleted", async () => {
    const temp = await createAttribute(acme, { name: 'temporary', type: 'string' });
    const set = await upsert(acme.admin, {
      userId: `${acme.memberUserId}`,
      userAttributeId: `${temp}`,
      value: 'soon gone',
    });
    expect(set.status).toBe(200);
    expect((await storedRows(acme.memberUserId)).some((r) => r.attribute_id === temp)).toBe(true);
    const deleted = await api('DELETE', `/api/v1/user-attributes/${temp}`, { auth: acme.admin });
    expect(deleted.status).toBe(200);
    expect((await storedRows(acme.memberUserId)).some((r) => r.attribute_id === temp)).toBe(false);
    const listed = await valuesOf(acme.admin, acme.memberUserId);
    expect(listed.body.some((v: any) => v.name === 'temporary')).toBe(false);
  });
});
