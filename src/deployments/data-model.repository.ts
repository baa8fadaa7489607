import { type SQL, sql } from 'drizzle-orm';
import { DATA_MODEL_GUARDS, type DataModelGuard } from '../../schema/deployments';
import { failedCheck, runBatch } from '../core/db';
import type { Db } from '../core/env';
import { MAX_PROJECT_BYTES, MAX_PROJECT_FILES } from './data-model.schemas';
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

/**
 * One page of the project's files in path order (the unique index on deployment and path serves
 * it), `limit + 1` rows so the caller can tell whether another page follows.
 */
export async function listFiles(
  db: Db,
  deploymentId: number,
  page: { afterPath: string | null; limit: number; withContent: boolean },
): Promise<ListedFile[]> {
  const rows = await db.all<{ path: string; size: number; updated_at: string; content: string | null }>(
    sql`SELECT path, length(CAST(content AS BLOB)) AS size, coalesce(updated_at, created_at) AS updated_at,
        ${page.withContent ? sql`content` : sql`NULL`} AS content
      FROM project_files WHERE deployment_id = ${deploymentId}
      ${page.afterPath === null ? sql`` : sql`AND path > ${page.afterPath}`}
      ORDER BY path LIMIT ${page.limit + 1}`,
  );
  return rows.map((r) => ({
    path: r.path,
    size: r.size,
    updatedAt: r.updated_at,
    ...(r.content === null ? {} : { content: r.content }),
  }));
}

export async function readFiles(db: Db, deploymentId: number): Promise<ProjectFile[]> {
  return db.all<ProjectFile>(
    sql`SELECT path, content FROM project_files WHERE deployment_id = ${deploymentId} ORDER BY path`,
  );
}

/** Which of `paths` the project holds. */
export async function existingPaths(db: Db, deploymentId: number, paths: string[]): Promise<string[]> {
  const rows = await db.all<{ path: string }>(
    sql`SELECT path FROM project_files WHERE deployment_id = ${deploymentId}
      AND path IN (SELECT value FROM json_each(${JSON.stringify(paths)}))`,
  );
  return rows.map((r) => r.path);
}

// ---- Guarded writes ----

/** The statement through which a batch aborts itself when `condition` finds a row (see data_model_write_guards). */
const guard = (reason: DataModelGuard, from: SQL, condition: SQL) =>
  sql`INSERT INTO data_model_write_guards (reason) SELECT ${reason} FROM ${from} WHERE ${condition} LIMIT 1`;

/** Aborts the batch when any of `paths` (a JSON array) is not a file of the project. */
const everyPathExists = (deploymentId: number, paths: SQL) =>
  guard(
    'unknown_path',
    sql`json_each(${paths}) f`,
    sql`NOT EXISTS (SELECT 1 FROM project_files p WHERE p.deployment_id = ${deploymentId} AND p.path = f.value)`,
  );

/**
 * Aborts the batch when the files of `table` selected by `where` pass the count or size limit.
 * Counted after the batch's own writes, inside its transaction, so no concurrent write gets by.
 */
const withinLimits = (table: SQL, where: SQL) =>
  sql`INSERT INTO data_model_write_guards (reason)
    SELECT CASE WHEN n > ${MAX_PROJECT_FILES} THEN 'too_many_files' ELSE 'project_too_large' END
    FROM (SELECT count(*) AS n, coalesce(sum(length(CAST(content AS BLOB))), 0) AS bytes FROM ${table} WHERE ${where})
    WHERE n > ${MAX_PROJECT_FILES} OR bytes > ${MAX_PROJECT_BYTES}`;

const projectWithinLimits = (deploymentId: number) =>
  withinLimits(sql`project_files`, sql`deployment_id = ${deploymentId}`);

const queueBuild = (deploymentId: number, now: string) =>
  sql`INSERT INTO builds (deployment_id, status, created_at) VALUES (${deploymentId}, 'queued', ${now}) RETURNING id`;

/** A guarded write's outcome: the build it queued, or the guard that refused it (nothing written). */
export type WriteResult = { buildId: number } | { refused: DataModelGuard };

/**
 * Runs `writes` and queues a build of the result, as ONE batch (one transaction): the files and
 * the build that compiles them land together or not at all.
 */
async function writeAndBuild(db: Db, deploymentId: number, writes: SQL[], now: string): Promise<WriteResult> {
  try {
    const results = await runBatch<{ id: number }>(db, [...writes, queueBuild(deploymentId, now)]);
    const buildId = results.at(-1)?.results[0]?.id;
    if (typeof buildId !== 'number') throw new Error('build insert returned no row');
    return { buildId };
  } catch (err) {
    const refused = failedCheck(err, DATA_MODEL_GUARDS);
    if (refused === null) throw err;
    return { refused };
  }
}

/** Creates or overwrites files (one statement per file: a file may be close to D1's value limit). */
export async function putFiles(db: Db, deploymentId: number, files: ProjectFile[], now: string) {
  const upserts = files.map(
    (f) => sql`INSERT INTO project_files (deployment_id, path, content, created_at)
      VALUES (${deploymentId}, ${f.path}, ${f.content}, ${now})
      ON CONFLICT (deployment_id, path) DO UPDATE SET content = excluded.content, updated_at = excluded.created_at
      WHERE project_files.content <> excluded.content`,
  );
  return writeAndBuild(db, deploymentId, [...upserts, projectWithinLimits(deploymentId)], now);
}

export async function removeFiles(db: Db, deploymentId: number, paths: string[], now: string) {
  const list = sql`${JSON.stringify(paths)}`;
  return writeAndBuild(
    db,
    deploymentId,
    [
      everyPathExists(deploymentId, list),
      sql`DELETE FROM project_files WHERE deployment_id = ${deploymentId}
        AND path IN (SELECT value FROM json_each(${list}))`,
    ],
    now,
  );
}

export async function renameFiles(
  db: Db,
  deploymentId: number,
  renames: { path: string; newPath: string }[],
  now: string,
) {
  const sources = sql`${JSON.stringify(renames.map((r) => r.path))}`;
  const pairs = sql`${JSON.stringify(renames)}`;
  return writeAndBuild(
    db,
    deploymentId,
    [
      everyPathExists(deploymentId, sources),
      guard(
        'path_taken',
        sql`json_each(${pairs}) f`,
        sql`EXISTS (SELECT 1 FROM project_files p WHERE p.deployment_id = ${deploymentId} AND p.path = f.value ->> 'newPath')`,
      ),
      sql`UPDATE project_files
        SET path = (SELECT f.value ->> 'newPath' FROM json_each(${pairs}) f WHERE f.value ->> 'path' = project_files.path),
          updated_at = ${now}
        WHERE deployment_id = ${deploymentId} AND path IN (SELECT value FROM json_each(${sources}))`,
    ],
    now,
  );
}

// ---- Upload transactions ----

const uploadOpen = (uploadId: string, deploymentId: number, now: string) =>
  sql`EXISTS (SELECT 1 FROM model_uploads WHERE id = ${uploadId} AND deployment_id = ${deploymentId} AND expires_at > ${now})`;

/** Opens a transaction unless the deployment already holds `maxOpen` open ones; false then. */
export async function openUpload(
  db: Db,
  values: { id: string; deploymentId: number; createdAt: string; expiresAt: string },
  maxOpen: number,
): Promise<boolean> {
  const result = await db.run(
    sql`INSERT INTO model_uploads (id, deployment_id, created_at, expires_at)
      SELECT ${values.id}, ${values.deploymentId}, ${values.createdAt}, ${values.expiresAt}
      WHERE (SELECT count(*) FROM model_uploads
        WHERE deployment_id = ${values.deploymentId} AND expires_at > ${values.createdAt}) < ${maxOpen}`,
  );
  return result.meta.changes > 0;
}

/**
 * Stages one file in an open transaction (replacing a file staged under the same path). The
 * transaction's staged files are held to a project's limits.
 */
export async function stageFile(
  db: Db,
  uploadId: string,
  deploymentId: number,
  file: ProjectFile,
  now: string,
): Promise<DataModelGuard | null> {
  try {
    await runBatch(db, [
      sql`INSERT INTO data_model_write_guards (reason) SELECT 'upload_gone' WHERE NOT ${uploadOpen(uploadId, deploymentId, now)}`,
      sql`INSERT INTO model_upload_files (upload_id, path, content) VALUES (${uploadId}, ${file.path}, ${file.content})
        ON CONFLICT (upload_id, path) DO UPDATE SET content = excluded.content`,
      withinLimits(sql`model_upload_files`, sql`upload_id = ${uploadId}`),
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
  db: Db,
  uploadId: string,
  deploymentId: number,
  now: string,
): Promise<{ staged: ProjectFile[]; project: ProjectFile[] } | null> {
  const [open, staged, project] = await runBatch<Record<string, unknown>>(db, [
    sql`SELECT ${uploadOpen(uploadId, deploymentId, now)} AS open`,
    sql`SELECT path, content FROM model_upload_files WHERE upload_id = ${uploadId} ORDER BY path`,
    sql`SELECT path, content FROM project_files WHERE deployment_id = ${deploymentId} ORDER BY path`,
  ]);
  if (!open?.results[0]?.open) return null;
  return {
    staged: (staged?.results ?? []) as unknown as ProjectFile[],
    project: (project?.results ?? []) as unknown as ProjectFile[],
  };
}

/**
 * Applies an open transaction to the project and queues a build, in one batch: staged files are
 * written, and with `autoRemove` every file neither staged nor listed in `keep` is removed (the
 * project config excepted). Every path of `keep` must then be a file of the project. The
 * transaction is deleted, so it can be finished once.
 */
export async function finishUpload(
  db: Db,
  uploadId: string,
  deploymentId: number,
  keep: string[],
  autoRemove: boolean,
  now: string,
): Promise<WriteResult> {
  const listed = sql`${JSON.stringify(keep)}`;
  return writeAndBuild(
    db,
    deploymentId,
    [
      sql`INSERT INTO data_model_write_guards (reason) SELECT 'upload_gone' WHERE NOT ${uploadOpen(uploadId, deploymentId, now)}`,
      sql`INSERT INTO project_files (deployment_id, path, content, created_at)
        SELECT ${deploymentId}, path, content, ${now} FROM model_upload_files WHERE upload_id = ${uploadId}
        ON CONFLICT (deployment_id, path) DO UPDATE SET content = excluded.content, updated_at = excluded.created_at
        WHERE project_files.content <> excluded.content`,
      ...(autoRemove
        ? [
            sql`DELETE FROM project_files WHERE deployment_id = ${deploymentId} AND path <> ${PROJECT_CONFIG_PATH}
              AND path NOT IN (SELECT value FROM json_each(${listed}))
              AND path NOT IN (SELECT path FROM model_upload_files WHERE upload_id = ${uploadId})`,
          ]
        : []),
      everyPathExists(deploymentId, listed),
      projectWithinLimits(deploymentId),
      sql`DELETE FROM model_uploads WHERE id = ${uploadId}`,
    ],
    now,
  );
}

/**
 * Deletes up to `limit` expired transactions (their staged files go by cascade), oldest first,
 * through the expiry index; answers how many went.
 */
export async function deleteExpiredUploads(db: Db, now: string, limit: number): Promise<number> {
  const rows = await db.all<{ id: string }>(
    sql`DELETE FROM model_uploads WHERE id IN
      (SELECT id FROM model_uploads WHERE expires_at <= ${now} ORDER BY expires_at LIMIT ${limit}) RETURNING id`,
  );
  return rows.length;
}
