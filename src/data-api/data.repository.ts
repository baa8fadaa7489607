import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { builds, deployments } from '../../schema/deployments';
import type { Db } from '../core/env';
import type { DeploymentScope } from '../core/scope';
import { DATA_SOURCE_VARS } from '../sources/data-source';

/** Which deployment of which account, and where to read it. */
type DeploymentOf = Pick<DeploymentScope, 'db' | 'accountId' | 'deploymentId'>;

const ofAccount = (scope: DeploymentOf) =>
  and(eq(deployments.id, scope.deploymentId), eq(deployments.accountId, scope.accountId));

/**
 * The build a deployment serves: its latest good one (the partial index `builds_built_idx`
 * holds only built builds, so failed builds after it cost nothing). Null when the deployment is
 * not the account's or has never built.
 */
export async function findServingBuild(
  scope: DeploymentOf,
): Promise<{ buildId: number; slug: string; rollupGeneration: number } | null> {
  const rows = await scope.db
    .select({
      buildId: builds.id,
      slug: deployments.slug,
      rollupGeneration: rollupGenerationOf(sql`${deployments.id}`),
    })
    .from(deployments)
    // Raw: the status literal (a bound parameter would keep SQLite off the partial index).
    .innerJoin(builds, and(eq(builds.deploymentId, deployments.id), sql`${builds.status} = 'built'`))
    .where(ofAccount(scope))
    .orderBy(desc(builds.id))
    .limit(1);
  return rows[0] ?? null;
}

/** Whether the account has this deployment. */
export async function deploymentExists(scope: DeploymentOf): Promise<boolean> {
  const rows = await scope.db
    .select({ id: deployments.id })
    .from(deployments)
    .where(ofAccount(scope))
    .limit(1);
  return rows.length > 0;
}

/** A deployment by the slug of its URL host (`https://<slug>.<domain>`). */
export async function findDeploymentBySlug(
  db: Db,
  slug: string,
): Promise<{ id: number; accountId: number } | null> {
  const rows = await db
    .select({ id: deployments.id, accountId: deployments.accountId })
    .from(deployments)
    .where(eq(deployments.slug, slug))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The deployment's rollup generation (bumped whenever a pre-aggregation partition swaps in), as
 * a column of the caller's statement: answers cached from rollups key on it. Raw: a subquery.
 */
const rollupGenerationOf = (deploymentId: SQL) =>
  sql<number>`coalesce((SELECT p.generation FROM pre_aggregation_plans p WHERE p.deployment_id = ${deploymentId}), 0)`;

/**
 * What decides a deployment's answers besides the data, as three columns a caller's own statement
 * can select (an embed load reads them in the statement it already runs): `serving_build_id`,
 * its latest good build (through `builds_built_idx`), and `source_version`, its data source
 * variables as stored (a secret's ciphertext changes with every write), and `rollup_generation`,
 * which moves with every pre-aggregation partition swapped in. `deploymentId` is a SQL
 * expression of the caller's statement. Raw: columns for another statement's select list.
 */
export const servingStateColumns = (deploymentId: SQL): SQL => sql`
  (SELECT max(b.id) FROM builds b WHERE b.deployment_id = ${deploymentId} AND b.status = 'built')
    AS serving_build_id,
  (SELECT group_concat(v.name || '=' || v.value, char(10)) FROM (SELECT name, value
      FROM deployment_env_vars WHERE deployment_id = ${deploymentId}
        AND name IN (${sql.join(
          DATA_SOURCE_VARS.map((name) => sql`${name}`),
          sql`, `,
        )})
      ORDER BY name) v) AS source_version,
  ${rollupGenerationOf(deploymentId)} AS rollup_generation`;
