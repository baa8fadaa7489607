import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { FILTER_OPERATORS } from '../../schema/notifications';
import { VALUELESS_OPERATORS } from '../../src/semantic/query/control-operators';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { seedDashboard } from '../notifications/fixtures';
import { holdAnswersToCube } from './cube-openapi';
import { type CubeType, expectCube, expectPageInfo } from './cube-shape';

// Every 2xx answer below is also held to Cube's published response schema for its operation.
holdAnswersToCube();

/**
 * Cube's notifications-and-recipients group (tag Notifications), from Cube's published OpenAPI
 * document: Cube-shaped requests (every field, nulls where Cube allows them, each enum value),
 * answers checked for every field Cube marks required, with Cube's type. Every call here uses an
 * API key as `Authorization: Bearer <key>`, as Cube clients do.
 */

const NOTIFICATION: Record<string, CubeType> = {
  id: 'integer',
  dashboardId: 'integer',
  deploymentId: 'integer',
  cronExpression: 'string',
  timezone: 'string',
  isEnabled: 'boolean',
  humanReadableSchedule: 'string',
  notificationEnabled: 'boolean',
  notificationFormat: 'string',
  notificationAiSummary: 'boolean',
};
const RECIPIENT_TYPES = ['USER', 'EMBED_USER', 'SLACK'];

/** One DashboardFilterInput per operator (Cube's DashboardFilterOperator), with values of every type Cube allows. */
const cubeFilters = FILTER_OPERATORS.map((operator, i) => ({
  member: `Orders.field${i}`,
  operator,
  value: VALUELESS_OPERATORS.has(operator)
    ? null
    : operator === 'between'
      ? ['2024-01-01', '2024-12-31']
      : [`text-${i}`, i, i % 2 === 0, ['a', 'b'], [1, 2]][i % 5],
  caseSensitive: i % 3 === 0 ? null : true,
  startInclusive: operator === 'between' ? true : null,
  endInclusive: operator === 'between' ? false : null,
}));
/** The filters as answered: a flag sent as null is left out (Cube's DashboardFilter admits no null flag). */
const answeredFilters = cubeFilters.map((filter) =>
  Object.fromEntries(
    Object.entries(filter).filter(
      ([name, value]) => !(name.endsWith('Inclusive') || name === 'caseSensitive') || value !== null,
    ),
  ),
);

let acme: SeededAccount;
let key: { bearer: string };
let base: string;
let dashboard: { id: number; publicId: string };
let memberEmail: string;

beforeAll(async () => {
  acme = await seedAccount();
  key = { bearer: acme.key.apiKey };
  base = `/api/v1/deployments/${acme.deployments[0]}/notifications`;
  dashboard = await seedDashboard(acme);
  const users = await api('GET', '/api/v1/users', { auth: acme.admin });
  memberEmail = users.body.items.find((u: { id: number }) => u.id === acme.memberUserId).email;
});

/** Cube's CreateNotificationInput with every field; the schedule fields a type does not use are null. */
function createInput(scheduleType: string, format: 'png' | 'pdf' = 'png') {
  const uses = {
    HOURLY: ['minute'],
    DAILY: ['minute', 'hour'],
    WEEKLY: ['minute', 'hour', 'dayOfWeek'],
    MONTHLY: ['minute', 'hour', 'dayOfMonth'],
    CUSTOM: ['customCron'],
  }[scheduleType] as string[];
  const values: Record<string, unknown> = {
    minute: 15,
    hour: 9,
    dayOfWeek: 1,
    dayOfMonth: 28,
    customCron: '0 9 * * 1-5',
  };
  return {
    scheduleType,
    ...Object.fromEntries(Object.entries(values).map(([k, v]) => [k, uses.includes(k) ? v : null])),
    dashboardId: dashboard.id,
    dashboardPublicId: null,
    timezone: 'Europe/Berlin',
    notificationFormat: format,
    notificationEnabled: true,
    notificationAiSummary: true,
    filters: cubeFilters,
    timeGrains: [{ member: 'Orders.createdAt', grain: 'week' }],
    memberSwitchers: [{ member: 'Orders.measureSwitch', selected: 'count' }],
  };
}

const create = async (body: unknown) => {
  const res = await api('POST', base, { auth: key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expectCube(res.body, NOTIFICATION);
  return res.body;
};

describe('createNotification — POST …/notifications', () => {
  it.each(['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM'])(
    'takes CreateNotificationInput with every field for %s and answers a NotificationDto (200)',
    async (scheduleType) => {
      const body = await create(createInput(scheduleType, scheduleType === 'WEEKLY' ? 'pdf' : 'png'));
      expect(body).toMatchObject({
        notificationAiSummary: true,
        timezone: 'Europe/Berlin',
        memberSwitchers: [{ member: 'Orders.measureSwitch', selected: 'count' }],
        timeGrains: [{ member: 'Orders.createdAt', grain: 'week' }],
        notificationFormat: scheduleType === 'WEEKLY' ? 'pdf' : 'png',
      });
      expect(body.filters).toEqual(answeredFilters);
      const stored = await env.DB.prepare(
        'SELECT notification_ai_summary AS ai, member_switchers AS ms, filters FROM notifications WHERE id = ?',
      )
        .bind(body.id)
        .first<{ ai: number; ms: string; filters: string }>();
      expect(stored?.ai).toBe(1);
      expect(JSON.parse(stored?.ms ?? '[]')).toEqual(body.memberSwitchers);
      expect(JSON.parse(stored?.filters ?? '[]')[16]).toMatchObject({
        operator: 'between',
        value: ['2024-01-01', '2024-12-31'],
      });
    },
  );

  it('defaults notificationAiSummary to false and names the dashboard by publicId', async () => {
    const body = await create({
      scheduleType: 'HOURLY',
      minute: 0,
      dashboardId: null,
      dashboardPublicId: dashboard.publicId,
      notificationAiSummary: null,
      filters: null,
      timeGrains: null,
      memberSwitchers: null,
    });
    expect(body).toMatchObject({
      notificationAiSummary: false,
      filters: [],
      memberSwitchers: [],
      dashboardId: dashboard.id,
    });
  });

  it.each([
    [{ operator: 'between', value: 'not a pair' }, 'filters.0.value'],
    [{ operator: 'between', value: [1, 2, 3] }, 'filters.0.value'],
    [{ operator: 'is_null', value: 'x' }, 'filters.0.value'],
    [{ operator: 'like' }, 'filters.0.operator'],
    [{ value: { nested: true } }, 'filters.0.value'],
    [{ value: Array.from({ length: 101 }, (_, i) => i) }, 'filters.0.value'],
    [{ value: 'x'.repeat(4097) }, 'filters.0.value'],
  ])('refuses the filter %j naming %s', async (filter, path) => {
    const res = await api('POST', base, {
      auth: key,
      body: { ...createInput('DAILY'), filters: [{ member: 'Orders.status', ...filter }] },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe(path);
  });

  it('refuses a member switcher without `selected`, and fields Cube does not define', async () => {
    const noSelected = await api('POST', base, {
      auth: key,
      body: { ...createInput('DAILY'), memberSwitchers: [{ member: 'Orders.x' }] },
    });
    expect(noSelected.body.details[0].path).toBe('memberSwitchers.0.selected');
    const unknown = await api('POST', base, { auth: key, body: { ...createInput('DAILY'), aiModel: 'x' } });
    expectError(unknown, 400, 'VALIDATION_FAILED');
  });
});

describe('getNotification / updateNotification / deleteNotification — …/notifications/{id}', () => {
  it('gets, updates with every UpdateNotificationInput field (nulls keep), and deletes', async () => {
    const created = await create(createInput('DAILY'));
    const got = await api('GET', `${base}/${created.id}`, { auth: key });
    expect(got.status).toBe(200);
    expectCube(got.body, NOTIFICATION);
    expect(got.body).toEqual(created);

    const updated = await api('PUT', `${base}/${created.id}`, {
      auth: key,
      body: {
        scheduleType: 'WEEKLY',
        customCron: null,
        dayOfMonth: null,
        dayOfWeek: 3,
        hour: 7,
        minute: 30,
        timezone: 'America/New_York',
        notificationFormat: 'pdf',
        isEnabled: false,
        notificationEnabled: false,
        notificationAiSummary: false,
        filters: [{ member: 'Orders.total', operator: 'greater_than', value: 100 }],
        timeGrains: [],
        memberSwitchers: [{ member: 'Orders.dim', selected: 'status' }],
      },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expectCube(updated.body, NOTIFICATION);
    expect(updated.body).toMatchObject({
      scheduleType: 'WEEKLY',
      dayOfWeek: 3,
      isEnabled: false,
      notificationEnabled: false,
      notificationAiSummary: false,
      notificationFormat: 'pdf',
      timeGrains: [],
      memberSwitchers: [{ member: 'Orders.dim', selected: 'status' }],
    });
    // The flags it did not set are left out: Cube's DashboardFilter does not admit them as null.
    expect(updated.body.filters).toEqual([{ member: 'Orders.total', operator: 'greater_than', value: 100 }]);

    // Every field null: nothing changes.
    const nulls = await api('PUT', `${base}/${created.id}`, {
      auth: key,
      body: Object.fromEntries(
        [
          'customCron',
          'dayOfMonth',
          'dayOfWeek',
          'hour',
          'minute',
          'timezone',
          'scheduleType',
          'notificationFormat',
          'isEnabled',
          'notificationEnabled',
          'notificationAiSummary',
          'filters',
          'timeGrains',
          'memberSwitchers',
        ].map((k) => [k, null]),
      ),
    });
    expect(nulls.status, JSON.stringify(nulls.body)).toBe(200);
    expect({ ...nulls.body, updatedAt: null }).toEqual({ ...updated.body, updatedAt: null });

    const deleted = await api('DELETE', `${base}/${created.id}`, { auth: key });
    expect(deleted.status).toBe(200);
    expectError(await api('GET', `${base}/${created.id}`, { auth: key }), 404, 'NOT_FOUND');
  });
});

describe('recipients — …/notifications/{id}/recipients', () => {
  it('adds Cube-shaped recipients of every type (nulls, typed attributes, an email-shaped externalId)', async () => {
    const n = await create(createInput('DAILY'));
    const nulls = {
      userId: null,
      email: null,
      embedTenantName: null,
      externalId: null,
      groups: null,
      userAttributes: null,
      securityContext: null,
      channelId: null,
      channelName: null,
    };
    const res = await api('POST', `${base}/${n.id}/recipients`, {
      auth: key,
      body: {
        recipients: [
          { ...nulls, type: 'USER', userId: acme.memberUserId },
          { ...nulls, type: 'USER', email: 'someone@example.com' },
          {
            ...nulls,
            type: 'EMBED_USER',
            embedTenantName: 'tenant-one',
            externalId: 'Jane.Doe@Example.com',
            groups: ['sales'],
            userAttributes: [
              { name: 'region', value: 'EMEA' },
              { name: 'level', value: 3 },
              { name: 'manager', value: true },
              { name: 'cities', value: ['Berlin', 'Paris'] },
              { name: 'ids', value: [1, 2] },
              { name: 'none', value: null },
            ],
            securityContext: { tenant: 'one' },
          },
          { ...nulls, type: 'SLACK', channelId: 'C123', channelName: 'alerts' },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const list of ['createdRecipients', 'updatedRecipients', 'unchangedRecipients']) {
      expect(Array.isArray(res.body[list]), list).toBe(true);
    }
    expect(res.body.createdRecipients).toHaveLength(4);
    for (const r of res.body.createdRecipients) expectCube(r, { type: RECIPIENT_TYPES });
    const embed = res.body.createdRecipients.find((r: { type: string }) => r.type === 'EMBED_USER');
    expect(embed).toMatchObject({
      externalId: 'jane.doe@example.com',
      email: 'jane.doe@example.com',
      embedTenantName: 'tenant-one',
    });
    expect(embed.embedUserId).toEqual(expect.any(Number));
    expect(embed.userAttributes).toContainEqual({ name: 'cities', value: ['Berlin', 'Paris'] });

    const list = await api('GET', `${base}/${n.id}/recipients?first=10`, { auth: key });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(4);
    expectPageInfo(list.body.pageInfo);
    for (const r of list.body.items) expectCube(r, { type: RECIPIENT_TYPES });

    // Cube's listing filters find the notification by each kind of recipient.
    const byFilter = async (query: string) => {
      const found = await api('GET', `${base}?${query}`, { auth: key });
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      for (const item of found.body.items) expectCube(item, NOTIFICATION);
      return found.body.items.map((x: { id: number }) => x.id);
    };
    expect(await byFilter(`recipientUserId=${acme.memberUserId}`)).toEqual([n.id]);
    expect(await byFilter(`recipientEmail=${encodeURIComponent(memberEmail.toUpperCase())}`)).toEqual([n.id]);
    expect(await byFilter('recipientEmail=someone%40example.com')).toEqual([n.id]);
    expect(
      await byFilter('recipientEmbedTenantName=tenant-one&recipientExternalId=Jane.Doe%40example.com'),
    ).toEqual([n.id]);
    expect(await byFilter(`recipientUserId=${acme.adminUserId}`)).toEqual([]);
    expectError(
      await api('GET', `${base}?recipientEmbedTenantName=tenant-one`, { auth: key }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await api('GET', `${base}?recipientUserId=1&recipientEmail=a%40b.co`, { auth: key }),
      400,
      'VALIDATION_FAILED',
    );

    // removeRecipients: Cube's body names subscribers by user id, embed user id and channel id.
    const removed = await api('DELETE', `${base}/${n.id}/recipients`, {
      auth: key,
      body: {
        recipients: [
          { type: 'USER', id: acme.memberUserId, embedTenantName: null },
          { type: 'EMBED_USER', id: embed.embedUserId, embedTenantName: 'tenant-one' },
          { type: 'SLACK', id: 'C123' },
          { type: 'USER', id: 999999 },
        ],
      },
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body).toEqual({ id: n.id, deleted: true, removedCount: 3 });
    const left = await api('GET', `${base}/${n.id}/recipients`, { auth: key });
    expect(left.body.items.map((r: { email: string }) => r.email)).toEqual(['someone@example.com']);
    // Idempotent; a string id names a USER recipient by email.
    const again = await api('DELETE', `${base}/${n.id}/recipients`, {
      auth: key,
      body: {
        recipients: [
          { type: 'USER', id: 'someone@example.com' },
          { type: 'SLACK', id: 'C123' },
        ],
      },
    });
    expect(again.body.removedCount).toBe(1);
    const stored = await env.DB.prepare(
      'SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?',
    )
      .bind(n.id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });

  it('refuses an EMBED_USER recipient with no address before writing anything', async () => {
    const n = await create(createInput('DAILY'));
    const res = await api('POST', `${base}/${n.id}/recipients`, {
      auth: key,
      body: {
        recipients: [
          { type: 'USER', userId: acme.adminUserId },
          { type: 'EMBED_USER', embedTenantName: 'tenant-one', externalId: 'no-address' },
        ],
      },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe('recipients.1.email');
    const stored = await env.DB.prepare(
      'SELECT count(*) AS n FROM notification_recipients WHERE notification_id = ?',
    )
      .bind(n.id)
      .first<{ n: number }>();
    expect(stored?.n).toBe(0);
  });

  it('refuses a removal without embedTenantName for EMBED_USER, and an unknown notification (404)', async () => {
    const n = await create(createInput('DAILY'));
    const res = await api('DELETE', `${base}/${n.id}/recipients`, {
      auth: key,
      body: { recipients: [{ type: 'EMBED_USER', id: 1 }] },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe('recipients.0.embedTenantName');
    expectError(
      await api('DELETE', `${base}/99999999/recipients`, {
        auth: key,
        body: { recipients: [{ type: 'USER', id: 1 }] },
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api('DELETE', `${base}/${n.id}/recipients`, { auth: key, body: { recipients: [] } }),
      400,
      'VALIDATION_FAILED',
    );
  });
});

describe('getNotifications — GET …/notifications', () => {
  it('answers NotificationsListResponse, filtered by dashboard, paged with first/after', async () => {
    const other = await seedDashboard(acme, 'Another board');
    const mine = await create({ ...createInput('HOURLY'), dashboardId: other.id });
    const page = await api('GET', `${base}?dashboardId=${other.id}&first=1`, { auth: key });
    expect(page.status).toBe(200);
    expect(page.body.items.map((x: { id: number }) => x.id)).toEqual([mine.id]);
    for (const item of page.body.items) expectCube(item, NOTIFICATION);
    expectPageInfo(page.body.pageInfo);
    const byPublicId = await api('GET', `${base}?dashboardPublicId=${other.publicId}`, { auth: key });
    expect(byPublicId.body.items.map((x: { id: number }) => x.id)).toEqual([mine.id]);
  });
});
