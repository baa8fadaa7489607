import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { seedDashboard } from './fixtures';

let world: World;
let dashboard: { id: number; publicId: string };
let otherDashboard: { id: number; publicId: string };
let stagingDashboard: { id: number; publicId: string };
let base: string;

const NOW = '2026-05-01T10:00:00.000Z';

beforeAll(async () => {
  world = await seedWorld();
  dashboard = await seedDashboard(world.acme);
  stagingDashboard = await seedDashboard(world.acme, 'Staging', world.acme.deployments[1]);
  otherDashboard = await seedDashboard(world.other);
  base = `/api/v1/deployments/${world.acme.deployments[0]}/notifications`;
});

function at(iso: string) {
  platform.clock = clockAt(iso);
}

async function create(body: Record<string, unknown>) {
  return api('POST', base, { auth: world.acme.admin, body: { dashboardId: dashboard.id, ...body } });
}

async function storedRow(id: number) {
  return env.DB.prepare('SELECT * FROM notifications WHERE id = ?').bind(id).first<Record<string, unknown>>();
}

describe('POST /api/v1/deployments/{d}/notifications', () => {
  it('creates a DAILY notification with the defaults, its cron, its description and its next run', async () => {
    at(NOW);
    const res = await create({ scheduleType: 'DAILY', hour: 9, minute: 30 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      deploymentId: world.acme.deployments[0],
      dashboardId: dashboard.id,
      dashboardPublicId: dashboard.publicId,
      scheduleType: 'DAILY',
      minute: 30,
      hour: 9,
      dayOfWeek: null,
      dayOfMonth: null,
      customCron: null,
      cronExpression: '30 9 * * *',
      humanReadableSchedule: 'Every day at 09:30 (UTC)',
      timezone: 'UTC',
      isEnabled: true,
      notificationEnabled: true,
      notificationFormat: 'png',
      filters: [],
      timeGrains: [],
      nextRunAt: '2026-05-02T09:30:00.000Z',
      createdBy: world.acme.adminUserId,
      createdAt: NOW,
    });
    const row = await storedRow(res.body.id);
    expect(row).toMatchObject({ account_id: world.acme.accountId, next_run_at: '2026-05-02T09:30:00.000Z' });
  });

  it.each([
    [{ scheduleType: 'HOURLY', minute: 5 }, '5 * * * *', '2026-05-01T10:05:00.000Z'],
    [{ scheduleType: 'WEEKLY', dayOfWeek: 1, hour: 8, minute: 0 }, '0 8 * * 1', '2026-05-04T08:00:00.000Z'],
    [
      { scheduleType: 'MONTHLY', dayOfMonth: 31, hour: 6, minute: 0 },
      '0 6 31 * *',
      '2026-05-31T06:00:00.000Z',
    ],
    [
      { scheduleType: 'CUSTOM', customCron: '*/20  *  * * 1-5' },
      '*/20 * * * 1-5',
      '2026-05-01T10:20:00.000Z',
    ],
  ])('creates %j with cron %s', async (schedule, cron, next) => {
    at(NOW);
    const res = await create(schedule);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.cronExpression).toBe(cron);
    expect(res.body.nextRunAt).toBe(next);
    expect(res.body.humanReadableSchedule).toMatch(/\(UTC\)$/);
  });

  it('takes the dashboard by publicId, a time zone, the format, the flags, filters and time grains', async () => {
    at(NOW);
    const res = await api('POST', base, {
      auth: world.acme.admin,
      body: {
        dashboardPublicId: dashboard.publicId,
        scheduleType: 'WEEKLY',
        dayOfWeek: 0,
        hour: 2,
        minute: 30,
        timezone: 'europe/berlin',
        notificationFormat: 'pdf',
        isEnabled: true,
        notificationEnabled: false,
        filters: [{ member: 'orders.status', value: 'shipped', caseSensitive: true }],
        timeGrains: [{ grain: 'week', member: 'orders.created_at' }],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      dashboardId: dashboard.id,
      timezone: 'Europe/Berlin',
      humanReadableSchedule: 'Every Sunday at 02:30 (Europe/Berlin)',
      notificationFormat: 'pdf',
      notificationEnabled: false,
      timeGrains: [{ grain: 'week', member: 'orders.created_at' }],
      nextRunAt: '2026-05-03T00:30:00.000Z',
    });
    // The flags left unset are left out of the answer (Cube's DashboardFilter admits no null there).
    expect(res.body.filters).toEqual([
      { member: 'orders.status', operator: null, value: 'shipped', caseSensitive: true },
    ]);
  });

  it('stores no next run while the schedule is off', async () => {
    const res = await create({ scheduleType: 'HOURLY', minute: 0, isEnabled: false });
    expect(res.status).toBe(200);
    expect(res.body.nextRunAt).toBeNull();
    expect((await storedRow(res.body.id))?.next_run_at).toBeNull();
  });

  it.each([
    [{ scheduleType: 'HOURLY' }, 'minute', 'Required for HOURLY schedules'],
    [{ scheduleType: 'DAILY', minute: 0 }, 'hour', 'Required for DAILY schedules'],
    [{ scheduleType: 'WEEKLY', hour: 1, minute: 0 }, 'dayOfWeek', 'Required for WEEKLY schedules'],
    [{ scheduleType: 'MONTHLY', hour: 1, minute: 0 }, 'dayOfMonth', 'Required for MONTHLY schedules'],
    [{ scheduleType: 'CUSTOM' }, 'customCron', 'Required for CUSTOM schedules'],
    [
      { scheduleType: 'DAILY', hour: 1, minute: 0, dayOfWeek: 2 },
      'dayOfWeek',
      'Does not apply to DAILY schedules',
    ],
    [
      { scheduleType: 'CUSTOM', customCron: '0 0 * *' },
      'customCron',
      'a cron expression has 5 fields: minute hour day month weekday',
    ],
    [{ scheduleType: 'CUSTOM', customCron: '0 0 30 2 *' }, 'customCron', 'The expression never fires'],
    [{ scheduleType: 'CUSTOM', customCron: '61 * * * *' }, 'customCron', 'minute 61 is outside 0–59'],
  ])('refuses %j naming %s', async (body, path, message) => {
    const res = await create(body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details).toContainEqual({ path, message });
    const count = await env.DB.prepare('SELECT count(*) AS n FROM notifications WHERE minute = 59').first();
    expect(count?.n).toBe(0);
  });

  it.each([
    [{ scheduleType: 'DAILY', hour: 24, minute: 0 }, 'hour'],
    [{ scheduleType: 'DAILY', hour: 1, minute: 60 }, 'minute'],
    [{ scheduleType: 'WEEKLY', hour: 1, minute: 0, dayOfWeek: 7 }, 'dayOfWeek'],
    [{ scheduleType: 'MONTHLY', hour: 1, minute: 0, dayOfMonth: 0 }, 'dayOfMonth'],
    [{ scheduleType: 'MONTHLY', hour: 1, minute: 0, dayOfMonth: 32 }, 'dayOfMonth'],
    [{ scheduleType: 'DAILY', hour: 1.5, minute: 0 }, 'hour'],
    [{ scheduleType: 'DAILY', hour: 1, minute: 0, timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    [{ scheduleType: 'DAILY', hour: 1, minute: 0, timezone: '+02:00' }, 'timezone'],
    [{ scheduleType: 'DAILY', hour: 1, minute: 0, notificationFormat: 'gif' }, 'notificationFormat'],
    [{ scheduleType: 'YEARLY', hour: 1, minute: 0 }, 'scheduleType'],
    [{ hour: 1, minute: 0 }, 'scheduleType'],
    [{ scheduleType: 'DAILY', hour: 1, minute: 0, filters: [{ value: 'x' }] }, 'filters.0.member'],
    [
      { scheduleType: 'DAILY', hour: 1, minute: 0, timeGrains: [{ grain: 'fortnight', member: 'a' }] },
      'timeGrains.0.grain',
    ],
    [{ scheduleType: 'DAILY', hour: 1, minute: 0, colour: 'red' }, 'colour'],
  ])('refuses %j in the body (%s)', async (body, path) => {
    const res = await create(body);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('needs exactly one of dashboardId and dashboardPublicId', async () => {
    const none = await api('POST', base, {
      auth: world.acme.admin,
      body: { scheduleType: 'HOURLY', minute: 1 },
    });
    expectError(none, 400, 'VALIDATION_FAILED');
    expect(none.body.details[0].path).toBe('dashboardId');
    const both = await create({ dashboardPublicId: dashboard.publicId, scheduleType: 'HOURLY', minute: 1 });
    expectError(both, 400, 'VALIDATION_FAILED');
  });

  it("answers 404 for a dashboard of another deployment or account, and for another account's deployment", async () => {
    for (const dashboardId of [stagingDashboard.id, otherDashboard.id, 999_999]) {
      const res = await create({ dashboardId, scheduleType: 'HOURLY', minute: 1 });
      expectError(res, 404, 'NOT_FOUND');
      expect(res.body.details[0].path).toBe('dashboardId');
    }
    const foreign = await api('POST', `/api/v1/deployments/${world.other.deployments[0]}/notifications`, {
      auth: world.acme.admin,
      body: { dashboardId: otherDashboard.id, scheduleType: 'HOURLY', minute: 1 },
    });
    expectError(foreign, 404, 'NOT_FOUND');
  });

  it('is for admins with a Bearer token only', async () => {
    const body = { dashboardId: dashboard.id, scheduleType: 'HOURLY', minute: 1 };
    expectError(await api('POST', base, { body }), 401, 'UNAUTHORIZED');
    // A valid API key is accepted on these routes (test/foundation/api-key-credentials.test.ts); an unknown one is a 401.
    expectError(await api('POST', base, { auth: { apiKey: 'eb_ak_unknown' }, body }), 401, 'UNAUTHORIZED');
    expectError(await api('POST', base, { auth: { bearer: 'eb_at_unknown' }, body }), 401, 'UNAUTHORIZED');
    expectError(await api('POST', base, { auth: world.acme.member, body }), 403, 'FORBIDDEN');
  });
});

describe('GET, list, PUT and DELETE', () => {
  it("gets one notification; another account's is a 404", async () => {
    const created = await create({ scheduleType: 'HOURLY', minute: 7 });
    const res = await api('GET', `${base}/${created.body.id}`, { auth: world.acme.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created.body);
    expectError(
      await api('GET', `${base}/${created.body.id}`, { auth: world.other.admin }),
      404,
      'NOT_FOUND',
    );
    const wrongDeployment = `/api/v1/deployments/${world.acme.deployments[1]}/notifications/${created.body.id}`;
    expectError(await api('GET', wrongDeployment, { auth: world.acme.admin }), 404, 'NOT_FOUND');
    expectError(await api('GET', `${base}/${created.body.id}`, { auth: world.acme.member }), 403);
    expectError(await api('GET', `${base}/abc`, { auth: world.acme.admin }), 400);
  });

  it('lists page by page and filters by dashboard', async () => {
    const second = await seedDashboard(world.acme, 'Second');
    const deployment = world.acme.deployments[0];
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api('POST', base, {
        auth: world.acme.admin,
        body: { dashboardId: second.id, scheduleType: 'HOURLY', minute: i },
      });
      ids.push(res.body.id);
    }
    const page1 = await api('GET', `${base}?dashboardId=${second.id}&first=2`, { auth: world.acme.admin });
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((n: { id: number }) => n.id)).toEqual(ids.slice(0, 2));
    expect(page1.body.pageInfo.hasNextPage).toBe(true);
    const page2 = await api(
      'GET',
      `${base}?dashboardId=${second.id}&first=2&after=${page1.body.pageInfo.endCursor}`,
      { auth: world.acme.admin },
    );
    expect(page2.body.items.map((n: { id: number }) => n.id)).toEqual(ids.slice(2));
    expect(page2.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    const byPublicId = await api('GET', `${base}?dashboardPublicId=${second.publicId}`, {
      auth: world.acme.admin,
    });
    expect(byPublicId.body.items).toHaveLength(3);
    const all = await api('GET', base, { auth: world.acme.admin });
    expect(all.body.items.every((n: { deploymentId: number }) => n.deploymentId === deployment)).toBe(true);
    expectError(await api('GET', `${base}?after=garbage`, { auth: world.acme.admin }), 400, 'INVALID_CURSOR');
    expectError(await api('GET', `${base}?first=0`, { auth: world.acme.admin }), 400);
    const foreign = `/api/v1/deployments/${world.other.deployments[0]}/notifications`;
    expectError(await api('GET', foreign, { auth: world.acme.admin }), 404, 'NOT_FOUND');
    const theirs = await api('GET', foreign, { auth: world.other.admin });
    expect(theirs.body.items).toEqual([]);
  });

  it('updates partially and recomputes the next run when the schedule changes', async () => {
    at(NOW);
    const created = await create({
      scheduleType: 'DAILY',
      hour: 9,
      minute: 0,
      filters: [{ member: 'a', value: '1' }],
      timeGrains: [{ grain: 'day', member: 't' }],
    });
    const url = `${base}/${created.body.id}`;
    const res = await api('PUT', url, {
      auth: world.acme.admin,
      body: { hour: 11, timezone: 'America/New_York' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      hour: 11,
      minute: 0,
      cronExpression: '0 11 * * *',
      humanReadableSchedule: 'Every day at 11:00 (America/New_York)',
      nextRunAt: '2026-05-01T15:00:00.000Z',
      filters: [{ member: 'a', value: '1' }],
    });
    // Filters and time grains replace the stored sets.
    at('2026-05-01T12:00:00.000Z');
    const replaced = await api('PUT', url, {
      auth: world.acme.admin,
      body: { filters: [{ member: 'b' }], timeGrains: [], notificationFormat: 'pdf' },
    });
    expect(replaced.body.filters).toEqual([{ member: 'b', operator: null, value: null }]);
    expect(replaced.body).toMatchObject({
      timeGrains: [],
      notificationFormat: 'pdf',
      // Nothing about the schedule changed: the next run stays.
      nextRunAt: '2026-05-01T15:00:00.000Z',
      updatedAt: '2026-05-01T12:00:00.000Z',
    });
    // Another schedule type: the old fields it does not use go, the new ones are required.
    const weeklyMissing = await api('PUT', url, { auth: world.acme.admin, body: { scheduleType: 'WEEKLY' } });
    expectError(weeklyMissing, 400, 'VALIDATION_FAILED');
    expect(weeklyMissing.body.details).toEqual([
      { path: 'dayOfWeek', message: 'Required for WEEKLY schedules' },
    ]);
    const hourly = await api('PUT', url, { auth: world.acme.admin, body: { scheduleType: 'HOURLY' } });
    expect(hourly.body).toMatchObject({ hour: null, minute: 0, cronExpression: '0 * * * *' });
    expect((await storedRow(created.body.id))?.hour).toBeNull();
    const wrongField = await api('PUT', url, { auth: world.acme.admin, body: { dayOfMonth: 3 } });
    expectError(wrongField, 400, 'VALIDATION_FAILED');
    expect(wrongField.body.details[0]).toEqual({
      path: 'dayOfMonth',
      message: 'Does not apply to HOURLY schedules',
    });
  });

  it('turns the schedule off and on; off clears the next run, on recomputes it from now', async () => {
    at(NOW);
    const created = await create({ scheduleType: 'DAILY', hour: 9, minute: 0 });
    const url = `${base}/${created.body.id}`;
    const off = await api('PUT', url, { auth: world.acme.admin, body: { isEnabled: false } });
    expect(off.body).toMatchObject({ isEnabled: false, nextRunAt: null });
    at('2026-05-10T10:00:00.000Z');
    const on = await api('PUT', url, { auth: world.acme.admin, body: { isEnabled: true } });
    expect(on.body).toMatchObject({ isEnabled: true, nextRunAt: '2026-05-11T09:00:00.000Z' });
  });

  it('moves a notification to another dashboard of the deployment', async () => {
    const created = await create({ scheduleType: 'HOURLY', minute: 1 });
    const other = await seedDashboard(world.acme, 'Other');
    const url = `${base}/${created.body.id}`;
    const res = await api('PUT', url, {
      auth: world.acme.admin,
      body: { dashboardPublicId: other.publicId },
    });
    expect(res.body).toMatchObject({ dashboardId: other.id, dashboardPublicId: other.publicId });
    const foreign = await api('PUT', url, {
      auth: world.acme.admin,
      body: { dashboardId: otherDashboard.id },
    });
    expectError(foreign, 404, 'NOT_FOUND');
  });

  it('refuses bad updates and other accounts', async () => {
    const created = await create({ scheduleType: 'HOURLY', minute: 1 });
    const url = `${base}/${created.body.id}`;
    expectError(await api('PUT', url, { auth: world.acme.admin, body: { minute: -1 } }), 400);
    expectError(await api('PUT', url, { auth: world.acme.admin, body: { surprise: 1 } }), 400);
    expectError(await api('PUT', url, { auth: world.acme.admin, body: { timezone: 'Nowhere' } }), 400);
    expectError(await api('PUT', url, { auth: world.other.admin, body: { minute: 2 } }), 404, 'NOT_FOUND');
    expectError(await api('PUT', url, { auth: world.acme.member, body: { minute: 2 } }), 403);
    expectError(await api('PUT', url, { body: { minute: 2 } }), 401);
    expect((await storedRow(created.body.id))?.minute).toBe(1);
  });

  it('deletes with its recipients and runs; another account gets 404', async () => {
    const created = await create({ scheduleType: 'HOURLY', minute: 1 });
    const id = created.body.id;
    const url = `${base}/${id}`;
    const added = await api('POST', `${url}/recipients`, {
      auth: world.acme.admin,
      body: { recipients: [{ email: 'someone@example.com' }] },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    await env.DB.prepare(
      `INSERT INTO notification_runs (notification_id, slot, "trigger", status, created_at) VALUES (?, ?, 'scheduled', 'queued', ?)`,
    )
      .bind(id, NOW, NOW)
      .run();
    expectError(await api('DELETE', url, { auth: world.other.admin }), 404, 'NOT_FOUND');
    const res = await api('DELETE', url, { auth: world.acme.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, deleted: true });
    for (const table of ['notification_recipients', 'notification_runs']) {
      const left = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE notification_id = ?`)
        .bind(id)
        .first();
      expect(left?.n).toBe(0);
    }
    expectError(await api('GET', url, { auth: world.acme.admin }), 404);
    expectError(await api('DELETE', url, { auth: world.acme.admin }), 404);
  });
});

describe('GET …/notifications/{id}/schedule', () => {
  it('previews the next runs in UTC and local time across the Berlin spring-forward change', async () => {
    at('2026-03-27T12:00:00.000Z');
    const created = await create({ scheduleType: 'DAILY', hour: 2, minute: 30, timezone: 'Europe/Berlin' });
    const res = await api('GET', `${base}/${created.body.id}/schedule?count=3`, { auth: world.acme.admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      cronExpression: '30 2 * * *',
      humanReadableSchedule: 'Every day at 02:30 (Europe/Berlin)',
      timezone: 'Europe/Berlin',
      isEnabled: true,
      nextRuns: [
        { utc: '2026-03-28T01:30:00.000Z', local: '2026-03-28T02:30:00+01:00' },
        { utc: '2026-03-29T01:00:00.000Z', local: '2026-03-29T03:00:00+02:00' },
        { utc: '2026-03-30T00:30:00.000Z', local: '2026-03-30T02:30:00+02:00' },
      ],
    });
  });

  it('previews the New York fall-back change: the repeated 01:30 runs once', async () => {
    at('2026-10-31T00:00:00.000Z');
    const created = await create({
      scheduleType: 'DAILY',
      hour: 1,
      minute: 30,
      timezone: 'America/New_York',
    });
    const res = await api('GET', `${base}/${created.body.id}/schedule?count=3`, { auth: world.acme.admin });
    expect(res.body.nextRuns).toEqual([
      { utc: '2026-10-31T05:30:00.000Z', local: '2026-10-31T01:30:00-04:00' },
      { utc: '2026-11-01T05:30:00.000Z', local: '2026-11-01T01:30:00-04:00' },
      { utc: '2026-11-02T06:30:00.000Z', local: '2026-11-02T01:30:00-05:00' },
    ]);
  });

  it('defaults to 10 runs, takes 1 to 50, and guards the notification', async () => {
    const created = await create({ scheduleType: 'HOURLY', minute: 0 });
    const url = `${base}/${created.body.id}/schedule`;
    expect((await api('GET', url, { auth: world.acme.admin })).body.nextRuns).toHaveLength(10);
    expect((await api('GET', `${url}?count=50`, { auth: world.acme.admin })).body.nextRuns).toHaveLength(50);
    expectError(await api('GET', `${url}?count=0`, { auth: world.acme.admin }), 400);
    expectError(await api('GET', `${url}?count=51`, { auth: world.acme.admin }), 400);
    expectError(await api('GET', `${url}?count=x`, { auth: world.acme.admin }), 400);
    expectError(await api('GET', url, { auth: world.other.admin }), 404);
    expectError(await api('GET', url, { auth: world.acme.member }), 403);
  });
});

describe('the OpenAPI document', () => {
  it('documents every notification route and records the decisions', async () => {
    const res = await api('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    const base = '/api/v1/deployments/{deploymentId}/notifications';
    const paths = res.body.paths;
    expect(Object.keys(paths[base]).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths[`${base}/{id}`]).sort()).toEqual(['delete', 'get', 'put']);
    expect(paths[`${base}/{id}`].put.operationId).toBe('updateNotification');
    expect(paths[`${base}/{id}/recipients`].post.operationId).toBe('addRecipients');
    expect(paths[`${base}/{id}/recipients/{recipientId}`].delete).toBeDefined();
    expect(paths[`${base}/{id}/schedule`].get).toBeDefined();
    expect(paths[`${base}/{id}/runs`].get).toBeDefined();
    expect(paths[`${base}/{id}/run`].post.responses['202']).toBeDefined();
    const create = paths[base].post.requestBody.content['application/json'].schema;
    expect(create.properties.scheduleType.enum).toEqual(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM']);
    // Cube makes it nullable: the enum is one branch of the anyOf.
    expect(create.properties.notificationFormat.anyOf).toContainEqual(
      expect.objectContaining({ enum: ['png', 'pdf'] }),
    );
    expect(create.properties.notificationFormat.anyOf).toContainEqual({ type: 'null' });
    expect(res.body.info.description).toContain('Local-time rules apply to every local time');
  });
});
