// Cube's Embed operations (docs-mintlify/api-reference/api.yaml, tag Embed), called as a Cube client
// calls them: the API key as `Authorization: Bearer <key>`, every field Cube defines, nulls where
// Cube allows them, and each answer checked for the fields Cube marks required.
import { beforeAll, describe, expect, it } from 'vitest';
import { claimsOf, kvPayload, load, publishDashboard, rows, setEmbed } from '../embedding/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { type Auth, api } from '../helpers/http';
import { holdAnswersToCube } from './cube-openapi';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

let acme: SeededAccount;
let publicId: string;
let otherPublicId: string;
const bearerKey = () => ({ bearer: acme.key.apiKey });

const generate = (body: Record<string, unknown>, auth: Auth = bearerKey()) =>
  api('POST', '/api/v1/embed/generate-session', { auth, body });

beforeAll(async () => {
  acme = await seedAccount({ useCreatorMode: true });
  publicId = (await publishDashboard(acme)).publicId;
  otherPublicId = (await publishDashboard(acme)).publicId;
  await setEmbed(acme, publicId, { allowEmbed: true });
  await setEmbed(acme, otherPublicId, { allowEmbed: true });
});

/** Cube's GenerateSession with every field it defines, nulls where Cube allows them. */
const everyField = (externalId: string) => ({
  deploymentId: acme.deployments[0],
  branchName: null,
  creatorMode: true,
  email: `${externalId}@example.com`,
  embedTenantName: 'cube-tenant',
  embedTenantProfile: { displayName: 'Cube tenant' },
  embedTheme: { font: 'Inter', primaryColor: '#123456', chat: { inputColor: null }, analyticsChat: null },
  externalId,
  groupDefinitions: [{ name: 'legacy', description: null }],
  groups: ['legacy'],
  internalId: null,
  isEphemeral: false,
  publicDashboardId: null,
  roles: ['viewer'],
  securityContext: { team: 'a' },
  settings: {
    allowAi: false,
    allowChatWorkspaceAuthoring: null,
    locale: 'de-DE',
    showAiWidgets: null,
    showDashboardChat: null,
    showDashboardSettings: true,
    showGroupByCube: null,
    showMemberNames: false,
    showWorkbookChat: null,
    showWorkbookShare: null,
    timezone: 'Europe/Berlin',
  },
  tenantGroupDefinitions: [{ name: 'analysts', description: 'Analysts' }],
  tenantGroups: ['analysts'],
  userAttributeDefinitions: [
    { name: 'region', type: 'string', defaultValue: null, description: null, displayName: null },
    { name: 'amount', type: 'number' },
    { name: 'vip', type: 'boolean', displayName: 'VIP' },
    { name: 'regions', type: 'string_array' },
    { name: 'ids', type: 'number_array' },
  ],
  userAttributes: [
    { name: 'region', value: 'EU' },
    { name: 'amount', value: 3 },
    { name: 'vip', value: true },
    { name: 'regions', value: ['EU', 'US'] },
    { name: 'ids', value: [1, 2] },
  ],
  userProfile: { displayName: null, picture: null },
});

describe('POST /api/v1/embed/generate-session (generateSession)', () => {
  it('takes the API key as Bearer and every field Cube defines; answers sessionId', async () => {
    const res = await generate(everyField('cube-full'));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(typeof res.body.sessionId).toBe('string');
    const payload = await kvPayload(res.body.sessionId);
    expect(payload.groups).toEqual(['analysts', 'legacy']);
    expect(payload.attributes).toMatchObject({ vip: true, amount: 3, ids: [1, 2] });
    const stored = await rows(
      `SELECT g.name FROM embed_groups g JOIN embed_tenants t ON t.id = g.tenant_id
       WHERE t.account_id = ? AND t.name = 'cube-tenant' ORDER BY g.name`,
      acme.accountId,
    );
    expect(stored).toEqual([{ name: 'analysts' }, { name: 'legacy' }]);
    const attr = await rows(
      "SELECT type FROM embed_attributes WHERE account_id = ? AND name = 'vip'",
      acme.accountId,
    );
    expect(attr).toEqual([{ type: 'boolean' }]);

    const loaded = await load(publicId, res.body.sessionId);
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    // Cube's Dashboard marks `status` required.
    expect(loaded.body.status).toBe('published');
    expect(loaded.body.settings).toMatchObject({
      locale: 'de-DE',
      timezone: 'Europe/Berlin',
      allowAi: false,
      showDashboardSettings: true,
      showMemberNames: false,
      showAiWidgets: null,
    });
  });

  it('accepts a Cube body made only of nulls beside deploymentId and externalId', async () => {
    const res = await generate({
      deploymentId: acme.deployments[0],
      externalId: 'cube-nulls',
      branchName: null,
      creatorMode: null,
      email: null,
      embedTenantName: null,
      embedTenantProfile: null,
      embedTheme: null,
      groupDefinitions: null,
      groups: null,
      internalId: null,
      isEphemeral: null,
      publicDashboardId: null,
      roles: null,
      securityContext: null,
      settings: null,
      tenantGroupDefinitions: null,
      tenantGroups: null,
      userAttributeDefinitions: null,
      userAttributes: null,
      userProfile: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await load(publicId, res.body.sessionId)).body.settings).toMatchObject({ locale: null });
  });

  it('falls back, never fails, on a locale or time zone that does not parse; Api-Key still works', async () => {
    const res = await generate(
      {
        deploymentId: acme.deployments[0],
        externalId: 'cube-bad-locale',
        settings: { locale: 'not a locale!', timezone: 'Mars/Olympus' },
      },
      acme.key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const settings = (await load(publicId, res.body.sessionId)).body.settings;
    expect(settings).toMatchObject({ locale: null, timezone: null });
  });

  it('needs creatorMode and embedTenantName for tenantGroups; unknown fields stay a 400', async () => {
    expectError(
      await generate({ deploymentId: acme.deployments[0], externalId: 'x-tenant', tenantGroups: ['a'] }),
      400,
    );
    expectError(await generate({ deploymentId: acme.deployments[0], externalId: 'x-unknown', nope: 1 }), 400);
  });

  it('publicDashboardId: the session loads that dashboard and no other', async () => {
    const res = await generate({
      deploymentId: acme.deployments[0],
      externalId: 'cube-one-board',
      publicDashboardId: publicId,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(claimsOf(res.body.sessionId).pd).toBe(publicId);
    expect((await load(publicId, res.body.sessionId)).status).toBe(200);
    expectError(await load(otherPublicId, res.body.sessionId), 404, 'NOT_FOUND');
  });

  it('isEphemeral: no D1 row, not counted against the limit; loads and honours revocation', async () => {
    const limited = await seedAccount();
    const board = (await publishDashboard(limited)).publicId;
    await setEmbed(limited, board, { allowEmbed: true });
    const before = await rows('SELECT * FROM embed_users WHERE account_id = ?', limited.accountId);
    const res = await api('POST', '/api/v1/embed/generate-session', {
      auth: { bearer: limited.key.apiKey },
      body: {
        deploymentId: limited.deployments[0],
        externalId: 'passer-by',
        isEphemeral: true,
        userProfile: { displayName: 'Passer By' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await rows('SELECT * FROM embed_users WHERE account_id = ?', limited.accountId)).toEqual(before);
    const loaded = await load(board, res.body.sessionId);
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    expect(loaded.body.viewer).toMatchObject({ displayName: 'Passer By', initials: 'PB' });
    const revoked = await api('POST', '/api/v1/embed/session/revoke', {
      auth: { bearer: limited.key.apiKey },
      body: { sessionId: res.body.sessionId },
    });
    expect(revoked.body).toEqual({ revoked: true });
    expectError(await load(board, res.body.sessionId), 401, 'SESSION_REVOKED');
    expectError(
      await api('POST', '/api/v1/embed/generate-session', {
        auth: { bearer: limited.key.apiKey },
        body: { deploymentId: limited.deployments[0], internalId: 'someone', isEphemeral: true },
      }),
      400,
    );
  });
});

describe('POST /api/v1/embed/session/token (postTokenBySessionId) and GET /api/v1/embed/dashboard/{publicId}', () => {
  it('exchanges a session for a short-lived token that loads the dashboard as Bearer', async () => {
    const sid = (await generate({ deploymentId: acme.deployments[0], externalId: 'cube-token' })).body
      .sessionId as string;
    const exchanged = await api('POST', '/api/v1/embed/session/token', { body: { sessionId: sid } });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(typeof exchanged.body.token).toBe('string');
    const claims = claimsOf(exchanged.body.token);
    expect(claims.jti).toBe(claimsOf(sid).jti);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(300);
    expect(claims.exp).toBeLessThanOrEqual(claimsOf(sid).exp);

    const loaded = await api('GET', `/api/v1/embed/dashboard/${publicId}`, {
      auth: { bearer: exchanged.body.token },
    });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    for (const field of ['id', 'publicId', 'title', 'config']) expect(loaded.body).toHaveProperty(field);

    // A token is not a session id, nor the other way round.
    expectError(await load(publicId, exchanged.body.token), 401, 'SESSION_INVALID');
    expectError(
      await api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: { bearer: sid } }),
      401,
      'SESSION_INVALID',
    );
    expectError(
      await api('POST', '/api/v1/embed/session/token', { body: { sessionId: exchanged.body.token } }),
      401,
      'SESSION_INVALID',
    );
    // Reusable exchange (a deliberate difference to Cube's single use).
    expect((await api('POST', '/api/v1/embed/session/token', { body: { sessionId: sid } })).status).toBe(200);
  });

  it('revoking the session (admin access token, as Cube allows) revokes its tokens', async () => {
    const sid = (await generate({ deploymentId: acme.deployments[0], externalId: 'cube-revoke' })).body
      .sessionId as string;
    const { token } = (await api('POST', '/api/v1/embed/session/token', { body: { sessionId: sid } })).body;
    const revoked = await api('POST', '/api/v1/embed/session/revoke', {
      auth: acme.admin,
      body: { sessionId: sid },
    });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expectError(
      await api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: { bearer: token } }),
      401,
      'SESSION_REVOKED',
    );
    expectError(
      await api('POST', '/api/v1/embed/session/token', { body: { sessionId: sid } }),
      401,
      'SESSION_REVOKED',
    );
  });

  it('refuses an unknown session id with 401', async () => {
    expectError(
      await api('POST', '/api/v1/embed/session/token', { body: { sessionId: 'not-a-session' } }),
      401,
      'SESSION_INVALID',
    );
  });
});

describe('PATCH /api/v1/embed/dashboard/{publicId} (updateDashboardEmbedding)', () => {
  it('takes an API key as Bearer and answers publicId and allowEmbed', async () => {
    const res = await api('PATCH', `/api/v1/embed/dashboard/${otherPublicId}`, {
      auth: bearerKey(),
      body: { allowEmbed: true },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ publicId: otherPublicId, allowEmbed: true });
  });
});
