import { env } from 'cloudflare:test';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/core/db';
import { type ListParams, listItemsQuery } from '../../src/workspace/workspace-list.repository';
import { type SeededAccount, seedAccount } from '../helpers/harness';

let acme: SeededAccount;

beforeAll(async () => {
  acme = await seedAccount();
});

/** Tables whose full scan would grow with every tenant's data. */
const TENANT_TABLES =
  /\bSCAN (workspace_items|workbooks|reports|workspace_views|workspace_favorites|dashboard_versions|published_dashboards|report_snapshots|snapshot_contents)\b/;

async function plan(params: Partial<ListParams>) {
  const scope = { accountId: acme.accountId, deploymentId: acme.deployments[0], userId: acme.memberUserId };
  const query = listItemsQuery(scope, {
    folder: 'root',
    search: null,
    types: ['FOLDER', 'WORKBOOK', 'REPORT'],
    field: 'updated_at',
    direction: 'DESC',
    limit: 20,
    after: null,
    ...params,
  });
  const rows = await createDb(env.DB).all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${query}`);
  return rows.map((r) => r.detail);
}

describe('Workspace list query plans', () => {
  it.each([
    ['the root', {}],
    ['a 3+ character search', { search: 'apple' }],
    ['a 1 character search', { search: 'a' }],
    ['a 2 character search by name', { search: 'ap', field: 'name' as const }],
    ['a search by viewer_last_viewed_at', { search: 'apple', field: 'viewer_last_viewed_at' as const }],
    // Cube's getWorkbooks and getReports: every folder, a workbook's reports, a spreadsheet's.
    ['every folder', { folder: 'any' as const, types: ['WORKBOOK' as const] }],
    ['the reports of a workbook', { folder: 'any' as const, types: ['REPORT' as const], workbookId: 1 }],
    [
      'the reports of a workbook by name',
      { folder: 'any' as const, types: ['REPORT' as const], workbookId: 1, field: 'name' as const },
    ],
    [
      'the reports of a spreadsheet',
      { folder: 'any' as const, types: ['REPORT' as const], externalWorkbookId: 'sheet-1' },
    ],
    [
      'the reports of a workbook by viewer_last_viewed_at',
      {
        folder: 'any' as const,
        types: ['REPORT' as const],
        workbookId: 1,
        field: 'viewer_last_viewed_at' as const,
      },
    ],
  ])('%s scans no tenant table', async (_what, params) => {
    const details = await plan(params);
    expect(details.filter((d) => TENANT_TABLES.test(d))).toEqual([]);
    if ('search' in params) {
      // The index's matches drive: no walk of the deployment's items by type.
      expect(details.some((d) => /VIRTUAL TABLE INDEX/.test(d))).toBe(true);
      expect(
        details.filter((d) =>
          /SEARCH i USING (COVERING )?INDEX workspace_items_all_\w+ \(deployment_id=\? AND type=\?\)$/.test(
            d,
          ),
        ),
      ).toEqual([]);
    }
  });
});
