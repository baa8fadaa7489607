import { and, asc, eq, exists, gt, inArray, lte, ne, notInArray, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import {
  builds,
  DATA_MODEL_GUARDS,
  type DataModelGuard,
  deployments,
  modelUploadFiles,
  modelUploads,
  projectFiles,
} from '../../schema/deployments';
import { FROZEN_ACCOUNTS } from '../core/account-moving';
import { failedCheck, runBatch, type Statement } from '../core/db';
import type { Db } from '../core/env';
import type { RequestScope } from '../core/scope';
import { MAX_PROJECT_BYTES, MAX_PROJECT_FILES } from './data-model.schemas';
import { jsonValues } from './deployments.repository';
import { PROJECT_CONFIG_PATH } from './deployments.schemas';

export interface ProjectFile {
  path: string;
  content: string;
}

export interface ListedFile {
  path: string;
  size: number;
  updatedAt: string;
  content?: string;
}

const ofProject = (deploymentId: number) => eq(projectFiles.deploymentId, deploymentId);

/**
 * One page of the project's files in path order (the unique index on deployment and path serves
 * it), `limit + 1` rows so the caller can tell whether another page follows.
 */
export async function listFiles(
  scope: RequestScope,
  deploymentId: number,
  page: { afterPath: string | null; limit: number; withContent: boolean },
): Promise<ListedFile[]> {
  const rows = await scope.db
    .select({
      path: projectFiles.path,
      // Raw: the size in bytes (not characters), measured without reading the content out.
      size: sql<number>`length(CAST(${projectFiles.content} AS BLOB))`,
      createdAt: projectFiles.createdAt,
      updatedAt: projectFiles.updatedAt,
      ...(page.withContent ? { content: projectFiles.content } : {}),
    })
    .from(projectFiles)
    .where(
      and(
        ofProject(deploymentId),
        page.afterPath === null ? undefined : gt(projectFiles.path, page.afterPath),
      ),
    )
    .orderBy(asc(projectFiles.path))
    .limit(page.limit + 1);
  return rows.map((r) => ({
    path: r.path,
    size: r.size,
    updatedAt: r.updatedAt ?? r.createdAt,
    ...('content' in r && typeof r.content === 'string' ? { content: r.content } : {}),
  }));
}

export async function readFiles(scope: RequestScope, deploymentId: number): Promise<ProjectFile[]> {
  return scope.db
    .select({ path: projectFiles.path, content: projectFiles.content })
    .from(projectFiles)
    .where(ofProject(deploymentId))
    .orderBy(asc(projectFiles.path));
}

/** Which of `paths` the project holds. */
export async function existingPaths(
  scope: RequestScope,
  deploymentId: number,
  paths: readonly string[],
): Promise<string[]> {
  const rows = await scope.db
    .select({ path: projectFiles.path })
    .from(projectFiles)
    .where(and(ofProject(deploymentId), inArray(projectFiles.path, jsonValues(paths))));
  return rows.map((r) => r.path);
}

// ---- Guarded writes ----
// A guard is a statement through which a batch aborts itself (see data_model_write_guards): raw
// SQL, an INSERT … SELECT whose row exists only when the rule is broken.

/** The statement through which a batch aborts itself when `condition` finds a row. */
const guard = (reason: DataModelGuard, from: SQL, condition: SQL) =>
  sql`INSERT INTO data_model_write_guards (reason) SELECT ${reason} FROM ${from} WHERE ${condition} LIMIT 1`;

/** Aborts the batch when any of `paths` is not a file of the project. */
const everyPathExists = (deploymentId: number, paths: readonly string[]) =>
  guard(
    'unknown_path',
    sql`json_each(${JSON.stringify(paths)}) f`,
    sql`NOT EXISTS (SELECT 1 FROM project_files p WHERE p.deployment_id = ${deploymentId} AND p.path = f.value)`,
  );

/**
 * Aborts the batch when the files whose `content` column `where` selects pass the count or size
 * limit. Counted after the batch's own writes, inside its transaction, so no concurrent write
 * gets by.
 */
const withinLimits = (content: SQLiteColumn, where: SQL | undefined) =>
  sql`INSERT INTO data_model_write_guards (reason)
    SELECT CASE WHEN n > ${MAX_PROJECT_FILES} THEN 'too_many_files' ELSE 'project_too_large' END
    FROM (SELECT count(*) AS n, coalesce(sum(length(CAST(${content} AS BLOB))), 0) AS bytes
      FROM ${content.table} WHERE ${where})
    WHERE n > ${MAX_PROJECT_FILES} OR bytes > ${MAX_PROJECT_BYTES}`;

const projectWithinLimits = (deploymentId: number) =>
  withinLimits(projectFiles.content, ofProject(deploymentId));

/** Whether the upload transaction is open: known, of this deployment and not expired. */
const uploadOpen = (scope: RequestScope, uploadId: string, deploymentId: number) =>
  scope.db
    .select({ id: modelUploads.id })
    .from(modelUploads)
    .where(
      and(
        eq(modelUploads.id, uploadId),
        eq(modelUploads.deploymentId, deploymentId),
        gt(modelUploads.expiresAt, scope.now.toISOString()),
      ),
    );

/** Aborts the batch when the upload transaction is not open. */
const uploadStillOpen = (scope: RequestScope, uploadId: string, deploymentId: number) =>
  sql`INSERT INTO data_model_write_guards (reason) SELECT 'upload_gone' WHERE NOT ${exists(uploadOpen(scope, uploadId, deploymentId))}`;

/** A guarded write's outcome: the build it queued, or the guard that refused it (nothing written). */
export type WriteResult = { buildId: number } | { refused: DataModelGuard };

/**
 * Runs `writes` and queues a build of the result, as ONE batch (one transaction): the files and
 * the build that compiles them land together or not at all.
 */
async function writeAndBuild(
  scope: RequestScope,
  deploymentId: number,
  writes: Statement[],
): Promise<WriteResult> {
  const { db } = scope;
  const queueBuild = db
    .insert(builds)
    .values({ deploymentId, status: 'queued', createdAt: scope.now.toISOString() })
    .returning({ id: builds.id });
  try {
    const results = await runBatch<{ id: number }>(db, [...writes, queueBuild]);
    const buildId = results.at(-1)?.results[0]?.id;
    if (typeof buildId !== 'number') throw new Error('build insert returned no row');
    return { buildId };
  } catch (err) {
    const refused = failedCheck(err, DATA_MODEL_GUARDS);
    if (refused === null) throw err;
    return { refused };
  }
}

/** Writes `content` at `path`, leaving a file whose content is the same untouched (its updatedAt too). */
const upsertFile = (db: Db, deploymentId: number, file: ProjectFile, now: string) =>
  db
    .insert(projectFiles)
    .values({ deploymentId, path: file.path, content: file.content, createdAt: now })
    .onConflictDoUpdate({
      target: [projectFiles.deploymentId, projectFiles.path],
      set: { content: sql`excluded.content`, updatedAt: sql`excluded.created_at` },
      setWhere: sql`${projectFiles.content} <> excluded.content`,
    });

/** Creates or overwrites files (one statement per file: a file may be close to D1's value limit). */
export async function putFiles(scope: RequestScope, deploymentId: number, files: ProjectFile[]) {
  const now = scope.now.toISOString();
  const upserts = files.map((f) => upsertFile(scope.db, deploymentId, f, now));
  return writeAndBuild(scope, deploymentId, [...upserts, projectWithinLimits(deploymentId)]);
}

export async function removeFiles(scope: RequestScope, deploymentId: number, paths: string[]) {
  return writeAndBuild(scope, deploymentId, [
    everyPathExists(deploymentId, paths),
    scope.db
      .delete(projectFiles)
      .where(and(ofProject(deploymentId), inArray(projectFiles.path, jsonValues(paths)))),
  ]);
}

export async function renameFiles(
  scope: RequestScope,
  deploymentId: number,
  renames: { path: string; newPath: string }[],
) {
  const sources = renames.map((r) => r.path);
  const pairs = JSON.stringify(renames);
  return writeAndBuild(scope, deploymentId, [
    everyPathExists(deploymentId, sources),
    guard(
      'path_taken',
      sql`json_each(${pairs}) f`,
      sql`EXISTS (SELECT 1 FROM project_files p WHERE p.deployment_id = ${deploymentId} AND p.path = f.value ->> 'newPath')`,
    ),
    scope.db
      .update(projectFiles)
      .set({
        // Raw: each file's new path, looked up in the JSON list of renames.
        path: sql`(SELECT f.value ->> 'newPath' FROM json_each(${pairs}) f WHERE f.value ->> 'path' = ${projectFiles.path})`,
        updatedAt: scope.now.toISOString(),
      })
      .where(and(ofProject(deploymentId), inArray(projectFiles.path, jsonValues(sources)))),
  ]);
}

// ---- Upload transactions ----

/** Opens a transaction unless the deployment already holds `maxOpen` open ones; false then. */
export async function openUpload(
  scope: RequestScope,
  values: { id: string; deploymentId: number; expiresAt: Date },
  maxOpen: number,
): Promise<boolean> {
  const now = scope.now.toISOString();
  // Raw: the count check and the insert are one statement, so concurrent opens cannot pass it together.
  const result = await scope.db.run(
    sql`INSERT INTO model_uploads (id, deployment_id, created_at, expires_at)
      SELECT ${values.id}, ${values.deploymentId}, ${now}, ${values.expiresAt.toISOString()}
      WHERE (SELECT count(*) FROM model_uploads
        WHERE deployment_id = ${values.deploymentId} AND expires_at > ${now}) < ${maxOpen}`,
  );
  return result.meta.changes > 0;
}

/**
 * Stages one file in an open transaction (replacing a file staged under the same path). The
 * transaction's staged files are held to a project's limits.
 */
export async function stageFile(
  scope: RequestScope,
  uploadId: string,
  deploymentId: number,
  file: ProjectFile,
): Promise<DataModelGuard | null> {
  try {
    await runBatch(scope.db, [
      uploadStillOpen(scope, uploadId, deploymentId),
      scope.db
        .insert(modelUploadFiles)
        .values({ uploadId, path: file.path, content: file.content })
        .onConflictDoUpdate({
          target: [modelUploadFiles.uploadId, modelUploadFiles.path],
          set: { content: sql`excluded.content` },
        }),
      withinLimits(modelUploadFiles.content, eq(modelUploadFiles.uploadId, uploadId)),
    ]);
    return null;
  } catch (err) {
    const refused = failedCheck(err, DATA_MODEL_GUARDS);
    if (refused === null) throw err;
    return refused;
  }
}

/** An open transaction's staged files and the project's files, in one round trip; null when it is not open. */
export async function readUpload(
  scope: RequestScope,
  uploadId: string,
  deploymentId: number,
): Promise<{ staged: ProjectFile[]; project: ProjectFile[] } | null> {
  const { db } = scope;
  const [open, staged, project] = await runBatch<ProjectFile>(db, [
    uploadOpen(scope, uploadId, deploymentId),
    db
      .select({ path: modelUploadFiles.path, content: modelUploadFiles.content })
      .from(modelUploadFiles)
      .where(eq(modelUploadFiles.uploadId, uploadId))
      .orderBy(asc(modelUploadFiles.path)),
    db
      .select({ path: projectFiles.path, content: projectFiles.content })
      .from(projectFiles)
      .where(ofProject(deploymentId))
      .orderBy(asc(projectFiles.path)),
  ]);
  if (!open?.results.length) return null;
  return { staged: staged?.results ?? [], project: project?.results ?? [] };
}

/**
 * Applies an open transaction to the project and queues a build, in one batch: staged files are
 * written, and with `autoRemove` every file neither staged nor listed in `keep` is removed (the
 * project config excepted). Every path of `keep` must then be a file of the project. The
 * transaction is deleted, so it can be finished once.
 */
export async function finishUpload(
  scope: RequestScope,
  uploadId: string,
  deploymentId: number,
  keep: string[],
  autoRemove: boolean,
): Promise<WriteResult> {
  const { db } = scope;
  const stagedPaths = db
    .select({ path: modelUploadFiles.path })
    .from(modelUploadFiles)
    .where(eq(modelUploadFiles.uploadId, uploadId));
  return writeAndBuild(scope, deploymentId, [
    uploadStillOpen(scope, uploadId, deploymentId),
    // Raw: an upsert fed by a SELECT of the staged files, leaving unchanged files untouched.
    sql`INSERT INTO project_files (deployment_id, path, content, created_at)
      SELECT ${deploymentId}, path, content, ${scope.now.toISOString()} FROM model_upload_files WHERE upload_id = ${uploadId}
      ON CONFLICT (deployment_id, path) DO UPDATE SET content = excluded.content, updated_at = excluded.created_at
      WHERE project_files.content <> excluded.content`,
    ...(autoRemove
      ? [
          db
            .delete(projectFiles)
            .where(
              and(
                ofProject(deploymentId),
                ne(projectFiles.path, PROJECT_CONFIG_PATH),
                notInArray(projectFiles.path, jsonValues(keep)),
                notInArray(projectFiles.path, stagedPaths),
              ),
            ),
        ]
      : []),
    everyPathExists(deploymentId, keep),
    projectWithinLimits(deploymentId),
    db.delete(modelUploads).where(eq(modelUploads.id, uploadId)),
  ]);
}

/**
 * Deletes up to `limit` expired transactions (their staged files go by cascade), oldest first,
 * through the expiry index; answers how many went.
 */
export async function deleteExpiredUploads(scope: RequestScope, limit: number): Promise<number> {
  const { db } = scope;
  const expired = db
    .select({ id: modelUploads.id })
    .from(modelUploads)
    .where(
      and(
        lte(modelUploads.expiresAt, scope.now.toISOString()),
        // An account being moved keeps its rows until the move ends.
        notInArray(
          modelUploads.deploymentId,
          db
            .select({ id: deployments.id })
            .from(deployments)
            .where(inArray(deployments.accountId, FROZEN_ACCOUNTS)),
        ),
      ),
    )
    .orderBy(asc(modelUploads.expiresAt))
    .limit(limit);
  const rows = await db
    .delete(modelUploads)
    .where(inArray(modelUploads.id, expired))
    .returning({ id: modelUploads.id });
  return rows.length;
}
