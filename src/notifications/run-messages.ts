import type { NotificationMessage, NotificationQueue } from '../core/env';

/** The queue message of a run: its id, the consumer reads everything else. */
export const runMessage = (runId: number): NotificationMessage => ({ kind: 'notification-run', runId });

/** Whether a queue message is a run's (anything else is acked and logged, never retried). */
export const isRunMessage = (body: unknown): body is NotificationMessage =>
  typeof body === 'object' &&
  body !== null &&
  (body as NotificationMessage).kind === 'notification-run' &&
  Number.isSafeInteger((body as NotificationMessage).runId);

/** Sends run ids in sendBatch calls of at most 100 messages (the Queues limit). */
export async function enqueueRuns(queue: NotificationQueue, runIds: number[]): Promise<void> {
  for (let i = 0; i < runIds.length; i += 100) {
    await queue.sendBatch(runIds.slice(i, i + 100).map((id) => ({ body: runMessage(id) })));
  }
}
