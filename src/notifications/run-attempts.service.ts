import {
  accountTimeZone,
  downloadsRestricted,
  effectiveTimeZone,
  withAccountTheme,
} from '../accounts/app-config.policy';
import { ApiError } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { base64, escapeMarkup } from '../core/text';
import { webhookUrlProblem } from '../core/webhook-url';
import { type DashboardControls, resolveControls } from '../dashboards/controls';
import { findPublishedById, type PublishedDashboardRecord } from '../dashboards/dashboards.repository';
import { liveDashboard } from '../dashboards/live-reports.service';
import { controlMembersProblem } from '../data-api/data.service';
import type { Identity } from '../semantic/query/policies';
import { type DeliveryScope, PermanentDeliveryError, type RenderedFile, type RenderScope } from './delivery';
import { controlValuesOf, describeControls, filterProblem } from './notification-controls';
import type { RecipientRow } from './recipients.repository';
import * as repo from './run-attempts.repository';
import { describeSchedule } from './schedule-wording';

/**
 * The consumer's side of runs: one delivery attempt (lease, render per recipient scope, send,
 * record), its backoff, and the failure of runs whose messages ran out of retries.
 */

/**
 * How long a delivery attempt holds its recipients before another attempt may take them: a queue
 * consumer's wall-clock limit (15 minutes), so a lease never ends while its attempt can still be
 * sending (40 sends of up to 10 s each, plus renders) and no recipient is sent to twice.
 */
const LEASE_MS = 15 * 60_000;

/** Delay before another attempt at the failed recipients: 30 s, 1, 2, 4, 8 min … capped at 1 h. */
export const backoffSeconds = (attempts: number) => Math.min(3600, 30 * 2 ** Math.max(0, attempts - 1));

/**
 * Who is not an embed user runs with no groups and no context, as on the render endpoint: an
 * account user with the attribute values they hold, an address or a channel with none. Only the
 * model's policies for everyone (`*`) apply to them; those reading `{ userAttributes.x }` let
 * through the rows of the user's value. Recipients holding equal values share one render.
 */
function renderScopeOf({ recipient: r, catalogue, accountAttributes }: repo.LeasedDelivery): RenderScope {
  if (r.type !== 'EMBED_USER') {
    const values = Object.entries(accountAttributes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const identity: Identity = {
      groups: [],
      userAttributes: Object.fromEntries(values),
      securityContext: {},
    };
    return {
      key: JSON.stringify(['account', values]),
      identity,
      // Not an embed viewer: frozen rows are not restricted for them (see restrictSnapshots).
      groups: null,
      userAttributes: null,
      securityContext: null,
    };
  }
  const parsed: unknown = r.securityContext === null ? null : JSON.parse(r.securityContext);
  const securityContext =
    parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  return {
    // Groups and attributes are stored sorted and the context as given: equal text, same data.
    key: JSON.stringify([r.groups, r.userAttributes, r.securityContext, catalogue]),
    identity: {
      groups: r.groups ?? [],
      // A null attribute is no value: the policies that read it let no row through.
      userAttributes: Object.fromEntries(
        (r.userAttributes ?? []).flatMap((a) => (a.value === null ? [] : [[a.name, a.value]])),
      ),
      securityContext: securityContext ?? {},
    },
    groups: r.groups,
    userAttributes: r.userAttributes,
    securityContext,
    restrictedBy: catalogue,
  };
}

/**
 * Why the notification's filters and time grains cannot be applied as written, or null: a
 * filter `filterProblem` refuses, or a member the deployment's model does not have. The run's
 * deliveries then fail rather than send a file that shows more than its controls say.
 */
async function controlsProblem(
  data: RequestScope & { accountId: number; deploymentId: number },
  context: repo.RunContext,
): Promise<string | null> {
  for (const filter of context.filters) {
    const problem = filterProblem(filter);
    if (problem) return problem;
  }
  try {
    const problem = await controlMembersProblem(data, {
      filters: context.filters.map((f) => f.member),
      timeGrains: context.timeGrains.map((g) => g.member),
    });
    return problem && `The notification's controls cannot be applied: ${problem}`;
  } catch (err) {
    // A deployment with no model (or not found) will not change on retry.
    if (err instanceof ApiError && err.status < 500) {
      return `The notification's controls cannot be applied: ${err.message}`;
    }
    throw err;
  }
}

/**
 * A delivery's link back to the dashboard (see docs/notifications.md, "What a delivery says"):
 * the viewer for an embed user, else the render endpoint, which an account restricting data
 * downloads refuses, so there is then no link.
 */
function dashboardLink(
  recipient: RecipientRow,
  origin: string,
  dashboard: PublishedDashboardRecord,
  context: repo.RunContext,
): string | null {
  if (recipient.type === 'EMBED_USER')
    return `${origin}/embed/dashboard/${encodeURIComponent(dashboard.publicId)}`;
  if (downloadsRestricted(context.appConfig)) return null;
  const values = controlValuesOf(context.filters, context.timeGrains);
  const params = new URLSearchParams({ format: context.format });
  if (values.filters.length > 0) params.set('filters', JSON.stringify(values.filters));
  if (values.timeGrains.length > 0) params.set('timeGrains', JSON.stringify(values.timeGrains));
  return `${origin}/api/v1/deployments/${dashboard.deploymentId}/workbooks/${dashboard.workbookId}/dashboard/render?${params}`;
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
  scope: DeliveryScope,
  runId: number,
  options: { from: string; maxSends: number },
): Promise<AttemptResult> {
  const { db, delivery } = scope;
  const owner = crypto.randomUUID();
  const leaseUntil = new Date(scope.now.getTime() + LEASE_MS);
  const { context, leased } = await repo.startRun(scope, runId, owner, leaseUntil, options.maxSends);
  // A run deleted with its notification, finished, suppressed, or with nothing left to lease.
  if (!context || leased.length === 0) {
    if (context?.run.status !== 'running') return { outcome: 'ack' };
    const { pending } = await repo.finishAttempt(db, runId, owner, [], scope.now);
    // Rows another attempt holds: come back when its lease ends, in case that attempt died.
    return pending === 0 ? { outcome: 'ack' } : { outcome: 'retry', delaySeconds: LEASE_MS / 1000 };
  }
  const dashboard = await findPublishedById(db, context.accountId, context.dashboardId);
  const title = dashboard?.title || dashboard?.config?.title || 'Dashboard';
  const schedule = describeSchedule(context.schedule);
  // The run's account and deployment: what its charts' queries read.
  const data = { ...scope, accountId: context.accountId, deploymentId: context.deploymentId };
  // Once per attempt, for every recipient: a refused control fails them all alike.
  const refused = dashboard ? await controlsProblem(data, context) : null;
  const controls: DashboardControls | null =
    dashboard && !refused
      ? resolveControls(dashboard.config, controlValuesOf(context.filters, context.timeGrains))
      : null;
  const controlsText = dashboard && controls ? describeControls(dashboard.config, controls) : null;
  const origin = `https://${context.deploymentSlug}.${scope.env.DEPLOYMENTS_DOMAIN}`;
  // The account's time zone policy and theme hold for every recipient's file; its download
  // restriction does not stop scheduled files (as in Cube), only the link to the render endpoint.
  const timezone = accountTimeZone(context.appConfig) ?? undefined;
  const config = dashboard ? withAccountTheme(dashboard.config, context.appConfig) : null;
  // One render per distinct recipient scope: the charts' queries run once for each identity.
  const renders = new Map<string, Promise<RenderedFile>>();
  const outcomes: repo.DeliveryOutcome[] = [];

  for (const lease of leased) {
    const { deliveryId, recipient } = lease;
    try {
      if (!dashboard) throw new PermanentDeliveryError('The published dashboard no longer exists');
      if (refused || !controls) throw new PermanentDeliveryError(refused ?? 'The controls cannot be applied');
      const viewer = renderScopeOf(lease);
      let render = renders.get(viewer.key);
      if (!render) {
        render = (async () => {
          const live = await liveDashboard({ ...data, identity: viewer.identity }, dashboard, controls, {
            timezone,
          }).catch((err: unknown) => {
            // A deployment that cannot serve (no model, a misconfigured source) will not mend on retry.
            if (err instanceof ApiError && err.status < 500) throw new PermanentDeliveryError(err.message);
            throw err;
          });
          return delivery.renderer.render({
            dashboard: {
              ...dashboard,
              config: config ?? dashboard.config,
              reportSnapshots: live.reportSnapshots,
            },
            format: context.format,
            controls,
            dataTime: live.dataTime,
            timeZone: effectiveTimeZone(context.appConfig, 'account'),
            scope: viewer,
          });
        })();
        renders.set(viewer.key, render);
      }
      const file = await render;
      const filename = fileName(title, context.run.slot, context.format);
      const link = dashboardLink(recipient, origin, dashboard, context);
      const lines = [
        `Your scheduled dashboard "${title}" (${schedule}) is attached.`,
        ...(controlsText ? [controlsText] : []),
        ...(link ? [`Open the dashboard: ${link}`] : []),
      ];
      const text = lines.join('\n');
      if (recipient.type === 'SLACK') {
        if (!context.chatWebhookUrl) {
          throw new PermanentDeliveryError('The account has no chat webhook (chatWebhookUrl) configured');
        }
        // Checked at every send as well as on write: a URL stored before the rule is refused too.
        const problem = webhookUrlProblem(context.chatWebhookUrl);
        if (problem) throw new PermanentDeliveryError(`The chat webhook URL is refused: ${problem}`);
        await delivery.webhook.post(context.chatWebhookUrl, {
          channel: recipient.channelId,
          channelName: recipient.channelName,
          text,
          controls: controlsText,
          link,
          notificationId: context.run.notificationId,
          runId,
          slot: context.run.slot,
          attachment: { filename, contentType: file.contentType, contentBase64: base64(file.bytes) },
        });
      } else {
        if (!recipient.email) throw new PermanentDeliveryError('The recipient has no email address');
        await delivery.mailer.send({
          from: options.from,
          to: recipient.email,
          subject: `${title}: scheduled report`,
          text,
          html: [
            `<p>Your scheduled dashboard <strong>${escapeMarkup(title)}</strong> (${escapeMarkup(schedule)}) is attached.</p>`,
            ...(controlsText ? [`<p>${escapeMarkup(controlsText)}</p>`] : []),
            ...(link ? [`<p><a href="${escapeMarkup(link)}">Open the dashboard</a></p>`] : []),
          ].join(''),
          attachment: { filename, contentType: file.contentType, bytes: file.bytes },
        });
      }
      outcomes.push({ deliveryId, error: null, permanent: false });
    } catch (err) {
      const error = (err instanceof Error ? err.message : String(err)).slice(0, 1000) || 'Delivery failed';
      outcomes.push({ deliveryId, error, permanent: err instanceof PermanentDeliveryError });
    }
  }
  // Read again: the sends took time, and what they sent is recorded as of when they ended.
  const finishedAt = scope.ports.clock.now();
  const { unleased } = await repo.finishAttempt(db, runId, owner, outcomes, finishedAt);
  const retryable = outcomes.filter((o) => o.error !== null && !o.permanent);
  if (retryable.length === 0) return unleased > 0 ? { outcome: 'continue' } : { outcome: 'ack' };
  const attempts = Math.max(...leased.map((l) => l.attempts));
  return { outcome: 'retry', delaySeconds: backoffSeconds(attempts) };
}

/** Messages the queue gave up on: their runs record the failure, all in one batch. */
export async function deadLetterRuns(scope: RequestScope, runIds: number[]): Promise<void> {
  if (runIds.length === 0) return;
  await repo.failRuns(scope, runIds, 'Delivery retries exhausted');
}
