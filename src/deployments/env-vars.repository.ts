import { and, asc, eq, gt, inArray, sql } from 'drizzle-orm';
import { deploymentEnvVars, deployments } from '../../schema/deployments';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { AccountScope } from '../core/scope';

export type EnvVarRow = typeof deploymentEnvVars.$inferSelect;

const ofDeployment = (deploymentId: number) => eq(deploymentEnvVars.deploymentId, deploymentId);

/**
 * One page of a deployment of the account's variables by name (`limit` + 1 rows, to tell
 * whether another page follows), and whether that deployment exists: one batch, one round trip.
 */
export async function listEnvVars(
  scope: AccountScope,
  deploymentId: number,
  page: { afterName: string | null; limit: number },
): Promise<EnvVarRow[] | null> {
  const { db } = scope;
  const [found, listed] = await runBatch(db, [
    db
      .select({ id: deployments.id })
      .from(deployments)
      .where(and(eq(deployments.id, deploymentId), eq(deployments.accountId, scope.accountId))),
    db
      .select()
      .from(deploymentEnvVars)
      .where(
        and(
          ofDeployment(deploymentId),
          page.afterName === null ? undefined : gt(deploymentEnvVars.name, page.afterName),
        ),
      )
      .orderBy(asc(deploymentEnvVars.name))
      .limit(page.limit + 1),
  ]);
  if (!found?.results[0]) return null;
  return (listed?.results ?? []).map((row) => mapRow(deploymentEnvVars, row));
}

/** The variables of `names` a deployment has. The caller has checked the deployment is the account's. */
export async function envVarsNamed(
  db: Db,
  deploymentId: number,
  names: readonly string[],
): Promise<EnvVarRow[]> {
  return db
    .select()
    .from(deploymentEnvVars)
    .where(and(ofDeployment(deploymentId), inArray(deploymentEnvVars.name, [...names])));
}

/** Rows of one INSERT: five parameters each, within D1's 100 per statement. */
const ROWS_PER_INSERT = 20;

/** What `upsertEnvVars` throws when the deployment would hold more than `max` variables. */
export class TooManyEnvVars extends Error {}

/**
 * Adds or updates `rows` by name and answers all of the deployment's variables, in one batch
 * (one transaction): the upserts, then a guard that fails the whole batch when the deployment
 * now holds more than `max` variables (so two concurrent writes cannot pass the bound together),
 * then the read. SQLite has no RAISE outside triggers, so the guard fails by evaluating
 * `json()` of malformed text, only when the count is over.
 */
export async function upsertEnvVars(
  db: Db,
  deploymentId: number,
  rows: Omit<EnvVarRow, 'deploymentId'>[],
  max: number,
): Promise<EnvVarRow[]> {
  const upserts = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    upserts.push(
      db
        .insert(deploymentEnvVars)
        .values(rows.slice(i, i + ROWS_PER_INSERT).map((row) => ({ ...row, deploymentId })))
        .onConflictDoUpdate({
          target: [deploymentEnvVars.deploymentId, deploymentEnvVars.name],
          set: {
            value: sql`excluded.value`,
            encrypted: sql`excluded.encrypted`,
            updatedAt: sql`excluded.updated_at`,
          },
        }),
    );
  }
  try {
    const results = await runBatch(db, [
      ...upserts,
      // Raw: the guard, which fails the batch by evaluating json() of malformed text.
      sql`SELECT CASE WHEN count(*) > ${max} THEN json('env_vars_over_limit') END AS over
        FROM deployment_env_vars WHERE deployment_id = ${deploymentId}`,
      db
        .select()
        .from(deploymentEnvVars)
        .where(ofDeployment(deploymentId))
        .orderBy(asc(deploymentEnvVars.name)),
    ]);
    return (results.at(-1)?.results ?? []).map((row) => mapRow(deploymentEnvVars, row));
  } catch (err) {
    const text = err instanceof Error ? `${err.message} ${err.cause ?? ''}` : String(err);
    if (/malformed JSON/i.test(text)) throw new TooManyEnvVars();
    throw err;
  }
}
