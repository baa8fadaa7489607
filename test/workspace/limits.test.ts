import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { base, count, draft, report, workbook } from './helpers';

let acme: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
});

/** `{"a":{"a":…1…}}` nested `levels` deep, as JSON text (built without recursion). */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels - 1)}{"a":1}${'}'.repeat(levels - 1)}`;
const nested = (levels: number) => JSON.parse(nestedText(levels));

const send = (method: string, path: string, rawBody: string) =>
  api(method, `${base(d)}${path}`, {
    auth: acme.member,
    rawBody,
    headers: { 'content-type': 'application/json' },
  });

const storedDraft = async (id: number) =>
  (
    await env.DB.prepare('SELECT dashboard_draft FROM workbooks WHERE item_id = ?')
      .bind(id)
      .first<{ dashboard_draft: string | null }>()
  )?.dashboard_draft ?? null;

describe('bounded JSON of workbooks', () => {
  it('refuses `meta` nested 10,000 levels (400) and stores nothing; the workspace still lists', async () => {
    const before = await count('SELECT 1 FROM workspace_items WHERE deployment_id = ?', d);
    const res = await send('POST', '/workbooks', `{"name":"deep","meta":${nestedText(10_000)}}`);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(await count('SELECT 1 FROM workspace_items WHERE deployment_id = ?', d)).toBe(before);
    const list = await api('GET', `${base(d)}/workspace`, { auth: acme.member });
    expect(list.status).toBe(200);
  });

  it('refuses `meta` deeper than 16 levels or larger than 64 KiB, naming the field', async () => {
    const wb = await workbook(acme.member, d, { name: 'bounded', meta: nested(16) });
    expect(wb.meta).toEqual(nested(16));
    for (const meta of [nested(17), { big: 'x'.repeat(64 * 1024) }]) {
      const res = await api('PUT', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member, body: { meta } });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe('meta');
    }
    const created = await api('POST', `${base(d)}/workbooks`, {
      auth: acme.member,
      body: { name: 'x', calculatedFields: nested(17) },
    });
    expectError(created, 400, 'VALIDATION_FAILED');
    expect(created.body.details[0].path).toBe('calculatedFields');
    const row = await env.DB.prepare('SELECT meta FROM workbooks WHERE item_id = ?')
      .bind(wb.id)
      .first<{ meta: string }>();
    expect(JSON.parse(row?.meta ?? '')).toEqual(nested(16));
  });
});

describe('bounded JSON of dashboards', () => {
  it('refuses a widget `config` nested 1,000 levels (400); nothing stored; publish still works', async () => {
    const wb = await workbook(acme.member, d);
    expect(
      (
        await api('PUT', `${base(d)}/workbooks/${wb.id}/dashboard`, {
          auth: acme.member,
          body: { dashboardDraft: draft(1) },
        })
      ).status,
    ).toBe(200);
    const widget = `{"id":"w","type":"CHART","position":{"x":0,"y":0,"w":1,"h":1},"config":${nestedText(1000)}}`;
    const res = await send(
      'PUT',
      `/workbooks/${wb.id}/dashboard`,
      `{"dashboardDraft":{"widgets":[${widget}]}}`,
    );
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(JSON.parse((await storedDraft(wb.id)) ?? 'null')).toEqual(draft(1));
    const published = await api('POST', `${base(d)}/workbooks/${wb.id}/publish`, { auth: acme.member });
    expect(published.status).toBe(200);
  });

  it.each([
    [{ widgets: [{ ...draft(1).widgets[0], config: nested(13) }] }, 'dashboardDraft.widgets.0.config'],
    [{ widgets: [{ ...draft(1).widgets[0], style: nested(7) }] }, 'dashboardDraft.widgets.0.style'],
    [
      { widgets: [{ ...draft(1).widgets[0], config: { t: 'x'.repeat(32 * 1024) } }] },
      'dashboardDraft.widgets.0.config',
    ],
    [{ settings: nested(13) }, 'dashboardDraft.settings'],
    [draft(201), 'dashboardDraft.widgets'],
    [
      { app: { files: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, ''])) } },
      'dashboardDraft.app.files',
    ],
    [{ app: { html: 'h'.repeat(513 * 1024) } }, 'dashboardDraft'],
  ])('refuses an oversized draft (%#) naming %s, storing nothing', async (config, path) => {
    const wb = await workbook(acme.member, d);
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}/dashboard`, {
      auth: acme.member,
      body: { dashboardDraft: config },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((x: { path: string }) => x.path)).toContain(path);
    expect(await storedDraft(wb.id)).toBeNull();
  });

  it('takes 200 widgets', async () => {
    const wb = await workbook(acme.member, d);
    const res = await api('PUT', `${base(d)}/workbooks/${wb.id}/dashboard`, {
      auth: acme.member,
      body: { dashboardDraft: draft(200) },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse((await storedDraft(wb.id)) ?? 'null').widgets).toHaveLength(200);
  });
});

describe('bounded report content', () => {
  it.each([
    [{ meta: nested(13) }, 'meta'],
    [{ preferences: { columnFormats: nested(9) } }, 'preferences.columnFormats'],
    [{ spec: 'é'.repeat(100_001) }, 'spec'],
    [{ sqlQuery: 's'.repeat(200_001) }, 'sqlQuery'],
  ])('refuses %# naming %s, storing nothing', async (body, path) => {
    const r = await report(acme.member, d, { name: 'r', title: 'kept' });
    const res = await api('PUT', `${base(d)}/reports/${r.id}`, { auth: acme.member, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe(path);
    const row = await env.DB.prepare('SELECT version_number, title FROM reports WHERE item_id = ?')
      .bind(r.id)
      .first();
    expect(row).toEqual({ version_number: 1, title: 'kept' });
  });

  it('refuses add-in fields whose JSON passes their limit, though each member keeps its own (400, not 500)', async () => {
    const controls = '\u0001'.repeat(255);
    const members = Array.from({ length: 200 }, () => controls);
    const before = await count('SELECT 1 FROM workspace_items WHERE deployment_id = ?', d);
    const pivot = await api('POST', `${base(d)}/reports`, {
      auth: acme.member,
      body: {
        name: 'wide',
        pivotItems: { columns: members, rows: members, measures: [], filters: [] },
      },
    });
    expectError(pivot, 400, 'VALIDATION_FAILED');
    expect(pivot.body.details[0].path).toBe('pivotItems');
    const chunks = Array.from({ length: 2000 }, (_, i) => ({ from: i, hash: controls.slice(0, 64) }));
    const checksum = await api('POST', `${base(d)}/reports`, {
      auth: acme.member,
      body: { name: 'sums', resultChecksum: { v: 1, chunks } },
    });
    expectError(checksum, 400, 'VALIDATION_FAILED');
    expect(checksum.body.details[0].path).toBe('resultChecksum');
    expect(await count('SELECT 1 FROM workspace_items WHERE deployment_id = ?', d)).toBe(before);
  });
});

describe('workspace search', () => {
  it('refuses a search with a control character (400), which the full-text index cannot take', async () => {
    for (const search of ['a%00b', '%00%00%00', 'ab%01c']) {
      expectError(await api('GET', `${base(d)}/workspace?search=${search}`, { auth: acme.member }), 400);
    }
    expect((await api('GET', `${base(d)}/workspace?search=abc`, { auth: acme.member })).status).toBe(200);
  });
});

describe('theme values that reach CSS', () => {
  const put = (wbId: number, theme: unknown) =>
    api('PUT', `${base(d)}/workbooks/${wbId}/dashboard`, {
      auth: acme.member,
      body: { dashboardDraft: { theme } },
    });

  it('accepts colours, lengths, quoted font families and nulls', async () => {
    const wb = await workbook(acme.member, d);
    const theme = {
      backgroundColor: 'rgba(255, 255, 255, 0.5)',
      primaryColor: '#4338caff',
      fontFamily: '"Inter Display", Arial, sans-serif',
      themeId: 'dark-2',
      dashboard: { backgroundColor: 'hsl(210 40% 98%)', padding: '8px 16px' },
      widgets: {
        margin: '4',
        padding: null,
        border: { color: 'transparent', radius: '0.5rem', style: 'dashed', width: '1px' },
        text: {
          codeFontFamily: "'Fira Code', monospace",
          color: '#abc',
          fontFamily: null,
          secondaryColor: 'gray',
        },
        title: { color: '#111', fontFamily: 'Inter', fontSize: '1.25em', fontWeight: '600' },
      },
    };
    const res = await put(wb.id, theme);
    expect(res.status).toBe(200);
    expect(JSON.parse((await storedDraft(wb.id)) ?? 'null').theme).toEqual(theme);
  });

  it.each([
    [{ fontFamily: '"Inter' }, 'dashboardDraft.theme.fontFamily'],
    [{ fontFamily: "Inter', x" }, 'dashboardDraft.theme.fontFamily'],
    [{ fontFamily: 'x;}</style><script>' }, 'dashboardDraft.theme.fontFamily'],
    [{ fontFamily: 'a\\"b' }, 'dashboardDraft.theme.fontFamily'],
    [{ backgroundColor: 'url(javascript:x)' }, 'dashboardDraft.theme.backgroundColor'],
    [{ primaryColor: 'red;color:blue' }, 'dashboardDraft.theme.primaryColor'],
    [{ primaryColor: 'rgb(1,2,calc(3))' }, 'dashboardDraft.theme.primaryColor'],
    [{ dashboard: { padding: '8px}' } }, 'dashboardDraft.theme.dashboard.padding'],
    [{ widgets: { border: { radius: 'expression(1)' } } }, 'dashboardDraft.theme.widgets.border.radius'],
    [{ widgets: { border: { style: 'solid;' } } }, 'dashboardDraft.theme.widgets.border.style'],
    [{ widgets: { title: { fontSize: '12px<' } } }, 'dashboardDraft.theme.widgets.title.fontSize'],
    [{ widgets: { title: { fontWeight: 'heavy' } } }, 'dashboardDraft.theme.widgets.title.fontWeight'],
    [{ themeId: 'a b' }, 'dashboardDraft.theme.themeId'],
  ])('refuses %j (400) and stores nothing', async (theme, path) => {
    const wb = await workbook(acme.member, d);
    const res = await put(wb.id, theme);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe(path);
    expect(await storedDraft(wb.id)).toBeNull();
  });
});

describe('publishing what was stored before the limits', () => {
  it('answers 400 (not 500) for a stored draft too deep for SQLite’s JSON functions, storing nothing', async () => {
    const wb = await workbook(acme.member, d);
    await env.DB.prepare('UPDATE workbooks SET dashboard_draft = ? WHERE item_id = ?')
      .bind(`{"widgets":[{"config":${nestedText(1100)}}]}`, wb.id)
      .run();
    const res = await api('POST', `${base(d)}/workbooks/${wb.id}/publish`, { auth: acme.member });
    expectError(res, 400, 'BAD_REQUEST');
    expect(res.body.details[0].path).toBe('dashboardDraft');
    expect(await count('SELECT 1 FROM published_dashboards WHERE workbook_id = ?', wb.id)).toBe(0);
  });
});
