import { createMessageBatch, env } from 'cloudflare:test';
import { expect } from 'vitest';
import type { ExportMessage } from '../../src/core/env';
import { type ApiResponse, type Auth, api } from '../helpers/http';
import { deliverBatch, platform } from '../helpers/platform';
import { routedDb } from '../helpers/shards';
import { fetchBytes } from '../render/seed';

/** The export routes of a deployment. */
export const exportsPath = (deploymentId: number) => `/api/v1/deployments/${deploymentId}/dashboard-exports`;

/**
 * Puts a recording queue on the test's platform: starts enqueue into `sent` (export row ids)
 * instead of the real queue, so a test delivers each message itself, when it chooses.
 */
export function recordQueue(): { sent: number[] } {
  const sent: number[] = [];
  platform.exportsQueue = {
    async send(body: ExportMessage) {
      sent.push(body.exportId);
    },
  };
  return { sent };
}

/** POST …/dashboard-exports. */
export function startExport(
  auth: Auth,
  deploymentId: number,
  body: Record<string, unknown>,
): Promise<ApiResponse> {
  return api('POST', exportsPath(deploymentId), { auth, body });
}

/** A started export: its job id, expiry and the row id its message carries. */
export async function started(auth: Auth, deploymentId: number, body: Record<string, unknown>) {
  const res = await startExport(auth, deploymentId, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const row = await exportRow(res.body.jobId);
  expect(row, 'the job is stored').not.toBeNull();
  return { jobId: res.body.jobId as string, expiresAt: res.body.expiresAt as string, id: row?.id as number };
}

export function exportStatus(auth: Auth, deploymentId: number, jobId: string): Promise<ApiResponse> {
  return api('GET', `${exportsPath(deploymentId)}/${jobId}`, { auth });
}

/** GET …/download, the body read as bytes (JSON errors parsed). */
export function download(auth: Auth, deploymentId: number, jobId: string, query = '') {
  return fetchBytes(`${exportsPath(deploymentId)}/${jobId}/download${query}`, auth);
}

/** The stored row of a job, as D1 has it. */
export function exportRow(jobId: string) {
  return routedDb
    .prepare('SELECT * FROM dashboard_exports WHERE job_id = ?')
    .bind(jobId)
    .first<Record<string, any>>();
}

let messageCounter = 0;

/** How a test delivers: the attempt the messages are on, and bindings replaced for the batch. */
export interface Delivery {
  attempts?: number;
  env?: Partial<typeof env>;
}

/**
 * Delivers messages with these bodies to the Worker's queue handler (on the test's platform);
 * answers the acks and the retries with their delays.
 */
export async function consumeBodies(bodies: unknown[], options: Delivery = {}) {
  const batch = createMessageBatch<unknown>(
    'edgeboard-exports',
    bodies.map((body) => ({
      id: `export-msg-${++messageCounter}`,
      timestamp: new Date(),
      attempts: options.attempts ?? 1,
      body,
    })),
  );
  return deliverBatch(batch, { ...env, ...options.env });
}

/** Delivers the messages of these export jobs (by row id). */
export const consume = (exportIds: number[], options: Delivery = {}) =>
  consumeBodies(
    exportIds.map((exportId): ExportMessage => ({ kind: 'dashboard-export', exportId })),
    options,
  );

/** One cron tick through the Worker's scheduled handler, on the test's platform. */
export { cronTick as tick } from '../helpers/platform';

export const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** `%PDF-` */
export const PDF_MAGIC = [0x25, 0x50, 0x44, 0x46, 0x2d];

/** The first bytes of a file, as many as `magic` has, to compare with it. */
export const head = (bytes: Uint8Array, magic: number[]) => [...bytes.subarray(0, magic.length)];
