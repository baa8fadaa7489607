import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { load, mintOk, setEmbed } from './fixtures';

let acme: SeededAccount;
let publicId: string;

const spec = JSON.stringify({
  type: 'table',
  data: [
    { region: 'EU', revenue: 10 },
    { region: 'US', revenue: 20 },
    { region: 'APAC', revenue: 30 },
  ],
});

beforeAll(async () => {
  acme = await seedAccount({ useCreatorMode: true });
  const d = acme.deployments[0];
  const attribute = await api('POST', '/api/v1/user-attributes', {
    auth: acme.admin,
    body: { name: 'region', type: 'string_array' },
  });
  expect(attribute.status, JSON.stringify(attribute.body)).toBe(200);
  const workbook = await api('POST', `/api/v1/deployments/${d}/workbooks`, {
    auth: acme.admin,
    body: { name: 'Sales' },
  });
  const report = await api('POST', `/api/v1/deployments/${d}/reports`, {
    auth: acme.admin,
    body: { name: 'By region', workbookId: workbook.body.id, spec },
  });
  expect(report.status, JSON.stringify(report.body)).toBe(200);
  const draft = await api('PUT', `/api/v1/deployments/${d}/workbooks/${workbook.body.id}/dashboard`, {
    auth: acme.admin,
    body: {
      dashboardDraft: {
        title: 'Sales',
        widgets: [
          {
            id: 'c',
            type: 'CHART',
            position: { x: 0, y: 0, w: 6, h: 4 },
            config: { reportId: report.body.id },
          },
        ],
      },
    },
  });
  expect(draft.status).toBe(200);
  const published = await api('POST', `/api/v1/deployments/${d}/workbooks/${workbook.body.id}/publish`, {
    auth: acme.admin,
    body: {},
  });
  publicId = published.body.publicId;
  await setEmbed(acme, publicId, { allowEmbed: true });
});

const regionsSeenBy = async (userAttributes?: unknown[]) => {
  const sid = await mintOk(acme.key, {
    deploymentId: acme.deployments[0],
    externalId: `viewer-${crypto.randomUUID()}`,
    ...(userAttributes ? { userAttributes } : {}),
  });
  const res = await load(publicId, sid);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return JSON.parse(res.body.reportSnapshots[0].spec).data.map((r: { region: string }) => r.region);
};

describe('row-level security on an embedded dashboard', () => {
  it('shows each viewer only the report rows their attributes allow', async () => {
    expect(await regionsSeenBy([{ name: 'region', value: ['EU'] }])).toEqual(['EU']);
    expect(await regionsSeenBy([{ name: 'region', value: ['US', 'APAC'] }])).toEqual(['US', 'APAC']);
  });

  // An attribute of the account's catalogue restricts rows even for a viewer without a value
  // (it once showed every row), so row-level security fails closed.
  it('shows no restricted row to a viewer without the attribute', async () => {
    expect(await regionsSeenBy()).toEqual([]);
  });

  it('treats a tenant catalogue attribute the viewer lacks as restricting too', async () => {
    const sid = await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId: `creator-${crypto.randomUUID()}`,
      embedTenantName: 'row-tenant',
      creatorMode: true,
      userAttributeDefinitions: [
        { name: 'region', type: 'string_array' },
        { name: 'revenue', type: 'number' },
      ],
      userAttributes: [{ name: 'region', value: ['EU', 'US', 'APAC'] }],
    });
    const res = await load(publicId, sid);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.parse(res.body.reportSnapshots[0].spec).data).toEqual([]);
  });
});
