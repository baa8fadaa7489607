// Dashboard exports, Cube's startExport / getExportStatus / downloadExport: a job is queued by
// the HTTP start, rendered by the queue consumer, and its file downloaded while it lives.
import { env } from 'cloudflare:test';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, type SeededAccount, seedWorld } from '../helpers/harness';
import { api } from '../helpers/http';
import { pdfText } from '../helpers/pdf-text';
import { clockAt, platform } from '../helpers/platform';
import { routedDb } from '../helpers/shards';
import { seedDashboard } from '../notifications/fixtures';
import { pngSize } from '../render/helpers';
import {
  consume,
  consumeBodies,
  type Delivery,
  download,
  exportRow,
  exportStatus,
  head,
  PDF_MAGIC,
  PNG_MAGIC,
  recordQueue,
  startExport,
  started,
} from './fixtures';

// Every answer of Cube's export operations is held to Cube's response schema too.
holdAnswersToCube();

let acme: SeededAccount;
let other: SeededAccount;
let dashboard: { id: number; publicId: string; workbookId: number };
let deploymentId: number;
let rec: { sent: number[] };
let consumed: Set<number>;

beforeAll(async () => {
  ({ acme, other } = await seedWorld());
  deploymentId = acme.deployments[0];
  dashboard = await seedDashboard(acme, 'Quarterly export');
});

beforeEach(() => {
  rec = recordQueue();
  consumed = new Set();
});

// Jobs a test left queued would count against the account's bound in the next tests: render them.
afterEach(async () => {
  const left = rec.sent.filter((id) => !consumed.has(id));
  platform.exportsQueue = undefined;
  if (left.length > 0) await consume(left);
});

/** Delivers the messages of these jobs, remembering they were. */
async function deliver(ids: number[], options: Delivery = {}) {
  for (const id of ids) consumed.add(id);
  return consume(ids, options);
}

describe('an export, from start to download', () => {
  it('queues a PNG, renders it in the consumer and serves the file', async () => {
    const res = await startExport(acme.admin, deploymentId, { dashboardId: dashboard.id, format: 'png' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'jobId']);
    // The credential, then one batch: the guarded insert and the read that explains a refusal.
    expect(res.headers.get('x-d1-round-trips')).toBe('2');
    const { jobId, expiresAt } = res.body;
    expect(jobId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const row = await exportRow(jobId);
    expect(row).toMatchObject({
      status: 'queued',
      attempts: 0,
      format: 'png',
      account_id: acme.accountId,
      deployment_id: deploymentId,
      dashboard_id: dashboard.id,
      user_id: acme.adminUserId,
      file_key: null,
    });
    // Five minutes from the start, as Cube's document says.
    expect(Date.parse(expiresAt) - Date.parse(row?.created_at)).toBe(5 * 60 * 1000);
    expect(rec.sent).toEqual([row?.id]);

    const pending = await exportStatus(acme.admin, deploymentId, jobId);
    expect(pending.status).toBe(200);
    expect(pending.headers.get('x-d1-round-trips')).toBe('2');
    expect(pending.body).toEqual({
      jobId,
      status: 'pending',
      format: 'png',
      contentType: null,
      error: null,
      attempts: 0,
      createdAt: row?.created_at,
      expiresAt,
    });
    expectError(await download(acme.admin, deploymentId, jobId), 409, 'CONFLICT');

    const result = await deliver([row?.id]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);

    const done = await exportStatus(acme.admin, deploymentId, jobId);
    expect(done.body).toMatchObject({
      status: 'completed',
      contentType: 'image/png',
      error: null,
      attempts: 1,
    });
    const stored = await exportRow(jobId);
    const key = `dashboard-exports/${acme.accountId}/${jobId}.png`;
    expect(stored).toMatchObject({ status: 'done', file_key: key, content_type: 'image/png', error: null });
    expect(stored?.started_at).not.toBeNull();
    expect(stored?.finished_at).not.toBeNull();

    const file = await download(acme.admin, deploymentId, jobId);
    expect(file.status).toBe(200);
    expect(file.headers.get('x-d1-round-trips')).toBe('2');
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="dashboard.png"; filename*=UTF-8''dashboard.png`,
    );
    expect(file.headers.get('cache-control')).toBe('private, no-store');
    expect(head(file.bytes, PNG_MAGIC)).toEqual(PNG_MAGIC);
    expect(pngSize(file.bytes).width).toBe(1280);
    expect(file.bytes.byteLength).toBe(stored?.byte_size);
    expect(Number(file.headers.get('content-length'))).toBe(stored?.byte_size);
    // The bucket holds the file under the job's key, its expiry alongside.
    const object = await env.EXPORTS_BUCKET.head(key);
    expect(object?.size).toBe(stored?.byte_size);
    expect(object?.customMetadata?.expiresAt).toBe(expiresAt);
  });

  it('exports a PDF named by publicId, titled with the dashboard, through an API key as Bearer', async () => {
    const auth = { bearer: acme.key.apiKey };
    const job = await started(auth, deploymentId, { dashboardPublicId: dashboard.publicId, format: 'pdf' });
    await deliver([job.id]);
    const status = await exportStatus(auth, deploymentId, job.jobId);
    expect(status.body).toMatchObject({ status: 'completed', contentType: 'application/pdf', format: 'pdf' });
    const file = await download(auth, deploymentId, job.jobId);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="dashboard.pdf"; filename*=UTF-8''dashboard.pdf`,
    );
    expect(head(file.bytes, PDF_MAGIC)).toEqual(PDF_MAGIC);
    const text = await pdfText(file.bytes);
    expect(text).toContain('Quarterly export');
    expect(text).toContain('Hello');
  });

  it('names the attachment with `filename`, whose extension follows the format', async () => {
    const job = await started(acme.admin, deploymentId, { dashboardId: dashboard.id, format: 'pdf' });
    await deliver([job.id]);
    const named = await download(acme.admin, deploymentId, job.jobId, '?filename=Q3%20report');
    expect(named.headers.get('content-disposition')).toBe(
      `attachment; filename="Q3 report.pdf"; filename*=UTF-8''Q3%20report.pdf`,
    );
    const accented = await download(
      acme.admin,
      deploymentId,
      job.jobId,
      `?filename=${encodeURIComponent('Ventes été')}`,
    );
    expect(accented.headers.get('content-disposition')).toBe(
      `attachment; filename="Ventes _t_.pdf"; filename*=UTF-8''Ventes%20%C3%A9t%C3%A9.pdf`,
    );
    for (const bad of ['a/b', 'a\\b', '', 'say "hi"', ' padded', 'x'.repeat(101), 'tab\there']) {
      const res = await download(acme.admin, deploymentId, job.jobId, `?filename=${encodeURIComponent(bad)}`);
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details[0].path, bad).toBe('filename');
    }
  });
});

describe('the queue consumer', () => {
  it('does nothing with a redelivered message of a finished job', async () => {
    const job = await started(acme.admin, deploymentId, { dashboardId: dashboard.id, format: 'png' });
    await deliver([job.id]);
    const first = await exportRow(job.jobId);
    const object = await env.EXPORTS_BUCKET.head(first?.file_key);
    const again = await deliver([job.id], { attempts: 2 });
    expect(again.explicitAcks).toHaveLength(1);
    expect(again.retryMessages).toEqual([]);
    // No second render: the row and the stored file are untouched.
    expect(await exportRow(job.jobId)).toEqual(first);
    const after = await env.EXPORTS_BUCKET.head(first?.file_key);
    expect(after?.uploaded.getTime()).toBe(object?.uploaded.getTime());
    expect(after?.etag).toBe(object?.etag);
  });

  it('renders again a job whose attempt died mid-render, counting the attempts', async () => {
    const job = await started(acme.admin, deploymentId, { dashboardId: dashboard.id, format: 'png' });
    // What a consumer that claimed the job and then died leaves behind.
    await routedDb
      .prepare("UPDATE dashboard_exports SET status = 'running', attempts = 1 WHERE id = ?")
      .bind(job.id)
      .run();
    expect((await exportStatus(acme.admin, deploymentId, job.jobId)).body.status).toBe('processing');
    const result = await deliver([job.id], { attempts: 2 });
    expect(result.retryMessages).toEqual([]);
    expect(await exportRow(job.jobId)).toMatchObject({ status: 'done', attempts: 2 });
    expect((await download(acme.admin, deploymentId, job.jobId)).status).toBe(200);
  });

  it('retries a render that failed for a reason that may pass, then fails the job with the last error', async () => {
    const job = await started(acme.admin, deploymentId, { dashboardId: dashboard.id, format: 'png' });
    // A bucket that refuses every write: not edgeboard's refusal, so worth another attempt.
    const bucket = {
      async put() {
        throw new Error('bucket unavailable');
      },
    } as unknown as R2Bucket;
    for (const [attempt, delaySeconds] of [
      [1, 10],
      [2, 20],
    ] as const) {
      const result = await deliver([job.id], { attempts: attempt, env: { EXPORTS_BUCKET: bucket } });
      expect(result.explicitAcks).toEqual([]);
      expect(result.retryMessages).toEqual([{ msgId: expect.any(String), delaySeconds }]);
      expect(await exportRow(job.jobId)).toMatchObject({ status: 'running', attempts: attempt, error: null });
      expect((await exportStatus(acme.admin, deploymentId, job.jobId)).body.status).toBe('processing');
    }
    const last = await deliver([job.id], { attempts: 3, env: { EXPORTS_BUCKET: bucket } });
    expect(last.explicitAcks).toHaveLength(1);
    expect(last.retryMessages).toEqual([]);
    expect(await exportRow(job.jobId)).toMatchObject({
      status: 'failed',
      attempts: 3,
      error: 'The render failed 3 times; the last error: bucket unavailable',
    });
    expectError(await download(acme.admin, deploymentId, job.jobId), 422, 'EXPORT_FAILED');
  });

  it('fails a job whose every attempt died, and its download is a 422', async () => {
    const job = await started(acme.admin, deploymentId, { dashboardId: dashboard.id, format: 'pdf' });
    await routedDb
      .prepare("UPDATE dashboard_exports SET status = 'running', attempts = 3 WHERE id = ?")
      .bind(job.id)
      .run();
    const result = await deliver([job.id], { attempts: 4 });
    expect(result.explicitAcks).toHaveLength(1);
    const status = await exportStatus(acme.admin, deploymentId, job.jobId);
    expect(status.body).toMatchObject({
      status: 'failed',
      contentType: null,
      error: 'The render did not finish in 3 attempts',
      attempts: 3,
    });
    const file = await download(acme.admin, deploymentId, job.jobId);
    expectError(file, 422, 'EXPORT_FAILED');
    expect(file.body.error).toContain('The render did not finish in 3 attempts');
    expect(await env.EXPORTS_BUCKET.head(`dashboard-exports/${acme.accountId}/${job.jobId}.pdf`)).toBeNull();
  });

  it('fails the job at once when its dashboard was deleted before it ran', async () => {
    const doomed = await seedDashboard(acme, 'Doomed');
    const job = await started(acme.admin, deploymentId, { dashboardId: doomed.id, format: 'png' });
    const deleted = await api(
      'DELETE',
      `/api/v1/deployments/${deploymentId}/workbooks/${doomed.workbookId}`,
      {
        auth: acme.admin,
      },
    );
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    const result = await deliver([job.id]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    expect(await exportRow(job.jobId)).toMatchObject({
      status: 'failed',
      attempts: 1,
      dashboard_id: null,
      error: 'The dashboard no longer exists',
      file_key: null,
    });
    const status = await exportStatus(acme.admin, deploymentId, job.jobId);
    expect(status.body).toMatchObject({ status: 'failed', error: 'The dashboard no longer exists' });
    expectError(await download(acme.admin, deploymentId, job.jobId), 422, 'EXPORT_FAILED');
  });

  it('does not render a job that expired while it waited in the queue', async () => {
    const t = new Date();
    platform.clock = clockAt(t);
    const job = await started(acme.admin, deploymentId, { dashboardId: dashboard.id, format: 'png' });
    platform.clock = clockAt(t.getTime() + 5 * 60 * 1000);
    const result = await deliver([job.id]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(await exportRow(job.jobId)).toMatchObject({ status: 'queued', attempts: 0, file_key: null });
  });

  it('acknowledges a message of a job that does not exist, and drops one that is not an export’s', async () => {
    const result = await deliver([987_654_321]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
    const stray = await consumeBodies([
      { kind: 'build', buildId: 1 },
      { kind: 'dashboard-export', exportId: 'x' },
    ]);
    expect(stray.explicitAcks).toHaveLength(2);
    expect(stray.retryMessages).toEqual([]);
  });
});

describe('who may see and start a job', () => {
  it('shows a job only to the user who started it, in its deployment', async () => {
    const job = await started(acme.admin, deploymentId, { dashboardId: dashboard.id, format: 'png' });
    await deliver([job.id]);
    // An API key acts as the account's first admin: the same user.
    expect((await exportStatus(acme.key, deploymentId, job.jobId)).status).toBe(200);
    expect((await download(acme.key, deploymentId, job.jobId)).status).toBe(200);
    const notFound = [
      () => exportStatus(acme.member, deploymentId, job.jobId),
      () => download(acme.member, deploymentId, job.jobId),
      () => exportStatus(other.admin, other.deployments[0], job.jobId),
      () => download(other.admin, other.deployments[0], job.jobId),
      () => exportStatus(other.admin, deploymentId, job.jobId),
      () => download(other.admin, deploymentId, job.jobId),
      () => exportStatus(acme.admin, acme.deployments[1], job.jobId),
      () => download(acme.admin, acme.deployments[1], job.jobId),
      () => exportStatus(acme.admin, deploymentId, 'no-such-job'),
      () => download(acme.admin, deploymentId, 'no-such-job'),
    ];
    for (const call of notFound) expectError(await call(), 404, 'NOT_FOUND');
    // A key scoped to another deployment is refused as it is everywhere.
    const scoped = await exportStatus(acme.scopedKey, acme.deployments[1], job.jobId);
    expectError(scoped, 403, 'KEY_SCOPE');
  });

  it('needs a credential of the account', async () => {
    const base = `/api/v1/deployments/${deploymentId}/dashboard-exports`;
    expectError(
      await api('POST', base, { body: { dashboardId: dashboard.id, format: 'png' } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(await api('GET', `${base}/anything`), 401, 'UNAUTHORIZED');
    expectError(
      await api('GET', `${base}/anything/download`, { auth: { bearer: 'eb_at_unknown' } }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('exports only a published dashboard of the path’s deployment', async () => {
    const theirs = await seedDashboard(other, 'Theirs');
    const cases = [
      { dashboardId: theirs.id },
      { dashboardPublicId: theirs.publicId },
      { dashboardId: 999_999 },
      { dashboardPublicId: 'nope' },
    ];
    for (const ref of cases) {
      expectError(await startExport(acme.admin, deploymentId, { ...ref, format: 'png' }), 404, 'NOT_FOUND');
    }
    // acme's dashboard lives in its first deployment, not the second; another account's deployment is unknown.
    expectError(
      await startExport(acme.admin, acme.deployments[1], { dashboardId: dashboard.id, format: 'png' }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await startExport(acme.admin, other.deployments[0], { dashboardId: theirs.id, format: 'png' }),
      404,
      'NOT_FOUND',
    );
    expect(rec.sent).toEqual([]);
  });

  it('refuses a dashboard that restricts data downloads, with a 403', async () => {
    const restricted = await seedDashboard(acme, 'Restricted');
    const republished = await api(
      'POST',
      `/api/v1/deployments/${deploymentId}/workbooks/${restricted.workbookId}/publish`,
      { auth: acme.admin, body: { restrictDataDownload: true } },
    );
    expect(republished.status, JSON.stringify(republished.body)).toBe(200);
    const res = await startExport(acme.admin, deploymentId, { dashboardId: restricted.id, format: 'pdf' });
    expectError(res, 403, 'FORBIDDEN');
    expect(res.body.error).toContain('restrictDataDownload');
    expect(rec.sent).toEqual([]);
  });
});

describe('the start’s input', () => {
  const start = (body: Record<string, unknown>, auth = acme.admin) => startExport(auth, deploymentId, body);

  it('is refused by name when malformed', async () => {
    for (const [body, path] of [
      [{ dashboardId: dashboard.id }, 'format'],
      [{ dashboardId: dashboard.id, format: 'gif' }, 'format'],
      [{ format: 'png' }, 'dashboardId'],
      [{ dashboardId: null, dashboardPublicId: null, format: 'png' }, 'dashboardId'],
      [
        { dashboardId: dashboard.id, dashboardPublicId: dashboard.publicId, format: 'png' },
        'dashboardPublicId',
      ],
      [{ dashboardId: 'one', format: 'png' }, 'dashboardId'],
      [{ dashboardId: dashboard.id, format: 'png', width: 800 }, 'width'],
      [{ dashboardId: dashboard.id, format: 'png', filters: [{ operator: 'equals' }] }, 'filters.0.member'],
      [
        {
          dashboardId: dashboard.id,
          format: 'png',
          filters: [{ member: 'orders.status', operator: 'between', value: 1 }],
        },
        'filters.0.value',
      ],
      [
        {
          dashboardId: dashboard.id,
          format: 'png',
          timeGrains: [{ member: 'orders.created_at', grain: 'fortnight' }],
        },
        'timeGrains.0.grain',
      ],
    ] as const) {
      const res = await start(body as Record<string, unknown>);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.details?.[0]?.path, JSON.stringify(body)).toBe(path);
    }
    expect(rec.sent).toEqual([]);
  });

  it('refuses a filter edgeboard cannot honour rather than ignore it', async () => {
    const custom = await start({
      dashboardId: dashboard.id,
      format: 'png',
      filters: [{ member: 'orders.status', operator: 'custom', value: 'x' }],
    });
    expectError(custom, 400, 'BAD_REQUEST');
    expect(custom.body.details).toEqual([{ path: 'filters.0', message: expect.stringContaining('custom') }]);
    const caseSensitive = await start({
      dashboardId: dashboard.id,
      format: 'png',
      filters: [{ member: 'orders.status', operator: 'contains', value: 'x', caseSensitive: true }],
    });
    expectError(caseSensitive, 400, 'BAD_REQUEST');
    expect(caseSensitive.body.details[0].path).toBe('filters.0');
    // This deployment has no data model: a filter cannot be checked, so it cannot be applied.
    const noModel = await start({
      dashboardId: dashboard.id,
      format: 'png',
      filters: [{ member: 'orders.status', value: 'completed' }],
    });
    expectError(noModel, 409, 'CONFLICT');
    expect(rec.sent).toEqual([]);
  });

  it('takes Cube’s nulls as not set, and member switchers without effect', async () => {
    const res = await start({
      dashboardId: dashboard.id,
      dashboardPublicId: null,
      format: 'png',
      filters: null,
      timeGrains: [],
      memberSwitchers: [{ member: 'orders.status', selected: 'city' }],
      renderAs: null,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await exportRow(res.body.jobId)).toMatchObject({ filters: '[]', time_grains: '[]' });
  });

  it('renders as another user of the account for an admin only', async () => {
    const asMember = {
      dashboardId: dashboard.id,
      format: 'png',
      renderAs: { type: 'USER', userId: acme.memberUserId },
    };
    const byAdmin = await start(asMember);
    expect(byAdmin.status, JSON.stringify(byAdmin.body)).toBe(200);
    // The job stays the caller's.
    expect(await exportRow(byAdmin.body.jobId)).toMatchObject({ user_id: acme.adminUserId });
    // By email, in any case.
    const member = await api('GET', `/api/v1/users/${acme.memberUserId}`, { auth: acme.admin });
    expect(member.status).toBe(200);
    const byEmail = await start({
      ...asMember,
      renderAs: { type: 'USER', email: member.body.email.toUpperCase() },
    });
    expect(byEmail.status, JSON.stringify(byEmail.body)).toBe(200);
    const unknownEmail = await start({
      ...asMember,
      renderAs: { type: 'USER', email: 'nobody@example.com' },
    });
    expectError(unknownEmail, 404, 'NOT_FOUND');
    expectError(await start(asMember, acme.member), 403, 'FORBIDDEN');
    expectError(await start({ ...asMember, renderAs: { type: 'USER', userId: 999_999 } }), 404, 'NOT_FOUND');
    const otherUser = await start({ ...asMember, renderAs: { type: 'USER', userId: other.adminUserId } });
    expectError(otherUser, 404, 'NOT_FOUND');
    for (const [renderAs, path] of [
      [{ type: 'EMBED_USER', externalId: 'ana', embedTenantName: 'tenant-one' }, 'renderAs.type'],
      [{ type: 'USER' }, 'renderAs.userId'],
      [{ type: 'USER', userId: acme.memberUserId, email: 'a@example.com' }, 'renderAs.userId'],
      [{ type: 'USER', userId: acme.memberUserId, groups: ['x'] }, 'renderAs.type'],
      [{ type: 'ROBOT', userId: 1 }, 'renderAs.type'],
    ] as const) {
      const res = await start({ ...asMember, renderAs });
      expectError(res, 400, 'VALIDATION_FAILED');
      expect(res.body.details[0].path, JSON.stringify(renderAs)).toBe(path);
    }
  });
});
