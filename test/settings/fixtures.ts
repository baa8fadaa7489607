import { expect } from 'vitest';
import { createQueryReport } from '../dashboards/live-fixtures';
import { deployModel, loadShopIntoPostgres, shopModel, usePostgres } from '../data-api/fixtures';
import type { SeededAccount } from '../helpers/harness';
import { api } from '../helpers/http';

/** The shop model with no access policy: an account user (the render endpoint) sees every order. */
export const openShopModel = (schema: string) => {
  const model = shopModel(`${schema}.`).replace(/\n {4}access_policy:[\s\S]*?\n\n/, '\n\n');
  expect(model).not.toContain('access_policy');
  return model;
};

/** Orders by month over the first half of 2024 (a table), in the zone of the query or of the account. */
export const MONTHS_QUERY = {
  measures: ['orders.count'],
  timeDimensions: [
    { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-06-30'] },
  ],
};

/**
 * The shop's orders (test/data-api/fixtures.ts) per month: two orders sit near a month's end in
 * UTC (Jan 31 23:59:59, Mar 31 23:00), so in Tokyo (UTC+9) they fall in the next month.
 */
export const MONTHS_UTC = ['Jan 2024\n2', 'Feb 2024\n2', 'Mar 2024\n2', 'Apr 2024\n2'].join('\n');
export const MONTHS_TOKYO = ['Jan 2024\n1', 'Feb 2024\n3', 'Mar 2024\n1', 'Apr 2024\n3'].join('\n');

export interface MonthsBoard {
  deploymentId: number;
  workbookId: number;
  dashboardId: number;
  publicId: string;
  /** The table of orders per month (its query names no zone). */
  reportId: number;
  /** The same table, its query in UTC whatever the account's zone. */
  utcReportId: number;
}

/**
 * A deployment of `account` over the shop in PostgreSQL with the open model, and a published
 * dashboard of two tables of orders per month: one whose query names no time zone, one in UTC.
 */
export async function monthsBoard(
  account: SeededAccount,
  deploymentId = account.deployments[0],
): Promise<MonthsBoard> {
  const schema = await loadShopIntoPostgres();
  await usePostgres(account.admin, deploymentId);
  await deployModel(account.admin, deploymentId, openShopModel(schema));
  const base = `/api/v1/deployments/${deploymentId}`;
  const auth = account.admin;
  const wb = await api('POST', `${base}/workbooks`, { auth, body: { name: 'Months' } });
  expect(wb.status, JSON.stringify(wb.body)).toBe(200);
  const workbookId = wb.body.id as number;
  const reportId = await createQueryReport(auth, deploymentId, workbookId, 'months', {
    jsonQuery: MONTHS_QUERY,
    spec: { type: 'table' },
  });
  const utcReportId = await createQueryReport(auth, deploymentId, workbookId, 'months-utc', {
    jsonQuery: { ...MONTHS_QUERY, timezone: 'UTC' },
    spec: { type: 'table' },
  });
  const table = (id: string, rid: number, title: string, y: number) => ({
    id,
    type: 'CHART',
    position: { x: 0, y, w: 12, h: 4 },
    config: { reportId: rid, title },
  });
  const draft = await api('PUT', `${base}/workbooks/${workbookId}/dashboard`, {
    auth,
    body: {
      dashboardDraft: {
        title: 'Months',
        widgets: [
          table('t-zone', reportId, 'By month', 0),
          table('t-utc', utcReportId, 'By month in UTC', 4),
        ],
      },
    },
  });
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
  const published = await api('POST', `${base}/workbooks/${workbookId}/publish`, { auth, body: {} });
  expect(published.status, JSON.stringify(published.body)).toBe(200);
  return {
    deploymentId,
    workbookId,
    dashboardId: published.body.id,
    publicId: published.body.publicId,
    reportId,
    utcReportId,
  };
}

/** The text of one table of the PDF: from its title to the next widget's (or the page's end). */
export function tableText(text: string, title: string, next: string | null): string {
  const start = text.indexOf(`\n${title}\n`);
  expect(start, `"${title}" in the PDF`).toBeGreaterThanOrEqual(0);
  const end = next ? text.indexOf(`\n${next}\n`, start + 1) : text.indexOf('\nPage ', start);
  return text.slice(start, end < 0 ? undefined : end);
}
