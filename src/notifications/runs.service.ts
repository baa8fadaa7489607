import type { Db, NotificationMessage } from '../core/env';
import { conflict, notFound } from '../core/errors';
import type { PageRequest } from '../core/pagination';
import { afterId, toPage } from '../core/pagination';
import { base64, escapeMarkup } from '../core/text';
import { webhookUrlProblem } from '../core/webhook-url';
import { findPublishedById } from '../dashboards/dashboards.repository';
import { compileSchedule, nextRunAfter } from './cron-expression';
import {
  type DeliveryPorts,
  type NotificationQueue,
  PermanentDeliveryError,
  type RenderedFile,
  type RenderScope,
} from './delivery';
import { CLAIM_PAGE, CLAIM_PER_TICK, REQUEUE_PER_TICK, RUN_DELIVERIES_PREVIEW } from './notifications.limits';
import type { DeliveryView, RunView } from './notifications.schemas';
import type { NotificationScope } from './notifications.service';
import type { RecipientRow } from './recipients.repository';
import * as repo from './runs.repository';
import { describeSchedule } from './schedule-wording';

/**
 * How long a delivery attempt holds its recipients before another attempt may take them: a queue
 * consumer's wall-clock limit (15 minutes), so a lease never ends while its attempt can still be
 * sending (40 sends of up to 10 s each, plus renders) and no recipient is sent to twice.
 */
const LEASE_MS = 15 * 60_000;
/** A queued run whose message has not started it by then is enqueued again. */
const STRANDED_MS = 10 * 60_000;

const message = (runId: number): { body: NotificationMessage } => ({
  body: { kind: 'notification-run', runId },
});

/** Sends run ids in sendBatch calls of at most 100 messages (the Queues limit). */
async function enqueue(queue: NotificationQueue, runIds: number[]): Promise<void> {
  for (let i = 0; i < runIds.length; i += 100) {
    await queue.sendBatch(runIds.slice(i, i + 100).map(message));
  }
}

/**
 * The run after the tick, or null. A stored schedule that no longer compiles (a cron or time
 * zone refused since it was written) parks its notification (null: no next run) and is logged,
 * instead of throwing and leaving it due at the head of every later tick, where it would stall
 * every notification behind it.
 */
function nextRunSafely(n: repo.DueNotification, tick: Date): number | null {
  try {
    return nextRunAfter(compileSchedule(n), tick.getTime());
  } catch (err) {
    console.error(JSON.stringify({ event: 'notification_schedule_invalid', id: n.id, error: String(err) }));
    return null;
  }
}

export interface TickResult {
  claimed: number;
  enqueued: number;
  suppressed: number;
  requeued: number;
}

/**
 * The cron's work: claim due slots (next run ≤ the tick's scheduledTime) page by page, at most
 * CLAIM_PER_TICK of them, earliest first; advance each claimed notification's next run past
 * the tick, and send only the runs this tick created. What is left stays due, and the next
 * tick claims it first. A doubled tick claims nothing twice; a skipped tick leaves next runs
 * in the past, so the next tick claims them (missed slots of one notification collapse into
 * one run).
 */
export async function claimDueRuns(
  db: Db,
  queue: NotificationQueue,
  scheduledTime: Date,
): Promise<TickResult> {
  const tick = scheduledTime.toISOString();
  const result: TickResult = { claimed: 0, enqueued: 0, suppressed: 0, requeued: 0 };
  let after: { nextRunAt: string; id: number } | null = null;
  // Counted in due rows read, not runs created: a tick racing a doubled one (claiming nothing)
  // still stops after CLAIM_PER_TICK rows.
  let read = 0;
  while (read < CLAIM_PER_TICK) {
    const due = await repo.selectDue(db, tick, after, Math.min(CLAIM_PAGE, CLAIM_PER_TICK - read));
    read += due.length;
    if (due.length === 0) break;
    const claims = due.map((n) => {
      const next = nextRunSafely(n, scheduledTime);
      return { id: n.id, slot: n.nextRunAt, next: next === null ? null : new Date(next).toISOString() };
    });
    const runs = await repo.claimSlots(db, claims, tick);
    const queued = runs.filter((r) => r.status === 'queued').map((r) => r.runId);
    result.claimed += runs.length;
    result.suppressed += runs.length - queued.length;
    try {
      await enqueue(queue, queued);
      result.enqueued += queued.length;
    } catch (err) {
      // The runs are committed as queued: the stranded-run sweep sends them again.
      console.error(
        JSON.stringify({ event: 'notification_enqueue_failed', runs: queued.length, error: String(err) }),
      );
    }
    const last = due[due.length - 1] as repo.DueNotification;
    after = { nextRunAt: last.nextRunAt, id: last.id };
    if (due.length < CLAIM_PAGE) break;
  }
  if (read >= CLAIM_PER_TICK) {
    console.warn(JSON.stringify({ event: 'notification_claim_capped', tick, read, claimed: result.claimed }));
  }
  const stranded = await repo.takeStrandedRuns(
    db,
    new Date(scheduledTime.getTime() - STRANDED_MS).toISOString(),
    tick,
    REQUEUE_PER_TICK,
  );
  if (stranded.length > 0) {
    await enqueue(queue, stranded);
    result.requeued = stranded.length;
  }
  return result;
}

function presentDelivery(d: repo.DeliveryRow): DeliveryView {
  return {
    recipientId: d.recipientId,
    status: d.status,
    attempts: d.attempts,
    lastError: d.lastError,
    sentAt: d.sentAt,
  };
}

const NO_DELIVERIES: repo.DeliveryCounts = { total: 0, pending: 0, sent: 0, failed: 0 };

/** A run with the first RUN_DELIVERIES_PREVIEW of its deliveries (`deliveries` holds one more if there are). */
function presentRun(item: repo.RunListItem): RunView {
  const { run, counts, deliveries } = item;
  return {
    id: run.id,
    notificationId: run.notificationId,
    slot: run.slot,
    trigger: run.trigger,
    status: run.status,
    error: run.error,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    deliveryCounts: counts,
    deliveries: deliveries.slice(0, RUN_DELIVERIES_PREVIEW).map(presentDelivery),
    deliveriesHasMore: deliveries.length > RUN_DELIVERIES_PREVIEW,
  };
}

/**
 * POST …/run: a manual run now (suppressed right away when deliveries are off). One manual
 * run of a notification may be queued or running at a time; another is a 409.
 */
export async function runNow(scope: NotificationScope, queue: NotificationQueue, notificationId: number) {
  const result = await repo.insertManualRun(
    scope.db,
    scope.accountId,
    scope.deploymentId,
    notificationId,
    scope.now.toISOString(),
  );
  if (result.kind === 'notFound') throw notFound('Notification');
  if (result.kind === 'inFlight') {
    throw conflict('A manual run of this notification is already queued or running');
  }
  const { run } = result;
  if (run.status === 'queued') {
    try {
      await queue.send(message(run.id).body);
    } catch (err) {
      console.error(
        JSON.stringify({ event: 'notification_enqueue_failed', runId: run.id, error: String(err) }),
      );
    }
  }
  return presentRun({ run, counts: NO_DELIVERIES, deliveries: [] });
}

export async function listRuns(scope: NotificationScope, notificationId: number, request: PageRequest) {
  const { notificationFound, runs } = await repo.listRuns(
    scope.db,
    scope.accountId,
    scope.deploymentId,
    notificationId,
    afterId(request),
    request.limit,
    RUN_DELIVERIES_PREVIEW,
  );
  if (!notificationFound) throw notFound('Notification');
  return toPage(runs, request, 'runs', (r) => [r.run.id], presentRun);
}

/** GET …/runs/{runId}/deliveries: one page of a run's deliveries by recipient id. */
export async function listDeliveries(
  scope: NotificationScope,
  notificationId: number,
  runId: number,
  request: PageRequest,
) {
  const { runFound, rows } = await repo.listDeliveries(
    scope.db,
    scope.accountId,
    scope.deploymentId,
    notificationId,
    runId,
    afterId(request),
    request.limit,
  );
  if (!runFound) throw notFound('Run');
  return toPage(rows, request, 'deliveries', (d) => [d.recipientId], presentDelivery);
}

// ---- The consumer ----

/** Delay before another attempt at the failed recipients: 30 s, 1, 2, 4, 8 min … capped at 1 h. */
export const backoffSeconds = (attempts: number) => Math.min(3600, 30 * 2 ** Math.max(0, attempts - 1));

function scopeOf(r: RecipientRow, catalogue: string[]): RenderScope {
  if (r.type !== 'EMBED_USER')
    return { key: 'account', groups: null, userAttributes: null, securityContext: null };
  const securityContext = r.securityContext === null ? null : JSON.parse(r.securityContext);
  return {
    key: JSON.stringify([r.groups, r.userAttributes, r.securityContext, catalogue]),
    groups: r.groups,
    userAttributes: r.userAttributes,
    securityContext,
    restrictedBy: catalogue,
  };
}

function fileName(title: string, slot: string, format: string): string {
  const base =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'dashboard';
  return `${base}-${slot.slice(0, 16).replace(/[:T]/g, '-')}.${format}`;
}

/**
 * What the message of a run needs after an attempt: nothing more, another attempt later (some
 * recipients failed), or a continuation (recipients are left that this attempt did not lease).
 */
export type AttemptResult =
  | { outcome: 'ack' }
  | { outcome: 'retry'; delaySeconds: number }
  | { outcome: 'continue' };

/**
 * One delivery attempt of a run: lease at most `maxSends` pending recipients (so an invocation
 * stays inside its subrequest limit), render once per distinct
 * recipient scope, send each leased recipient one message, record the outcomes. Recipients
 * sent before are never leased again, so a redelivered message or a retry after a partial
 * failure resends to nobody. Answers whether the message needs another attempt.
 */
export async function attemptRun(
  db: Db,
  ports: DeliveryPorts,
  runId: number,
  options: { from: string; now: Date; maxSends: number },
): Promise<AttemptResult> {
  const owner = crypto.randomUUID();
  const now = options.now.toISOString();
  const { context, leased } = await repo.startRun(
    db,
    runId,
    owner,
    now,
    new Date(options.now.getTime() + LEASE_MS).toISOString(),
    options.maxSends,
  );
  // A run deleted with its notification, finished, suppressed, or with nothing left to lease.
  if (!context || leased.length === 0) {
    if (context?.run.status !== 'running') return { outcome: 'ack' };
    const { pending } = await repo.finishAttempt(db, runId, owner, [], now);
    // Rows another attempt holds: come back when its lease ends, in case that attempt died.
    return pending === 0 ? { outcome: 'ack' } : { outcome: 'retry', delaySeconds: LEASE_MS / 1000 };
  }
  const dashboard = await findPublishedById(db, context.accountId, context.dashboardId);
  const title = dashboard?.title || dashboard?.config?.title || 'Dashboard';
  const schedule = describeSchedule(context.schedule);
  const renders = new Map<string, Promise<RenderedFile>>();
  const outcomes: repo.DeliveryOutcome[] = [];

  for (const { deliveryId, recipient, catalogue } of leased) {
    try {
      if (!dashboard) throw new PermanentDeliveryError('The published dashboard no longer exists');
      const scope = scopeOf(recipient, catalogue);
      let render = renders.get(scope.key);
      if (!render) {
        render = ports.renderer.render({
          dashboard,
          format: context.format,
          filters: context.filters,
          timeGrains: context.timeGrains,
          scope,
        });
        renders.set(scope.key, render);
      }
      const file = await render;
      const filename = fileName(title, context.run.slot, context.format);
      const text = `Your scheduled dashboard "${title}" (${schedule}) is attached.`;
      if (recipient.type === 'SLACK') {
        if (!context.chatWebhookUrl) {
          throw new PermanentDeliveryError('The account has no chat webhook (chatWebhookUrl) configured');
        }
        // Checked at every send as well as on write: a URL stored before the rule is refused too.
        const problem = webhookUrlProblem(context.chatWebhookUrl);
        if (problem) throw new PermanentDeliveryError(`The chat webhook URL is refused: ${problem}`);
        await ports.webhook.post(context.chatWebhookUrl, {
          channel: recipient.channelId,
          channelName: recipient.channelName,
          text,
          notificationId: context.run.notificationId,
          runId,
          slot: context.run.slot,
          attachment: { filename, contentType: file.contentType, contentBase64: base64(file.bytes) },
        });
      } else {
        if (!recipient.email) throw new PermanentDeliveryError('The recipient has no email address');
        await ports.mailer.send({
          from: options.from,
          to: recipient.email,
          subject: `${title}: scheduled report`,
          text,
          html: `<p>Your scheduled dashboard <strong>${escapeMarkup(title)}</strong> (${escapeMarkup(schedule)}) is attached.</p>`,
          attachment: { filename, contentType: file.contentType, bytes: file.bytes },
        });
      }
      outcomes.push({ deliveryId, error: null, permanent: false });
    } catch (err) {
      const error = (err instanceof Error ? err.message : String(err)).slice(0, 1000) || 'Delivery failed';
      outcomes.push({ deliveryId, error, permanent: err instanceof PermanentDeliveryError });
    }
  }
  const { unleased } = await repo.finishAttempt(db, runId, owner, outcomes, new Date().toISOString());
  const retryable = outcomes.filter((o) => o.error !== null && !o.permanent);
  if (retryable.length === 0) return unleased > 0 ? { outcome: 'continue' } : { outcome: 'ack' };
  const attempts = Math.max(...leased.map((l) => l.attempts));
  return { outcome: 'retry', delaySeconds: backoffSeconds(attempts) };
}

/** Messages the queue gave up on: their runs record the failure, all in one batch. */
export async function deadLetterRuns(db: Db, runIds: number[], now: Date): Promise<void> {
  if (runIds.length > 0) await repo.failRuns(db, runIds, 'Delivery retries exhausted', now.toISOString());
}
