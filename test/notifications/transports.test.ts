import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  buildMime,
  dashboardRenderer,
  fetchWebhook,
  PermanentDeliveryError,
  sendEmailMailer,
  setDeliveryPortsForTests,
} from '../../src/notifications/delivery';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { seedDashboard } from './fixtures';
import { consume, recordingPorts } from './ports';

const email = {
  from: 'notifications@edgeboard.app',
  to: 'ana@example.com',
  subject: 'Umsatz – Übersicht: scheduled report',
  text: 'Your scheduled dashboard is attached.',
  attachment: { filename: 'revenue.png', contentType: 'image/png', bytes: new Uint8Array(200).fill(7) },
};

afterEach(() => {
  vi.restoreAllMocks();
  setDeliveryPortsForTests(undefined);
});

describe('the MIME message', () => {
  it('is multipart/mixed with a text part and the file as a base64 attachment', () => {
    const raw = buildMime(email, 'abc123@edgeboard.app', new Date('2026-05-01T09:00:00Z'));
    expect(raw).toContain('From: notifications@edgeboard.app\r\n');
    expect(raw).toContain('To: ana@example.com\r\n');
    expect(raw).toContain(`Subject: =?UTF-8?B?${btoa(unescape(encodeURIComponent(email.subject)))}?=\r\n`);
    expect(raw).toContain('Message-ID: <abc123@edgeboard.app>\r\n');
    expect(raw).toContain('Content-Type: multipart/mixed; boundary="edgeboard-abc123edgeboardapp"');
    expect(raw).toContain('Content-Disposition: attachment; filename="revenue.png"');
    const body = raw.split('Content-Transfer-Encoding: base64\r\n\r\n')[2]?.split('\r\n--')[0] ?? '';
    const lines = body.trim().split('\r\n');
    expect(lines.every((l) => l.length <= 76)).toBe(true);
    expect(atob(lines.join(''))).toBe(String.fromCharCode(...email.attachment.bytes));
    expect(raw.trimEnd().endsWith('--edgeboard-abc123edgeboardapp--')).toBe(true);
  });

  it('goes out through the send_email binding', async () => {
    const sent: { from: string; to: string }[] = [];
    const binding = {
      async send(message: { from: string; to: string }) {
        sent.push({ from: message.from, to: message.to });
      },
    } as unknown as SendEmail;
    await sendEmailMailer(binding).send(email);
    expect(sent).toEqual([{ from: 'notifications@edgeboard.app', to: 'ana@example.com' }]);
  });
});

describe('the send_email binding of the Worker', () => {
  it('accepts the message as built (the local binding parses it and logs it)', async () => {
    await expect(sendEmailMailer(env.MAILER).send(email)).resolves.toBeUndefined();
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
    setDeliveryPortsForTests({
      queue: rec.ports.queue,
      mailer: rec.ports.mailer,
      renderer: dashboardRenderer,
    });
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
