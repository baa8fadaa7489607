import { createMessageBatch } from 'cloudflare:test';
import type { NotificationMessage } from '../../src/core/env';
import type { DeliveryPorts, OutgoingEmail, RenderRequest } from '../../src/notifications/delivery';
import { deliverBatch } from '../helpers/platform';

/** Test doubles of the delivery ports that record what they were asked to do. */
export function recordingPorts() {
  const queued: number[] = [];
  const batchSizes: number[] = [];
  const renders: RenderRequest[] = [];
  const emails: OutgoingEmail[] = [];
  const posts: { url: string; payload: any }[] = [];
  /** Addresses (or channel ids) whose sends fail, with the error message. */
  const failing = new Map<string, string>();
  const ports: DeliveryPorts = {
    queue: {
      async send(body: NotificationMessage) {
        queued.push(body.runId);
      },
      async sendBatch(messages: Iterable<MessageSendRequest<NotificationMessage>>) {
        const list = [...messages];
        batchSizes.push(list.length);
        for (const m of list) queued.push(m.body.runId);
      },
    },
    renderer: {
      async render(request) {
        renders.push(request);
        const magic = request.format === 'pdf' ? [0x25, 0x50, 0x44, 0x46] : [0x89, 0x50, 0x4e, 0x47];
        return {
          bytes: new Uint8Array([...magic, 1, 2, 3]),
          contentType: request.format === 'pdf' ? 'application/pdf' : 'image/png',
        };
      },
    },
    mailer: {
      async send(email) {
        const error = failing.get(email.to);
        if (error) throw new Error(error);
        emails.push(email);
      },
    },
    webhook: {
      async post(url, payload: any) {
        const error = failing.get(payload.channel);
        if (error) throw new Error(error);
        posts.push({ url, payload });
      },
    },
  };
  return { ports, queued, batchSizes, renders, emails, posts, failing };
}

/** One cron tick through the Worker's scheduled handler, on the test's platform. */
export { cronTick as tick } from '../helpers/platform';

let messageCounter = 0;

/** Delivers run messages to the Worker's queue handler (on the test's platform); answers the ack/retry outcome. */
export async function consume(runIds: number[], options: { attempts?: number; queue?: string } = {}) {
  const batch = createMessageBatch<NotificationMessage>(
    options.queue ?? 'edgeboard-notifications',
    runIds.map((runId) => ({
      id: `msg-${++messageCounter}`,
      timestamp: new Date(),
      attempts: options.attempts ?? 1,
      body: { kind: 'notification-run', runId },
    })),
  );
  return deliverBatch(batch);
}
