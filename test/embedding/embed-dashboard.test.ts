import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { type Auth, api } from '../helpers/http';
import { load, mintOk, publishDashboard, rows, setEmbed } from './fixtures';

let acme: SeededAccount;
let other: SeededAccount;
let board: { id: number; publicId: string };
let stagingBoard: { publicId: string };
let otherBoard: { publicId: string };

beforeAll(async () => {
  acme = await seedAccount({ useCreatorMode: true });
  other = await seedAccount();
  board = await publishDashboard(acme);
  stagingBoard = await publishDashboard(acme, acme.deployments[1]);
  otherBoard = await publishDashboard(other);
});

const patch = (auth: Auth, publicId: string, body: unknown) =>
  api('PATCH', `/api/v1/embed/dashboard/${publicId}`, { auth, body });
const session = (extra: Record<string, unknown> = {}) =>
  mintOk(acme.key, { deploymentId: acme.deployments[0], externalId: 'viewer-1', ...extra });

describe('the embedding switches: PATCH /api/v1/embed/dashboard/{publicId}', () => {
  it('sets allowEmbed and allEmbedUsers and answers {allowEmbed, publicId, allEmbedUsers}', async () => {
    const res = await patch(acme.admin, board.publicId, { allowEmbed: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ allowEmbed: true, publicId: board.publicId, allEmbedUsers: false });
    const both = await patch(acme.admin, board.publicId, { allEmbedUsers: true });
    expect(both.body).toEqual({ allowEmbed: true, publicId: board.publicId, allEmbedUsers: true });
    const [row] = await rows(
      'SELECT allow_embed, all_embed_users FROM published_dashboards WHERE public_id = ?',
      board.publicId,
    );
    expect(row).toEqual({ allow_embed: 1, all_embed_users: 1 });
    const off = await patch(acme.admin, board.publicId, { allowEmbed: false, allEmbedUsers: false });
    expect(off.body).toEqual({ allowEmbed: false, publicId: board.publicId, allEmbedUsers: false });
  });

  it('validates the body', async () => {
    expectError(await patch(acme.admin, board.publicId, {}), 400, 'VALIDATION_FAILED');
    expectError(await patch(acme.admin, board.publicId, { allowEmbed: 'yes' }), 400, 'VALIDATION_FAILED');
    expectError(
      await patch(acme.admin, board.publicId, { allowEmbed: true, extra: 1 }),
      400,
      'VALIDATION_FAILED',
    );
  });

  it('is for admins with a Bearer token of the owning account', async () => {
    expectError(await patch(null, board.publicId, { allowEmbed: true }), 401, 'UNAUTHORIZED');
    // A valid API key is accepted on these routes (test/foundation/api-key-credentials.test.ts); an unknown one is a 401.
    expectError(
      await patch({ apiKey: 'eb_ak_unknown' }, board.publicId, { allowEmbed: true }),
      401,
      'UNAUTHORIZED',
    );
    expectError(await patch({ bearer: 'eb_at_unknown' }, board.publicId, { allowEmbed: true }), 401);
    expectError(await patch(acme.member, board.publicId, { allowEmbed: true }), 403, 'FORBIDDEN');
    expectError(await patch(other.admin, board.publicId, { allowEmbed: true }), 404, 'NOT_FOUND');
    expectError(await patch(acme.admin, 'no-such-dashboard', { allowEmbed: true }), 404, 'NOT_FOUND');
    const [row] = await rows(
      'SELECT allow_embed FROM published_dashboards WHERE public_id = ?',
      board.publicId,
    );
    expect(row).toEqual({ allow_embed: 0 });
  });
});

describe('the States table: embed sessions and allowEmbed', () => {
  it('403 EMBED_DISABLED while false, 200 once true, 403 again when switched off', async () => {
    const sid = await session();
    expectError(await load(board.publicId, sid), 403, 'EMBED_DISABLED');
    await setEmbed(acme, board.publicId, { allowEmbed: true });
    expect((await load(board.publicId, sid)).status).toBe(200);
    await setEmbed(acme, board.publicId, { allowEmbed: false });
    expectError(await load(board.publicId, sid), 403, 'EMBED_DISABLED');
  });

  it('creator-mode sessions are not affected', async () => {
    const sid = await session({ creatorMode: true, embedTenantName: 'creators' });
    expect((await load(board.publicId, sid)).status).toBe(200);
  });

  it('dashboards shared with all embed users are not affected', async () => {
    const sid = await session();
    await setEmbed(acme, board.publicId, { allEmbedUsers: true });
    expect((await load(board.publicId, sid)).status).toBe(200);
    await setEmbed(acme, board.publicId, { allEmbedUsers: false });
    expectError(await load(board.publicId, sid), 403, 'EMBED_DISABLED');
  });
});

describe('GET /api/v1/embed/dashboard/{publicId}', () => {
  beforeAll(async () => {
    await setEmbed(acme, board.publicId, { allowEmbed: true });
  });

  it("answers the published dashboard, the viewer and the effective settings; never the viewer's secrets", async () => {
    await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name: 'vip' } });
    await api('POST', '/api/v1/user-attributes', {
      auth: acme.admin,
      body: { name: 'region', type: 'string' },
    });
    const sid = await session({
      email: 'secret-email@example.com',
      userProfile: { displayName: 'Viv Iewer', picture: 'https://cdn.example.com/v.png' },
      securityContext: { rowFilter: 'secret-row-filter' },
      groups: ['vip'],
      userAttributes: [{ name: 'region', value: 'secret-region' }],
    });
    const res = await load(board.publicId, sid);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      id: board.id,
      publicId: board.publicId,
      deploymentId: acme.deployments[0],
      allowEmbed: true,
      allEmbedUsers: false,
      versionNumber: 1,
      title: 'Revenue board',
      config: {
        kind: 'CLASSIC',
        title: 'Revenue',
        widgets: [expect.objectContaining({ id: 'w1', type: 'TEXT' })],
      },
      reportSnapshots: [],
      viewer: { displayName: 'Viv Iewer', picture: 'https://cdn.example.com/v.png', initials: 'VI' },
      settings: { showDashboardChat: false },
    });
    const text = JSON.stringify(res.body);
    for (const secret of ['secret-row-filter', 'secret-region', 'secret-email', 'securityContext', 'vip']) {
      expect(text).not.toContain(secret);
    }
  });

  it('shows each viewer only their own face, across tenants', async () => {
    const a = await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId: 'same-id',
      embedTenantName: 'tenant-aa',
      userProfile: { displayName: 'Tenant A' },
    });
    const b = await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId: 'same-id',
      embedTenantName: 'tenant-bb',
      userProfile: { displayName: 'Tenant B' },
    });
    expect((await load(board.publicId, a)).body.viewer.displayName).toBe('Tenant A');
    expect((await load(board.publicId, b)).body.viewer.displayName).toBe('Tenant B');
    expect(JSON.stringify((await load(board.publicId, a)).body)).not.toContain('Tenant B');
  });

  it('falls back to initials of the id when there is no display name', async () => {
    const sid = await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId: 'jane.doe@example.com',
    });
    expect((await load(board.publicId, sid)).body.viewer).toEqual({
      displayName: null,
      picture: null,
      initials: 'JD',
    });
    const single = await mintOk(acme.key, { deploymentId: acme.deployments[0], externalId: 'zed' });
    expect((await load(board.publicId, single)).body.viewer.initials).toBe('Z');
  });

  it('applies showDashboardChat: the session wins, else the account toggle (off unless turned on)', async () => {
    const dep = acme.deployments[0];
    const omitted = await mintOk(acme.key, { deploymentId: dep, externalId: 'chat' });
    const forcedOff = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'chat',
      settings: { showDashboardChat: false },
    });
    const forcedOn = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'chat',
      settings: { showDashboardChat: true },
    });
    // An account provisioned without the toggle has the chat off.
    expect((await load(board.publicId, omitted)).body.settings).toMatchObject({ showDashboardChat: false });
    expect((await load(board.publicId, forcedOn)).body.settings).toMatchObject({ showDashboardChat: true });
    await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { showDashboardChat: true },
    });
    expect((await load(board.publicId, omitted)).body.settings).toMatchObject({ showDashboardChat: true });
    expect((await load(board.publicId, forcedOff)).body.settings).toMatchObject({ showDashboardChat: false });
    await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { showDashboardChat: false },
    });
  });

  it("answers 404 outside the session's deployment and account", async () => {
    await setEmbed(acme, stagingBoard.publicId, { allowEmbed: true, allEmbedUsers: true });
    await setEmbed(other, otherBoard.publicId, { allowEmbed: true, allEmbedUsers: true });
    const sid = await session();
    expectError(await load(stagingBoard.publicId, sid), 404, 'NOT_FOUND');
    expectError(await load(otherBoard.publicId, sid), 404, 'NOT_FOUND');
    expectError(await load('unknown-public-id', sid), 404, 'NOT_FOUND');
    // A session of deployment 2 loads deployment 2's dashboard.
    const staging = await mintOk(acme.key, { deploymentId: acme.deployments[1], externalId: 'viewer-1' });
    expect((await load(stagingBoard.publicId, staging)).status).toBe(200);
    expectError(await load(board.publicId, staging), 404, 'NOT_FOUND');
  });
});
