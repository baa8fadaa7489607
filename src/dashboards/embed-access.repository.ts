import { and, eq } from 'drizzle-orm';
import { publishedDashboards } from '../../schema/dashboards';
import { workbooks } from '../../schema/workspace';
import { mapRow, runBatch } from '../core/db';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';

/** The embed flags of a workbook's published dashboard; `published` false when it has none. */
export interface EmbedFlags {
  published: boolean;
  allowEmbed: boolean;
  allEmbedUsers: boolean;
}

type PublishedRow = typeof publishedDashboards.$inferSelect;

/** The published dashboard's columns the flags are read from: null when the workbook has none. */
type FlagColumns = { [K in 'id' | 'allowEmbed' | 'allEmbedUsers']: PublishedRow[K] | null };

const flagsOf = (row: FlagColumns): EmbedFlags => ({
  published: row.id !== null,
  allowEmbed: row.allowEmbed === true,
  allEmbedUsers: row.allEmbedUsers === true,
});

/** The workbook of the caller's deployment and its published dashboard's flags: no row when there is no such workbook. */
const flagsRead = (scope: DeploymentScope, workbookId: number) =>
  scope.db
    .select({
      id: publishedDashboards.id,
      allowEmbed: publishedDashboards.allowEmbed,
      allEmbedUsers: publishedDashboards.allEmbedUsers,
    })
    .from(workbooks)
    .leftJoin(publishedDashboards, eq(publishedDashboards.workbookId, workbooks.itemId))
    .where(
      and(
        eq(workbooks.itemId, workbookId),
        eq(workbooks.deploymentId, scope.deploymentId),
        deploymentOwned(scope.deploymentId, scope.accountId),
      ),
    );

/** null: the workbook is not one of the caller's deployment. */
export async function findEmbedFlags(scope: DeploymentScope, workbookId: number) {
  const [row] = await flagsRead(scope, workbookId);
  return row ? flagsOf(row) : null;
}

/** Sets the given flags of the published dashboard and reads them back, in one batch. */
export async function updateEmbedFlags(
  scope: DeploymentScope,
  workbookId: number,
  flags: { allowEmbed?: boolean; allEmbedUsers?: boolean },
) {
  const { db } = scope;
  const [, read] = await runBatch(db, [
    db
      .update(publishedDashboards)
      // A flag not given (undefined) is left as it is.
      .set({ ...flags, updatedAt: scope.now.toISOString() })
      .where(
        and(
          eq(publishedDashboards.workbookId, workbookId),
          eq(publishedDashboards.deploymentId, scope.deploymentId),
          deploymentOwned(scope.deploymentId, scope.accountId),
        ),
      ),
    flagsRead(scope, workbookId),
  ]);
  // A batch answers raw rows (snake_case, 0/1): mapped as drizzle maps the table's columns.
  const row = read?.results[0];
  return row ? flagsOf(mapRow(publishedDashboards, row)) : null;
}
