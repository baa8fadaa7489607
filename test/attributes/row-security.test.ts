// An account user's attribute values reach the data access policies wherever their queries run:
// the render endpoint, dashboard exports, notifications to them, and an embed session minted with
// their internalId (its load and its token on the Cube REST API). The shop's orders are visible
// to everyone (`*`) filtered by `{ userAttributes.country }`, so each file's numbers follow the
// user's value. Golden numbers come from SQL written by hand over the shop in PostgreSQL.
import { env } from 'cloudflare:test';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordStatements, stopRecording } from '../../src/core/db';
import { dashboardRenderer } from '../../src/notifications/delivery';
import { type LiveBoard, liveBoard } from '../dashboards/live-fixtures';
import { deployModel, pgRows, shopModel } from '../data-api/fixtures';
import { consume as consumeExports, download, exportRow, recordQueue, started } from '../exports/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { pdfText } from '../helpers/pdf-text';
import { platform } from '../helpers/platform';
import { routedDb } from '../helpers/shards';
import { consume as consumeRuns, recordingPorts } from '../notifications/ports';
import { fetchBytes } from '../render/seed';

let acme: SeededAccount;
let board: LiveBoard;
let countryId: number;
/** Orders per country in the shop, from PostgreSQL. */
const ordersIn: Record<string, number> = {};

/** The shop's model with the orders readable by everyone, row by row as their country allows. */
const byCountryModel = (schema: string) => {
  const model = shopModel(`${schema}.`).replace(
    / {4}access_policy:\n[\s\S]*?(?=\n\n {2}- name: line_items)/,
    `    access_policy:
      - group: "*"
        row_level:
          filters:
            - member: country
              operator: equals
              values: ["{ userAttributes.country }"]`,
  );
  expect(model).toContain('{ userAttributes.country }');
  return model;
};

/** Sets (or clears, with null) a user's country. */
async function setCountry(userId: number, value: string | null) {
  const res = await api('POST', '/api/v1/user-attribute-values', {
    auth: acme.admin,
    body: { userId: String(userId), userAttributeId: String(countryId), value },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/**
 * Runs `work` with every D1 statement recorded; answers its result and the statements that read
 * account users' attribute values.
 */
async function recorded<T>(work: () => Promise<T>) {
  const log = recordStatements();
  try {
    const result = await work();
    expect(log.length, 'the statement log is wired').toBeGreaterThan(0);
    return { result, reading: log.map((s) => s.sql).filter((sql) => sql.includes('user_attribute_values')) };
  } finally {
    stopRecording();
  }
}

/** The KPI chart's order count as a PDF of the dashboard shows it. */
const kpiLine = (count: number) => `kpi\n${count}\n`;

async function renderPdf(auth: { bearer: string } | { apiKey: string }) {
  const res = await fetchBytes(
    `/api/v1/deployments/${board.deploymentId}/workbooks/${board.workbookId}/dashboard/render?format=pdf`,
    auth,
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { text: await pdfText(res.bytes), headers: res.headers };
}

beforeAll(async () => {
  acme = await seedAccount();
  board = await liveBoard(acme);
  await deployModel(acme.admin, board.deploymentId, byCountryModel(board.schema));
  const created = await api('POST', '/api/v1/user-attributes', {
    auth: acme.admin,
    body: { name: 'country', type: 'string' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  countryId = created.body.id;
  for (const { country, count } of await pgRows(
    `SELECT country, count(*) AS count FROM ${board.schema}.orders WHERE country IS NOT NULL GROUP BY country`,
  )) {
    ordersIn[String(country)] = Number(count);
  }
  // The numbers tell the countries apart.
  expect(ordersIn.FR).toBe(3);
  expect(ordersIn.IE).toBe(2);
});

describe('the render endpoint', () => {
  it('renders for the caller: the numbers follow their country, and none without one', async () => {
    await setCountry(acme.memberUserId, 'FR');
    const { result: fr, reading } = await recorded(() => renderPdf(acme.member));
    expect(fr.text).toContain(kpiLine(ordersIn.FR as number));
    // The values are read in the statement that reads the dashboard: no statement of their own.
    expect(reading).toHaveLength(1);
    expect(reading[0]).toContain('"published_dashboards"');

    await setCountry(acme.memberUserId, 'IE');
    expect((await renderPdf(acme.member)).text).toContain(kpiLine(ordersIn.IE as number));

    await setCountry(acme.memberUserId, null);
    expect((await renderPdf(acme.member)).text).toContain(kpiLine(0));
  });

  it('renders for the admin an API key acts as', async () => {
    await setCountry(acme.adminUserId, 'JP');
    const byKey = await renderPdf(acme.key);
    expect(byKey.text).toContain(kpiLine(ordersIn.JP as number));
    expect((await renderPdf(acme.admin)).text).toContain(kpiLine(ordersIn.JP as number));
    await setCountry(acme.adminUserId, null);
  });
});

describe('dashboard exports', () => {
  beforeEach(() => {
    recordQueue();
  });

  async function exportedText(body: Record<string, unknown>) {
    const job = await started(acme.admin, board.deploymentId, {
      dashboardPublicId: board.publicId,
      format: 'pdf',
      ...body,
    });
    const result = await consumeExports([job.id]);
    expect(result.retryMessages).toEqual([]);
    const file = await download(acme.admin, board.deploymentId, job.jobId);
    expect(file.status, JSON.stringify(file.body)).toBe(200);
    return { text: await pdfText(file.bytes), row: await exportRow(job.jobId) };
  }

  it('render as the renderAs user with their values, read when the job runs', async () => {
    await setCountry(acme.memberUserId, 'FR');
    const asMember = await exportedText({ renderAs: { type: 'USER', userId: acme.memberUserId } });
    expect(asMember.row?.render_user_id).toBe(acme.memberUserId);
    expect(asMember.row?.user_id).toBe(acme.adminUserId);
    expect(asMember.text).toContain(kpiLine(ordersIn.FR as number));

    // A value changed between the start and the render: the render has the new one.
    const job = await started(acme.admin, board.deploymentId, {
      dashboardPublicId: board.publicId,
      format: 'pdf',
      renderAs: { type: 'USER', userId: acme.memberUserId },
    });
    await setCountry(acme.memberUserId, 'IE');
    expect((await consumeExports([job.id])).retryMessages).toEqual([]);
    const file = await download(acme.admin, board.deploymentId, job.jobId);
    expect(await pdfText(file.bytes)).toContain(kpiLine(ordersIn.IE as number));
  });

  it('without renderAs, render for the user who started the job', async () => {
    await setCountry(acme.adminUserId, 'JP');
    const own = await exportedText({});
    expect(own.row?.render_user_id).toBeNull();
    expect(own.text).toContain(kpiLine(ordersIn.JP as number));
    await setCountry(acme.adminUserId, null);
    expect((await exportedText({})).text).toContain(kpiLine(0));
  });
});

describe('notifications to account users', () => {
  it('run each account recipient with their values: one render per distinct value', async () => {
    const rec = recordingPorts();
    rec.ports.renderer = {
      async render(request) {
        rec.renders.push(request);
        return dashboardRenderer.render(request);
      },
    };
    platform.deliveryPorts = rec.ports;
    const ana = await api('POST', '/api/v1/users', {
      auth: acme.admin,
      body: { email: 'ana@example.com', username: 'ana' },
    });
    expect(ana.status, JSON.stringify(ana.body)).toBe(200);
    await setCountry(acme.memberUserId, 'FR');
    await setCountry(ana.body.id, 'FR');
    await setCountry(acme.adminUserId, 'IE');

    const base = `/api/v1/deployments/${board.deploymentId}/notifications`;
    const created = await api('POST', base, {
      auth: acme.admin,
      body: {
        dashboardPublicId: board.publicId,
        scheduleType: 'DAILY',
        hour: 7,
        minute: 0,
        notificationFormat: 'pdf',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const url = `${base}/${created.body.id}`;
    const added = await api('POST', `${url}/recipients`, {
      auth: acme.admin,
      body: {
        recipients: [
          { type: 'USER', userId: acme.memberUserId },
          { type: 'USER', userId: ana.body.id },
          { type: 'USER', userId: acme.adminUserId },
          { type: 'USER', email: 'outsider@example.org' },
        ],
      },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const run = await api('POST', `${url}/run`, { auth: acme.admin });
    expect(run.status, JSON.stringify(run.body)).toBe(202);
    const { result, reading } = await recorded(() => consumeRuns([run.body.id]));
    expect(result.retryMessages).toEqual([]);
    // Every recipient's values in ONE statement: the one that reads the leased deliveries.
    expect(reading).toHaveLength(1);
    expect(reading[0]).toContain('notification_deliveries');
    const { results } = await routedDb
      .prepare('SELECT status FROM notification_deliveries WHERE run_id = ? ORDER BY id')
      .bind(run.body.id)
      .all<{ status: string }>();
    expect(results.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);

    // FR (the member and ana), IE (the admin), nothing (an address): three identities, three renders.
    expect(rec.renders).toHaveLength(3);
    const users = await api('GET', '/api/v1/users?first=100', { auth: acme.admin });
    const emailOf = (id: number) => users.body.items.find((u: any) => u.id === id).email as string;
    const expected: [string, number][] = [
      [emailOf(acme.memberUserId), ordersIn.FR as number],
      ['ana@example.com', ordersIn.FR as number],
      [emailOf(acme.adminUserId), ordersIn.IE as number],
      ['outsider@example.org', 0],
    ];
    for (const [to, count] of expected) {
      const email = rec.emails.find((e) => e.to === to);
      expect(email, `an email to ${to}`).toBeDefined();
      expect(await pdfText(email?.attachment.bytes as Uint8Array), to).toContain(kpiLine(count));
    }
    await setCountry(acme.adminUserId, null);
  });
});

describe('an embed session minted for an internal user', () => {
  it("carries the user's values: its load and its token on the Cube REST API follow them", async () => {
    await setCountry(acme.memberUserId, 'IE');
    const member = await api('GET', `/api/v1/users/${acme.memberUserId}`, { auth: acme.admin });
    const minted = await api('POST', '/api/v1/embed/generate-session', {
      auth: { bearer: acme.key.apiKey },
      body: { deploymentId: board.deploymentId, internalId: member.body.username },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const loaded = await api('GET', `/api/v1/embed/dashboard/${board.publicId}`, {
      auth: { session: minted.body.sessionId },
    });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const kpi = loaded.body.reportSnapshots.find((s: any) => s.reportId === board.reports.kpi);
    expect(JSON.parse(kpi.spec).data).toEqual([
      { 'orders.count': String(ordersIn.IE), 'orders.total_amount': expect.anything() },
    ]);

    const exchanged = await api('POST', '/api/v1/embed/session/token', {
      body: { sessionId: minted.body.sessionId },
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const cube = await api('POST', '/cubejs-api/v1/load', {
      auth: { bearer: exchanged.body.token },
      body: { query: { measures: ['orders.count'], dimensions: ['orders.country'] } },
    });
    expect(cube.status, JSON.stringify(cube.body)).toBe(200);
    expect(cube.body.data).toEqual([{ 'orders.country': 'IE', 'orders.count': String(ordersIn.IE) }]);

    // A session keeps the values of its mint; a new session has the new ones.
    await setCountry(acme.memberUserId, 'FR');
    const again = await api('POST', '/api/v1/embed/generate-session', {
      auth: { bearer: acme.key.apiKey },
      body: { deploymentId: board.deploymentId, internalId: member.body.username },
    });
    const token = await api('POST', '/api/v1/embed/session/token', {
      body: { sessionId: again.body.sessionId },
    });
    const fr = await api('POST', '/cubejs-api/v1/load', {
      auth: { bearer: token.body.token },
      body: { query: { measures: ['orders.count'] } },
    });
    expect(fr.body.data).toEqual([{ 'orders.count': String(ordersIn.FR) }]);
  });

  it('rebuilds a session KV lost with the values stored for the user', async () => {
    await setCountry(acme.memberUserId, 'JP');
    const member = await api('GET', `/api/v1/users/${acme.memberUserId}`, { auth: acme.admin });
    const minted = await api('POST', '/api/v1/embed/generate-session', {
      auth: { bearer: acme.key.apiKey },
      body: { deploymentId: board.deploymentId, internalId: member.body.username },
    });
    expect(minted.status).toBe(200);
    const part = (minted.body.sessionId as string).split('.')[1] as string;
    const claims = JSON.parse(atob(part.replace(/-/g, '+').replace(/_/g, '/')));
    await env.SESSIONS.delete(`session:${claims.jti}`);
    const loaded = await api('GET', `/api/v1/embed/dashboard/${board.publicId}`, {
      auth: { session: minted.body.sessionId },
    });
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const kpi = loaded.body.reportSnapshots.find((s: any) => s.reportId === board.reports.kpi);
    expect(JSON.parse(kpi.spec).data[0]['orders.count']).toBe(String(ordersIn.JP));
    const rebuilt = await env.SESSIONS.get(`session:${claims.jti}`, 'json');
    expect((rebuilt as any).attributes).toEqual({ country: 'JP' });
  });
});
