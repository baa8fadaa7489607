import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { dbOf } from '../helpers/shards';
import { newUser } from '../roles/fixtures';
import { seedDashboard } from './fixtures';
import { consume, recordingPorts, tick } from './ports';

/**
 * Account users who are deactivated receive no scheduled notification: their deliveries are
 * recorded `skipped` with the reason, in the consumer's own batch, until they are reactivated.
 */

let acme: SeededAccount;
let dashboard: { id: number };
let base: string;
let rec: ReturnType<typeof recordingPorts>;

const REASON = 'The recipient is a deactivated user';

beforeAll(async () => {
  acme = await seedAccount();
  dashboard = await seedDashboard(acme, 'Pipeline');
  base = `/api/v1/deployments/${acme.deployments[0]}/notifications`;
});

beforeEach(() => {
  rec = recordingPorts();
  platform.deliveryPorts = rec.ports;
});

/** A daily 09:00 notification created at `now`, with `recipients`; answers its URL and recipient ids. */
async function dailyAt(now: string, recipients: unknown[]) {
  platform.clock = clockAt(now);
  const res = await api('POST', base, {
    auth: acme.admin,
    body: { dashboardId: dashboard.id, scheduleType: 'DAILY', hour: 9, minute: 0 },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const url = `${base}/${res.body.id}`;
  const added = await api('POST', `${url}/recipients`, { auth: acme.admin, body: { recipients } });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  platform.clock = undefined;
  return { url };
}

/** Turns a test's schedule off, so later ticks only claim the next test's. */
async function stop(url: string) {
  const res = await api('PUT', url, { auth: acme.admin, body: { isEnabled: false } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** The cron tick at `at` and the consumer for the runs it enqueued; answers those run ids. */
async function tickAndDeliver(at: string): Promise<number[]> {
  const before = rec.queued.length;
  await tick(at);
  const runIds = rec.queued.slice(before);
  expect(runIds).toHaveLength(1);
  await consume(runIds);
  return runIds;
}

async function deliveriesOf(runId: number) {
  const { results } = await dbOf(runId)
    .prepare(
      `SELECT rc.user_id, rc.email, d.status, d.attempts, d.last_error
      FROM notification_deliveries d JOIN notification_recipients rc ON rc.id = d.recipient_id
      WHERE d.run_id = ? ORDER BY d.recipient_id`,
    )
    .bind(runId)
    .all<Record<string, unknown>>();
  return results;
}

async function runStatus(runId: number) {
  const row = await dbOf(runId)
    .prepare('SELECT status FROM notification_runs WHERE id = ?')
    .bind(runId)
    .first<{ status: string }>();
  return row?.status;
}

const emailOf = async (userId: number) =>
  (await api('GET', `/api/v1/users/${userId}`, { auth: acme.admin })).body.email as string;

describe('scheduled notifications and deactivated users', () => {
  it('skip a user deactivated by updateUser, with the reason, and reach them again once reactivated', async () => {
    const ana = await newUser(acme);
    const bo = await newUser(acme);
    const { url } = await dailyAt('2027-03-01T08:00:00.000Z', [
      { userId: ana.id },
      { userId: bo.id },
      { email: 'outside@example.com' },
    ]);
    const deactivated = await api('PUT', `/api/v1/users/${ana.id}`, {
      auth: acme.admin,
      body: { isDeactivated: true },
    });
    expect(deactivated.status).toBe(200);

    const [first] = await tickAndDeliver('2027-03-01T09:00:00.000Z');
    const anaEmail = await emailOf(ana.id);
    expect(rec.emails.map((e) => e.to).sort()).toEqual([await emailOf(bo.id), 'outside@example.com'].sort());
    expect(await deliveriesOf(first as number)).toEqual([
      { user_id: ana.id, email: null, status: 'skipped', attempts: 0, last_error: REASON },
      { user_id: bo.id, email: null, status: 'sent', attempts: 1, last_error: null },
      { user_id: null, email: 'outside@example.com', status: 'sent', attempts: 1, last_error: null },
    ]);
    // A skip is no failure: the run is delivered, and its counts say what was skipped.
    expect(await runStatus(first as number)).toBe('delivered');
    const runs = await api('GET', `${url}/runs`, { auth: acme.admin });
    expect(runs.body.items[0]).toMatchObject({
      id: first,
      status: 'delivered',
      deliveryCounts: { total: 3, pending: 0, sent: 2, failed: 0, skipped: 1 },
    });
    const listed = await api('GET', `${url}/runs/${first}/deliveries`, { auth: acme.admin });
    expect(listed.body.items).toContainEqual({
      recipientId: expect.any(Number),
      status: 'skipped',
      attempts: 0,
      lastError: REASON,
      sentAt: null,
    });
    // The subscription stays while the user is deactivated.
    const recipients = await api('GET', `${url}/recipients`, { auth: acme.admin });
    expect(recipients.body.items.map((r: { userId: number | null }) => r.userId)).toContain(ana.id);

    // Reactivated (here by bulkUserAction), the next run reaches them.
    const bulk = await api('POST', '/api/v1/users/bulk', {
      auth: acme.admin,
      body: { action: 'ACTIVATE', userIds: [ana.id] },
    });
    expect(bulk.body.succeeded).toEqual([ana.id]);
    rec.emails.length = 0;
    const [second] = await tickAndDeliver('2027-03-02T09:00:00.000Z');
    expect(rec.emails.map((e) => e.to)).toContain(anaEmail);
    expect((await deliveriesOf(second as number)).map((d) => d.status)).toEqual(['sent', 'sent', 'sent']);

    await stop(url);
  });

  it('skip users deactivated by bulkUserAction; a run whose every recipient is skipped sends nothing', async () => {
    const [cy, di] = [await newUser(acme), await newUser(acme)];
    const { url } = await dailyAt('2027-04-01T08:00:00.000Z', [{ userId: cy.id }, { userId: di.id }]);
    const bulk = await api('POST', '/api/v1/users/bulk', {
      auth: acme.admin,
      body: { action: 'DEACTIVATE', userIds: [cy.id, di.id] },
    });
    expect(bulk.body.succeeded).toEqual([cy.id, di.id]);
    const [runId] = await tickAndDeliver('2027-04-01T09:00:00.000Z');
    expect(rec.emails).toEqual([]);
    expect(rec.renders).toEqual([]);
    expect((await deliveriesOf(runId as number)).map((d) => [d.status, d.last_error])).toEqual([
      ['skipped', REASON],
      ['skipped', REASON],
    ]);
    expect(await runStatus(runId as number)).toBe('delivered');
    // Nothing is left for the queue: no continuation, no retry.
    expect(rec.queued).toEqual([runId]);
    await stop(url);
  });

  it('skip a user deactivated while their delivery waits for a retry, instead of retrying it', async () => {
    const eve = await newUser(acme);
    const fay = await newUser(acme);
    const { url } = await dailyAt('2027-05-01T08:00:00.000Z', [{ userId: eve.id }, { userId: fay.id }]);
    rec.failing.set(await emailOf(eve.id), 'Mailbox unavailable');
    await tick('2027-05-01T09:00:00.000Z');
    const [runId] = rec.queued;
    const firstAttempt = await consume([runId as number]);
    expect(firstAttempt.retryMessages).toHaveLength(1);
    expect((await deliveriesOf(runId as number)).map((d) => d.status)).toEqual(['pending', 'sent']);

    await api('PUT', `/api/v1/users/${eve.id}`, { auth: acme.admin, body: { isDeactivated: true } });
    rec.failing.clear();
    const retried = await consume([runId as number], { attempts: 2 });
    expect(retried.retryMessages).toEqual([]);
    expect(rec.emails.map((e) => e.to)).toEqual([await emailOf(fay.id)]);
    expect(await deliveriesOf(runId as number)).toEqual([
      { user_id: eve.id, email: null, status: 'skipped', attempts: 1, last_error: REASON },
      { user_id: fay.id, email: null, status: 'sent', attempts: 1, last_error: null },
    ]);
    expect(await runStatus(runId as number)).toBe('delivered');
    await stop(url);
  });
});
