import type { Clock } from '../core/clock';
import type { Bindings, NotificationMessage } from '../core/env';
import { openShard } from '../core/shards';
import type { DeliveryPorts } from './delivery';
import { SENDS_PER_INVOCATION } from './notifications.limits';
import { attemptRun, backoffSeconds, deadLetterRuns } from './runs.service';

export const NOTIFICATIONS_QUEUE_NAME = 'edgeboard-notifications';
export const NOTIFICATIONS_DLQ_NAME = 'edgeboard-notifications-dlq';

const isRunMessage = (body: unknown): body is NotificationMessage =>
  typeof body === 'object' &&
  body !== null &&
  (body as NotificationMessage).kind === 'notification-run' &&
  Number.isSafeInteger((body as NotificationMessage).runId);

/** The address deliveries come from. */
const senderOf = (env: Bindings) => `notifications@${env.DEPLOYMENTS_DOMAIN}`;

/**
 * The notifications queue: one message per run. Each message is one delivery attempt of at
 * most its share of SENDS_PER_INVOCATION recipients, so the invocation stays inside the
 * platform's subrequest limit; recipients left over go on in a continuation message. A failed
 * recipient retries the message with backoff (the others are not sent again), and a message
 * out of retries goes to the dead-letter queue. The batch's runs are all on `shard` (the Worker
 * splits a batch by the shard of each run id).
 */
export async function consumeNotifications(
  batch: MessageBatch<unknown>,
  env: Bindings,
  { clock, ports }: { clock: Clock; ports: DeliveryPorts },
  shard = 0,
): Promise<void> {
  const { db } = openShard(env, shard, { queries: 0, roundTrips: 0 });
  const maxSends = Math.max(1, Math.floor(SENDS_PER_INVOCATION / Math.max(1, batch.messages.length)));
  await Promise.all(
    batch.messages.map(async (msg) => {
      if (!isRunMessage(msg.body)) {
        console.error(JSON.stringify({ event: 'notification_message_malformed', id: msg.id }));
        msg.ack();
        return;
      }
      try {
        const result = await attemptRun(db, ports, msg.body.runId, {
          env,
          from: senderOf(env),
          now: clock.now(),
          maxSends,
        });
        if (result.outcome === 'retry') msg.retry({ delaySeconds: result.delaySeconds });
        else {
          // A fresh message for the rest: its retries are its own, not spent on progress.
          if (result.outcome === 'continue') await ports.queue.send(msg.body);
          msg.ack();
        }
      } catch (err) {
        console.error(
          JSON.stringify({ event: 'notification_attempt_failed', runId: msg.body.runId, error: String(err) }),
        );
        msg.retry({ delaySeconds: backoffSeconds(msg.attempts) });
      }
    }),
  );
}

/** The dead-letter queue: a run whose message ran out of retries records the failure. */
export async function consumeNotificationDeadLetters(
  batch: MessageBatch<unknown>,
  env: Bindings,
  clock: Clock,
  shard = 0,
): Promise<void> {
  const { db } = openShard(env, shard, { queries: 0, roundTrips: 0 });
  const runIds = batch.messages.flatMap((msg) => (isRunMessage(msg.body) ? [msg.body.runId] : []));
  await deadLetterRuns(db, runIds, clock.now());
  for (const msg of batch.messages) msg.ack();
}
