import type { ExportMessage } from '../core/env';
import { ApiError } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { renderWorkbookDashboard } from '../dashboards/render.service';
import { controlsProblem, renderControls } from './export-controls';
import { MAX_EXPORT_ATTEMPTS, RETRY_DELAY_SECONDS } from './exports.limits';
import { claimExport, failExport, finishExport } from './exports.repository';
import { deleteFiles, fileKeyOf, storeFile } from './exports.storage';

export const EXPORTS_QUEUE_NAME = 'edgeboard-exports';

const isExportMessage = (body: unknown): body is ExportMessage =>
  typeof body === 'object' &&
  body !== null &&
  (body as ExportMessage).kind === 'dashboard-export' &&
  Number.isSafeInteger((body as ExportMessage).exportId);

/** A render that cannot succeed on another attempt (the dashboard is gone, a control cannot apply). */
class PermanentExportError extends Error {}

/**
 * Whether retrying cannot mend `err`: edgeboard's own refusals below 500 (no such dashboard or
 * workbook, no built model, a query the model refuses) stay refused. Anything else (the data
 * source, the bucket, the runtime) may pass on a later attempt.
 */
const isPermanent = (err: unknown): boolean =>
  err instanceof PermanentExportError || (err instanceof ApiError && err.status < 500);

/** What became of one message: done with it, or deliver it again after a delay. */
type Outcome = { ack: true } | { ack: false; delaySeconds: number };
const ACK: Outcome = { ack: true };

/**
 * Runs export `exportId` once. The claim makes redeliveries harmless: a job already done,
 * failed, expired or deleted is no claim, so its message is acknowledged with no render and no
 * write. A render that fails for good fails the job; one that may pass later is retried until
 * MAX_EXPORT_ATTEMPTS renders have started, then fails the job with the last error.
 */
export async function runExport(scope: RequestScope, exportId: number): Promise<Outcome> {
  const claimed = await claimExport(scope, exportId);
  // Nothing to do, or the claim itself recorded that every attempt was spent.
  if (!claimed || claimed.job.status === 'failed') return ACK;
  const { job, workbookId } = claimed;
  // The render is for its `renderAs` user, else whoever started it: their attribute values apply.
  const jobScope = {
    ...scope,
    accountId: job.accountId,
    deploymentId: job.deploymentId,
    userId: job.renderUserId ?? job.userId,
  };
  try {
    if (workbookId === null) throw new PermanentExportError('The dashboard no longer exists');
    const problem = await controlsProblem(jobScope, job.filters, job.timeGrains);
    if (problem) throw new PermanentExportError(`The controls cannot be applied: ${problem.message}`);
    const rendered = await renderWorkbookDashboard(jobScope, workbookId, {
      format: job.format,
      version: 'published',
      ...renderControls(job.filters, job.timeGrains),
    });
    const key = fileKeyOf(job.accountId, job.jobId, job.format);
    await storeFile(scope.env, key, rendered, new Date(job.expiresAt));
    const done = await finishExport(scope, job.id, {
      key,
      contentType: rendered.contentType,
      byteSize: rendered.bytes.byteLength,
    });
    // The job expired and was swept while it rendered: its file has no row to expire with.
    if (!done) await deleteFiles(scope.env, [key]);
    return ACK;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (isPermanent(err)) {
      await failExport(scope, job.id, message);
      return ACK;
    }
    console.error(
      JSON.stringify({ event: 'export_attempt_failed', exportId, attempt: job.attempts, error: message }),
    );
    if (job.attempts >= MAX_EXPORT_ATTEMPTS) {
      await failExport(scope, job.id, `The render failed ${job.attempts} times; the last error: ${message}`);
      return ACK;
    }
    return { ack: false, delaySeconds: RETRY_DELAY_SECONDS * job.attempts };
  }
}

/**
 * The exports queue: one message per job (wrangler.toml delivers them one at a time). A message
 * that is not an export's is dropped; an error outside a render (D1 unreachable) retries the
 * message, and the claim keeps that from rendering twice what already finished.
 */
export async function consumeExports(scope: RequestScope, batch: MessageBatch<unknown>): Promise<void> {
  for (const msg of batch.messages) {
    if (!isExportMessage(msg.body)) {
      console.error(JSON.stringify({ event: 'export_message_malformed', id: msg.id }));
      msg.ack();
      continue;
    }
    try {
      const outcome = await runExport(scope, msg.body.exportId);
      if (outcome.ack) msg.ack();
      else msg.retry({ delaySeconds: outcome.delaySeconds });
    } catch (err) {
      console.error(
        JSON.stringify({ event: 'export_message_failed', exportId: msg.body.exportId, error: String(err) }),
      );
      msg.retry({ delaySeconds: RETRY_DELAY_SECONDS * msg.attempts });
    }
  }
}
