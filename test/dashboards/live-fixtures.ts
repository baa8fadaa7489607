import { expect } from 'vitest';
import { deployModel, loadShopIntoPostgres, pgRows, shopModel, usePostgres } from '../data-api/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { type Auth, api } from '../helpers/http';

/**
 * A live dashboard over the shop of `test/data-api/fixtures.ts` (in PostgreSQL): reports that
 * are Cube queries, charted, with a FILTER control on `orders.status` and a TIME_GRAIN control on
 * `orders.created_at`; published with embedding allowed.
 */
export interface LiveBoard {
  schema: string;
  deploymentId: number;
  workbookId: number;
  publicId: string;
  reports: Record<keyof typeof REPORTS, number>;
}

/** The board's reports: their Cube queries and chart settings. */
export const REPORTS = {
  kpi: {
    jsonQuery: { measures: ['orders.count', 'orders.total_amount'] },
    spec: { type: 'kpi' },
  },
  byStatus: {
    jsonQuery: {
      measures: ['orders.total_amount'],
      dimensions: ['orders.status'],
      order: { 'orders.status': 'asc' },
    },
    spec: { type: 'bar' },
  },
  byMonth: {
    jsonQuery: {
      measures: ['orders.count'],
      timeDimensions: [
        { dimension: 'orders.created_at', granularity: 'month', dateRange: ['2024-01-01', '2024-06-30'] },
      ],
    },
    // Saved with the month's field: a time-grain control moves it to the grain it picks.
    spec: { type: 'line', x: 'orders.created_at.month' },
  },
  byProduct: {
    jsonQuery: {
      measures: ['line_items.quantity'],
      dimensions: ['line_items.product'],
      order: { 'line_items.product': 'asc' },
    },
    spec: { type: 'table' },
  },
} as const;

/** Widget ids of the board. */
export const WIDGETS = {
  kpi: 'w-kpi',
  byStatus: 'w-status',
  byMonth: 'w-month',
  byProduct: 'w-product',
  statusFilter: 'f-status',
  grain: 'g-month',
} as const;

/** Loads the shop into PostgreSQL (or reuses `existing`), points the deployment at it and builds the shop model. */
export async function shopDeployment(
  account: SeededAccount,
  deploymentId = account.deployments[0] as number,
  existing?: string,
) {
  const schema = existing ?? (await loadShopIntoPostgres());
  await usePostgres(account.admin, deploymentId);
  await deployModel(account.admin, deploymentId, shopModel(`${schema}.`));
  return schema;
}

/** A report with a query, in the workbook; answers its id. */
export async function createQueryReport(
  auth: Auth,
  deploymentId: number,
  workbookId: number,
  name: string,
  body: { jsonQuery: unknown; spec: unknown; [key: string]: unknown },
): Promise<number> {
  const res = await api('POST', `/api/v1/deployments/${deploymentId}/reports`, {
    auth,
    body: {
      ...body,
      name,
      title: name,
      workbookId,
      jsonQuery: JSON.stringify(body.jsonQuery),
      spec: JSON.stringify(body.spec),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as number;
}

/** Builds the shop deployment (over the loaded `schema` when given) and publishes the live board on it. */
export async function liveBoard(
  account: SeededAccount,
  options: { deploymentId?: number; schema?: string } = {},
): Promise<LiveBoard> {
  const deploymentId = options.deploymentId ?? (account.deployments[0] as number);
  const schema = await shopDeployment(account, deploymentId, options.schema);
  const auth = account.admin;
  const base = `/api/v1/deployments/${deploymentId}`;
  const workbook = await api('POST', `${base}/workbooks`, { auth, body: { name: 'Shop live' } });
  expect(workbook.status, JSON.stringify(workbook.body)).toBe(200);
  const workbookId = workbook.body.id as number;
  const reports = {} as Record<keyof typeof REPORTS, number>;
  for (const [key, report] of Object.entries(REPORTS) as [
    keyof typeof REPORTS,
    (typeof REPORTS)[keyof typeof REPORTS],
  ][]) {
    reports[key] = await createQueryReport(auth, deploymentId, workbookId, key, report);
  }
  const chart = (key: keyof typeof REPORTS, x: number, y: number) => ({
    id: WIDGETS[key],
    type: 'CHART',
    position: { x, y, w: 6, h: 2 },
    config: { reportId: reports[key], title: key },
  });
  const draft = await api('PUT', `${base}/workbooks/${workbookId}/dashboard`, {
    auth,
    body: {
      dashboardDraft: {
        kind: 'CLASSIC',
        title: 'Shop live',
        widgets: [
          {
            id: WIDGETS.statusFilter,
            type: 'FILTER',
            position: { x: 0, y: 0, w: 6, h: 1 },
            config: { member: 'orders.status', label: 'Status' },
          },
          {
            id: WIDGETS.grain,
            type: 'TIME_GRAIN',
            position: { x: 6, y: 0, w: 6, h: 1 },
            config: { member: 'orders.created_at', grain: 'month', label: 'Grain' },
          },
          chart('kpi', 0, 1),
          chart('byStatus', 6, 1),
          chart('byMonth', 0, 3),
          chart('byProduct', 6, 3),
        ],
      },
    },
  });
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
  const published = await api('POST', `${base}/workbooks/${workbookId}/publish`, {
    auth,
    body: { title: 'Shop live' },
  });
  expect(published.status, JSON.stringify(published.body)).toBe(200);
  const publicId = published.body.publicId as string;
  const embed = await api('PATCH', `/api/v1/embed/dashboard/${publicId}`, {
    auth,
    body: { allowEmbed: true },
  });
  expect(embed.status, JSON.stringify(embed.body)).toBe(200);
  return { schema, deploymentId, workbookId, publicId, reports };
}

/** An embed session for a viewer with these groups and security context (the shop's policies read `country`). */
export async function mintViewer(
  account: SeededAccount,
  deploymentId: number,
  viewer: {
    externalId: string;
    groups: string[];
    securityContext?: Record<string, unknown>;
    [key: string]: unknown;
  },
): Promise<string> {
  for (const name of viewer.groups) {
    // Groups must exist in the account's catalogue; a second create of the same name is a 409.
    const res = await api('POST', '/api/v1/groups', { auth: account.admin, body: { name } });
    expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
  }
  const minted = await api('POST', '/api/v1/embed/generate-session', {
    auth: { bearer: account.key.apiKey },
    body: { deploymentId, ...viewer },
  });
  expect(minted.status, JSON.stringify(minted.body)).toBe(200);
  return minted.body.sessionId as string;
}

/** The chart rows of a report in an embed load's answer. */
export function chartOf(
  body: { reportSnapshots: { reportId: number; spec: string; error?: string | null }[] },
  reportId: number,
) {
  const snapshot = body.reportSnapshots.find((s) => s.reportId === reportId);
  expect(snapshot, `report ${reportId} in the answer`).toBeDefined();
  const spec = JSON.parse(snapshot?.spec ?? '{}');
  return { spec, data: (spec.data ?? []) as Record<string, unknown>[], error: snapshot?.error ?? null };
}

/**
 * A fresh account with the live board and two viewers: a manager (every row) and a rep whose
 * policy shows Ireland's rows only.
 */
export async function liveBoardWithViewers() {
  const account = await seedAccount();
  const board = await liveBoard(account);
  const manager = await mintViewer(account, board.deploymentId, { externalId: 'boss', groups: ['managers'] });
  const repIe = await mintViewer(account, board.deploymentId, {
    externalId: 'rep-ie',
    groups: ['reps'],
    securityContext: { country: 'IE' },
  });
  return { account, board, manager, repIe };
}

/** The table chart's lines in a PDF's text: its header, then each product and its quantity. */
export const productLines = (rows: Record<string, unknown>[]) =>
  ['Product', 'Quantity', ...rows.flatMap((r) => [String(r.product), String(Number(r.quantity))])].join('\n');

/** Each product's quantity over the board's orders that match `where`, read from PostgreSQL itself. */
export const productsOf = (board: LiveBoard, where: string) =>
  pgRows(
    `SELECT li.product, sum(li.quantity) AS quantity
      FROM ${board.schema}.line_items li JOIN ${board.schema}.orders o ON o.id = li.order_id
      WHERE ${where} GROUP BY li.product ORDER BY li.product`,
  );
