import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError, OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { platform } from '../helpers/platform';
import { dbOf, shardCount } from '../helpers/shards';
import { seedDashboard } from './fixtures';
import { consume, recordingPorts } from './ports';

let acme: SeededAccount;
let other: SeededAccount;
let dashboard: { id: number };
let base: string;
let rec: ReturnType<typeof recordingPorts>;

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  dashboard = await seedDashboard(acme, 'Limits');
  base = `/api/v1/deployments/${acme.deployments[0]}/notifications`;
});

beforeEach(() => {
  rec = recordingPorts();
  platform.deliveryPorts = rec.ports;
});

const emails = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ email: `${prefix}${i}@example.com` }));

async function notification(recipients: unknown[] = []) {
  const res = await api('POST', base, {
    auth: acme.admin,
    body: { dashboardId: dashboard.id, scheduleType: 'DAILY', hour: 7, minute: 0 },
  });
  expect(res.status).toBe(200);
  const url = `${base}/${res.body.id}`;
  if (recipients.length > 0) {
    const added = await api('POST', `${url}/recipients`, { auth: acme.admin, body: { recipients } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
  }
  return { url, id: res.body.id as number };
}

async function count(sql: string, ...params: unknown[]): Promise<number> {
  return shardCount(sql, ...params);
}

async function runStatus(runId: number) {
  return (await dbOf(runId).prepare('SELECT status FROM notification_runs WHERE id = ?').bind(runId).first())
    ?.status;
}

describe('recipients per notification', () => {
  it('holds at most 100: the request that would pass that is a 409 and writes nothing', async () => {
    const { url, id } = await notification(emails(60, 'a'));
    const before = await count('SELECT count(*) AS n FROM embed_users WHERE account_id = ?', acme.accountId);
    const res = await api('POST', `${url}/recipients`, {
      auth: acme.admin,
      body: { recipients: [...emails(40, 'b'), { externalId: 'newcomer', email: 'newcomer@example.com' }] },
    });
    expectError(res, 409, 'CONFLICT');
    expect(res.body.details[0]).toMatchObject({ path: 'recipients' });
    expect(
      await count('SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?', id),
    ).toBe(60);
    // The embed user the request named is rolled back with the rest of the batch.
    expect(await count('SELECT count(*) AS n FROM embed_users WHERE account_id = ?', acme.accountId)).toBe(
      before,
    );
    // Exactly up to the limit is fine, and repeating known recipients adds nothing.
    const fill = await api('POST', `${url}/recipients`, {
      auth: acme.admin,
      body: { recipients: emails(40, 'b') },
    });
    expect(fill.status).toBe(200);
    const repeat = await api('POST', `${url}/recipients`, {
      auth: acme.admin,
      body: { recipients: emails(40, 'b') },
    });
    expect(repeat.body.unchangedRecipients).toHaveLength(40);
    expect(
      await count('SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?', id),
    ).toBe(100);
  });

  it('answers the external-user quota with 429 and Retry-After', async () => {
    const small = await seedAccount({ externalUserLimit: 0 });
    const smallDashboard = await seedDashboard(small, 'Quota');
    const smallBase = `/api/v1/deployments/${small.deployments[0]}/notifications`;
    const created = await api('POST', smallBase, {
      auth: small.admin,
      body: { dashboardId: smallDashboard.id, scheduleType: 'HOURLY', minute: 5 },
    });
    const res = await api('POST', `${smallBase}/${created.body.id}/recipients`, {
      auth: small.admin,
      body: { recipients: [{ externalId: 'e1', email: 'e1@example.com' }] },
    });
    expectError(res, 429, 'QUOTA_EXCEEDED');
    expect(res.headers.get('retry-after')).toBe('3600');
  });

  it('bounds an embed recipient’s securityContext: 8 levels, 16 KiB', async () => {
    const { url, id } = await notification();
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 9; i++) deep = { a: deep };
    const tooDeep = await api('POST', `${url}/recipients`, {
      auth: acme.admin,
      body: { recipients: [{ externalId: 'deep', email: 'deep@example.com', securityContext: deep }] },
    });
    expectError(tooDeep, 400, 'VALIDATION_FAILED');
    expect(tooDeep.body.details[0].path).toBe('recipients.0.securityContext');
    const tooBig = await api('POST', `${url}/recipients`, {
      auth: acme.admin,
      body: {
        recipients: [
          { externalId: 'big', email: 'big@example.com', securityContext: { blob: 'x'.repeat(17_000) } },
        ],
      },
    });
    expectError(tooBig, 400, 'VALIDATION_FAILED');
    expect(
      await count('SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?', id),
    ).toBe(0);
  });
});

describe('manual runs', () => {
  it('allows one in flight per notification: 409 while queued or running, 202 again once it finished', async () => {
    const { url, id } = await notification(emails(2, 'm'));
    const first = await api('POST', `${url}/run`, { auth: acme.admin });
    expect(first.status).toBe(202);
    expectError(await api('POST', `${url}/run`, { auth: acme.admin }), 409, 'CONFLICT');
    // Running (leased but not finished) still counts as in flight.
    await dbOf(first.body.id)
      .prepare(`UPDATE notification_runs SET status = 'running' WHERE id = ?`)
      .bind(first.body.id)
      .run();
    expectError(await api('POST', `${url}/run`, { auth: acme.admin }), 409, 'CONFLICT');
    await dbOf(first.body.id)
      .prepare(`UPDATE notification_runs SET status = 'queued' WHERE id = ?`)
      .bind(first.body.id)
      .run();
    expect(rec.queued).toEqual([first.body.id]);
    await consume([first.body.id]);
    expect(await runStatus(first.body.id)).toBe('delivered');
    const again = await api('POST', `${url}/run`, { auth: acme.admin });
    expect(again.status).toBe(202);
    expect(await count('SELECT count(*) AS n FROM notification_runs WHERE notification_id = ?', id)).toBe(2);
  });

  it('starts exactly one of many concurrent requests', async () => {
    const { url, id } = await notification(emails(1, 'c'));
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => api('POST', `${url}/run`, { auth: acme.admin })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, ...Array(9).fill(409)]);
    expect(await count('SELECT count(*) AS n FROM notification_runs WHERE notification_id = ?', id)).toBe(1);
    expect(rec.queued).toHaveLength(1);
  });

  it('does not count suppressed runs as in flight', async () => {
    const { url } = await notification(emails(1, 's'));
    await api('PUT', url, { auth: acme.admin, body: { notificationEnabled: false } });
    expect((await api('POST', `${url}/run`, { auth: acme.admin })).body.status).toBe('suppressed');
    expect((await api('POST', `${url}/run`, { auth: acme.admin })).status).toBe(202);
  });
});

describe('the consumer stays inside the subrequest limit', () => {
  it('sends at most 40 deliveries per invocation and continues the rest in a new message', async () => {
    const { url } = await notification(emails(100, 'k'));
    const run = (await api('POST', `${url}/run`, { auth: acme.admin })).body;
    rec.queued.length = 0;

    const first = await consume([run.id]);
    expect(rec.emails).toHaveLength(40);
    expect(first.explicitAcks).toHaveLength(1);
    expect(first.retryMessages).toEqual([]);
    expect(rec.queued).toEqual([run.id]);
    expect(await runStatus(run.id)).toBe('running');

    await consume([run.id]);
    expect(rec.emails).toHaveLength(80);
    await consume([run.id]);
    expect(rec.emails).toHaveLength(100);
    expect(new Set(rec.emails.map((e) => e.to)).size).toBe(100);
    // The last chunk finished the run: no further continuation.
    expect(rec.queued).toEqual([run.id, run.id]);
    expect(await runStatus(run.id)).toBe('delivered');
  });

  it('shares the budget between the messages of one batch', async () => {
    const a = await notification(emails(30, 'x'));
    const b = await notification(emails(30, 'y'));
    const runA = (await api('POST', `${a.url}/run`, { auth: acme.admin })).body;
    const runB = (await api('POST', `${b.url}/run`, { auth: acme.admin })).body;
    await consume([runA.id, runB.id]);
    expect(rec.emails).toHaveLength(40);
    expect(rec.emails.filter((e) => e.to.startsWith('x'))).toHaveLength(20);
  });
});

describe('GET …/runs and …/runs/{runId}/deliveries', () => {
  it('lists a bounded first page of deliveries per run and the rest on their own route', async () => {
    const { url } = await notification(emails(30, 'p'));
    const run = (await api('POST', `${url}/run`, { auth: acme.admin })).body;
    await consume([run.id]);
    const listed = await api('GET', `${url}/runs`, { auth: acme.admin });
    expect(listed.status).toBe(200);
    const [item] = listed.body.items;
    expect(item).toMatchObject({
      id: run.id,
      status: 'delivered',
      deliveryCounts: { total: 30, pending: 0, sent: 30, failed: 0 },
      deliveriesHasMore: true,
    });
    expect(item.deliveries).toHaveLength(20);
    const ids = item.deliveries.map((d: { recipientId: number }) => d.recipientId);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => x - y));

    const page1 = await api('GET', `${url}/runs/${run.id}/deliveries?first=25`, { auth: acme.admin });
    expect(page1.status).toBe(200);
    expect(page1.body.items).toHaveLength(25);
    expect(page1.body.items[0]).toEqual({
      recipientId: ids[0],
      status: 'sent',
      attempts: 1,
      lastError: null,
      sentAt: expect.any(String),
    });
    expect(page1.body.pageInfo.hasNextPage).toBe(true);
    const page2 = await api(
      'GET',
      `${url}/runs/${run.id}/deliveries?first=25&after=${page1.body.pageInfo.endCursor}`,
      {
        auth: acme.admin,
      },
    );
    expect(page2.body.items).toHaveLength(5);
    expect(page2.body.pageInfo.hasNextPage).toBe(false);
    const all = [...page1.body.items, ...page2.body.items].map((d: { recipientId: number }) => d.recipientId);
    expect(new Set(all).size).toBe(30);

    expectError(await api('GET', `${url}/runs?first=101`, { auth: acme.admin }), 400);
    expectError(await api('GET', `${url}/runs/${run.id}/deliveries?first=101`, { auth: acme.admin }), 400);
  });

  it('guards the run: another notification’s run, another account and a member get 404 / 403', async () => {
    const a = await notification(emails(1, 'g'));
    const b = await notification(emails(1, 'h'));
    const run = (await api('POST', `${a.url}/run`, { auth: acme.admin })).body;
    expectError(
      await api('GET', `${b.url}/runs/${run.id}/deliveries`, { auth: acme.admin }),
      404,
      'NOT_FOUND',
    );
    expectError(await api('GET', `${a.url}/runs/999999/deliveries`, { auth: acme.admin }), 404, 'NOT_FOUND');
    expectError(
      await api('GET', `${a.url}/runs/${run.id}/deliveries`, { auth: other.admin }),
      404,
      'NOT_FOUND',
    );
    expectError(await api('GET', `${a.url}/runs/${run.id}/deliveries`, { auth: acme.member }), 403);
    const empty = await api('GET', `${a.url}/runs/${run.id}/deliveries`, { auth: acme.admin });
    expect(empty.body.items).toEqual([]);
  });
});

describe('the chat webhook URL at delivery', () => {
  it('refuses to post to a private address, whatever the notation, and fails the delivery for good', async () => {
    let delivered = 0;
    for (const webhook of [
      'https://2130706433/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'http://chat.example.com/h',
    ]) {
      const account = await seedAccount();
      const patched = await api('PATCH', `/admin/v1/accounts/${account.accountId}`, {
        auth: OPERATOR,
        body: { chatWebhookUrl: webhook },
      });
      // Refused on write (400); a URL stored before that rule must still be refused at delivery.
      expect(patched.status).toBe(400);
      await dbOf(account.accountId)
        .prepare('UPDATE accounts SET chat_webhook_url = ? WHERE id = ?')
        .bind(webhook, account.accountId)
        .run();
      const accountDashboard = await seedDashboard(account, 'Hook');
      const accountBase = `/api/v1/deployments/${account.deployments[0]}/notifications`;
      const created = await api('POST', accountBase, {
        auth: account.admin,
        body: { dashboardId: accountDashboard.id, scheduleType: 'HOURLY', minute: 0 },
      });
      const url = `${accountBase}/${created.body.id}`;
      await api('POST', `${url}/recipients`, {
        auth: account.admin,
        body: { recipients: [{ channelId: 'C1' }] },
      });
      const run = (await api('POST', `${url}/run`, { auth: account.admin })).body;
      const result = await consume([run.id]);
      expect(result.retryMessages).toEqual([]);
      expect(rec.posts).toEqual([]);
      const delivery = await dbOf(run.id)
        .prepare('SELECT status, last_error FROM notification_deliveries WHERE run_id = ?')
        .bind(run.id)
        .first<{ status: string; last_error: string }>();
      expect(delivery?.status).toBe('failed');
      expect(delivery?.last_error).toMatch(/^The chat webhook URL is refused: /);
      expect(await runStatus(run.id)).toBe('failed');
      delivered += 1;
    }
    expect(delivered).toBe(3);
  });
});
