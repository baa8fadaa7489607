import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  dashboardRenderer,
  emailServiceMailer,
  fetchWebhook,
  PermanentDeliveryError,
} from '../../src/notifications/delivery';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { platform } from '../helpers/platform';
import { seedDashboard } from './fixtures';
import { consume, recordingPorts } from './ports';

const email = {
  from: 'notifications@edgeboard.app',
  to: 'ana@example.com',
  subject: 'Umsatz – Übersicht: scheduled report',
  text: 'Your scheduled dashboard is attached.',
  html: '<p>Your scheduled dashboard is attached.</p>',
  attachment: { filename: 'revenue.png', contentType: 'image/png', bytes: new Uint8Array(200).fill(7) },
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the email message', () => {
  it('goes out through the Email Service binding as one structured send(): no hand-built MIME', async () => {
    const sent: EmailMessageBuilder[] = [];
    const binding = {
      async send(message: EmailMessageBuilder) {
        sent.push(message);
        return { messageId: 'm-1' };
      },
    } as unknown as SendEmail;
    await emailServiceMailer(binding).send(email);
    expect(sent).toEqual([
      {
        from: 'notifications@edgeboard.app',
        to: 'ana@example.com',
        subject: 'Umsatz – Übersicht: scheduled report',
        text: 'Your scheduled dashboard is attached.',
        html: '<p>Your scheduled dashboard is attached.</p>',
        attachments: [
          {
            disposition: 'attachment',
            filename: 'revenue.png',
            type: 'image/png',
            content: email.attachment.bytes,
          },
        ],
      },
    ]);
  });

  it('fails the delivery when the binding refuses the message', async () => {
    const binding = {
      async send() {
        throw new Error('E_SENDER_DOMAIN_NOT_VERIFIED');
      },
    } as unknown as SendEmail;
    await expect(emailServiceMailer(binding).send(email)).rejects.toThrow('E_SENDER_DOMAIN_NOT_VERIFIED');
  });
});

describe('the chat webhook', () => {
  it('POSTs the payload as JSON', async () => {
    const spy = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('ok', { status: 200 }));
    await fetchWebhook.post('https://chat.example.com/hook', { channel: 'C1', text: 'hi' });
    const [url, init] = spy.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('https://chat.example.com/hook');
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body as string)).toEqual({ channel: 'C1', text: 'hi' });
  });

  it('gives up after a timeout and follows no redirect', async () => {
    const spy = vi.spyOn(globalThis, 'fetch').mockResolvedValue(new Response('ok', { status: 200 }));
    await fetchWebhook.post('https://chat.example.com/hook', {});
    const [, init] = spy.mock.calls[0] as [string, RequestInit];
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(init.signal?.aborted).toBe(false);
    expect(init.redirect).toBe('manual');
  });

  it('treats a timed-out POST as worth retrying', async () => {
    vi.spyOn(globalThis, 'fetch').mockRejectedValueOnce(
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    );
    const error = await fetchWebhook.post('https://chat.example.com/hook', {}).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(PermanentDeliveryError);
  });

  it('treats a 4xx answer as permanent and a 5xx or 429 as worth retrying', async () => {
    vi.spyOn(globalThis, 'fetch').mockResolvedValueOnce(new Response('no', { status: 404 }));
    await expect(fetchWebhook.post('https://chat.example.com/hook', {})).rejects.toBeInstanceOf(
      PermanentDeliveryError,
    );
    for (const status of [429, 503]) {
      vi.spyOn(globalThis, 'fetch').mockResolvedValueOnce(new Response('later', { status }));
      const error = await fetchWebhook.post('https://chat.example.com/hook', {}).catch((e) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(PermanentDeliveryError);
      expect(error.message).toBe(`Chat webhook answered ${status}`);
    }
  });

  it('never reaches the internet: an unmocked request fails and is retried', async () => {
    const error = await fetchWebhook.post('https://chat.example.com/hook', {}).catch((e) => e);
    expect(error.message).toBe('Chat webhook answered 599');
    expect(error).not.toBeInstanceOf(PermanentDeliveryError);
  });
});

describe('the dashboard renderer', () => {
  let account: SeededAccount;
  let dashboard: { id: number };

  beforeAll(async () => {
    account = await seedAccount();
    dashboard = await seedDashboard(account, 'Real render');
  });

  it.each([
    ['png', [0x89, 0x50, 0x4e, 0x47], 'image/png'],
    ['pdf', [0x25, 0x50, 0x44, 0x46], 'application/pdf'],
  ])('delivers a real %s file', async (format, magic, contentType) => {
    const rec = recordingPorts();
    // The real renderer; mailer and queue recorded.
    platform.deliveryPorts = {
      queue: rec.ports.queue,
      mailer: rec.ports.mailer,
      renderer: dashboardRenderer,
    };
    const base = `/api/v1/deployments/${account.deployments[0]}/notifications`;
    const created = await api('POST', base, {
      auth: account.admin,
      body: { dashboardId: dashboard.id, scheduleType: 'HOURLY', minute: 0, notificationFormat: format },
    });
    const url = `${base}/${created.body.id}`;
    await api('POST', `${url}/recipients`, {
      auth: account.admin,
      body: { recipients: [{ email: 'reader@example.com' }] },
    });
    const run = await api('POST', `${url}/run`, { auth: account.admin });
    await consume([run.body.id]);
    const [sent] = rec.emails;
    expect(sent?.attachment.contentType).toBe(contentType);
    expect([...(sent?.attachment.bytes.slice(0, 4) ?? [])]).toEqual(magic);
    expect(sent?.attachment.bytes.length).toBeGreaterThan(500);
    const row = await env.DB.prepare('SELECT status FROM notification_runs WHERE id = ?')
      .bind(run.body.id)
      .first();
    expect(row?.status).toBe('delivered');
  });
});
