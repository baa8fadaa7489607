import { conflict, notFound } from '../core/errors';
import type { PageRequest } from '../core/pagination';
import { idCursor, toPage } from '../core/pagination';
import type { DeploymentScope } from '../core/scope';
import { RUN_DELIVERIES_PREVIEW } from './notifications.limits';
import type { DeliveryView, RunView } from './notifications.schemas';
import { runMessage } from './run-messages';
import * as repo from './runs.repository';

/** Runs as the API shows them: a manual run now, the runs of a notification, a run's deliveries. */

function presentDelivery(d: repo.DeliveryRow): DeliveryView {
  return {
    recipientId: d.recipientId,
    status: d.status,
    attempts: d.attempts,
    lastError: d.lastError,
    sentAt: d.sentAt,
  };
}

const NO_DELIVERIES: repo.DeliveryCounts = { total: 0, pending: 0, sent: 0, failed: 0, skipped: 0 };

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
export async function runNow(scope: DeploymentScope, notificationId: number) {
  const result = await repo.insertManualRun(scope, notificationId);
  if (result.kind === 'notFound') throw notFound('Notification');
  if (result.kind === 'inFlight') {
    throw conflict('A manual run of this notification is already queued or running');
  }
  const { run } = result;
  if (run.status === 'queued') {
    try {
      await scope.ports.notificationsQueue.send(runMessage(run.id));
    } catch (err) {
      console.error(
        JSON.stringify({ event: 'notification_enqueue_failed', runId: run.id, error: String(err) }),
      );
    }
  }
  return presentRun({ run, counts: NO_DELIVERIES, deliveries: [] });
}

export async function listRuns(scope: DeploymentScope, notificationId: number, request: PageRequest) {
  const { notificationFound, runs } = await repo.listRuns(
    scope,
    notificationId,
    idCursor(request),
    RUN_DELIVERIES_PREVIEW,
  );
  if (!notificationFound) throw notFound('Notification');
  return toPage(runs, request, 'runs', (r) => [r.run.id], presentRun);
}

/** GET …/runs/{runId}/deliveries: one page of a run's deliveries by recipient id. */
export async function listDeliveries(
  scope: DeploymentScope,
  notificationId: number,
  runId: number,
  request: PageRequest,
) {
  const { runFound, rows } = await repo.listDeliveries(scope, notificationId, runId, idCursor(request));
  if (!runFound) throw notFound('Run');
  return toPage(rows, request, 'deliveries', (d) => [d.recipientId], presentDelivery);
}
