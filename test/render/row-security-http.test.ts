import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { fetchBytes } from './seed';

// Row-level security fails closed, seen through every HTTP surface that shows report rows to a
// viewer: the embed load, the viewer page and the viewer's renewal content.

let acme: SeededAccount;
let publicId: string;
let workbookId: number;

// `rowSecurity` declares the attributes the report's rows are restricted by, so a viewer who
// holds no value for `region` sees none of the rows that carry one. The total row has no region.
const spec = JSON.stringify({
  type: 'table',
  rowSecurity: ['region'],
  data: [
    { region: 'EU', revenue: 10 },
    { region: 'US', revenue: 20 },
    { region: 'APAC', revenue: 30 },
    { label: 'total', revenue: 60 },
  ],
});

beforeAll(async () => {
  acme = await seedAccount();
  const d = acme.deployments[0];
  const auth = acme.admin;
  const attribute = await api('POST', '/api/v1/user-attributes', {
    auth,
    body: { name: 'region', type: 'string_array' },
  });
  expect(attribute.status, JSON.stringify(attribute.body)).toBe(200);
  const workbook = await api('POST', `/api/v1/deployments/${d}/workbooks`, { auth, body: { name: 'Sales' } });
  workbookId = workbook.body.id;
  const report = await api('POST', `/api/v1/deployments/${d}/reports`, {
    auth,
    body: { name: 'By region', workbookId, spec },
  });
  expect(report.status, JSON.stringify(report.body)).toBe(200);
  const draft = await api('PUT', `/api/v1/deployments/${d}/workbooks/${workbookId}/dashboard`, {
    auth,
    body: {
      dashboardDraft: {
        title: 'Sales',
        widgets: [
          {
            id: 'c',
            type: 'CHART',
            position: { x: 0, y: 0, w: 12, h: 4 },
            config: { reportId: report.body.id },
          },
        ],
      },
    },
  });
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
  const published = await api('POST', `/api/v1/deployments/${d}/workbooks/${workbookId}/publish`, {
    auth,
    body: {},
  });
  expect(published.status, JSON.stringify(published.body)).toBe(200);
  publicId = published.body.publicId;
  const embed = await api('PATCH', `/api/v1/embed/dashboard/${publicId}`, {
    auth,
    body: { allowEmbed: true },
  });
  expect(embed.status, JSON.stringify(embed.body)).toBe(200);
});

async function mint(userAttributes?: unknown[]): Promise<string> {
  const res = await api('POST', '/api/v1/embed/generate-session', {
    auth: acme.key,
    body: {
      deploymentId: acme.deployments[0],
      externalId: `viewer-${crypto.randomUUID()}`,
      ...(userAttributes ? { userAttributes } : {}),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.sessionId;
}

type Row = { region?: string; label?: string; revenue: number };
const rowsOf = (snapshotSpec: string): Row[] => JSON.parse(snapshotSpec).data;

async function loaded(sessionId: string): Promise<Row[]> {
  const res = await api('GET', `/api/v1/embed/dashboard/${publicId}`, { auth: { session: sessionId } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return rowsOf(res.body.reportSnapshots[0].spec);
}

/** The table cells the viewer's markup draws (its inline SVG text). */
async function pageText(sessionId: string): Promise<string> {
  const res = await fetchBytes(`/embed/dashboard/${publicId}?session=${encodeURIComponent(sessionId)}`);
  expect(res.status).toBe(200);
  return new TextDecoder().decode(res.bytes);
}

async function contentHtml(sessionId: string): Promise<string> {
  const res = await api('GET', `/embed/dashboard/${publicId}/content`, {
    auth: { raw: `Session ${sessionId}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.html;
}

describe('row-level security fails closed', () => {
  it('embed load: a viewer without a region value gets no region rows, only rows without the column', async () => {
    const sid = await mint();
    expect(await loaded(sid)).toEqual([{ label: 'total', revenue: 60 }]);
    const empty = await mint([{ name: 'region', value: [] }]);
    expect(await loaded(empty)).toEqual([{ label: 'total', revenue: 60 }]);
  });

  it('embed load: a viewer with a value sees exactly the rows it allows', async () => {
    const sid = await mint([{ name: 'region', value: ['EU', 'APAC'] }]);
    expect((await loaded(sid)).map((r) => r.region ?? r.label)).toEqual(['EU', 'APAC', 'total']);
  });

  it('viewer page and renewal content: no restricted cell reaches the markup of a viewer without a value', async () => {
    const sid = await mint();
    for (const html of [await pageText(sid), await contentHtml(sid)]) {
      expect(html).toContain('>total<');
      for (const region of ['EU', 'US', 'APAC']) expect(html).not.toContain(`>${region}<`);
    }
    const eu = await mint([{ name: 'region', value: ['EU'] }]);
    for (const html of [await pageText(eu), await contentHtml(eu)]) {
      expect(html).toContain('>EU<');
      expect(html).not.toContain('>US<');
      expect(html).not.toContain('>APAC<');
    }
  });

  it('the render endpoint (Bearer) is an account user’s view, not a viewer’s: it renders, unfiltered', async () => {
    const d = acme.deployments[0];
    const res = await fetchBytes(
      `/api/v1/deployments/${d}/workbooks/${workbookId}/dashboard/render`,
      acme.admin,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
  });
});
