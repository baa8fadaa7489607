import { and, asc, count, eq, gt, inArray, isNull, lt, max, or, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { type BuildStatus, builds, deployments, projectFiles } from '../../schema/deployments';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { AccountScope, RequestScope } from '../core/scope';

export type DeploymentRow = typeof deployments.$inferSelect;
export type NewDeployment = Omit<typeof deployments.$inferInsert, 'id'>;
export interface StarterFile {
  path: string;
  content: string;
}

/**
 * The values of a JSON array as a subquery, for `inArray`: one bound parameter however long the
 * list (D1 binds at most 100 per statement).
 */
export const jsonValues = (values: readonly unknown[]): SQL =>
  sql`(SELECT value FROM json_each(${JSON.stringify(values)}))`;

/**
 * The deployment, its starter project and its first build in one batch (one transaction):
 * files and build find the deployment by its unique slug, so nothing depends on a value
 * the batch has not produced yet.
 */
export async function insertDeploymentWithBuild(
  db: Db,
  values: NewDeployment,
  files: StarterFile[],
): Promise<{ deployment: DeploymentRow; buildId: number }> {
  const [inserted, , build] = await runBatch(db, [
    db.insert(deployments).values(values).returning(),
    // Raw: INSERT … SELECT from the deployment the batch just inserted, over json_each of the files.
    sql`INSERT INTO project_files (deployment_id, path, content, created_at)
      SELECT d.id, f.value ->> 'path', f.value ->> 'content', ${values.createdAt}
      FROM deployments d, json_each(${JSON.stringify(files)}) f WHERE d.slug = ${values.slug}`,
    // Raw: INSERT … SELECT from the deployment the batch just inserted (its id is not known yet).
    sql`INSERT INTO builds (deployment_id, status, created_at)
      SELECT id, 'queued', ${values.createdAt} FROM deployments WHERE slug = ${values.slug} RETURNING id`,
  ]);
  const deploymentRow = inserted?.results[0];
  const buildId = build?.results[0]?.id;
  // Both inserts return their row, or the batch (one transaction) threw before this line.
  if (!deploymentRow || typeof buildId !== 'number') throw new Error('deployment batch returned no rows');
  return { deployment: mapRow(deployments, deploymentRow), buildId };
}

export interface LatestBuild {
  buildId: number;
  status: BuildStatus;
  errorText: string | null;
  /** When the build last changed: finished, else started, else queued. */
  updatedAt: string;
}

type DeploymentWithBuild = DeploymentRow & { latestBuild: LatestBuild | null };

const latest = alias(builds, 'latest_build');

/**
 * A deployment and its latest build's columns. The build's `id` and `created_at` are aliased:
 * a batch answers rows as objects keyed by column name, where they would collide with the
 * deployment's.
 */
const withLatestBuild = {
  deployment: deployments,
  buildId: sql<number | null>`${latest.id}`.as('build_id'),
  buildStatus: latest.status,
  buildError: latest.errorText,
  buildCreatedAt: sql<string | null>`${latest.createdAt}`.as('build_created_at'),
  buildStartedAt: latest.startedAt,
  buildFinishedAt: latest.finishedAt,
};

/** Deployments with their latest build, those `where` selects. */
const deploymentsWithBuild = (db: Db, where: SQL | undefined) =>
  db
    .select(withLatestBuild)
    .from(deployments)
    .leftJoin(
      latest,
      eq(
        latest.id,
        db
          .select({ id: max(builds.id) })
          .from(builds)
          .where(eq(builds.deploymentId, deployments.id)),
      ),
    )
    .where(where);

type DeploymentBuildRow = Awaited<ReturnType<typeof deploymentsWithBuild>>[number];

/** The one mapper of a deployment-with-latest-build row. */
function withBuild(row: DeploymentBuildRow): DeploymentWithBuild {
  const latestBuild =
    row.buildId === null || row.buildStatus === null
      ? null
      : {
          buildId: row.buildId,
          status: row.buildStatus,
          errorText: row.buildError,
          updatedAt: row.buildFinishedAt ?? row.buildStartedAt ?? row.buildCreatedAt ?? '',
        };
  return { ...row.deployment, latestBuild };
}

/** One round trip: the deployment (of this account only) and its latest build. */
export async function findDeployment(scope: AccountScope, id: number): Promise<DeploymentWithBuild | null> {
  const [row] = await deploymentsWithBuild(
    scope.db,
    and(eq(deployments.id, id), eq(deployments.accountId, scope.accountId)),
  );
  return row ? withBuild(row) : null;
}

/** Which of the account's deployments a list reads: a scoped key's ids, and the steps asked for. */
export interface DeploymentFilter {
  deploymentIds: number[] | null;
  creationSteps: readonly DeploymentRow['creationStep'][] | null;
}

function filterOf(accountId: number, filter: DeploymentFilter) {
  return and(
    eq(deployments.accountId, accountId),
    filter.deploymentIds === null ? undefined : inArray(deployments.id, jsonValues(filter.deploymentIds)),
    // At most one parameter per step, however often the query repeats one.
    filter.creationSteps === null
      ? undefined
      : inArray(deployments.creationStep, [...new Set(filter.creationSteps)]),
  );
}

/**
 * One page of the account's deployments (none when `page` is null: Cube's `limit=0` asks for
 * the count alone) and how many match, counting at most `cap` (served by the account index,
 * never a scan): ONE batch, one round trip.
 */
export async function listDeployments(
  scope: AccountScope,
  filter: DeploymentFilter,
  page: { afterId: number | null; limit: number; offset: number } | null,
  cap: number,
): Promise<{ rows: DeploymentWithBuild[]; total: number }> {
  const { db } = scope;
  const where = filterOf(scope.accountId, filter);
  const capped = db.select({ id: deployments.id }).from(deployments).where(where).limit(cap).as('capped');
  const counted = db.select({ n: count() }).from(capped);
  if (page === null) {
    const [row] = await counted;
    return { rows: [], total: row?.n ?? 0 };
  }
  const listed = deploymentsWithBuild(
    db,
    and(where, page.afterId === null ? undefined : gt(deployments.id, page.afterId)),
  )
    .orderBy(asc(deployments.id))
    .limit(page.limit + 1)
    .offset(page.offset);
  const [[row], rows] = await db.batch([counted, listed]);
  return { rows: rows.map(withBuild), total: row?.n ?? 0 };
}

/** Changes the columns given (of this account's deployment only); null when there is none. */
export async function updateDeployment(
  scope: AccountScope,
  id: number,
  values: Partial<Omit<NewDeployment, 'accountId' | 'slug' | 'createdAt' | 'createdBy'>>,
  /** When given, the write lands only while each of these columns still holds the value read. */
  expected: Partial<Pick<DeploymentRow, keyof typeof values>> = {},
): Promise<DeploymentRow | null> {
  const unchanged = Object.entries(expected).map(([key, value]) => {
    const column = deployments[key as keyof typeof expected];
    return value === null ? isNull(column) : eq(column, value);
  });
  const [row] = await scope.db
    .update(deployments)
    .set(values)
    .where(and(eq(deployments.id, id), eq(deployments.accountId, scope.accountId), ...unchanged))
    .returning();
  return row ?? null;
}

/**
 * Deletes the deployment; its project, builds, workspace, dashboards and notifications go by
 * cascade in the same statement, and a trigger releases the bytes they stored (see the
 * migration's custom block). Null when the account has no such deployment.
 */
export async function deleteDeployment(scope: AccountScope, id: number): Promise<number | null> {
  const [row] = await scope.db
    .delete(deployments)
    .where(and(eq(deployments.id, id), eq(deployments.accountId, scope.accountId)))
    .returning({ id: deployments.id });
  return row?.id ?? null;
}

// ---- Builds (the consumer's side) ----

/**
 * Claims a build for this delivery. Only a queued build, or one whose builder vanished
 * (building since before `staleBefore`), can be claimed: a redelivered message for a build
 * that is done or in progress claims nothing and so builds nothing twice.
 */
export async function claimBuild(scope: RequestScope, buildId: number, staleBefore: Date) {
  const [row] = await scope.db
    .update(builds)
    // Raw: an increment, which the builder has no word for.
    .set({ status: 'building', startedAt: scope.now.toISOString(), attempts: sql`${builds.attempts} + 1` })
    .where(
      and(
        eq(builds.id, buildId),
        or(
          eq(builds.status, 'queued'),
          and(eq(builds.status, 'building'), lt(builds.startedAt, staleBefore.toISOString())),
        ),
      ),
    )
    .returning({ deploymentId: builds.deploymentId, attempts: builds.attempts });
  return row ?? null;
}

export async function readProjectFiles(db: Db, deploymentId: number): Promise<StarterFile[]> {
  return db
    .select({ path: projectFiles.path, content: projectFiles.content })
    .from(projectFiles)
    .where(eq(projectFiles.deploymentId, deploymentId))
    .orderBy(asc(projectFiles.path));
}

/** How a build ended: its compiled model (JSON text), or the errors that failed it. */
export type BuildOutcome = { compiledModel: string; hasPreAggregations?: boolean } | { errorText: string };

export async function finishBuild(
  db: Db,
  buildId: number,
  outcome: BuildOutcome,
  finishedAt: Date,
): Promise<void> {
  const finish = finishStatement(db, buildId, outcome, finishedAt);
  if (!('compiledModel' in outcome)) {
    await finish;
    return;
  }
  // A published model registers its pre-aggregations (src/pre-aggregations): its plan is due at
  // once, in the batch that publishes it, so no build serves without its partitions registered.
  await runBatch(db, [finish, planDueStatement(buildId, outcome.hasPreAggregations === true, finishedAt)]);
}

/**
 * Makes the deployment's pre-aggregation plan due for build `buildId` once it is built, creating
 * the plan when the model has pre-aggregations (or had: its partitions must then be dropped).
 */
function planDueStatement(buildId: number, hasPreAggregations: boolean, now: Date) {
  return sql`INSERT INTO pre_aggregation_plans (deployment_id, account_id, build_id, timezones, next_plan_at)
    SELECT d.id, d.account_id, b.id, '[]', ${now.toISOString()}
      FROM builds b JOIN deployments d ON d.id = b.deployment_id
     WHERE b.id = ${buildId} AND b.status = 'built'
       AND (${hasPreAggregations ? 1 : 0} = 1
            OR EXISTS (SELECT 1 FROM pre_aggregation_plans p WHERE p.deployment_id = d.id))
    ON CONFLICT (deployment_id) DO UPDATE SET build_id = excluded.build_id, next_plan_at = excluded.next_plan_at`;
}

function finishStatement(db: Db, buildId: number, outcome: BuildOutcome, finishedAt: Date) {
  const values =
    'compiledModel' in outcome
      ? // Raw: the model is JSON text already; the json column would encode it a second time.
        { status: 'built' as const, errorText: null, compiledModel: sql`${outcome.compiledModel}` }
      : { status: 'failed' as const, errorText: outcome.errorText, compiledModel: null };
  return db
    .update(builds)
    .set({ ...values, finishedAt: finishedAt.toISOString() })
    .where(and(eq(builds.id, buildId), eq(builds.status, 'building')));
}

/**
 * The latest build of the deployment that built (its model is read by `modelOfBuild`): read
 * through the partial index of built builds (builds_built_idx), newest first, so failed builds
 * are never read. The same build the data API serves (`findServingBuild`, `servingStateColumns`):
 * one without a model (built before models were compiled) serves none.
 */
export async function latestBuiltId(db: Db, deploymentId: number): Promise<number | null> {
  // Raw: INDEXED BY, which the builder cannot say.
  const rows = await db.all<{ id: number }>(
    sql`SELECT id FROM builds INDEXED BY builds_built_idx
      WHERE deployment_id = ${deploymentId} AND status = 'built'
      ORDER BY id DESC LIMIT 1`,
  );
  return rows[0]?.id ?? null;
}

/**
 * Builds whose queue message may have been lost: queued, or building with no sign of life.
 * Each branch names its status literally so SQLite serves it from its partial index
 * (builds_queued_idx, builds_building_idx): finished builds are never read.
 */
export async function findStrandedBuilds(db: Db, queuedBefore: Date, staleBefore: Date, limit: number) {
  // Raw: the status literals (a bound parameter would keep SQLite off the partial indexes), and
  // no ORDER BY across the branches: sorting by id would walk the table in rowid order instead.
  const rows = await db.all<{ id: number }>(
    sql`SELECT id FROM (SELECT id FROM builds WHERE status = 'queued' AND created_at < ${queuedBefore.toISOString()} LIMIT ${limit})
      UNION ALL
      SELECT id FROM (SELECT id FROM builds WHERE status = 'building' AND started_at < ${staleBefore.toISOString()} LIMIT ${limit})`,
  );
  return rows.slice(0, limit).map((r) => r.id);
}
