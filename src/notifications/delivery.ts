import type { NotificationFormat, RecipientAttributeValue } from '../../schema/notifications';
import type { Bindings, NotificationQueue } from '../core/env';
import type { RequestScope } from '../core/scope';
import { type DashboardControls, displayedControls } from '../dashboards/controls';
import type { PublishedDashboardRecord } from '../dashboards/dashboards.repository';
import { attributesByName, restrictSnapshots } from '../dashboards/row-security';
import { renderDashboard } from '../render/render';
import type { Identity } from '../semantic/query/policies';
import { WEBHOOK_TIMEOUT_MS } from './notifications.limits';

/**
 * The platform boundaries of a delivery, each a small interface so tests can make it fail,
 * stall or record: the queue runs go through, the renderer, the mailer and the chat webhook.
 */

export interface RenderedFile {
  bytes: Uint8Array;
  contentType: string;
}

/**
 * Who a render is for: account users, addresses and channels run with no groups (only the
 * model's policies for everyone apply), an account user with the attribute values stored for
 * them; embed users bring their own groups, attributes and context.
 */
export interface RenderScope {
  /** Equal for recipients that see the same data: they share one render. */
  key: string;
  /** The identity every chart's query runs as: the model's row-level policies read it. */
  identity: Identity;
  groups: string[] | null;
  userAttributes: { name: string; value: RecipientAttributeValue }[] | null;
  securityContext: Record<string, unknown> | null;
  /**
   * The attribute names of the recipient's catalogues (account-wide and tenant, ≤ 200 each):
   * row-level security hides rows of those columns when the recipient holds no value.
   */
  restrictedBy?: readonly string[];
}

export interface RenderRequest {
  /** The published dashboard, its charts' data already run for `scope` under `controls`. */
  dashboard: PublishedDashboardRecord;
  format: NotificationFormat;
  /** The controls the data was run under (the notification's over the dashboard's defaults). */
  controls: DashboardControls;
  /** When the data shown was read (ISO); null when no chart ran a query. */
  dataTime: string | null;
  /** The zone the file writes `dataTime` in (the account's time zone policy, else UTC). */
  timeZone?: string | null;
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
  html: string;
  attachment: { filename: string; contentType: string; bytes: Uint8Array };
}

export interface Mailer {
  send(email: OutgoingEmail): Promise<void>;
}

export interface ChatWebhook {
  post(url: string, payload: unknown): Promise<void>;
}

export interface DeliveryPorts {
  queue: NotificationQueue;
  renderer: Renderer;
  mailer: Mailer;
  webhook: ChatWebhook;
}

/**
 * The scope of a batch of the notifications queue: a background scope (whose
 * `ports.notificationsQueue` takes continuations) plus the ports a delivery sends through.
 */
export interface DeliveryScope extends RequestScope {
  delivery: Pick<DeliveryPorts, 'renderer' | 'mailer' | 'webhook'>;
}

/** A failure that retrying cannot mend (no address, no webhook configured, a 4xx answer). */
export class PermanentDeliveryError extends Error {}

/** The real renderer: a PNG or PDF of the published dashboard with the controls' values shown. */
export const dashboardRenderer: Renderer = {
  async render({ dashboard, format, controls, dataTime, timeZone, scope }) {
    const rendered = await renderDashboard(
      {
        config: dashboard.config,
        // Static rows (reports without a query) are those the embed recipient's attributes allow.
        reportSnapshots: restrictSnapshots(
          dashboard.reportSnapshots,
          attributesByName(scope.userAttributes),
          {
            restrictedBy: scope.restrictedBy,
          },
        ),
        title: dashboard.title ?? null,
        description: dashboard.description ?? null,
        ...displayedControls(controls),
        dataTime,
        timeZone,
      },
      format,
    );
    return { bytes: rendered.bytes, contentType: rendered.contentType };
  },
};

/**
 * Email through Cloudflare Email Service: the `send_email` binding's structured `send()`
 * (recipients, subject, text/HTML, attachments) composes the MIME message itself, and reaches
 * any recipient once the sending domain is onboarded to Email Sending.
 */
export function emailServiceMailer(binding: Pick<SendEmail, 'send'>): Mailer {
  return {
    async send(email) {
      await binding.send({
        from: email.from,
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
        attachments: [
          {
            disposition: 'attachment',
            filename: email.attachment.filename,
            type: email.attachment.contentType,
            content: email.attachment.bytes,
          },
        ],
      });
    },
  };
}

/**
 * An HTTP POST of JSON that gives up after WEBHOOK_TIMEOUT_MS (a timeout is retried with
 * backoff); redirects are not followed, so a public URL cannot bounce the POST to a private
 * host. 4xx answers (but 408 and 429) are not worth retrying.
 */
export const fetchWebhook: ChatWebhook = {
  async post(url, payload) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      redirect: 'manual',
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
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

/** The deployed ports: the environment's queue and mailer, the real renderer and webhook. */
export function deliveryPorts(env: Bindings): DeliveryPorts {
  return {
    queue: env.NOTIFICATIONS_QUEUE,
    renderer: dashboardRenderer,
    mailer: emailServiceMailer(env.MAILER),
    webhook: fetchWebhook,
  };
}
