// What bounds dashboard exports: how many an account may have in flight, and how long a job and
// its file live (the download checks the expiry; the cron deletes the row and the file).
import { env } from 'cloudflare:test';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { routedDb } from '../helpers/shards';
import { seedDashboard } from '../notifications/fixtures';
import {
  consume,
  download,
  exportRow,
  exportStatus,
  recordQueue,
  startExport,
  started,
  tick,
} from './fixtures';

let acme: SeededAccount;
let other: SeededAccount;
let dashboard: { id: number };
let theirs: { id: number };
/** A clock every test moves on from, so each sees only its own jobs in flight. */
let t: number;

const MINUTE = 60 * 1000;

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  dashboard = await seedDashboard(acme, 'Bounded');
  theirs = await seedDashboard(other, 'Theirs');
  t = Date.now();
});

beforeEach(() => {
  recordQueue();
  // Ten minutes on from the last test: whatever it left in flight has expired.
  t += 10 * MINUTE;
  platform.clock = clockAt(t);
});

const png = () => ({ dashboardId: dashboard.id, format: 'png' });

describe('exports in flight per account', () => {
  it('answers 429 with Retry-After beyond 5 queued or rendering, and frees a slot when one finishes', async () => {
    const jobs = [];
    for (let i = 0; i < 5; i++) jobs.push(await started(acme.admin, acme.deployments[0], png()));
    const refused = await startExport(acme.admin, acme.deployments[0], png());
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.body.error).toContain('At most 5 exports');
    // Every user and key of the account shares the bound; nothing was stored for the refusal.
    expectError(await startExport(acme.key, acme.deployments[0], png()), 429, 'RATE_LIMITED');
    const { results } = await routedDb
      .prepare('SELECT count(*) AS n FROM dashboard_exports WHERE account_id = ?')
      .bind(acme.accountId)
      .all<{ n: number }>();
    expect(results[0]?.n).toBe(5);
    // Another account has its own.
    await started(other.admin, other.deployments[0], { dashboardId: theirs.id, format: 'png' });

    // A rendering job still counts; a finished one does not.
    await routedDb
      .prepare("UPDATE dashboard_exports SET status = 'running', attempts = 1 WHERE id = ?")
      .bind(jobs[0]?.id)
      .run();
    expectError(await startExport(acme.admin, acme.deployments[0], png()), 429, 'RATE_LIMITED');
    await consume([jobs[1]?.id as number]);
    expect((await exportStatus(acme.admin, acme.deployments[0], jobs[1]?.jobId as string)).body.status).toBe(
      'completed',
    );
    await started(acme.admin, acme.deployments[0], png());
    expectError(await startExport(acme.admin, acme.deployments[0], png()), 429, 'RATE_LIMITED');
  });

  it('counts no expired job, whatever its state', async () => {
    for (let i = 0; i < 5; i++) await started(acme.admin, acme.deployments[0], png());
    expectError(await startExport(acme.admin, acme.deployments[0], png()), 429, 'RATE_LIMITED');
    platform.clock = clockAt(t + 5 * MINUTE);
    await started(acme.admin, acme.deployments[0], png());
  });

  it('counts no failed job', async () => {
    const jobs = [];
    for (let i = 0; i < 5; i++) jobs.push(await started(acme.admin, acme.deployments[0], png()));
    await routedDb
      .prepare("UPDATE dashboard_exports SET status = 'running', attempts = 3 WHERE id = ?")
      .bind(jobs[2]?.id)
      .run();
    await consume([jobs[2]?.id as number], { attempts: 4 });
    expect(await exportRow(jobs[2]?.jobId as string)).toMatchObject({ status: 'failed' });
    await started(acme.admin, acme.deployments[0], png());
  });
});

describe('the lifetime of a job and its file', () => {
  it('is 5 minutes: then status and download are 404s, and the cron deletes the row and the file', async () => {
    const d = acme.deployments[0];
    const job = await started(acme.admin, d, png());
    expect(job.expiresAt).toBe(new Date(t + 5 * MINUTE).toISOString());
    // A job started a minute later lives a minute longer.
    platform.clock = clockAt(t + MINUTE);
    const later = await started(acme.admin, d, { dashboardId: dashboard.id, format: 'pdf' });
    await consume([job.id, later.id]);
    const key = (await exportRow(job.jobId))?.file_key as string;
    expect(await env.EXPORTS_BUCKET.head(key)).not.toBeNull();

    platform.clock = clockAt(t + 5 * MINUTE - 1);
    expect((await exportStatus(acme.admin, d, job.jobId)).status).toBe(200);
    expect((await download(acme.admin, d, job.jobId)).status).toBe(200);

    platform.clock = clockAt(t + 5 * MINUTE);
    expectError(await exportStatus(acme.admin, d, job.jobId), 404, 'NOT_FOUND');
    expectError(await download(acme.admin, d, job.jobId), 404, 'NOT_FOUND');
    // Until the cron runs, the row and the file are still there, unreachable.
    expect(await exportRow(job.jobId)).not.toBeNull();

    // A tick before the expiry deletes nothing; the one at it deletes the job and its file.
    await tick(new Date(t + 5 * MINUTE - 1));
    expect(await exportRow(job.jobId)).not.toBeNull();
    await tick(new Date(t + 5 * MINUTE));
    expect(await exportRow(job.jobId)).toBeNull();
    expect(await env.EXPORTS_BUCKET.head(key)).toBeNull();
    const laterKey = (await exportRow(later.jobId))?.file_key as string;
    expect(laterKey).toMatch(/\.pdf$/);
    expect(await env.EXPORTS_BUCKET.head(laterKey)).not.toBeNull();
    expect((await download(acme.admin, d, later.jobId)).status).toBe(200);
    await tick(new Date(t + 6 * MINUTE));
    expect(await exportRow(later.jobId)).toBeNull();
    expect(await env.EXPORTS_BUCKET.head(laterKey)).toBeNull();
  });
});

describe("the account's download restriction", () => {
  it('refuses a start with 403 DOWNLOAD_RESTRICTED and stores nothing; lifting it starts again', async () => {
    const patch = (restrictDataDownload: boolean) =>
      api('PATCH', '/api/v1/app-config', { auth: acme.admin, body: { restrictDataDownload } });
    const jobs = () =>
      routedDb
        .prepare('SELECT count(*) AS n FROM dashboard_exports WHERE account_id = ?')
        .bind(acme.accountId)
        .first<{ n: number }>();
    const before = await jobs();
    expect((await patch(true)).status).toBe(200);
    const refused = await startExport(acme.admin, acme.deployments[0], png());
    expectError(refused, 403, 'DOWNLOAD_RESTRICTED');
    expect(refused.body.error).toContain('restrictDataDownload');
    expect(await jobs()).toEqual(before);
    // Another account's exports are not its concern.
    await started(other.admin, other.deployments[0], { dashboardId: theirs.id, format: 'png' });
    expect((await patch(false)).status).toBe(200);
    await started(acme.admin, acme.deployments[0], png());
    expect((await jobs())?.n).toBe((before?.n ?? 0) + 1);
  });
});
