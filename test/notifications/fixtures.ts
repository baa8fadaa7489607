import { expect } from 'vitest';
import type { SeededAccount } from '../helpers/harness';
import { api } from '../helpers/http';

/**
 * A published dashboard in `account`'s deployment (the first by default), made the way a user
 * makes one: a workbook, a dashboard draft, a publish.
 */
export async function seedDashboard(
  account: SeededAccount,
  title = 'Weekly sales',
  deploymentId = account.deployments[0],
): Promise<{ id: number; publicId: string; workbookId: number }> {
  const base = `/api/v1/deployments/${deploymentId}/workbooks`;
  const workbook = await api('POST', base, { auth: account.admin, body: { name: title } });
  expect(workbook.status, JSON.stringify(workbook.body)).toBe(200);
  const draft = await api('PUT', `${base}/${workbook.body.id}/dashboard`, {
    auth: account.admin,
    body: {
      dashboardDraft: {
        title,
        widgets: [
          { id: 'w1', type: 'TEXT', position: { x: 0, y: 0, w: 6, h: 2 }, config: { text: 'Hello' } },
        ],
      },
    },
  });
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
  const published = await api('POST', `${base}/${workbook.body.id}/publish`, {
    auth: account.admin,
    body: { title },
  });
  expect(published.status, JSON.stringify(published.body)).toBe(200);
  return { id: published.body.id, publicId: published.body.publicId, workbookId: workbook.body.id };
}
