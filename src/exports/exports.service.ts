import { downloadRestricted } from '../accounts/app-config.policy';
import { requireAdmin } from '../auth/auth.middleware';
import { randomId } from '../core/crypto';
import { ApiError, badRequest, conflict, notFound, tooManyRequests } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import { controlsProblem } from './export-controls';
import {
  EXPORT_LIFETIME_SECONDS,
  IN_FLIGHT_RETRY_AFTER_SECONDS,
  MAX_EXPORTS_IN_FLIGHT,
} from './exports.limits';
import {
  type DashboardRef,
  type ExportRow,
  failUnqueued,
  findAccountUser,
  findExport,
  insertExport,
} from './exports.repository';
import type { ExportStatusAnswer, StartExportInput } from './exports.schemas';
import { readFile } from './exports.storage';

/** The dashboard a start names: exactly one of dashboardId and dashboardPublicId. */
function dashboardRefOf(input: StartExportInput): DashboardRef {
  const id = input.dashboardId ?? undefined;
  const publicId = input.dashboardPublicId ?? undefined;
  if ((id === undefined) === (publicId === undefined)) {
    const message = 'Give exactly one of dashboardId or dashboardPublicId';
    throw badRequest(message, [{ path: id === undefined ? 'dashboardId' : 'dashboardPublicId', message }]);
  }
  return { id, publicId };
}

/**
 * Cube's `renderAs`, for a console user (`USER`): only an admin may render as someone else, and
 * the user must be of the account (else 404). Answers the user's id: the render runs with their
 * attribute values (the data access policies read them); the job stays the caller's.
 */
async function checkSubject(
  scope: DeploymentScope,
  subject: NonNullable<StartExportInput['renderAs']>,
): Promise<number> {
  requireAdmin(scope.principal);
  const userId = await findAccountUser(scope, {
    userId: subject.userId ?? undefined,
    email: subject.email ?? undefined,
  });
  if (userId === null) throw notFound('User');
  return userId;
}

/**
 * Starts an export job of a published dashboard of the scope's deployment: checks the controls,
 * stores the job (queued, or a 404/403/429 saying why not) and enqueues it. Answers Cube's
 * DashboardExportJobResponse: the job id and when it expires.
 */
export async function startExport(
  scope: DeploymentScope,
  input: StartExportInput,
): Promise<{ jobId: string; expiresAt: string }> {
  const ref = dashboardRefOf(input);
  const filters = input.filters ?? [];
  const timeGrains = input.timeGrains ?? [];
  const renderUserId = input.renderAs ? await checkSubject(scope, input.renderAs) : null;
  const problem = await controlsProblem(scope, filters, timeGrains);
  if (problem) throw badRequest(`The controls cannot be applied: ${problem.message}`, [problem]);

  const expiresAt = new Date(scope.now.getTime() + EXPORT_LIFETIME_SECONDS * 1000);
  const jobId = randomId(16);
  const outcome = await insertExport(scope, ref, {
    jobId,
    format: input.format,
    renderUserId,
    filters,
    timeGrains,
    expiresAt,
  });
  if (outcome.exportId === null) {
    if (!outcome.dashboardFound) throw notFound('Dashboard');
    if (outcome.accountRestricted) throw downloadRestricted();
    if (outcome.restricted) {
      throw new ApiError('FORBIDDEN', 'The dashboard restricts data downloads (restrictDataDownload)');
    }
    throw tooManyRequests(
      'RATE_LIMITED',
      `At most ${MAX_EXPORTS_IN_FLIGHT} exports of the account may be queued or rendering at once; ` +
        'retry when one has finished',
      IN_FLIGHT_RETRY_AFTER_SECONDS,
    );
  }
  try {
    await scope.ports.exportsQueue.send({ kind: 'dashboard-export', exportId: outcome.exportId });
  } catch (err) {
    // Not left queued: it would never run, yet count against the account's bound until it expired.
    await failUnqueued(scope, outcome.exportId, 'The export could not be queued');
    throw err;
  }
  return { jobId, expiresAt: expiresAt.toISOString() };
}

const WIRE_STATUS = {
  queued: 'pending',
  running: 'processing',
  done: 'completed',
  failed: 'failed',
} as const satisfies Record<ExportRow['status'], ExportStatusAnswer['status']>;

function present(row: ExportRow): ExportStatusAnswer {
  return {
    jobId: row.jobId,
    status: WIRE_STATUS[row.status],
    format: row.format,
    contentType: row.status === 'done' ? row.contentType : null,
    error: row.status === 'failed' ? row.error : null,
    attempts: row.attempts,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
  };
}

/** The caller's job, unexpired: else a 404 (another account's, another user's, expired or unknown alike). */
async function ownExport(scope: DeploymentScope, jobId: string): Promise<ExportRow> {
  const row = await findExport(scope, jobId);
  if (!row) throw notFound('Dashboard export');
  return row;
}

/** Cube's DashboardExportStatusResponse of the caller's job. */
export async function exportStatus(scope: DeploymentScope, jobId: string): Promise<ExportStatusAnswer> {
  return present(await ownExport(scope, jobId));
}

/** A finished job's file, to stream: its bytes, type and size, and the extension of its format. */
export interface ExportFile {
  body: ReadableStream;
  contentType: string;
  size: number;
  extension: string;
}

/**
 * The file of the caller's finished job. A job still queued or rendering is a 409, one that
 * failed a 422 (terminal: start a new export), an expired or unknown one a 404.
 */
export async function downloadExport(scope: DeploymentScope, jobId: string): Promise<ExportFile> {
  const row = await ownExport(scope, jobId);
  if (row.status === 'failed') {
    throw new ApiError(
      'EXPORT_FAILED',
      `The export failed: ${row.error ?? 'no reason recorded'}. Start a new one`,
    );
  }
  if (row.status !== 'done' || !row.fileKey) {
    throw conflict('The export is not rendered yet: poll its status until it is completed');
  }
  const file = await readFile(scope.env, row.fileKey);
  // Gone before its row (deleted by a lifecycle rule): as expired.
  if (!file) throw notFound('Dashboard export');
  return {
    body: file.body,
    contentType: row.contentType ?? file.httpMetadata?.contentType ?? 'application/octet-stream',
    size: file.size,
    extension: row.format,
  };
}
