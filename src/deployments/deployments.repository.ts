import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { type BuildStatus, builds, deployments, projectFiles } from '../../schema/deployments';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { CompiledModel } from '../semantic/model/model.types';

export type DeploymentRow = typeof deployments.$inferSelect;
export type NewDeployment = Omit<typeof deployments.$inferInsert, 'id'>;
export interface StarterFile {
  path: string;
  content: string;
}

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
    sql`INSERT INTO project_files (deployment_id, path, content, created_at)
      SELECT d.id, f.value ->> 'path', f.value ->> 'content', ${values.createdAt}
      FROM deployments d, json_each(${JSON.stringify(files)}) f WHERE d.slug = ${values.slug}`,
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

const latestBuildJoin = sql`LEFT JOIN builds b ON b.id = (SELECT max(id) FROM builds WHERE deployment_id = d.id)`;

/** A deployment row as D1 returns it (snake_case) with its latest build's columns aliased beside it. */
type DeploymentBuildRow = Record<string, unknown> & {
  build_id: number | null;
  build_status: BuildStatus | null;
  build_error: string | null;
  build_created_at: string | null;
  build_started_at: string | null;
  build_finished_at: string | null;
};

/** The one mapper of a deployment-with-latest-build row. */
function withBuild(row: DeploymentBuildRow): DeploymentWithBuild {
  const latestBuild =
    row.build_id === null || row.build_status === null
      ? null
      : {
          buildId: row.build_id,
          status: row.build_status,
          errorText: row.build_error,
          updatedAt: row.build_finished_at ?? row.build_started_at ?? row.build_created_at ?? '',
        };
  return { ...mapRow(deployments, row), latestBuild };
}

/** One round trip: the deployment (of this account only) and its latest build. */
export async function findDeployment(
  db: Db,
  accountId: number,
  id: number,
): Promise<DeploymentWithBuild | null> {
  const rows = await db.all<DeploymentBuildRow>(sql`
    SELECT d.*, b.id AS build_id, b.status AS build_status, b.error_text AS build_error,
      b.created_at AS build_created_at, b.started_at AS build_started_at, b.finished_at AS build_finished_at
    FROM deployments d ${latestBuildJoin} WHERE d.id = ${id} AND d.account_id = ${accountId}`);
  return rows[0] ? withBuild(rows[0]) : null;
}

/** Which of the account's deployments a list reads: a scoped key's ids, and the steps asked for. */
export interface DeploymentFilter {
  deploymentIds: number[] | null;
  creationSteps: readonly string[] | null;
}

function filterSql(accountId: number, filter: DeploymentFilter) {
  const scope =
    filter.deploymentIds === null
      ? sql``
      : sql`AND d.id IN (SELECT value FROM json_each(${JSON.stringify(filter.deploymentIds)}))`;
  const steps =
    filter.creationSteps === null
      ? sql``
      : sql`AND d.creation_step IN (SELECT value FROM json_each(${JSON.stringify(filter.creationSteps)}))`;
  return sql`d.account_id = ${accountId} ${scope} ${steps}`;
}

/**
 * One page of the account's deployments (none when `page` is null: Cube's `limit=0` asks for
 * the count alone) and how many match, counting at most `cap` (served by the account index,
 * never a scan): ONE batch, one round trip.
 */
export async function listDeployments(
  db: Db,
  accountId: number,
  filter: DeploymentFilter,
  page: { afterId: number | null; limit: number; offset: number } | null,
  cap: number,
): Promise<{ rows: DeploymentWithBuild[]; total: number }> {
  const where = filterSql(accountId, filter);
  const [counted, listed] = await runBatch(db, [
    sql`SELECT count(*) AS n FROM (SELECT 1 FROM deployments d WHERE ${where} LIMIT ${cap})`,
    ...(page === null
      ? []
      : [
          sql`SELECT d.*, b.id AS build_id, b.status AS build_status, b.error_text AS build_error,
              b.created_at AS build_created_at, b.started_at AS build_started_at, b.finished_at AS build_finished_at
            FROM deployments d ${latestBuildJoin}
            WHERE ${where} ${page.afterId === null ? sql`` : sql`AND d.id > ${page.afterId}`}
            ORDER BY d.id ASC LIMIT ${page.limit + 1} OFFSET ${page.offset}`,
        ]),
  ]);
  const total = Number((counted?.results[0] as { n?: number } | undefined)?.n ?? 0);
  return { rows: ((listed?.results ?? []) as DeploymentBuildRow[]).map(withBuild), total };
}

/** Changes the columns given (of this account's deployment only); null when there is none. */
export async function updateDeployment(
  db: Db,
  accountId: number,
  id: number,
  values: Partial<Omit<NewDeployment, 'accountId' | 'slug' | 'createdAt' | 'createdBy'>>,
  /** When given, the write lands only while each of these columns still holds the value read. */
  expected: Partial<Pick<DeploymentRow, keyof typeof values>> = {},
): Promise<DeploymentRow | null> {
  const unchanged = Object.entries(expected).map(([key, value]) => {
    const column = deployments[key as keyof typeof expected];
    return value === null ? isNull(column) : eq(column, value);
  });
  const [row] = await db
    .update(deployments)
    .set(values)
    .where(and(eq(deployments.id, id), eq(deployments.accountId, accountId), ...unchanged))
    .returning();
  return row ?? null;
}

/**
 * Deletes the deployment; its project, builds, workspace, dashboards and notifications go by
 * cascade in the same statement, and a trigger releases the bytes they stored (see the
 * migration's custom block). Null when the account has no such deployment.
 */
export async function deleteDeployment(db: Db, accountId: number, id: number): Promise<number | null> {
  const [row] = await db
    .delete(deployments)
    .where(and(eq(deployments.id, id), eq(deployments.accountId, accountId)))
    .returning({ id: deployments.id });
  return row?.id ?? null;
}

// ---- Builds (the consumer's side) ----

/**
 * Claims a build for this delivery. Only a queued build, or one whose builder vanished
 * (building for longer than `staleBefore`), can be claimed: a redelivered message for a
 * build that is done or in progress claims nothing and so builds nothing twice.
 */
export async function claimBuild(db: Db, buildId: number, now: string, staleBefore: string) {
  const [row] = await db
    .update(builds)
    .set({ status: 'building', startedAt: now, attempts: sql`${builds.attempts} + 1` })
    .where(
      and(
        eq(builds.id, buildId),
        sql`(${builds.status} = 'queued' OR (${builds.status} = 'building' AND ${builds.startedAt} < ${staleBefore}))`,
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
export type BuildOutcome = { compiledModel: string } | { errorText: string };

export async function finishBuild(
  db: Db,
  buildId: number,
  outcome: BuildOutcome,
  now: string,
): Promise<void> {
  const values =
    'compiledModel' in outcome
      ? { status: 'built' as const, errorText: null, compiledModel: sql`${outcome.compiledModel}` }
      : { status: 'failed' as const, errorText: outcome.errorText, compiledModel: null };
  await db
    .update(builds)
    .set({ ...values, finishedAt: now })
    .where(and(eq(builds.id, buildId), eq(builds.status, 'building')));
}

/**
 * The latest build of the deployment that built, with its model: read through the partial index
 * of built builds (builds_built_idx), newest first, so failed builds are never read. Builds from
 * before models were compiled have no model and are passed over.
 */
export async function latestBuiltModel(
  db: Db,
  deploymentId: number,
): Promise<{ buildId: number; model: CompiledModel } | null> {
  const rows = await db.all<{ id: number; compiled_model: string }>(
    sql`SELECT id, compiled_model FROM builds INDEXED BY builds_built_idx
      WHERE deployment_id = ${deploymentId} AND status = 'built' AND compiled_model IS NOT NULL
      ORDER BY id DESC LIMIT 1`,
  );
  const row = rows[0];
  return row ? { buildId: row.id, model: JSON.parse(row.compiled_model) as CompiledModel } : null;
}

/**
 * Builds whose queue message may have been lost: queued, or building with no sign of life.
 * Each branch names its status literally so SQLite serves it from its partial index
 * (builds_queued_idx, builds_building_idx): finished builds are never read.
 */
export async function findStrandedBuilds(db: Db, queuedBefore: string, staleBefore: string, limit: number) {
  // No ORDER BY across the branches: sorting by id would make SQLite walk the table in rowid
  // order instead of the partial indexes.
  const rows = await db.all<{ id: number }>(
    sql`SELECT id FROM (SELECT id FROM builds WHERE status = 'queued' AND created_at < ${queuedBefore} LIMIT ${limit})
      UNION ALL
      SELECT id FROM (SELECT id FROM builds WHERE status = 'building' AND started_at < ${staleBefore} LIMIT ${limit})`,
  );
  return rows.slice(0, limit).map((r) => r.id);
}
