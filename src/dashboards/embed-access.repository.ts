import { sql } from 'drizzle-orm';
import type { DeploymentScope } from '../auth/deployment-scope';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';
import { deploymentOwned } from '../core/tenancy';

type Raw = Record<string, unknown>;

/** The embed flags of a workbook's published dashboard; `published` false when it has none. */
export interface EmbedFlags {
  published: boolean;
  allowEmbed: boolean;
  allEmbedUsers: boolean;
}

const flagsOf = (row: Raw | undefined): EmbedFlags | null =>
  row
    ? {
        published: row.published === 1,
        allowEmbed: row.allow_embed === 1,
        allEmbedUsers: row.all_embed_users === 1,
      }
    : null;

const readFlags = (scope: DeploymentScope, workbookId: number) =>
  sql`SELECT pd.id IS NOT NULL AS published, coalesce(pd.allow_embed, 0) AS allow_embed,
      coalesce(pd.all_embed_users, 0) AS all_embed_users
    FROM workbooks w LEFT JOIN published_dashboards pd ON pd.workbook_id = w.item_id
    WHERE w.item_id = ${workbookId} AND w.deployment_id = ${scope.deploymentId}
      AND ${deploymentOwned(scope.deploymentId, scope.accountId)}`;

/** null: the workbook is not one of the caller's deployment. */
export async function findEmbedFlags(db: Db, scope: DeploymentScope, workbookId: number) {
  const rows = await db.all<Raw>(readFlags(scope, workbookId));
  return flagsOf(rows[0]);
}

/** Sets the given flags of the published dashboard and reads them back, in one batch. */
export async function updateEmbedFlags(
  db: Db,
  scope: DeploymentScope,
  workbookId: number,
  flags: { allowEmbed?: boolean; allEmbedUsers?: boolean },
  now: string,
) {
  const bit = (b: boolean | undefined) => (b === undefined ? null : b ? 1 : 0);
  const [, read] = await runBatch<Raw>(db, [
    sql`UPDATE published_dashboards SET
        allow_embed = coalesce(${bit(flags.allowEmbed)}, allow_embed),
        all_embed_users = coalesce(${bit(flags.allEmbedUsers)}, all_embed_users),
        updated_at = ${now}
      WHERE workbook_id = ${workbookId} AND deployment_id = ${scope.deploymentId}
        AND ${deploymentOwned(scope.deploymentId, scope.accountId)}`,
    readFlags(scope, workbookId),
  ]);
  return flagsOf(read?.results[0]);
}
