import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { holdAnswersToCube } from './cube-openapi';
import { type CubeType, expectCube } from './cube-shape';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

/**
 * Cube's dashboards-and-publishing group (updateWorkbookDashboard, publishDashboard), from Cube's
 * published OpenAPI document: Cube-shaped requests with every field Cube defines, nulls where it
 * allows them and each enum value; answers checked for every field Cube marks required. Cube
 * clients send API keys as `Authorization: Bearer <key>`. The group's other operations are listed
 * as missing in docs/cube-compatibility.md.
 */

const WIDGET_TYPES = [
  'CHART',
  'TEXT',
  'FILTER',
  'AI',
  'TIME_GRAIN',
  'FIELD',
  'PARENT',
  'SPACER',
  'DIVIDER',
  'CONTAINER',
];
const DASHBOARD: Record<string, CubeType> = {
  id: 'integer',
  publicId: 'string',
  deploymentId: 'integer',
  workbookId: 'integer',
  status: ['draft', 'published', 'archived'],
  allowEmbed: 'boolean',
  config: 'object',
  versionNumber: 'integer',
  versionId: 'integer',
  reportSnapshots: 'array',
};
const SNAPSHOT: Record<string, CubeType> = { id: 'integer', reportId: 'integer', versionNumber: 'integer' };
const WIDGET: Record<string, CubeType> = { id: 'string', type: WIDGET_TYPES, position: 'object' };

let acme: SeededAccount;
let key: { bearer: string };
let base: string;

beforeAll(async () => {
  acme = await seedAccount();
  key = { bearer: acme.key.apiKey };
  base = `/api/v1/deployments/${acme.deployments[0]}/workbooks`;
});

const position = (y: number) => ({ x: 0, y, w: 4, h: 1 });
const breakpoints = (n: number | null) => ({ lg: n, md: n, sm: n, xs: n, xxs: n });

/** Cube's DashboardConfigInput with every field, each widget type, and nulls where allowed. */
function cubeConfig(withIds: boolean) {
  return {
    kind: 'CLASSIC',
    title: 'Cube-shaped',
    description: 'Every field Cube defines',
    settings: { anything: true },
    theme: {
      backgroundColor: '#ffffff',
      fontFamily: 'Inter, sans-serif',
      primaryColor: '#3366ff',
      themeId: 'light',
      dashboard: { backgroundColor: '#fafafa', padding: '8px' },
      controls: {
        backgroundColor: null,
        padding: '4px',
        border: { color: '#dddddd', radius: '4px', style: 'solid', width: '1px' },
        title: { color: '#111111', fontFamily: null, fontSize: '12px', fontWeight: '600' },
      },
      widgets: {
        backgroundColor: '#ffffff',
        margin: '8px',
        padding: '12px',
        border: null,
        text: { codeFontFamily: 'monospace', color: '#222222', fontFamily: null, secondaryColor: '#666666' },
        title: null,
      },
    },
    layout: {
      breakpoints: { lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 },
      cols: { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 },
      containerPadding: [10, 10],
      margin: [10, 10],
      rowHeight: 100,
    },
    widgets: WIDGET_TYPES.map((type, i) => ({
      ...(withIds ? { id: `w-${i}` } : i % 2 === 0 ? {} : { id: null }),
      type,
      position: position(i),
      config: i === 0 ? null : { title: `Widget ${i}`, label: 'Label', value: 'Value' },
      style: i === 1 ? null : { opacity: 1 },
      responsiveLayouts: i === 2 ? null : { ...breakpoints(null), md: position(i) },
    })),
    app: {
      entry: 'index.html',
      files: { 'index.html': '<div></div>' },
      html: null,
      manifest: { dependencies: { react: '19.0.0' }, version: 1 },
    },
  };
}

describe('updateWorkbookDashboard — PUT …/workbooks/{workbookId}/dashboard', () => {
  it('takes a DashboardConfigDraftInput with every field, widget type and null, ids optional', async () => {
    const wb = await api('POST', base, { auth: key, body: { name: 'Cube draft' } });
    expect(wb.status).toBe(200);
    const res = await api('PUT', `${base}/${wb.body.id}/dashboard`, {
      auth: key,
      body: { dashboardDraft: cubeConfig(false) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.dashboardPublished).toBeNull();
    const widgets = res.body.dashboardDraft.widgets as Record<string, unknown>[];
    expect(widgets.map((w) => w.type)).toEqual(WIDGET_TYPES);
    for (const widget of widgets) expectCube(widget, WIDGET);
    expect(new Set(widgets.map((w) => w.id)).size).toBe(WIDGET_TYPES.length);
    const stored = await env.DB.prepare('SELECT dashboard_draft FROM workbooks WHERE item_id = ?')
      .bind(wb.body.id)
      .first<{ dashboard_draft: string }>();
    expect(JSON.parse(stored?.dashboard_draft ?? 'null').widgets).toEqual(widgets);
    // `dashboardDraft: null` clears it; an empty body changes nothing.
    const cleared = await api('PUT', `${base}/${wb.body.id}/dashboard`, {
      auth: key,
      body: { dashboardDraft: null },
    });
    expect(cleared.body).toEqual({ dashboardDraft: null, dashboardPublished: null });
    expect((await api('PUT', `${base}/${wb.body.id}/dashboard`, { auth: key, body: {} })).status).toBe(200);
  });

  it('still refuses fields unknown to Cube and to edgeboard', async () => {
    const wb = await api('POST', base, { auth: key, body: { name: 'Unknown fields' } });
    const res = await api('PUT', `${base}/${wb.body.id}/dashboard`, {
      auth: key,
      body: { dashboardDraft: { widgets: [{ type: 'SPACER', position: position(0), colour: 'red' }] } },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe('dashboardDraft.widgets.0.colour');
  });
});

describe('publishDashboard — POST …/workbooks/{workbookId}/publish', () => {
  it('takes PublishDashboardInput with every field and answers a Dashboard', async () => {
    const wb = await api('POST', base, { auth: key, body: { name: 'Cube publish' } });
    await api('POST', `/api/v1/deployments/${acme.deployments[0]}/reports`, {
      auth: key,
      body: { name: 'Revenue', workbookId: wb.body.id },
    });
    const res = await api('POST', `${base}/${wb.body.id}/publish`, {
      auth: key,
      body: {
        workbookId: wb.body.id,
        allowEmbed: true,
        config: cubeConfig(true),
        dashboardId: null,
        description: 'Published by a Cube client',
        title: 'Cube title',
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expectCube(res.body, DASHBOARD);
    expect(res.body).toMatchObject({
      status: 'published',
      allowEmbed: true,
      workbookId: wb.body.id,
      title: 'Cube title',
      description: 'Published by a Cube client',
    });
    expect(res.body.config.widgets.map((w: { id: string }) => w.id)).toEqual(
      cubeConfig(true).widgets.map((w) => (w as { id: string }).id),
    );
    for (const snapshot of res.body.reportSnapshots) expectCube(snapshot, SNAPSHOT);
    expect(res.body.reportSnapshots).toHaveLength(1);
    // Republishing names the dashboard; nulls keep what is stored (no draft: the config is sent).
    const again = await api('POST', `${base}/${wb.body.id}/publish`, {
      auth: key,
      body: {
        workbookId: wb.body.id,
        dashboardId: res.body.id,
        allowEmbed: null,
        config: cubeConfig(true),
        title: null,
        description: null,
      },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expectCube(again.body, DASHBOARD);
    expect(again.body).toMatchObject({ versionNumber: 2, allowEmbed: true, id: res.body.id });
    // The workbook's answer carries the same Dashboard.
    const workbook = await api('GET', `${base}/${wb.body.id}`, { auth: key });
    expectCube(workbook.body.publishedDashboard, DASHBOARD);
  });

  it('answers 400 for another workbook’s id in the body', async () => {
    const wb = await api('POST', base, { auth: key, body: { name: 'Mismatch' } });
    const res = await api('POST', `${base}/${wb.body.id}/publish`, {
      auth: key,
      body: { workbookId: wb.body.id + 1000, config: cubeConfig(true) },
    });
    expectError(res, 400, 'BAD_REQUEST');
    const count = await env.DB.prepare('SELECT count(*) AS n FROM published_dashboards WHERE workbook_id = ?')
      .bind(wb.body.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);
  });
});

describe('getEmbedAccess / updateEmbedAccess — …/workbooks/{workbookId}/embed-access', () => {
  const ACCESS: Record<string, CubeType> = {
    allowEmbed: 'boolean',
    allEmbedUsers: 'object',
    tenants: 'array',
  };
  const ALL: Record<string, CubeType> = { enabled: 'boolean', action: ['read', 'none'] };

  it('answers EmbedAccessResponse and changes allowEmbed and the all-embed-users share', async () => {
    const wb = await api('POST', base, { auth: key, body: { name: 'Embed access' } });
    const url = `${base}/${wb.body.id}/embed-access`;
    const before = await api('GET', url, { auth: key });
    expect(before.status).toBe(200);
    expectCube(before.body, ACCESS);
    expectCube(before.body.allEmbedUsers, ALL);
    expect(before.body).toEqual({
      allowEmbed: false,
      allEmbedUsers: { enabled: false, action: 'none', groupId: null },
      tenants: [],
    });
    expectError(await api('PUT', url, { auth: key, body: { allowEmbed: true } }), 400, 'BAD_REQUEST');

    await api('POST', `${base}/${wb.body.id}/publish`, {
      auth: key,
      body: { workbookId: wb.body.id, config: cubeConfig(true) },
    });
    const shared = await api('PUT', url, {
      auth: key,
      body: { allEmbedUsers: true, action: 'read', allowEmbed: true, embedTenantName: null },
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    expect(shared.body).toEqual({
      allowEmbed: true,
      allEmbedUsers: { enabled: true, action: 'read', groupId: null },
      tenants: [],
    });
    const row = await env.DB.prepare(
      'SELECT allow_embed, all_embed_users FROM published_dashboards WHERE workbook_id = ?',
    )
      .bind(wb.body.id)
      .first<{ allow_embed: number; all_embed_users: number }>();
    expect(row).toEqual({ allow_embed: 1, all_embed_users: 1 });
    const unshared = await api('PUT', url, { auth: key, body: { allEmbedUsers: true, action: 'none' } });
    expect(unshared.body).toMatchObject({
      allowEmbed: true,
      allEmbedUsers: { enabled: false, action: 'none' },
    });
    expect((await api('GET', url, { auth: key })).body).toEqual(unshared.body);
  });

  it.each([
    [{}, '(body)'],
    [{ action: 'read' }, 'allEmbedUsers'],
    [{ allEmbedUsers: true }, 'action'],
    [{ allEmbedUsers: true, action: 'write' }, 'action'],
    [{ embedTenantName: 'tenant-one', allEmbedUsers: true, action: 'read' }, 'embedTenantName'],
  ])('refuses %j naming %s', async (body, path) => {
    const wb = await api('POST', base, { auth: key, body: { name: 'Embed access refusals' } });
    await api('POST', `${base}/${wb.body.id}/publish`, { auth: key, body: { config: cubeConfig(true) } });
    const res = await api('PUT', `${base}/${wb.body.id}/embed-access`, { auth: key, body });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe(path);
  });

  it('is for admins: a member is a 403, another deployment’s workbook a 404', async () => {
    const wb = await api('POST', base, { auth: key, body: { name: 'Embed access guard' } });
    expectError(
      await api('GET', `${base}/${wb.body.id}/embed-access`, { auth: acme.member }),
      403,
      'FORBIDDEN',
    );
    const otherBase = `/api/v1/deployments/${acme.deployments[1]}/workbooks`;
    expectError(await api('GET', `${otherBase}/${wb.body.id}/embed-access`, { auth: key }), 404, 'NOT_FOUND');
  });
});
