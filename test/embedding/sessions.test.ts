import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { signSession } from '../../src/embedding/session-token';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { type Auth, api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import {
  claimsOf,
  kvPayload,
  load,
  mintOk,
  publishDashboard,
  queries,
  roundTrips,
  rows,
  setEmbed,
} from './fixtures';

let acme: SeededAccount;
let other: SeededAccount;
let publicId: string;
let dep: number;

beforeAll(async () => {
  acme = await seedAccount({ embedSessionTtlSeconds: 600 });
  other = await seedAccount();
  dep = acme.deployments[0];
  publicId = (await publishDashboard(acme)).publicId;
  await setEmbed(acme, publicId, { allowEmbed: true });
});

const mintFor = (externalId: string, extra: Record<string, unknown> = {}) =>
  mintOk(acme.key, { deploymentId: dep, externalId, ...extra });
const revoke = (auth: Auth, sessionId: string) =>
  api('POST', '/api/v1/embed/session/revoke', { auth, body: { sessionId } });

describe('loading with a session', () => {
  it('takes the session from Authorization: Session or ?session=', async () => {
    const sid = await mintFor('loader', { userProfile: { displayName: 'Lo Ader' } });
    const viaHeader = await load(publicId, sid);
    expect(viaHeader.status, JSON.stringify(viaHeader.body)).toBe(200);
    const viaQuery = await api(
      'GET',
      `/api/v1/embed/dashboard/${publicId}?session=${encodeURIComponent(sid)}`,
    );
    expect(viaQuery.status).toBe(200);
    expect(viaQuery.body).toEqual(viaHeader.body);
    expect(viaHeader.body.viewer).toEqual({ displayName: 'Lo Ader', picture: null, initials: 'LA' });
  });

  it('costs one KV read and one D1 statement when KV has the session', async () => {
    const sid = await mintFor('cheap');
    const res = await load(publicId, sid);
    expect(res.status).toBe(200);
    expect(queries(res)).toBe(1);
    expect(roundTrips(res)).toBe(1);
  });

  it('refuses a missing session, a wrong scheme and API credentials with 401', async () => {
    expectError(await api('GET', `/api/v1/embed/dashboard/${publicId}`), 401, 'UNAUTHORIZED');
    expectError(
      await api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: acme.admin }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: acme.key }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('refuses forged and altered ids before any storage is read (SESSION_INVALID)', async () => {
    const sid = await mintFor('victim');
    const [header, payload, signature] = sid.split('.') as [string, string, string];
    const claims = claimsOf(sid);
    const forgedPayload = btoa(JSON.stringify({ ...claims, dep: acme.deployments[1] }))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    const flipped = signature.slice(0, -2) + (signature.endsWith('AA') ? 'BB' : 'AA');
    const noneAlg = `${btoa(JSON.stringify({ alg: 'none' })).replace(/=+$/, '')}.${payload}.`;
    const otherKey = await signSession(
      { SESSION_SIGNING_KEY: 'an-attacker-guessed-this-key-000000' },
      {
        sessionId: claims.jti,
        accountId: claims.acc,
        deploymentId: claims.dep,
        user: { kind: 'external', id: 1 },
        tenant: { id: claims.tid, name: claims.ten },
        creatorMode: true,
        settings: {},
        issuedAt: claims.iat,
        expiresAt: claims.exp,
      },
    );
    for (const bad of [
      'garbage',
      `${header}.${forgedPayload}.${signature}`,
      `${header}.${payload}.${flipped}`,
      noneAlg,
      otherKey,
      `${sid}x`,
      'a'.repeat(5000),
    ]) {
      const res = await load(publicId, bad);
      expectError(res, 401, 'SESSION_INVALID');
      expect(roundTrips(res)).toBe(0);
    }
  });

  it('refuses an expired session with SESSION_EXPIRED, before any storage is read', async () => {
    const start = Date.parse('2026-11-22T10:00:00.000Z');
    platform.clock = clockAt(start);
    const sid = await mintFor('short-lived');
    platform.clock = clockAt(start + 599_000);
    expect((await load(publicId, sid)).status).toBe(200);
    platform.clock = clockAt(start + 600_000);
    const res = await load(publicId, sid);
    expectError(res, 401, 'SESSION_EXPIRED');
    expect(roundTrips(res)).toBe(0);
  });

  it('keeps verifying sessions signed with the previous key during a rotation', async () => {
    const sid = await mintFor('rotated', { userProfile: { displayName: 'Ro Tated' } });
    const claims = claimsOf(sid);
    // The same session as if minted before the rotation, under the key now kept as PREVIOUS.
    const previous = await signSession(
      { SESSION_SIGNING_KEY: env.SESSION_SIGNING_KEY_PREVIOUS as string },
      {
        sessionId: claims.jti,
        accountId: claims.acc,
        deploymentId: claims.dep,
        user: { kind: 'external', id: Number(claims.sub.slice(2)) },
        tenant: { id: claims.tid, name: claims.ten },
        creatorMode: false,
        settings: {},
        issuedAt: claims.iat,
        expiresAt: claims.exp,
      },
    );
    expect(JSON.parse(atob(previous.split('.')[0] as string)).kid).not.toBe(
      JSON.parse(atob(sid.split('.')[0] as string)).kid,
    );
    const res = await load(publicId, previous);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.viewer.displayName).toBe('Ro Tated');
  });
});

describe('KV miss: the session is rebuilt from D1 and the token claims', () => {
  it('answers as if KV had it, and writes it back', async () => {
    const sid = await mintFor('roaming', {
      userProfile: { displayName: 'Ro Aming', picture: 'https://example.com/r.png' },
      securityContext: { secret: 'never-shown' },
      settings: { showDashboardChat: false },
    });
    const withKv = await load(publicId, sid);
    const stored = await kvPayload(sid);
    await env.SESSIONS.delete(`session:${claimsOf(sid).jti}`);
    expect(await kvPayload(sid)).toBeNull();
    const rebuilt = await load(publicId, sid);
    expect(rebuilt.status, JSON.stringify(rebuilt.body)).toBe(200);
    expect(rebuilt.body).toEqual(withKv.body);
    // The same state; the mint's write bookmark is not rebuilt (the rebuild read the primary).
    const { written, ...minted } = stored;
    expect(written.shard).toBe(0);
    expect(await kvPayload(sid)).toEqual(minted);
    // The next load is a KV hit again.
    expect(roundTrips(await load(publicId, sid))).toBe(1);
  });

  it('rebuilds an internal user session', async () => {
    const sid = await mintOk(acme.key, { deploymentId: dep, internalId: 'admin' });
    const before = await load(publicId, sid);
    await env.SESSIONS.delete(`session:${claimsOf(sid).jti}`);
    const after = await load(publicId, sid);
    expect(after.status).toBe(200);
    expect(after.body.viewer).toEqual(before.body.viewer);
    expect((await kvPayload(sid)).user.kind).toBe('internal');
  });

  it('refuses to rebuild a session whose user is gone (SESSION_INVALID)', async () => {
    const sid = await mintFor('vanishing');
    await env.SESSIONS.delete(`session:${claimsOf(sid).jti}`);
    await env.DB.prepare("DELETE FROM embed_users WHERE external_id = 'vanishing'").run();
    expectError(await load(publicId, sid), 401, 'SESSION_INVALID');
    expect(await kvPayload(sid)).toBeNull();
  });
});

describe('POST /api/v1/embed/session/revoke', () => {
  it('revokes: D1 record until expiry, KV entry deleted, loads answer SESSION_REVOKED', async () => {
    const sid = await mintFor('revoked-user');
    const claims = claimsOf(sid);
    expect((await load(publicId, sid)).status).toBe(200);
    const res = await revoke(acme.key, sid);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ revoked: true });
    expect(await kvPayload(sid)).toBeNull();
    expect(
      await rows(
        'SELECT session_id, account_id, expires_at FROM embed_session_revocations WHERE session_id = ?',
        claims.jti,
      ),
    ).toEqual([
      {
        session_id: claims.jti,
        account_id: acme.accountId,
        expires_at: new Date(claims.exp * 1000).toISOString(),
      },
    ]);
    expectError(await load(publicId, sid), 401, 'SESSION_REVOKED');
    // Repeating is harmless and says nothing more was revoked.
    expect((await revoke(acme.key, sid)).body).toEqual({ revoked: false });
  });

  it('a location whose KV still serves the old entry refuses the revoked session too', async () => {
    const sid = await mintFor('stale-location');
    const payload = await kvPayload(sid);
    await revoke(acme.key, sid);
    // KV is eventually consistent: another location may still hold the entry for up to 60 s.
    await env.SESSIONS.put(`session:${payload.sessionId}`, JSON.stringify(payload), { expirationTtl: 600 });
    expectError(await load(publicId, sid), 401, 'SESSION_REVOKED');
  });

  it('answers {revoked: false} for an expired session', async () => {
    const start = Date.parse('2026-11-22T12:00:00.000Z');
    platform.clock = clockAt(start);
    const sid = await mintFor('expired-revoke');
    platform.clock = clockAt(start + 3_600_000);
    expect((await revoke(acme.key, sid)).body).toEqual({ revoked: false });
    expect(
      await rows('SELECT * FROM embed_session_revocations WHERE session_id = ?', claimsOf(sid).jti),
    ).toEqual([]);
  });

  it('holds keys to their account and scope', async () => {
    const sid = await mintFor('guarded-revoke');
    const otherDep = await mintOk(acme.key, {
      deploymentId: acme.deployments[1],
      externalId: 'guarded-revoke',
    });
    expectError(await revoke(other.key, sid), 404, 'NOT_FOUND');
    expectError(await revoke(acme.scopedKey, otherDep), 403, 'KEY_SCOPE');
    expectError(await revoke(acme.key, 'not-a-session'), 404, 'NOT_FOUND');
    // As in Cube, an admin access token may revoke too; a non-admin may not.
    expectError(await revoke(acme.member, sid), 403, 'FORBIDDEN');
    expectError(await revoke(null, sid), 401, 'UNAUTHORIZED');
    expectError(await revoke({ apiKey: 'eb_ak_unknown' }, sid), 401, 'UNAUTHORIZED');
    expectError(await api('POST', '/api/v1/embed/session/revoke', { auth: acme.key, body: {} }), 400);
    expect((await load(publicId, sid)).status).toBe(200);
    expect((await revoke(acme.scopedKey, sid)).body).toEqual({ revoked: true });
  });
});
