import { EmailMessage } from 'cloudflare:email';
import type { NotificationFilter, NotificationFormat, TimeGrain } from '../../schema/notifications';
import { base64 } from '../core/text';
import type { PublishedDashboardRecord } from '../dashboards/dashboards.repository';
import { attributesByName, restrictSnapshots } from '../dashboards/row-security';
import type { Bindings, NotificationMessage } from '../env';
import { renderDashboard } from '../render/render';

/**
 * The platform boundaries of a delivery, each a small interface so tests can make it fail,
 * stall or record: the queue runs go through, the renderer, the mailer and the chat webhook.
 */

export interface RenderedFile {
  bytes: Uint8Array;
  contentType: string;
}

/** Who a render is for: everyone but embed users shares one scope; embed users bring their own. */
export interface RenderScope {
  key: string;
  groups: string[] | null;
  userAttributes: { name: string; value: string }[] | null;
  securityContext: Record<string, unknown> | null;
}

export interface RenderRequest {
  dashboard: PublishedDashboardRecord;
  format: NotificationFormat;
  filters: NotificationFilter[];
  timeGrains: TimeGrain[];
  scope: RenderScope;
}

export interface Renderer {
  render(request: RenderRequest): Promise<RenderedFile>;
}

export interface OutgoingEmail {
  from: string;
  to: string;
  subject: string;
  text: string;
  attachment: { filename: string; contentType: string; bytes: Uint8Array };
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<void>;
}

export interface ChatWebhook {
  post(url: string, payload: unknown): Promise<void>;
}

/** The two producer calls runs go through (a Queue binding fits; tests pass a recorder). */
export interface NotificationQueue {
  send(body: NotificationMessage): Promise<unknown>;
  sendBatch(messages: Iterable<MessageSendRequest<NotificationMessage>>): Promise<unknown>;
}

export interface DeliveryPorts {
  queue: NotificationQueue;
  renderer: Renderer;
  mailer: Mailer;
  webhook: ChatWebhook;
}

/** A failure that retrying cannot mend (no address, no webhook configured, a 4xx answer). */
export class PermanentDeliveryError extends Error {}

/** The render engineer's renderer: a real PNG or PDF of the published dashboard. */
export const dashboardRenderer: Renderer = {
  async render({ dashboard, format, filters, timeGrains, scope }) {
    const rendered = await renderDashboard(
      {
        config: dashboard.config,
        // Embed recipients see the rows their own attributes allow.
        reportSnapshots: restrictSnapshots(dashboard.reportSnapshots, attributesByName(scope.userAttributes)),
        title: dashboard.title ?? null,
        description: dashboard.description ?? null,
        filters: filters.map((f) => ({ member: f.member, value: f.value ?? null })),
        timeGrains: timeGrains.map((g) => ({ member: g.member, grain: g.grain })),
      },
      format,
    );
    return { bytes: rendered.bytes, contentType: rendered.contentType };
  },
};

/** RFC 2047 for a header that may hold non-ASCII text. */
function headerText(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${base64(new TextEncoder().encode(text))}?=`;
}

const wrap = (text: string) => text.replace(/.{1,76}/g, '$&\r\n');

/** A multipart/mixed message: a plain-text part and the file, base64 in 76-character lines. */
export function buildMime(email: OutgoingEmail, messageId: string, date: Date): string {
  const boundary = `edgeboard-${messageId.replace(/[^A-Za-z0-9]/g, '')}`;
  const filename = email.attachment.filename.replace(/["\r\n]/g, '');
  return [
    `From: ${email.from}`,
    `To: ${email.to}`,
    `Subject: ${headerText(email.subject)}`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: <${messageId}>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    wrap(base64(new TextEncoder().encode(email.text))),
    `--${boundary}`,
    `Content-Type: ${email.attachment.contentType}; name="${filename}"`,
    `Content-Disposition: attachment; filename="${filename}"`,
    'Content-Transfer-Encoding: base64',
    '',
    wrap(base64(email.attachment.bytes)),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

/** Email through the Worker's send_email binding. */
export function sendEmailMailer(binding: SendEmail): Mailer {
  return {
    async send(email) {
      const domain = email.from.split('@')[1] ?? 'localhost';
      const raw = buildMime(email, `${crypto.randomUUID()}@${domain}`, new Date());
      await binding.send(new EmailMessage(email.from, email.to, raw));
    },
  };
}

/** An HTTP POST of JSON; 4xx answers (but 408 and 429) are not worth retrying. */
export const fetchWebhook: ChatWebhook = {
  async post(url, payload) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    await res.body?.cancel();
    if (res.ok) return;
    const message = `Chat webhook answered ${res.status}`;
    if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) {
      throw new PermanentDeliveryError(message);
    }
    throw new Error(message);
  },
};

let overrides: Partial<DeliveryPorts> | undefined;

/** Tests only: replace some ports for the calls that follow; `undefined` restores the real ones. */
export function setDeliveryPortsForTests(ports: Partial<DeliveryPorts> | undefined): void {
  overrides = ports;
}

export function deliveryPorts(env: Bindings): DeliveryPorts {
  return {
    queue: env.NOTIFICATIONS_QUEUE,
    renderer: dashboardRenderer,
    mailer: sendEmailMailer(env.MAILER),
    webhook: fetchWebhook,
    ...overrides,
  };
}
