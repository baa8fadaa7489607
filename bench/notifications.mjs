// Notifications: the per-minute cron with 10,000 due notifications, and the queue consumer's
// delivery rate with a local chat-webhook server standing in for the chat service.
import { createServer } from 'node:http';

const DUE = 10_000;
const RUNS = 50;
const RECIPIENTS_PER_RUN = 20;
const TICK = '2030-01-07T09:00:00.000Z';

/** A published dashboard, made through the API as a user makes one: workbook, draft, publish. */
async function seedDashboard(api, world) {
  const base = `/api/v1/deployments/${world.deployments[0]}/workbooks`;
  const workbook = await api('POST', base, {
    auth: world.admin,
    body: { name: `Bench revenue ${Date.now()}` },
  });
  const dashboardDraft = {
    title: 'Bench revenue',
    widgets: [
      { id: 't', type: 'TEXT', position: { x: 0, y: 0, w: 12, h: 2 }, config: { text: 'Weekly revenue' } },
      { id: 'c', type: 'CHART', position: { x: 0, y: 2, w: 6, h: 4 }, config: { title: 'Orders' } },
    ],
  };
  await api('PUT', `${base}/${workbook.body.id}/dashboard`, { auth: world.admin, body: { dashboardDraft } });
  const published = await api('POST', `${base}/${workbook.body.id}/publish`, { auth: world.admin, body: {} });
  if (published.status !== 200) throw new Error(`publishing failed: ${JSON.stringify(published.body)}`);
  return published.body.id;
}

/** `count` notifications in one statement; answers the id range. */
async function seedNotifications(d1, world, dashboardId, count, { nextRunAt, isEnabled }) {
  // A marker in created_at finds the new rows again (ids continue past deleted ones).
  const marker = `${TICK.slice(0, 19)}.${String(++seeding).padStart(3, '0')}Z`;
  await d1
    .prepare(
      `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
       INSERT INTO notifications (account_id, deployment_id, dashboard_id, schedule_type, minute, cron_expression,
         timezone, notification_format, is_enabled, notification_enabled, filters, time_grains, next_run_at,
         created_at, updated_at)
       SELECT ?, ?, ?, 'HOURLY', 0, '0 * * * *', 'Europe/Berlin', 'png', ?, 1, '[]', '[]', ?, ?, ? FROM seq`,
    )
    .bind(
      count,
      world.accountId,
      world.deployments[0],
      dashboardId,
      isEnabled ? 1 : 0,
      nextRunAt,
      marker,
      TICK,
    )
    .run();
  const range = await d1
    .prepare('SELECT min(id) AS "from", max(id) AS "to" FROM notifications WHERE created_at = ?')
    .bind(marker)
    .first();
  return { from: range.from, to: range.to };
}

let seeding = 0;
const ms = (t0) => performance.now() - t0;

export default async function notifications(ctx) {
  const { d1, world } = ctx;
  return [
    {
      name: `cron tick: claim and enqueue ${DUE.toLocaleString('en')} due notifications`,
      async run() {
        const worker = await ctx.mf.getWorker();
        const dashboardId = await seedDashboard(ctx.api, world);
        const t0 = performance.now();
        const range = await seedNotifications(d1, world, dashboardId, DUE, {
          nextRunAt: TICK,
          isEnabled: true,
        });
        const seedMs = ms(t0);
        const t1 = performance.now();
        const result = await worker.scheduled({ scheduledTime: new Date(TICK), cron: '* * * * *' });
        const tickMs = ms(t1);
        const claimed = await d1
          .prepare(
            `SELECT count(*) AS n, count(DISTINCT notification_id) AS d FROM notification_runs WHERE slot = ?`,
          )
          .bind(TICK)
          .first();
        const left = await d1
          .prepare('SELECT count(*) AS n FROM notifications WHERE next_run_at <= ? AND id BETWEEN ? AND ?')
          .bind(TICK, range.from, range.to)
          .first();
        const t2 = performance.now();
        await worker.scheduled({ scheduledTime: new Date(TICK), cron: '* * * * *' });
        const doubledMs = ms(t2);
        const after = await d1
          .prepare('SELECT count(*) AS n FROM notification_runs WHERE slot = ?')
          .bind(TICK)
          .first();
        // The queue consumer finds these runs gone and acks their messages at once.
        await d1
          .prepare('DELETE FROM notifications WHERE id BETWEEN ? AND ?')
          .bind(range.from, range.to)
          .run();
        return [
          `seeded ${DUE} due notifications in one statement: ${seedMs.toFixed(0)} ms`,
          `tick (${result.outcome}): ${claimed.n} runs claimed for ${claimed.d} notifications and sent to the queue in ${tickMs.toFixed(0)} ms (${((claimed.n / tickMs) * 1000).toFixed(0)} runs/s); ${left.n} still due`,
          `doubled tick at the same scheduledTime: ${doubledMs.toFixed(0)} ms, runs ${after.n} (nothing claimed twice)`,
        ];
      },
    },
    {
      name: `queue consumer: ${RUNS} runs x ${RECIPIENTS_PER_RUN} channel recipients (local webhook server)`,
      async run() {
        let posts = 0;
        let bytes = 0;
        const server = createServer((req, res) => {
          req.on('data', (chunk) => {
            bytes += chunk.length;
          });
          req.on('end', () => {
            posts += 1;
            res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
          });
        });
        await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
        try {
          ctx.outbound.chatTarget = `http://127.0.0.1:${server.address().port}`;
          const hook = `https://${ctx.outbound.chatHost}/hook`;
          const patched = await ctx.api('PATCH', `/admin/v1/accounts/${world.accountId}`, {
            auth: { bearer: ctx.operatorToken },
            body: { chatWebhookUrl: hook },
          });
          if (patched.status !== 200) throw new Error(`chatWebhookUrl: ${JSON.stringify(patched.body)}`);
          const worker = await ctx.mf.getWorker();
          const dashboardId = await seedDashboard(ctx.api, world);
          const range = await seedNotifications(d1, world, dashboardId, RUNS, {
            nextRunAt: null,
            isEnabled: false,
          });
          const now = new Date().toISOString();
          await d1.batch([
            d1
              .prepare(
                `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
                 INSERT INTO notification_recipients (notification_id, type, recipient_key, channel_id, channel_name,
                   created_at, updated_at)
                 SELECT n.id, 'SLACK', 'channel:C' || seq.i, 'C' || seq.i, '#bench-' || seq.i, ?, ?
                 FROM notifications n, seq WHERE n.id BETWEEN ? AND ?`,
              )
              .bind(RECIPIENTS_PER_RUN, now, now, range.from, range.to),
            d1
              .prepare(
                `INSERT INTO notification_runs (notification_id, slot, "trigger", status, enqueued_at, created_at)
                 SELECT id, ?, 'manual', 'queued', ?, ? FROM notifications WHERE id BETWEEN ? AND ?`,
              )
              .bind(now, now, now, range.from, range.to),
          ]);
          const { results: runs } = await d1
            .prepare(
              'SELECT r.id FROM notification_runs r WHERE r.notification_id BETWEEN ? AND ? ORDER BY r.id',
            )
            .bind(range.from, range.to)
            .all();
          const batches = [];
          // One message per batch, as the consumer is configured (max_batch_size = 1 in wrangler.toml).
          for (let i = 0; i < runs.length; i += 1) {
            batches.push(
              runs.slice(i, i + 1).map((r) => ({
                id: `bench-${r.id}`,
                timestamp: new Date(),
                attempts: 1,
                body: { kind: 'notification-run', runId: r.id },
              })),
            );
          }
          const t0 = performance.now();
          // Four batches at a time, as four consumer invocations would run.
          for (let i = 0; i < batches.length; i += 4) {
            await Promise.all(batches.slice(i, i + 4).map((b) => worker.queue('edgeboard-notifications', b)));
          }
          // An invocation sends a bounded number of deliveries and continues the rest through the
          // queue (Miniflare's consumer picks those up): wait until every run is finished.
          const finished = () =>
            d1
              .prepare(
                `SELECT count(*) AS n FROM notification_runs WHERE notification_id BETWEEN ? AND ?
                 AND status IN ('delivered', 'partially_failed', 'failed')`,
              )
              .bind(range.from, range.to)
              .first();
          const deadline = Date.now() + 120_000;
          while ((await finished()).n < runs.length && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          const elapsed = ms(t0);
          const sent = await d1
            .prepare(
              `SELECT count(*) AS n FROM notification_deliveries d JOIN notification_runs r ON r.id = d.run_id
               WHERE r.notification_id BETWEEN ? AND ? AND d.status = 'sent'`,
            )
            .bind(range.from, range.to)
            .first();
          const delivered = await d1
            .prepare(
              `SELECT count(*) AS n FROM notification_runs WHERE notification_id BETWEEN ? AND ? AND status = 'delivered'`,
            )
            .bind(range.from, range.to)
            .first();
          return [
            `${sent.n} deliveries sent (${posts} webhook posts received, ${(bytes / 1024 / 1024).toFixed(1)} MiB), ${delivered.n}/${runs.length} runs delivered, ${RUNS} PNG renders (one per run: one scope)`,
            `${elapsed.toFixed(0)} ms: ${((sent.n / elapsed) * 1000).toFixed(0)} deliveries/s, ${((runs.length / elapsed) * 1000).toFixed(1)} runs/s`,
          ];
        } finally {
          ctx.outbound.chatTarget = null;
          await new Promise((resolve) => server.close(resolve));
        }
      },
    },
  ];
}
