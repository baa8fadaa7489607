import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedWorld, type World } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform, resetPlatform } from '../helpers/platform';
import { seedDashboard } from './fixtures';
import { recordingPorts, tick } from './ports';

let world: World;
let dashboard: { id: number };
let base: string;
let rec: ReturnType<typeof recordingPorts>;

beforeAll(async () => {
  world = await seedWorld();
  dashboard = await seedDashboard(world.acme);
  base = `/api/v1/deployments/${world.acme.deployments[0]}/notifications`;
});

afterEach(async () => {
  resetPlatform();
  // Each test's notifications stop here, so later ticks only see their own test's schedules.
  await env.DB.prepare('UPDATE notifications SET is_enabled = 0, next_run_at = NULL').run();
  await consumeAll();
});

function useRecorder() {
  rec = recordingPorts();
  platform.deliveryPorts = rec.ports;
}

async function createAt(now: string, body: Record<string, unknown>): Promise<number> {
  platform.clock = clockAt(now);
  const res = await api('POST', base, {
    auth: world.acme.admin,
    body: { dashboardId: dashboard.id, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  platform.clock = undefined;
  return res.body.id;
}

async function runsOf(id: number) {
  const { results } = await env.DB.prepare(
    'SELECT id, slot, "trigger", status FROM notification_runs WHERE notification_id = ? ORDER BY id',
  )
    .bind(id)
    .all<{ id: number; slot: string; trigger: string; status: string }>();
  return results;
}

/** As if the consumer had taken every queued run (else the stranded-run sweep sends them again). */
async function consumeAll() {
  await env.DB.prepare(`UPDATE notification_runs SET status = 'delivered' WHERE status = 'queued'`).run();
}

async function nextRunOf(id: number) {
  const row = await env.DB.prepare('SELECT next_run_at FROM notifications WHERE id = ?').bind(id).first();
  return row?.next_run_at;
}

describe('the scheduled handler', () => {
  it('parks a notification whose stored schedule no longer compiles and still claims the others', async () => {
    useRecorder();
    const broken = await createAt('2026-06-01T08:00:00.000Z', { scheduleType: 'DAILY', hour: 9, minute: 0 });
    const healthy = await createAt('2026-06-01T08:00:00.000Z', { scheduleType: 'DAILY', hour: 9, minute: 0 });
    // A schedule the API refuses today, as a row written before the rule would hold it.
    await env.DB.prepare(
      "UPDATE notifications SET schedule_type = 'CUSTOM', custom_cron = 'not a cron' WHERE id = ?",
    )
      .bind(broken)
      .run();
    await tick('2026-06-01T09:00:00.000Z');
    expect(await runsOf(healthy)).toHaveLength(1);
    expect(await nextRunOf(broken)).toBeNull();
    expect(await nextRunOf(healthy)).toBe('2026-06-02T09:00:00.000Z');
  });

  it('claims a due notification once, enqueues its run and advances the next run', async () => {
    useRecorder();
    const id = await createAt('2026-05-01T08:00:00.000Z', { scheduleType: 'DAILY', hour: 9, minute: 0 });
    await tick('2026-05-01T08:59:00.000Z');
    expect(await runsOf(id)).toEqual([]);
    await tick('2026-05-01T09:00:00.000Z');
    const runs = await runsOf(id);
    expect(runs).toEqual([
      { id: expect.any(Number), slot: '2026-05-01T09:00:00.000Z', trigger: 'scheduled', status: 'queued' },
    ]);
    expect(rec.queued).toEqual([runs[0]?.id]);
    expect(await nextRunOf(id)).toBe('2026-05-02T09:00:00.000Z');
  });

  it('a doubled tick claims nothing twice, one after the other or at the same time', async () => {
    useRecorder();
    const id = await createAt('2026-06-01T08:00:00.000Z', { scheduleType: 'HOURLY', minute: 30 });
    await tick('2026-06-01T08:30:00.000Z');
    await tick('2026-06-01T08:30:00.000Z');
    expect(await runsOf(id)).toHaveLength(1);
    expect(rec.queued).toHaveLength(1);
    await consumeAll();
    await Promise.all([tick('2026-06-01T09:30:00.000Z'), tick('2026-06-01T09:30:00.000Z')]);
    const runs = await runsOf(id);
    expect(runs.map((r) => r.slot)).toEqual(['2026-06-01T08:30:00.000Z', '2026-06-01T09:30:00.000Z']);
    expect(rec.queued).toEqual(runs.map((r) => r.id));
  });

  it('a skipped tick is caught up by the next one; a long outage gives one catch-up run', async () => {
    useRecorder();
    const id = await createAt('2026-07-01T09:30:00.000Z', { scheduleType: 'HOURLY', minute: 0 });
    // The 10:00 tick never came.
    await tick('2026-07-01T10:01:00.000Z');
    expect((await runsOf(id)).map((r) => r.slot)).toEqual(['2026-07-01T10:00:00.000Z']);
    expect(await nextRunOf(id)).toBe('2026-07-01T11:00:00.000Z');
    await consumeAll();
    // Nothing from 11:00 to 13:00 ran; 13:05 claims the 11:00 slot once and moves on to 14:00.
    await tick('2026-07-01T13:05:00.000Z');
    expect((await runsOf(id)).map((r) => r.slot)).toEqual([
      '2026-07-01T10:00:00.000Z',
      '2026-07-01T11:00:00.000Z',
    ]);
    expect(await nextRunOf(id)).toBe('2026-07-01T14:00:00.000Z');
    expect(rec.queued).toHaveLength(2);
  });

  it('runs nothing while isEnabled is false', async () => {
    useRecorder();
    const id = await createAt('2026-08-01T08:00:00.000Z', {
      scheduleType: 'HOURLY',
      minute: 0,
      isEnabled: false,
    });
    await tick('2026-08-01T12:00:00.000Z');
    expect(await runsOf(id)).toEqual([]);
    expect(rec.queued).toEqual([]);
  });

  it('records a suppressed run and sends nothing while notificationEnabled is false', async () => {
    useRecorder();
    const id = await createAt('2026-08-02T08:00:00.000Z', {
      scheduleType: 'HOURLY',
      minute: 0,
      notificationEnabled: false,
    });
    await tick('2026-08-02T09:00:00.000Z');
    expect(await runsOf(id)).toEqual([
      {
        id: expect.any(Number),
        slot: '2026-08-02T09:00:00.000Z',
        trigger: 'scheduled',
        status: 'suppressed',
      },
    ]);
    expect(rec.queued).toEqual([]);
    const listed = await api('GET', `${base}/${id}/runs`, { auth: world.acme.admin });
    expect(listed.body.items[0]).toMatchObject({ status: 'suppressed', deliveries: [] });
  });

  it('fires Europe/Berlin 02:30 at 03:00 CEST on the spring-forward day, then 02:30 again', async () => {
    useRecorder();
    const id = await createAt('2026-03-28T12:00:00.000Z', {
      scheduleType: 'DAILY',
      hour: 2,
      minute: 30,
      timezone: 'Europe/Berlin',
    });
    expect(await nextRunOf(id)).toBe('2026-03-29T01:00:00.000Z');
    await tick('2026-03-29T00:30:00.000Z');
    expect(await runsOf(id)).toEqual([]);
    await tick('2026-03-29T01:00:00.000Z');
    expect((await runsOf(id)).map((r) => r.slot)).toEqual(['2026-03-29T01:00:00.000Z']);
    expect(await nextRunOf(id)).toBe('2026-03-30T00:30:00.000Z');
  });

  it('fires Europe/Berlin 02:30 once on the fall-back day', async () => {
    useRecorder();
    const id = await createAt('2026-10-24T12:00:00.000Z', {
      scheduleType: 'DAILY',
      hour: 2,
      minute: 30,
      timezone: 'Europe/Berlin',
    });
    await tick('2026-10-25T00:30:00.000Z'); // 02:30 CEST
    await tick('2026-10-25T01:30:00.000Z'); // 02:30 CET, the repeat
    expect((await runsOf(id)).map((r) => r.slot)).toEqual(['2026-10-25T00:30:00.000Z']);
    expect(await nextRunOf(id)).toBe('2026-10-26T01:30:00.000Z');
  });

  it('fires America/New_York 02:30 at 03:00 EDT in March and 01:30 once in November', async () => {
    useRecorder();
    const spring = await createAt('2026-03-07T12:00:00.000Z', {
      scheduleType: 'DAILY',
      hour: 2,
      minute: 30,
      timezone: 'America/New_York',
    });
    await tick('2026-03-08T07:00:00.000Z');
    expect((await runsOf(spring)).map((r) => r.slot)).toEqual(['2026-03-08T07:00:00.000Z']);
    expect(await nextRunOf(spring)).toBe('2026-03-09T06:30:00.000Z');

    const fall = await createAt('2026-10-31T12:00:00.000Z', {
      scheduleType: 'DAILY',
      hour: 1,
      minute: 30,
      timezone: 'America/New_York',
    });
    await tick('2026-11-01T05:30:00.000Z'); // 01:30 EDT
    await tick('2026-11-01T06:30:00.000Z'); // 01:30 EST, the repeat
    expect((await runsOf(fall)).map((r) => r.slot)).toEqual(['2026-11-01T05:30:00.000Z']);
    expect(await nextRunOf(fall)).toBe('2026-11-02T06:30:00.000Z');
  });

  it('claims MONTHLY 31 on the last day of February and April', async () => {
    useRecorder();
    const id = await createAt('2026-02-01T00:00:00.000Z', {
      scheduleType: 'MONTHLY',
      dayOfMonth: 31,
      hour: 6,
      minute: 0,
    });
    for (const at of ['2026-02-28T06:00:00.000Z', '2026-03-31T06:00:00.000Z', '2026-04-30T06:00:00.000Z']) {
      await tick(at);
    }
    expect((await runsOf(id)).map((r) => r.slot)).toEqual([
      '2026-02-28T06:00:00.000Z',
      '2026-03-31T06:00:00.000Z',
      '2026-04-30T06:00:00.000Z',
    ]);
  });

  it('claims at most 500 due notifications per tick, in pages, sent in batches of at most 100', async () => {
    useRecorder();
    const due = '2026-09-01T10:00:00.000Z';
    await env.DB.prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 1250)
       INSERT INTO notifications (account_id, deployment_id, dashboard_id, schedule_type, minute, cron_expression,
         timezone, notification_format, is_enabled, notification_enabled, filters, time_grains, next_run_at,
         created_at, updated_at)
       SELECT ?, ?, ?, 'HOURLY', 0, '0 * * * *', 'UTC', 'png', 1, 1, '[]', '[]', ?, ?, ? FROM seq`,
    )
      .bind(world.acme.accountId, world.acme.deployments[0], dashboard.id, due, due, due)
      .run();
    const left = async () =>
      (
        await env.DB.prepare('SELECT count(*) AS n FROM notifications WHERE next_run_at <= ?')
          .bind(due)
          .first()
      )?.n;
    // Each tick claims at most CLAIM_PER_TICK (500); the rest stay due for the next ticks.
    await tick(due);
    expect(rec.queued).toHaveLength(500);
    expect(await left()).toBe(750);
    await tick('2026-09-01T10:01:00.000Z');
    expect(rec.queued).toHaveLength(1000);
    await tick('2026-09-01T10:02:00.000Z');
    expect(rec.queued).toHaveLength(1250);
    expect(new Set(rec.queued).size).toBe(1250);
    expect(Math.max(...rec.batchSizes)).toBeLessThanOrEqual(100);
    expect(await left()).toBe(0);
    await tick('2026-09-01T10:02:00.000Z');
    expect(rec.queued).toHaveLength(1250);
    // Every run keeps its slot: the one the notification was due at.
    const slots = await env.DB.prepare(
      `SELECT DISTINCT slot FROM notification_runs WHERE id IN (SELECT value FROM json_each(?))`,
    )
      .bind(JSON.stringify(rec.queued))
      .all();
    expect(slots.results).toEqual([{ slot: due }]);
  });

  it('sends queued runs again when their message was lost', async () => {
    useRecorder();
    const id = await createAt('2026-09-02T08:00:00.000Z', { scheduleType: 'DAILY', hour: 9, minute: 0 });
    rec.ports.queue.sendBatch = async () => {
      throw new Error('queue unavailable');
    };
    await tick('2026-09-02T09:00:00.000Z');
    const [run] = await runsOf(id);
    expect(run?.status).toBe('queued');
    expect(rec.queued).toEqual([]);
    useRecorder();
    await tick('2026-09-02T09:05:00.000Z');
    expect(rec.queued).toEqual([]);
    await tick('2026-09-02T09:11:00.000Z');
    expect(rec.queued).toEqual([run?.id]);
  });
});
