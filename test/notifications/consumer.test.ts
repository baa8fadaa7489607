import { env } from 'cloudflare:test';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError, OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { platform } from '../helpers/platform';
import { dbOf } from '../helpers/shards';
import { seedDashboard } from './fixtures';
import { consume, recordingPorts } from './ports';

let acme: SeededAccount;
let other: SeededAccount;
let dashboard: { id: number; publicId: string; workbookId: number };
let base: string;
let rec: ReturnType<typeof recordingPorts>;

const WEBHOOK = 'https://chat.example.com/hooks/T000/B000';

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  const patched = await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
    auth: OPERATOR,
    body: { chatWebhookUrl: WEBHOOK },
  });
  expect(patched.body.chatWebhookUrl).toBe(WEBHOOK);
  dashboard = await seedDashboard(acme, 'Revenue Overview');
  base = `/api/v1/deployments/${acme.deployments[0]}/notifications`;
});

beforeEach(() => {
  rec = recordingPorts();
  platform.deliveryPorts = rec.ports;
});

/** A notification with recipients; answers its URL. */
async function notification(recipients: unknown[], body: Record<string, unknown> = {}) {
  const res = await api('POST', base, {
    auth: acme.admin,
    body: { dashboardId: dashboard.id, scheduleType: 'DAILY', hour: 7, minute: 0, ...body },
  });
  expect(res.status).toBe(200);
  const url = `${base}/${res.body.id}`;
  const added = await api('POST', `${url}/recipients`, { auth: acme.admin, body: { recipients } });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  return { url, id: res.body.id as number, recipients: added.body.createdRecipients as { id: number }[] };
}

async function runNow(url: string) {
  const res = await api('POST', `${url}/run`, { auth: acme.admin });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body;
}

async function runRow(runId: number) {
  return dbOf(runId)
    .prepare('SELECT * FROM notification_runs WHERE id = ?')
    .bind(runId)
    .first<Record<string, any>>();
}

async function deliveries(runId: number) {
  const { results } = await dbOf(runId)
    .prepare(
      'SELECT recipient_id, status, attempts, last_error FROM notification_deliveries WHERE run_id = ? ORDER BY recipient_id',
    )
    .bind(runId)
    .all<Record<string, any>>();
  return results;
}

const THREE = [
  { email: 'ana@example.com' },
  { email: 'bo@example.com' },
  { channelId: 'C42', channelName: '#revenue' },
];

describe('POST …/notifications/{id}/run', () => {
  it('starts a run now: 202 with the queued run, one message on the queue', async () => {
    const { url, id } = await notification(THREE);
    const run = await runNow(url);
    expect(run).toMatchObject({ notificationId: id, trigger: 'manual', status: 'queued', deliveries: [] });
    expect(rec.queued).toEqual([run.id]);
    expect((await runRow(run.id))?.status).toBe('queued');
  });

  it('records the run as suppressed and enqueues nothing while notificationEnabled is false', async () => {
    const { url } = await notification(THREE, { notificationEnabled: false });
    const run = await runNow(url);
    expect(run.status).toBe('suppressed');
    expect(rec.queued).toEqual([]);
  });

  it('guards the notification', async () => {
    const { url } = await notification([{ email: 'x@example.com' }]);
    expectError(await api('POST', `${url}/run`, { auth: other.admin }), 404, 'NOT_FOUND');
    expectError(await api('POST', `${url}/run`, { auth: acme.member }), 403, 'FORBIDDEN');
    expectError(await api('POST', `${url}/run`), 401);
    expect(rec.queued).toEqual([]);
  });
});

describe('the notifications queue consumer', () => {
  it('renders once and delivers each recipient once: two emails with the file, one webhook post', async () => {
    // Filters and time grains need a model that has their members: see live-delivery.test.ts.
    const { url, recipients } = await notification(THREE, { notificationFormat: 'pdf' });
    const run = await runNow(url);
    const result = await consume([run.id]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);

    expect(rec.renders).toHaveLength(1);
    expect(rec.renders[0]).toMatchObject({
      format: 'pdf',
      controls: { filters: [], timeGrains: [] },
      dataTime: null,
    });
    expect(rec.emails.map((e) => e.to).sort()).toEqual(['ana@example.com', 'bo@example.com']);
    const email = rec.emails[0];
    expect(email?.from).toBe(`notifications@${env.DEPLOYMENTS_DOMAIN}`);
    expect(email?.subject).toBe('Revenue Overview: scheduled report');
    // Nothing filtered, nothing said; the link renders the same file again for an account caller.
    const renderUrl = `/api/v1/deployments/${acme.deployments[0]}/workbooks/${dashboard.workbookId}/dashboard/render?format=pdf`;
    expect(email?.text).toMatch(
      /^Your scheduled dashboard "Revenue Overview" \(.+\) is attached\.\nOpen the dashboard: https:\/\/[a-z0-9-]+\./,
    );
    expect(email?.text.endsWith(renderUrl)).toBe(true);
    expect(email?.html).toContain(`${renderUrl}">Open the dashboard</a>`);
    expect(email?.attachment.contentType).toBe('application/pdf');
    expect(email?.attachment.filename).toMatch(/^revenue-overview-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}\.pdf$/);
    expect([...(email?.attachment.bytes ?? []).slice(0, 4)]).toEqual([0x25, 0x50, 0x44, 0x46]);
    expect(rec.posts).toHaveLength(1);
    expect(rec.posts[0]?.url).toBe(WEBHOOK);
    expect(rec.posts[0]?.payload).toMatchObject({
      channel: 'C42',
      channelName: '#revenue',
      runId: run.id,
      attachment: { contentType: 'application/pdf', contentBase64: btoa('%PDF\x01\x02\x03') },
    });

    expect((await runRow(run.id))?.status).toBe('delivered');
    const listed = await api('GET', `${url}/runs`, { auth: acme.admin });
    expect(listed.status).toBe(200);
    expect(listed.body.items[0]).toMatchObject({ id: run.id, status: 'delivered', trigger: 'manual' });
    expect(listed.body.items[0].deliveries).toEqual(
      recipients.map((r) => ({
        recipientId: r.id,
        status: 'sent',
        attempts: 1,
        lastError: null,
        sentAt: expect.any(String),
      })),
    );
  });

  it('a redelivered message sends nothing again', async () => {
    const { url } = await notification(THREE);
    const run = await runNow(url);
    await consume([run.id]);
    await consume([run.id], { attempts: 2 });
    // Two copies at once (at-least-once delivery can hand the same message to two consumers).
    await Promise.all([consume([run.id]), consume([run.id])]);
    expect(rec.emails).toHaveLength(2);
    expect(rec.posts).toHaveLength(1);
    expect((await deliveries(run.id)).map((d) => d.attempts)).toEqual([1, 1, 1]);
  });

  it('retries one failing recipient among three with backoff, without resending to the others', async () => {
    const { url, recipients } = await notification(THREE);
    rec.failing.set('bo@example.com', 'mailbox unavailable');
    const run = await runNow(url);
    const first = await consume([run.id]);
    expect(first.explicitAcks).toEqual([]);
    expect(first.retryMessages).toEqual([{ msgId: expect.any(String), delaySeconds: 30 }]);
    expect(rec.emails.map((e) => e.to)).toEqual(['ana@example.com']);
    expect(rec.posts).toHaveLength(1);
    expect((await runRow(run.id))?.status).toBe('running');
    const bo = recipients[1]?.id;
    expect((await deliveries(run.id)).find((d) => d.recipient_id === bo)).toMatchObject({
      status: 'pending',
      attempts: 1,
      last_error: 'mailbox unavailable',
    });

    const second = await consume([run.id], { attempts: 2 });
    expect(second.retryMessages).toEqual([{ msgId: expect.any(String), delaySeconds: 60 }]);

    rec.failing.clear();
    const third = await consume([run.id], { attempts: 3 });
    expect(third.explicitAcks).toHaveLength(1);
    expect(rec.emails.map((e) => e.to)).toEqual(['ana@example.com', 'bo@example.com']);
    expect(rec.posts).toHaveLength(1);
    expect((await runRow(run.id))?.status).toBe('delivered');
    expect((await deliveries(run.id)).find((d) => d.recipient_id === bo)).toMatchObject({
      status: 'sent',
      attempts: 3,
      last_error: null,
    });
  });

  it('records the failure when the message lands in the dead-letter queue', async () => {
    const { url, recipients } = await notification(THREE);
    rec.failing.set('C42', 'chat service down');
    const run = await runNow(url);
    for (let attempt = 1; attempt <= 6; attempt++) {
      const result = await consume([run.id], { attempts: attempt });
      expect(result.retryMessages).toHaveLength(1);
    }
    // The queue has run out of retries and moved the message to the dead-letter queue.
    const dead = await consume([run.id], { queue: 'edgeboard-notifications-dlq' });
    expect(dead.explicitAcks).toHaveLength(1);
    const row = await runRow(run.id);
    expect(row).toMatchObject({ status: 'partially_failed', error: 'Delivery retries exhausted' });
    const listed = await api('GET', `${url}/runs`, { auth: acme.admin });
    const channel = listed.body.items[0].deliveries.find(
      (d: { recipientId: number }) => d.recipientId === recipients[2]?.id,
    );
    expect(channel).toEqual({
      recipientId: recipients[2]?.id,
      status: 'failed',
      attempts: 6,
      lastError: 'chat service down',
      sentAt: null,
    });
    expect(rec.emails).toHaveLength(2);
  });

  it('fails a run whose every recipient failed; a dead letter for a queued run fails it too', async () => {
    const { url } = await notification([{ email: 'gone@example.com' }]);
    rec.failing.set('gone@example.com', 'rejected');
    const run = await runNow(url);
    await consume([run.id]);
    await consume([run.id], { queue: 'edgeboard-notifications-dlq' });
    expect((await runRow(run.id))?.status).toBe('failed');

    const queued = await runNow(url);
    await consume([queued.id], { queue: 'edgeboard-notifications-dlq' });
    expect(await runRow(queued.id)).toMatchObject({ status: 'failed', error: 'Delivery retries exhausted' });
  });

  it('fails a channel recipient at once when the account has no chat webhook', async () => {
    const dash = await seedDashboard(other);
    const otherBase = `/api/v1/deployments/${other.deployments[0]}/notifications`;
    const created = await api('POST', otherBase, {
      auth: other.admin,
      body: { dashboardId: dash.id, scheduleType: 'HOURLY', minute: 0 },
    });
    const url = `${otherBase}/${created.body.id}`;
    await api('POST', `${url}/recipients`, {
      auth: other.admin,
      body: { recipients: [{ channelId: 'C1' }, { email: 'ok@example.com' }] },
    });
    const run = (await api('POST', `${url}/run`, { auth: other.admin })).body;
    const result = await consume([run.id]);
    expect(result.retryMessages).toEqual([]);
    expect(await runRow(run.id)).toMatchObject({ status: 'partially_failed' });
    const [channel] = await deliveries(run.id);
    expect(channel).toMatchObject({
      status: 'failed',
      last_error: 'The account has no chat webhook (chatWebhookUrl) configured',
    });
  });

  it('renders once per distinct recipient scope; embed recipients render under their own attributes', async () => {
    const embed = (id: string, groups: string[]) => ({ externalId: id, email: `${id}@example.com`, groups });
    const { url } = await notification([
      { email: 'staff@example.com' },
      { channelId: 'C7' },
      embed('viewer-a', ['emea']),
      embed('viewer-b', ['emea']),
      embed('viewer-c', ['apac']),
    ]);
    const run = await runNow(url);
    await consume([run.id]);
    expect(rec.renders).toHaveLength(3);
    expect(rec.renders.map((r) => r.scope.groups)).toEqual([null, ['emea'], ['apac']]);
    expect(rec.emails).toHaveLength(4);
  });

  it('renders an embed recipient under the attribute names of its catalogues, so row-level security fails closed', async () => {
    const attr = async (name: string, path: string) => {
      const res = await api('POST', path, { auth: acme.admin, body: { name, type: 'string' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await attr('region', '/api/v1/user-attributes');
    const { url } = await notification([
      { email: 'staff@example.com' },
      { externalId: 'viewer-rls', email: 'viewer-rls@example.com', embedTenantName: 'tenant-rls' },
    ]);
    // A tenant's catalogue is defined by a creator-mode session (its userAttributeDefinitions).
    await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { useCreatorMode: true },
    });
    const minted = await api('POST', '/api/v1/embed/generate-session', {
      auth: acme.key,
      body: {
        deploymentId: acme.deployments[0],
        externalId: 'tenant-author',
        embedTenantName: 'tenant-rls',
        creatorMode: true,
        userAttributeDefinitions: [{ name: 'plant', type: 'string' }],
      },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(200);
    const run = await runNow(url);
    await consume([run.id]);
    expect(rec.renders).toHaveLength(2);
    const [staff, viewer] = rec.renders;
    // Account users see every row; the embed recipient holds no value, so both names restrict.
    expect(staff?.scope.restrictedBy).toBeUndefined();
    expect([...(viewer?.scope.restrictedBy ?? [])].sort()).toEqual(['plant', 'region']);
  });

  it('suppresses a queued run whose deliveries were switched off before it started', async () => {
    const { url } = await notification(THREE);
    const run = await runNow(url);
    await api('PUT', url, { auth: acme.admin, body: { notificationEnabled: false } });
    const result = await consume([run.id]);
    expect(result.explicitAcks).toHaveLength(1);
    expect((await runRow(run.id))?.status).toBe('suppressed');
    expect(rec.emails).toEqual([]);
    expect(rec.renders).toEqual([]);
  });

  it('acks messages of deleted notifications and malformed bodies', async () => {
    const { url } = await notification(THREE);
    const run = await runNow(url);
    await api('DELETE', url, { auth: acme.admin });
    const result = await consume([run.id]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(rec.emails).toEqual([]);
  });

  it('lists runs newest first, page by page', async () => {
    const { url } = await notification([{ email: 'p@example.com' }]);
    // One manual run in flight per notification: each is delivered before the next starts.
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await runNow(url)).id);
      await consume([ids[i] as number]);
    }
    const page1 = await api('GET', `${url}/runs?first=2`, { auth: acme.admin });
    expect(page1.body.items.map((r: { id: number }) => r.id)).toEqual([ids[2], ids[1]]);
    expect(page1.body.pageInfo.hasNextPage).toBe(true);
    const page2 = await api('GET', `${url}/runs?first=2&after=${page1.body.pageInfo.endCursor}`, {
      auth: acme.admin,
    });
    expect(page2.body.items.map((r: { id: number }) => r.id)).toEqual([ids[0]]);
    expectError(await api('GET', `${url}/runs`, { auth: other.admin }), 404, 'NOT_FOUND');
    expectError(await api('GET', `${url}/runs`, { auth: acme.member }), 403);
  });
});
