import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { base, draft, folder, roundTrips, workbook } from './helpers';

let acme: SeededAccount;
let d: number;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
});

const put = (id: number, body: unknown) =>
  api('PUT', `${base(d)}/workbooks/${id}/dashboard`, { auth: acme.member, body });

const storedDraft = async (id: number) => {
  const row = await env.DB.prepare('SELECT dashboard_draft FROM workbooks WHERE item_id = ?')
    .bind(id)
    .first<{ dashboard_draft: string | null }>();
  return row?.dashboard_draft == null ? null : JSON.parse(row.dashboard_draft);
};

const position = { x: 0, y: 0, w: 4, h: 3 };
const border = { color: '#ccc', radius: '4px', style: 'solid', width: '1px' };
const titleStyle = { color: '#111', fontFamily: 'Inter', fontSize: '14px', fontWeight: '600' };

/** Every property of DashboardConfigInput, filled in. */
const complete = {
  kind: 'APP',
  title: 'Everything',
  description: 'All the properties',
  settings: { refresh: 60, filters: [{ member: 'a' }] },
  theme: {
    backgroundColor: '#fff',
    fontFamily: 'Inter',
    primaryColor: '#06c',
    themeId: 'light',
    dashboard: { backgroundColor: '#fafafa', padding: '8px' },
    controls: { backgroundColor: '#eee', padding: '4px', border, title: titleStyle },
    widgets: {
      backgroundColor: '#fff',
      margin: '4px',
      padding: '8px',
      border,
      text: { codeFontFamily: 'Mono', color: '#222', fontFamily: 'Inter', secondaryColor: '#666' },
      title: titleStyle,
    },
  },
  layout: {
    breakpoints: { lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 },
    cols: { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 },
    containerPadding: [10, 10],
    margin: [8, 8],
    rowHeight: 30,
  },
  widgets: [
    {
      id: 'chart-1',
      type: 'CHART',
      position,
      config: { title: 'Revenue', anything: { deep: [1, 2, 3] } },
      style: { border: 'none' },
      responsiveLayouts: { lg: position, md: { x: 1, y: 2, w: 3, h: 4 }, sm: null, xs: null, xxs: null },
    },
    { id: 'text-1', type: 'TEXT', position: { x: 4, y: 0, w: 2, h: 1 }, config: { text: 'Hello' } },
    { id: 'f', type: 'FILTER', position },
    { id: 'ai', type: 'AI', position },
    { id: 'tabs', type: 'TABS_CONTAINER', position },
    { id: 'grain', type: 'TIME_GRAIN', position },
  ],
  app: {
    entry: 'index.html',
    files: { 'index.html': '<div id=app></div>', 'main.js': 'console.log(1)' },
    html: '<html></html>',
    manifest: { dependencies: { react: '19.0.0' }, version: 2 },
  },
};

describe('PUT /workbooks/{id}/dashboard', () => {
  it('stores the whole DashboardConfigInput and answers the draft and the published config', async () => {
    const wb = await workbook(acme.member, d);
    platform.clock = clockAt('2032-01-01T00:00:00.000Z');
    const res = await put(wb.id, { dashboardDraft: complete });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ dashboardDraft: complete, dashboardPublished: null });
    expect(await storedDraft(wb.id)).toEqual(complete);
    expect(roundTrips(res)).toBe(2);
    const get = await api('GET', `${base(d)}/workbooks/${wb.id}/dashboard`, { auth: acme.admin });
    expect(get.status).toBe(200);
    expect(get.body).toEqual(res.body);
    expect(roundTrips(get)).toBe(2);
    const item = await api('GET', `${base(d)}/workbooks/${wb.id}`, { auth: acme.member });
    expect(item.body).toMatchObject({ dashboardDraft: complete, updatedAt: '2032-01-01T00:00:00.000Z' });
  });

  it('accepts Cube’s FIELD, PARENT, SPACER, DIVIDER and CONTAINER widgets, and gives id-less widgets ids', async () => {
    const wb = await workbook(acme.member, d);
    const at = (y: number) => ({ x: 0, y, w: 4, h: 1 });
    const widgets = [
      { type: 'FIELD', position: at(0), config: { label: 'Region', value: 'EMEA' } },
      { id: null, type: 'PARENT', position: at(1), config: { title: 'Group' } },
      { type: 'SPACER', position: at(2) },
      { id: 'divider-1', type: 'DIVIDER', position: at(3) },
      { type: 'DIVIDER', position: at(4) },
      { type: 'CONTAINER', position: at(5), config: { title: 'Box' } },
      { type: 'TIME_GRAIN', position: at(6) },
    ];
    const res = await put(wb.id, { dashboardDraft: { widgets } });
    expect(res.status).toBe(200);
    const ids = res.body.dashboardDraft.widgets.map((w: { id: string }) => w.id);
    expect(ids).toEqual([
      'field-1',
      'parent-1',
      'spacer-1',
      'divider-1',
      'divider-2',
      'container-1',
      'time-grain-1',
    ]);
    expect((await storedDraft(wb.id)).widgets.map((w: { id: string }) => w.id)).toEqual(ids);
    // The same request yields the same ids; a resent draft keeps them.
    const again = await put(wb.id, { dashboardDraft: { widgets } });
    expect(again.body.dashboardDraft.widgets.map((w: { id: string }) => w.id)).toEqual(ids);
    const resent = await put(wb.id, { dashboardDraft: res.body.dashboardDraft });
    expect(resent.body).toEqual(res.body);
  });

  it('accepts null for every property and an empty config', async () => {
    const wb = await workbook(acme.member, d);
    const nulls = {
      kind: null,
      title: null,
      description: null,
      settings: null,
      theme: { backgroundColor: null, dashboard: null, widgets: { border: null, text: { color: null } } },
      layout: {
        breakpoints: { lg: null },
        cols: null,
        containerPadding: null,
        margin: null,
        rowHeight: null,
      },
      widgets: [{ id: 'x', type: 'TEXT', position, config: null, style: null, responsiveLayouts: null }],
      app: { entry: null, files: null, html: null, manifest: { dependencies: null, version: null } },
    };
    expect((await put(wb.id, { dashboardDraft: nulls })).body.dashboardDraft).toEqual(nulls);
    expect((await put(wb.id, { dashboardDraft: {} })).body.dashboardDraft).toEqual({});
    expect((await put(wb.id, { dashboardDraft: { widgets: null } })).status).toBe(200);
  });

  it('clears the draft with dashboardDraft: null', async () => {
    const wb = await workbook(acme.member, d);
    await put(wb.id, { dashboardDraft: draft(2) });
    const res = await put(wb.id, { dashboardDraft: null });
    expect(res.body).toEqual({ dashboardDraft: null, dashboardPublished: null });
    expect(await storedDraft(wb.id)).toBeNull();
  });

  it('changes nothing without a body or without dashboardDraft', async () => {
    const wb = await workbook(acme.member, d);
    await put(wb.id, { dashboardDraft: draft(1) });
    const noBody = await api('PUT', `${base(d)}/workbooks/${wb.id}/dashboard`, { auth: acme.member });
    expect(noBody.status).toBe(200);
    expect(noBody.body.dashboardDraft).toEqual(draft(1));
    expect((await put(wb.id, {})).body.dashboardDraft).toEqual(draft(1));
    expect(await storedDraft(wb.id)).toEqual(draft(1));
  });

  it('accepts an entry of exactly 255 characters', async () => {
    const wb = await workbook(acme.member, d);
    const res = await put(wb.id, { dashboardDraft: { app: { entry: 'e'.repeat(255) } } });
    expect(res.status).toBe(200);
  });

  const widget = (over: Record<string, unknown>) => ({ id: 'w', type: 'CHART', position, ...over });
  it.each([
    [{ kind: 'BOARD' }, 'dashboardDraft.kind'],
    [{ kind: 'classic' }, 'dashboardDraft.kind'],
    [{ title: 5 }, 'dashboardDraft.title'],
    [{ settings: [] }, 'dashboardDraft.settings'],
    [{ settings: 'x' }, 'dashboardDraft.settings'],
    [{ widgets: {} }, 'dashboardDraft.widgets'],
    [{ widgets: [widget({ id: '' })] }, 'dashboardDraft.widgets.0.id'],
    [{ widgets: [widget({ id: 7 })] }, 'dashboardDraft.widgets.0.id'],
    [{ widgets: [widget({ type: undefined })] }, 'dashboardDraft.widgets.0.type'],
    [{ widgets: [widget({ type: 'MAP' })] }, 'dashboardDraft.widgets.0.type'],
    [{ widgets: [widget({ position: undefined })] }, 'dashboardDraft.widgets.0.position'],
    [{ widgets: [widget({ position: { x: 0, y: 0, w: 1 } })] }, 'dashboardDraft.widgets.0.position.h'],
    [
      { widgets: [widget({ position: { x: 0.5, y: 0, w: 1, h: 1 } })] },
      'dashboardDraft.widgets.0.position.x',
    ],
    [{ widgets: [widget({ position: { x: -1, y: 0, w: 1, h: 1 } })] }, 'dashboardDraft.widgets.0.position.x'],
    [
      { widgets: [widget({ position: { x: 0, y: '0', w: 1, h: 1 } })] },
      'dashboardDraft.widgets.0.position.y',
    ],
    [{ widgets: [widget({ position: { x: 0, y: 0, w: 0, h: 1 } })] }, 'dashboardDraft.widgets.0.position.w'],
    [
      { widgets: [widget({ position: { x: 0, y: 0, w: 1, h: 10001 } })] },
      'dashboardDraft.widgets.0.position.h',
    ],
    [{ widgets: [widget({ position: { ...position, z: 1 } })] }, 'dashboardDraft.widgets.0.position.z'],
    [{ widgets: [widget({}), widget({ id: 'x' }), widget({})] }, 'dashboardDraft.widgets.2.id'],
    [{ widgets: [widget({ config: [] })] }, 'dashboardDraft.widgets.0.config'],
    [{ widgets: [widget({ style: 'bold' })] }, 'dashboardDraft.widgets.0.style'],
    [
      { widgets: [widget({ responsiveLayouts: { lg: { x: 0 } } })] },
      'dashboardDraft.widgets.0.responsiveLayouts.lg.y',
    ],
    [
      { widgets: [widget({ responsiveLayouts: { xl: position } })] },
      'dashboardDraft.widgets.0.responsiveLayouts.xl',
    ],
    [{ widgets: [widget({ extra: true })] }, 'dashboardDraft.widgets.0.extra'],
    [{ layout: [] }, 'dashboardDraft.layout'],
    [{ theme: [] }, 'dashboardDraft.theme'],
    [{ widgets: [widget({ position: [] })] }, 'dashboardDraft.widgets.0.position'],
    [{ layout: { cols: { lg: 0 } } }, 'dashboardDraft.layout.cols.lg'],
    [{ layout: { breakpoints: { md: 'wide' } } }, 'dashboardDraft.layout.breakpoints.md'],
    [{ layout: { rowHeight: 1.5 } }, 'dashboardDraft.layout.rowHeight'],
    [{ layout: { margin: [1] } }, 'dashboardDraft.layout.margin'],
    [{ layout: { containerPadding: [1, 'a'] } }, 'dashboardDraft.layout.containerPadding.1'],
    [{ layout: { gap: 1 } }, 'dashboardDraft.layout.gap'],
    [{ theme: { primaryColor: 1 } }, 'dashboardDraft.theme.primaryColor'],
    [{ theme: { accent: 'red' } }, 'dashboardDraft.theme.accent'],
    [{ theme: { dashboard: { margin: '1px' } } }, 'dashboardDraft.theme.dashboard.margin'],
    [{ theme: { controls: { title: { fontSize: 12 } } } }, 'dashboardDraft.theme.controls.title.fontSize'],
    [{ theme: { widgets: { border: { color: true } } } }, 'dashboardDraft.theme.widgets.border.color'],
    [{ theme: { widgets: { text: { size: '1' } } } }, 'dashboardDraft.theme.widgets.text.size'],
    [{ app: { entry: 'e'.repeat(256) } }, 'dashboardDraft.app.entry'],
    [{ app: { files: { 'a.js': 1 } } }, 'dashboardDraft.app.files'],
    [{ app: { files: ['a'] } }, 'dashboardDraft.app.files'],
    [{ app: { manifest: { version: 'x' } } }, 'dashboardDraft.app.manifest.version'],
    [{ app: { manifest: { dependencies: { react: 19 } } } }, 'dashboardDraft.app.manifest.dependencies'],
    [{ app: { src: 'x' } }, 'dashboardDraft.app.src'],
    [{ unknownProperty: 1 }, 'dashboardDraft.unknownProperty'],
  ])('rejects %j naming %s and keeps the stored draft', async (config, field) => {
    const wb = await workbook(acme.member, d);
    await put(wb.id, { dashboardDraft: draft(1) });
    const res = await put(wb.id, { dashboardDraft: config });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((x: { path: string }) => x.path)).toContain(field);
    expect(await storedDraft(wb.id)).toEqual(draft(1));
  });

  it('rejects a draft that is not an object and unknown body fields', async () => {
    const wb = await workbook(acme.member, d);
    for (const [body, field] of [
      [{ dashboardDraft: 'x' }, 'dashboardDraft'],
      [{ dashboardDraft: [] }, 'dashboardDraft'],
      [{ draft: {} }, 'draft'],
    ] as const) {
      const res = await put(wb.id, body);
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details[0].path).toBe(field);
    }
  });

  it('answers 404 for a folder, an unknown id or a workbook of another deployment', async () => {
    const f = await folder(acme.member, d, { name: 'x' });
    const foreign = await workbook(acme.member, acme.deployments[1]);
    for (const id of [f.id, 123456, foreign.id]) {
      expectError(await put(id, { dashboardDraft: draft(1) }), 404, 'NOT_FOUND');
      expectError(
        await api('GET', `${base(d)}/workbooks/${id}/dashboard`, { auth: acme.member }),
        404,
        'NOT_FOUND',
      );
    }
    expect(await storedDraft(foreign.id)).toBeNull();
  });
});
