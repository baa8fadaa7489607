import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectCube } from '../cube/cube-shape';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform, resetPlatform } from '../helpers/platform';
import { routedDb } from '../helpers/shards';

// Every answer of Cube's operations is held to Cube's response schema too.
holdAnswersToCube();

const PATH = '/api/v1/tenant/settings';

const DEFAULTS = {
  auditLogEnabled: false,
  auditLogEnabledCurrent: false,
  auditLogEnabledTimestamp: 0,
  hasSupportAccess: false,
  maintenanceWindowDay: 'sunday',
  maintenanceWindowEnabled: false,
  maintenanceWindowTime: '00:00',
  oidcEnabled: false,
  useAIBIUserInterface: false,
};

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

const stored = (accountId: number) =>
  routedDb
    .prepare('SELECT * FROM account_settings WHERE account_id = ?')
    .bind(accountId)
    .first<Record<string, unknown>>();

describe('GET /api/v1/tenant/settings', () => {
  it('answers the defaults for an account that never set any, to every credential of the account', async () => {
    const { acme } = world;
    for (const auth of [acme.admin, acme.member, acme.key, acme.scopedKey, { bearer: acme.key.apiKey }]) {
      const res = await api('GET', PATH, { auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual(DEFAULTS);
      // Every field Cube's TenantSettings requires, with Cube's type.
      expectCube(res.body, {
        auditLogEnabled: 'boolean',
        auditLogEnabledCurrent: 'boolean',
        auditLogEnabledTimestamp: 'integer',
        hasSupportAccess: 'boolean',
        useAIBIUserInterface: 'boolean',
        maintenanceWindowEnabled: 'boolean',
        maintenanceWindowDay: 'string',
        maintenanceWindowTime: 'string',
        oidcEnabled: 'boolean',
      });
    }
    expect(await stored(acme.accountId)).toBeNull();
  });

  it('needs a credential', async () => {
    expectError(await api('GET', PATH), 401);
  });
});

describe('PUT /api/v1/tenant/settings', () => {
  it('changes only the fields sent; omitted and null fields keep their values', async () => {
    const { acme } = world;
    const first = await api('PUT', PATH, {
      auth: acme.admin,
      body: {
        maintenanceWindowEnabled: true,
        maintenanceWindowDay: 'Wednesday',
        maintenanceWindowTime: '03:30',
      },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({
      ...DEFAULTS,
      maintenanceWindowEnabled: true,
      maintenanceWindowDay: 'wednesday',
      maintenanceWindowTime: '03:30',
    });
    const second = await api('PUT', PATH, {
      auth: acme.admin,
      body: { oidcEnabled: true, maintenanceWindowDay: null, maintenanceWindowEnabled: null },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(second.body).toEqual({ ...first.body, oidcEnabled: true });
    // No body changes nothing and answers the settings.
    const none = await api('PUT', PATH, { auth: acme.admin });
    expect(none.status).toBe(200);
    expect(none.body).toEqual(second.body);
    expect((await api('GET', PATH, { auth: acme.member })).body).toEqual(second.body);
    expect(await stored(acme.accountId)).toMatchObject({
      maintenance_window_enabled: 1,
      maintenance_window_day: 'wednesday',
      maintenance_window_time: '03:30',
      oidc_enabled: 1,
      audit_log_enabled: 0,
    });
  });

  it('stamps auditLogEnabledTimestamp when auditLogEnabled changes value, and only then', async () => {
    const { acme } = world;
    try {
      platform.clock = clockAt('2026-03-01T10:00:00.000Z');
      const on = await api('PUT', PATH, { auth: acme.admin, body: { auditLogEnabled: true } });
      expect(on.body).toMatchObject({
        auditLogEnabled: true,
        auditLogEnabledCurrent: true,
        auditLogEnabledTimestamp: Date.parse('2026-03-01T10:00:00.000Z'),
      });
      platform.clock = clockAt('2026-03-02T10:00:00.000Z');
      const again = await api('PUT', PATH, {
        auth: acme.admin,
        body: { auditLogEnabled: true, hasSupportAccess: true },
      });
      expect(again.body).toMatchObject({
        auditLogEnabled: true,
        hasSupportAccess: true,
        auditLogEnabledTimestamp: Date.parse('2026-03-01T10:00:00.000Z'),
      });
      platform.clock = clockAt('2026-03-03T10:00:00.000Z');
      const off = await api('PUT', PATH, { auth: acme.admin, body: { auditLogEnabled: false } });
      expect(off.body).toMatchObject({
        auditLogEnabled: false,
        auditLogEnabledCurrent: false,
        auditLogEnabledTimestamp: Date.parse('2026-03-03T10:00:00.000Z'),
      });
      expect(await stored(acme.accountId)).toMatchObject({
        audit_log_changed_at: Date.parse('2026-03-03T10:00:00.000Z'),
        updated_at: '2026-03-03T10:00:00.000Z',
      });
    } finally {
      resetPlatform();
    }
  });

  it('refuses invalid fields with a 400 naming each, and stores nothing', async () => {
    const { other } = world;
    const cases: [unknown, string][] = [
      [{ auditLogEnabled: 'yes' }, 'auditLogEnabled'],
      [{ maintenanceWindowDay: 'funday' }, 'maintenanceWindowDay'],
      [{ maintenanceWindowDay: 'x'.repeat(100) }, 'maintenanceWindowDay'],
      [{ maintenanceWindowTime: '24:00' }, 'maintenanceWindowTime'],
      [{ maintenanceWindowTime: '3:30' }, 'maintenanceWindowTime'],
      [{ oidcEnabled: 1 }, 'oidcEnabled'],
      [{ auditLogEnabledTimestamp: 5 }, 'auditLogEnabledTimestamp'],
      [{ theme: 'dark' }, 'theme'],
    ];
    for (const [body, path] of cases) {
      const res = await api('PUT', PATH, { auth: other.admin, body });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(
        res.body.details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).toEqual([path]);
    }
    expectError(await api('PUT', PATH, { auth: other.admin, body: [] }), 400, 'VALIDATION_FAILED');
    expectError(
      await api('PUT', PATH, {
        auth: other.admin,
        rawBody: '{',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_JSON',
    );
    expect(await stored(other.accountId)).toBeNull();
  });

  it('is an admin’s change: a member gets 403, a key scoped to deployments 403 KEY_SCOPE, an unscoped key may', async () => {
    const { other } = world;
    expectError(
      await api('PUT', PATH, { auth: other.member, body: { oidcEnabled: true } }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await api('PUT', PATH, { auth: other.scopedKey, body: { oidcEnabled: true } }),
      403,
      'KEY_SCOPE',
    );
    expect(await stored(other.accountId)).toBeNull();
    const byKey = await api('PUT', PATH, {
      auth: { bearer: other.key.apiKey },
      body: { useAIBIUserInterface: true },
    });
    expect(byKey.status, JSON.stringify(byKey.body)).toBe(200);
    expect(byKey.body.useAIBIUserInterface).toBe(true);
    expectError(await api('PUT', PATH, { body: { oidcEnabled: true } }), 401);
  });

  it('keeps each account’s settings to itself', async () => {
    const { acme, other } = world;
    const before = (await api('GET', PATH, { auth: acme.admin })).body;
    await api('PUT', PATH, { auth: other.admin, body: { hasSupportAccess: false, oidcEnabled: true } });
    expect((await api('GET', PATH, { auth: acme.admin })).body).toEqual(before);
    const theirs = (await api('GET', PATH, { auth: other.member })).body;
    expect(theirs).toEqual({ ...DEFAULTS, useAIBIUserInterface: true, oidcEnabled: true });
    expect(theirs).not.toEqual(before);
  });
});
