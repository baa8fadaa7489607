import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectCube } from '../cube/cube-shape';
import { expectError, OPERATOR, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { routedDb } from '../helpers/shards';

// Every answer of Cube's operations is held to Cube's response schema too.
holdAnswersToCube();

const PATH = '/api/v1/app-config';

const DEFAULTS = {
  appTheme: null,
  applyThemeGlobally: false,
  creatorMode: null,
  embedding: { showDashboardChat: false },
  restrictDataDownload: false,
  sheetsAgentChatEnabled: false,
  sheetsUi: null,
  timezoneSettings: null,
};

let world: World;
beforeAll(async () => {
  world = await seedWorld();
});

const storedConfig = async (accountId: number) => {
  const row = await routedDb
    .prepare('SELECT app_config FROM account_settings WHERE account_id = ?')
    .bind(accountId)
    .first<{ app_config: string }>();
  return row ? JSON.parse(row.app_config) : null;
};

const accountChat = async (accountId: number) =>
  (await api('GET', `/admin/v1/accounts/${accountId}`, { auth: OPERATOR })).body.showDashboardChat;

describe('GET /api/v1/app-config', () => {
  it('answers the defaults, with Cube’s required fields, to every credential of the account', async () => {
    const { acme } = world;
    for (const auth of [acme.admin, acme.member, acme.key, acme.scopedKey]) {
      const res = await api('GET', PATH, { auth });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual(DEFAULTS);
      expectCube(res.body, {
        applyThemeGlobally: 'boolean',
        restrictDataDownload: 'boolean',
        sheetsAgentChatEnabled: 'boolean',
      });
    }
    expectError(await api('GET', PATH), 401);
  });

  it('answers the embedded chat’s account-wide default the operator provisioned', async () => {
    const { acme } = world;
    const set = await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { showDashboardChat: true },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await api('GET', PATH, { auth: acme.member })).body.embedding).toEqual({
      showDashboardChat: true,
    });
    await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { showDashboardChat: false },
    });
  });
});

describe('PATCH /api/v1/app-config', () => {
  it('merges a patch into the config: omitted fields keep, objects merge, arrays replace, null resets', async () => {
    const { acme } = world;
    const theme = await api('PATCH', PATH, {
      auth: acme.admin,
      body: {
        appTheme: {
          palette: { accent: { color: '#123456' }, contrastLevel: 30, surfaceMode: 'tinted' },
          logoUrl: 'https://cdn.example.com/logo.svg',
          typography: {
            fonts: [
              { id: 'inter', url: 'https://fonts.example.com/inter.woff2', format: 'woff2', family: 'Inter' },
            ],
            body: { fontRef: 'inter', fontWeight: 400 },
          },
        },
        restrictDataDownload: true,
      },
    });
    expect(theme.status, JSON.stringify(theme.body)).toBe(200);
    expect(theme.body).toEqual({
      ...DEFAULTS,
      restrictDataDownload: true,
      appTheme: {
        palette: { accent: { color: '#123456' }, contrastLevel: 30, surfaceMode: 'tinted' },
        logoUrl: 'https://cdn.example.com/logo.svg',
        // Cube requires the (deprecated) schemes: filled from the palette and the logo.
        light: {
          accentColor: '#123456',
          backgroundColor: '#f4f5f7',
          foregroundColor: '#1f2430',
          contrast: 30,
          logoUrl: 'https://cdn.example.com/logo.svg',
        },
        dark: {
          accentColor: '#123456',
          backgroundColor: '#111827',
          foregroundColor: '#f9fafb',
          contrast: 30,
          logoUrl: 'https://cdn.example.com/logo.svg',
        },
        typography: {
          fonts: [
            { id: 'inter', url: 'https://fonts.example.com/inter.woff2', format: 'woff2', family: 'Inter' },
          ],
          body: { fontRef: 'inter', fontWeight: 400 },
          heading: { fontRef: '', fontWeight: 700 },
        },
      },
    });
    expectCube(theme.body.appTheme, {
      palette: 'object',
      logoUrl: 'string',
      light: 'object',
      dark: 'object',
    });

    const merged = await api('PATCH', PATH, {
      auth: acme.admin,
      body: {
        appTheme: {
          palette: { accent: { hue: 200 }, contrastLevel: null },
          light: { backgroundColor: '#fafafa' },
          typography: { fonts: [] },
        },
        timezoneSettings: { enabled: true, timezone: 'asia/tokyo' },
        embedding: { locale: 'es-es', timezone: 'Europe/Kyiv' },
      },
    });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const t = merged.body.appTheme;
    expect(t.palette).toEqual({ accent: { color: '#123456', hue: 200 }, surfaceMode: 'tinted' });
    expect(t.logoUrl).toBe('https://cdn.example.com/logo.svg');
    expect(t.light).toMatchObject({ backgroundColor: '#fafafa', accentColor: '#123456', contrast: 50 });
    expect(t.typography).toEqual({
      fonts: [],
      body: { fontRef: 'inter', fontWeight: 400 },
      heading: { fontRef: '', fontWeight: 700 },
    });
    expect(merged.body.restrictDataDownload).toBe(true);
    // Zones and locales are stored in their canonical spelling; a zone by the name sent, not the
    // older link the runtime resolves it to (Europe/Kiev).
    expect(merged.body.timezoneSettings).toEqual({ enabled: true, timezone: 'Asia/Tokyo' });
    expect(merged.body.embedding).toEqual({
      locale: 'es-ES',
      timezone: 'Europe/Kyiv',
      showDashboardChat: false,
    });

    const reset = await api('PATCH', PATH, {
      auth: acme.admin,
      body: { appTheme: null, restrictDataDownload: null, embedding: { timezone: null } },
    });
    expect(reset.status, JSON.stringify(reset.body)).toBe(200);
    expect(reset.body).toEqual({
      ...DEFAULTS,
      timezoneSettings: { enabled: true, timezone: 'Asia/Tokyo' },
      embedding: { locale: 'es-ES', showDashboardChat: false },
    });
    // What is stored is the merged config, without nulls.
    expect(await storedConfig(acme.accountId)).toEqual({
      timezoneSettings: { enabled: true, timezone: 'Asia/Tokyo' },
      embedding: { locale: 'es-ES' },
    });
    // No body changes nothing.
    const none = await api('PATCH', PATH, { auth: acme.admin });
    expect(none.status).toBe(200);
    expect(none.body).toEqual(reset.body);
    expect((await api('GET', PATH, { auth: acme.member })).body).toEqual(reset.body);
  });

  it('writes the embedded chat’s default to the account; null (or a null embedding) turns it off', async () => {
    const { acme } = world;
    const on = await api('PATCH', PATH, {
      auth: acme.admin,
      body: { embedding: { showDashboardChat: true } },
    });
    expect(on.body.embedding.showDashboardChat).toBe(true);
    expect(await accountChat(acme.accountId)).toBe(true);
    expect((await storedConfig(acme.accountId)).embedding).toEqual({ locale: 'es-ES' });
    const kept = await api('PATCH', PATH, { auth: acme.admin, body: { embedding: { allowAi: false } } });
    expect(kept.body.embedding).toEqual({ locale: 'es-ES', allowAi: false, showDashboardChat: true });
    const off = await api('PATCH', PATH, { auth: acme.admin, body: { embedding: null } });
    expect(off.body.embedding).toEqual({ showDashboardChat: false });
    expect(await accountChat(acme.accountId)).toBe(false);
    await api('PATCH', PATH, { auth: acme.admin, body: { embedding: { showDashboardChat: true } } });
    const nulled = await api('PATCH', PATH, {
      auth: acme.admin,
      body: { embedding: { showDashboardChat: null } },
    });
    expect(nulled.body.embedding).toEqual({ showDashboardChat: false });
    expect(await accountChat(acme.accountId)).toBe(false);
  });

  it('refuses values out of bounds or of the wrong kind with a 400 naming the field, and changes nothing', async () => {
    const { other } = world;
    const font = { id: 'f', url: 'https://fonts.example.com/f.woff2', format: 'woff2' };
    const cases: [unknown, string][] = [
      [{ appTheme: { palette: { accent: { color: 'red' } } } }, 'appTheme.palette.accent.color'],
      [{ appTheme: { palette: { accent: { color: '#12345' } } } }, 'appTheme.palette.accent.color'],
      [{ appTheme: { palette: { accent: { hue: 361 } } } }, 'appTheme.palette.accent.hue'],
      [{ appTheme: { palette: { contrastLevel: -1 } } }, 'appTheme.palette.contrastLevel'],
      [{ appTheme: { palette: { surfaceMode: 'bright' } } }, 'appTheme.palette.surfaceMode'],
      [{ appTheme: { logoUrl: 'http://cdn.example.com/logo.svg' } }, 'appTheme.logoUrl'],
      [{ appTheme: { logoUrl: `https://cdn.example.com/${'a'.repeat(2048)}` } }, 'appTheme.logoUrl'],
      [{ appTheme: { light: { foregroundColor: 'x;}</style>' } } }, 'appTheme.light.foregroundColor'],
      [
        { appTheme: { typography: { fonts: Array.from({ length: 21 }, () => font) } } },
        'appTheme.typography.fonts',
      ],
      [
        { appTheme: { typography: { fonts: [{ ...font, format: 'svg' }] } } },
        'appTheme.typography.fonts.0.format',
      ],
      [
        { appTheme: { typography: { fonts: [{ ...font, family: 'Inter"; x' }] } } },
        'appTheme.typography.fonts.0.family',
      ],
      [{ appTheme: { typography: { body: { fontWeight: 950 } } } }, 'appTheme.typography.body.fontWeight'],
      [{ appTheme: { colour: '#fff' } }, 'appTheme.colour'],
      [{ creatorMode: { workspaceTitle: 'x'.repeat(256) } }, 'creatorMode.workspaceTitle'],
      [
        {
          creatorMode: { localizedTitles: Array.from({ length: 51 }, () => ({ locale: 'en', value: 'x' })) },
        },
        'creatorMode.localizedTitles',
      ],
      [{ embedding: { timezone: '+02:00' } }, 'embedding.timezone'],
      [{ embedding: { locale: 'not a locale!' } }, 'embedding.locale'],
      [{ timezoneSettings: { timezone: 'Mars/Olympus' } }, 'timezoneSettings.timezone'],
      [{ timezoneSettings: { enabled: 'yes' } }, 'timezoneSettings.enabled'],
      [{ restrictDataDownload: 'true' }, 'restrictDataDownload'],
      [{ sheetsUi: { showAppliedFilters: 1 } }, 'sheetsUi.showAppliedFilters'],
      [{ theme: {} }, 'theme'],
    ];
    for (const [body, path] of cases) {
      const res = await api('PATCH', PATH, { auth: other.admin, body });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(
        res.body.details.map((d: { path: string }) => d.path),
        JSON.stringify(body).slice(0, 200),
      ).toEqual([path]);
    }
    expect(await storedConfig(other.accountId)).toBeNull();
    expect((await api('GET', PATH, { auth: other.admin })).body).toEqual(DEFAULTS);
  });

  it('is an admin’s change: a member gets 403, a key scoped to deployments 403 KEY_SCOPE, an unscoped key may', async () => {
    const { other } = world;
    const body = { restrictDataDownload: true };
    expectError(await api('PATCH', PATH, { auth: other.member, body }), 403, 'FORBIDDEN');
    expectError(await api('PATCH', PATH, { auth: other.scopedKey, body }), 403, 'KEY_SCOPE');
    expectError(await api('PATCH', PATH, { body }), 401);
    expect(await storedConfig(other.accountId)).toBeNull();
    const byKey = await api('PATCH', PATH, { auth: other.key, body: { sheetsAgentChatEnabled: true } });
    expect(byKey.status, JSON.stringify(byKey.body)).toBe(200);
    expect(byKey.body).toEqual({ ...DEFAULTS, sheetsAgentChatEnabled: true });
  });

  it('keeps each account’s config to itself', async () => {
    const { acme, other } = world;
    const mine = (await api('GET', PATH, { auth: acme.admin })).body;
    await api('PATCH', PATH, {
      auth: other.admin,
      body: { timezoneSettings: { enabled: true, timezone: 'America/New_York' }, applyThemeGlobally: true },
    });
    expect((await api('GET', PATH, { auth: acme.admin })).body).toEqual(mine);
    expect((await api('GET', PATH, { auth: other.member })).body).toEqual({
      ...DEFAULTS,
      sheetsAgentChatEnabled: true,
      applyThemeGlobally: true,
      timezoneSettings: { enabled: true, timezone: 'America/New_York' },
    });
    expect((await storedConfig(acme.accountId)).timezoneSettings).toEqual({
      enabled: true,
      timezone: 'Asia/Tokyo',
    });
  });
});
