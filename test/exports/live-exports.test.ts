// An export shows what it says: every chart of the file runs its query under the export's filters
// and time grains, and the PDF's header names them. Golden numbers come from SQL written by hand
// over the shop in PostgreSQL.

import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { type LiveBoard, liveBoard, productLines, productsOf } from '../dashboards/live-fixtures';
import { deployModel, pgRows, shopModel } from '../data-api/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { pdfText } from '../helpers/pdf-text';
import {
  consume,
  download,
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
let board: LiveBoard;

beforeAll(async () => {
  acme = await seedAccount();
  board = await liveBoard(acme);
  // Exports run as the account user (only policies for `*` apply); the shop's model grants
  // orders to its managers and reps alone, so the board's deployment serves it without that policy.
  const open = shopModel(`${board.schema}.`).replace(
    / {4}access_policy:\n[\s\S]*?(?=\n\n {2}- name: line_items)/,
    '',
  );
  expect(open).not.toContain('access_policy');
  await deployModel(acme.admin, board.deploymentId, open);
});

beforeEach(() => {
  recordQueue();
});

/** Starts an export of the live board, consumes it and answers the file. */
async function exported(body: Record<string, unknown>) {
  const job = await started(acme.admin, board.deploymentId, { dashboardPublicId: board.publicId, ...body });
  const result = await consume([job.id]);
  expect(result.retryMessages).toEqual([]);
  const status = await exportStatus(acme.admin, board.deploymentId, job.jobId);
  expect(status.body, JSON.stringify(status.body)).toMatchObject({ status: 'completed' });
  const file = await download(acme.admin, board.deploymentId, job.jobId);
  expect(file.status).toBe(200);
  return file;
}

const productsSql = (where: string) => productsOf(board, where);

describe('an export of a live dashboard', () => {
  it('applies its filters and time grain: the PDF says so, and its numbers are the filtered ones', async () => {
    const file = await exported({
      format: 'pdf',
      filters: [{ member: 'orders.status', operator: 'equals', value: 'completed' }],
      timeGrains: [{ member: 'orders.created_at', grain: 'week' }],
    });
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(head(file.bytes, PDF_MAGIC)).toEqual(PDF_MAGIC);
    const text = await pdfText(file.bytes);
    // The dashboard's title, then the controls in effect and when the data was read.
    expect(text.startsWith('Shop live\n')).toBe(true);
    expect(text).toMatch(
      /\nStatus: completed · Grain: Week · Data as of \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\n/,
    );

    const filtered = await productsSql(`o.status = 'completed'`);
    const all = await productsSql('true');
    expect(filtered).not.toEqual(all);
    expect(text).toContain(productLines(filtered));
    expect(text).not.toContain(productLines(all));
    const [kpi] = await pgRows(
      `SELECT count(*) AS count FROM ${board.schema}.orders WHERE status = 'completed'`,
    );
    expect(text).toContain(`kpi\n${Number(kpi?.count)}\n`);
    // The line chart is by week: weeks are named by their first day, a month would read "Feb 2024".
    const weeks = await pgRows(
      `SELECT to_char(date_trunc('week', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS week
        FROM ${board.schema}.orders WHERE status = 'completed' AND created_at < '2024-07-01'
        GROUP BY 1 ORDER BY 1`,
    );
    expect(weeks.length).toBeGreaterThan(1);
    for (const { week } of weeks) expect(text).toContain(`${week}\n`);
    expect(text).not.toContain('Feb 2024');
  });

  it('without controls, renders the saved ones: every order, by month', async () => {
    const text = await pdfText((await exported({ format: 'pdf' })).bytes);
    expect(text).toContain(productLines(await productsSql('true')));
    expect(text).toContain('Feb 2024');
    expect(text).not.toContain('Status: completed');
  });

  it('draws a PNG from the same filtered rows', async () => {
    const file = await exported({
      format: 'png',
      filters: [{ member: 'orders.status', operator: 'not_equals', value: ['cancelled'] }],
    });
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(head(file.bytes, PNG_MAGIC)).toEqual(PNG_MAGIC);
    const unfiltered = await exported({ format: 'png' });
    expect(Buffer.from(file.bytes).equals(Buffer.from(unfiltered.bytes))).toBe(false);
  });

  it('checks filters and time grains together against one read of the serving model', async () => {
    const res = await startExport(acme.admin, board.deploymentId, {
      dashboardPublicId: board.publicId,
      format: 'pdf',
      filters: [{ member: 'orders.status', operator: 'equals', value: 'completed' }],
      timeGrains: [{ member: 'orders.created_at', grain: 'week' }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The credential, the serving build (once for both lists), then the guarded insert's batch.
    expect(res.headers.get('x-d1-round-trips')).toBe('3');
    const bad = await startExport(acme.admin, board.deploymentId, {
      dashboardPublicId: board.publicId,
      format: 'pdf',
      filters: [{ member: 'orders.status', operator: 'equals', value: 'completed' }],
      timeGrains: [{ member: 'orders.nope', grain: 'day' }],
    });
    expectError(bad, 400, 'BAD_REQUEST');
    expect(bad.body.details).toEqual([
      { path: 'timeGrains', message: expect.stringContaining('orders.nope') },
    ]);
  });

  it('refuses controls on members the model lacks, naming the list, before anything is queued', async () => {
    const member = await startExport(acme.admin, board.deploymentId, {
      dashboardPublicId: board.publicId,
      format: 'pdf',
      filters: [{ member: 'orders.nope', value: 'x' }],
    });
    expectError(member, 400, 'BAD_REQUEST');
    expect(member.body.details).toEqual([
      { path: 'filters', message: expect.stringContaining('orders.nope') },
    ]);
    const grain = await startExport(acme.admin, board.deploymentId, {
      dashboardPublicId: board.publicId,
      format: 'pdf',
      timeGrains: [{ member: 'orders.status', grain: 'day' }],
    });
    expectError(grain, 400, 'BAD_REQUEST');
    expect(grain.body.details).toEqual([
      { path: 'timeGrains', message: 'orders.status is not a time dimension' },
    ]);
  });
});
