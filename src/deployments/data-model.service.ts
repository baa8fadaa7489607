import type * as v from 'valibot';
import type { DataModelGuard } from '../../schema/deployments';
import { randomId } from '../core/crypto';
import { ApiError, badRequest, conflict, notFound, tooManyRequests } from '../core/errors';
import { pageRequest, toPage } from '../core/pagination';
import type { AccountScope, RequestScope } from '../core/scope';
import * as repo from './data-model.repository';
import {
  type FinishUploadInput,
  MAX_FILE_BYTES,
  MAX_OPEN_UPLOADS,
  MAX_PROJECT_BYTES,
  MAX_PROJECT_FILES,
  pathProblem,
  type RenameFilesInput,
  type sourceFileSchema,
  UPLOAD_TTL_MS,
  type UpdateFilesInput,
  type validationSchema,
} from './data-model.schemas';
import { PROJECT_CONFIG_PATH } from './deployments.schemas';
import {
  BRANCH,
  BUILD_MODE,
  checkBranch,
  compileProject,
  enqueueBuild,
  formatModelError,
  getDeployment,
} from './deployments.service';

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text).byteLength;

/** SHA-1 (hex) of a file's UTF-8 bytes: what Cube's CLI computes of each file to diff an upload. */
export async function fileHash(content: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', encoder.encode(content));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A hash of the whole project: SHA-1 of its `hash path` lines in path order. */
async function projectHash(files: repo.ProjectFile[]): Promise<string> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const lines = await Promise.all(sorted.map(async (f) => `${await fileHash(f.content)} ${f.path}\n`));
  return fileHash(lines.join(''));
}

const tooLarge = (message: string) => new ApiError('PAYLOAD_TOO_LARGE', message);

function checkFileSize(path: string, content: string): void {
  const bytes = bytesOf(content);
  if (bytes > MAX_FILE_BYTES) {
    throw tooLarge(`${path} is ${bytes} bytes, over the ${MAX_FILE_BYTES}-byte limit per file`);
  }
}

function checkDistinct(paths: string[], field: string): void {
  const seen = new Set<string>();
  for (const path of paths) {
    if (seen.has(path))
      throw badRequest(`${path} is named twice`, [{ path: field, message: `${path} is named twice` }]);
    seen.add(path);
  }
}

/** The 413 of a limit guard, or null for another guard. */
function limitError(refused: DataModelGuard, what: string): ApiError | null {
  if (refused === 'too_many_files')
    return tooLarge(`${what} would hold more than ${MAX_PROJECT_FILES} files`);
  if (refused === 'project_too_large') {
    return tooLarge(`${what} would hold more than ${MAX_PROJECT_BYTES} bytes of files`);
  }
  return null;
}

/** The deployment, checked to be the caller's, and the branch, checked to be `main`. */
async function theProject(scope: AccountScope, deploymentId: number, branchName?: string | null) {
  const deployment = await getDeployment(scope, deploymentId);
  checkBranch(branchName);
  return deployment;
}

// ---- Files ----

type SourceFile = v.InferOutput<typeof sourceFileSchema>;

export async function listFiles(
  scope: AccountScope,
  deploymentId: number,
  query: { withContent?: boolean; branchName?: string; first?: number; after?: string },
) {
  await theProject(scope, deploymentId, query.branchName);
  const request = pageRequest(query, 'data-model-files', 1);
  const after = request.after?.[0];
  const rows = await repo.listFiles(scope, deploymentId, {
    afterPath: typeof after === 'string' ? after : null,
    limit: request.limit,
    withContent: query.withContent ?? false,
  });
  const page = toPage(
    rows,
    request,
    'data-model-files',
    (f) => [f.path],
    (f): SourceFile => ({
      path: f.path,
      fileName: f.path.slice(f.path.lastIndexOf('/') + 1),
      type: 'file',
      size: f.size,
      updatedAt: f.updatedAt,
      ...(f.content === undefined ? {} : { content: f.content }),
    }),
  );
  return { items: page.items, data: page.items, pageInfo: page.pageInfo };
}

/** Answers a write that went through (after sending its build), or throws the refusal. */
async function settle(
  scope: RequestScope,
  result: repo.WriteResult,
  explain: (refused: DataModelGuard) => Promise<Error>,
): Promise<{ success: true }> {
  if ('refused' in result) throw await explain(result.refused);
  await enqueueBuild(scope, result.buildId);
  return { success: true };
}

const unknownPaths = async (scope: RequestScope, deploymentId: number, paths: string[]) => {
  const existing = new Set(await repo.existingPaths(scope, deploymentId, paths));
  const missing = paths.filter((p) => !existing.has(p));
  return notFound(`File ${missing.join(', ') || '(changed concurrently)'}`);
};

export async function updateFiles(scope: AccountScope, deploymentId: number, input: UpdateFilesInput) {
  await theProject(scope, deploymentId, input.branchName);
  checkDistinct(
    input.files.map((f) => f.path),
    'files',
  );
  for (const f of input.files) checkFileSize(f.path, f.content);
  const result = await repo.putFiles(scope, deploymentId, input.files);
  return settle(scope, result, async (refused) => limitError(refused, 'The project') ?? new Error(refused));
}

export async function removeFiles(
  scope: AccountScope,
  deploymentId: number,
  input: { files: { path: string }[]; branchName?: string },
) {
  await theProject(scope, deploymentId, input.branchName);
  const paths = [...new Set(input.files.map((f) => f.path))];
  const result = await repo.removeFiles(scope, deploymentId, paths);
  return settle(scope, result, () => unknownPaths(scope, deploymentId, paths));
}

export async function renameFiles(scope: AccountScope, deploymentId: number, input: RenameFilesInput) {
  await theProject(scope, deploymentId, input.branchName);
  checkDistinct(
    input.files.map((f) => f.path),
    'files.path',
  );
  checkDistinct(
    input.files.map((f) => f.newPath),
    'files.newPath',
  );
  const result = await repo.renameFiles(scope, deploymentId, input.files);
  return settle(scope, result, async (refused) => {
    if (refused === 'unknown_path') {
      return unknownPaths(
        scope,
        deploymentId,
        input.files.map((f) => f.path),
      );
    }
    const taken = await repo.existingPaths(
      scope,
      deploymentId,
      input.files.map((f) => f.newPath),
    );
    return conflict(
      `${taken.join(', ') || 'A new path'} already exists: remove it first or choose another path`,
    );
  });
}

export async function getFileHashes(scope: AccountScope, deploymentId: number, branchName?: string) {
  await theProject(scope, deploymentId, branchName);
  const files = await repo.readFiles(scope, deploymentId);
  const hashes: Record<string, { hash: string }> = {};
  for (const f of files) hashes[f.path] = { hash: await fileHash(f.content) };
  return hashes;
}

// ---- Validation ----

export async function validateDataModel(
  scope: AccountScope,
  deploymentId: number,
  query: { branchName?: string; devMode?: boolean },
): Promise<v.InferOutput<typeof validationSchema>> {
  if (query.branchName !== undefined && query.devMode !== undefined) {
    throw badRequest('Pass branchName or devMode, not both', [
      { path: 'devMode', message: 'Not with branchName' },
    ]);
  }
  await theProject(scope, deploymentId, query.branchName);
  if (query.devMode) {
    throw new ApiError('NOT_FOUND', `No dev-mode branch: edgeboard deployments have one branch, ${BRANCH}`);
  }
  const result = compileProject(await repo.readFiles(scope, deploymentId));
  return {
    deploymentId,
    branchName: BRANCH,
    mode: BUILD_MODE,
    valid: result.ok,
    errors: result.ok ? [] : result.errors.map((e) => ({ message: formatModelError(e), fileName: e.file })),
    cubesCount: result.ok ? Object.keys(result.model.cubes).length : null,
  };
}

// ---- Upload transactions ----

export async function startUpload(scope: AccountScope, deploymentId: number, branchName?: string) {
  const deployment = await theProject(scope, deploymentId, branchName);
  const id = randomId(18);
  const expiresAt = new Date(scope.now.getTime() + UPLOAD_TTL_MS);
  const opened = await repo.openUpload(scope, { id, deploymentId, expiresAt }, MAX_OPEN_UPLOADS);
  if (!opened) {
    throw tooManyRequests(
      'RATE_LIMITED',
      `This deployment already has ${MAX_OPEN_UPLOADS} open uploads: finish them or let them expire (1 hour)`,
      UPLOAD_TTL_MS / 1000,
    );
  }
  return { transaction: { id }, deploymentName: deployment.name, expiresAt: expiresAt.toISOString() };
}

const uploadNotFound = () =>
  new ApiError(
    'NOT_FOUND',
    'Upload transaction not found: it is unknown, expired (after 1 hour) or finished',
  );

/** The id of `upload/file`'s `transaction` field: the id itself, or (as older Cube CLIs send it) `{"id": …}` as JSON. */
export function transactionIdOf(field: string): string {
  if (field.startsWith('{')) {
    try {
      const id = (JSON.parse(field) as { id?: unknown }).id;
      if (typeof id === 'string') return id;
    } catch {
      // not JSON: taken as the id itself, which matches no transaction
    }
  }
  return field;
}

/** The fields of `upload/file`, read from the multipart body by the route. */
export interface UploadedFile {
  transaction: string;
  fileName: string;
  content: Uint8Array;
}

export async function uploadFile(
  scope: AccountScope,
  deploymentId: number,
  input: UploadedFile,
  branchName?: string,
) {
  await theProject(scope, deploymentId, branchName);
  const problem = pathProblem(input.fileName);
  if (problem) throw badRequest(`Invalid fileName: ${problem}`, [{ path: 'fileName', message: problem }]);
  if (input.content.byteLength > MAX_FILE_BYTES) {
    throw tooLarge(
      `${input.fileName} is ${input.content.byteLength} bytes, over the ${MAX_FILE_BYTES}-byte limit per file`,
    );
  }
  let content: string;
  try {
    content = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(input.content);
  } catch {
    throw badRequest(`${input.fileName} is not UTF-8 text`, [{ path: 'file', message: 'Not UTF-8 text' }]);
  }
  const refused = await repo.stageFile(scope, transactionIdOf(input.transaction), deploymentId, {
    path: input.fileName,
    content,
  });
  if (refused === 'upload_gone') throw uploadNotFound();
  if (refused !== null) throw limitError(refused, 'The upload') ?? new Error(refused);
  return { fileName: input.fileName, hash: await fileHash(content) };
}

/**
 * Applies an upload: the project becomes the files `files` lists, each with its uploaded content
 * or, when not uploaded, the content it has; with `autoRemoveFiles` (the default) the files not
 * listed and not uploaded go, except `edgeboard.json`.
 */
export async function finishUpload(
  scope: AccountScope,
  deploymentId: number,
  input: FinishUploadInput,
  branchName?: string,
) {
  await theProject(scope, deploymentId, branchName);
  const uploadId = input.transaction.id;
  const read = await repo.readUpload(scope, uploadId, deploymentId);
  if (!read) throw uploadNotFound();
  const listed = Object.keys(input.files);
  const autoRemove = input.autoRemoveFiles ?? true;
  const staged = new Map(read.staged.map((f) => [f.path, f.content]));
  const current = new Map(read.project.map((f) => [f.path, f.content]));
  const missing = listed.filter((p) => !staged.has(p) && !current.has(p));
  if (missing.length > 0) {
    throw badRequest(`Listed but neither uploaded nor in the project: ${missing.join(', ')}`, [
      { path: 'files', message: `Upload ${missing.join(', ')} first` },
    ]);
  }
  const result = await repo.finishUpload(scope, uploadId, deploymentId, listed, autoRemove);
  await settle(scope, result, async (refused) => {
    if (refused === 'upload_gone') return uploadNotFound();
    if (refused === 'unknown_path') return unknownPaths(scope, deploymentId, listed);
    return limitError(refused, 'The project') ?? new Error(refused);
  });
  const kept = new Set(listed);
  const after = new Map(current);
  for (const [path, content] of staged) after.set(path, content);
  const files = [...after]
    .filter(([path]) => !autoRemove || kept.has(path) || staged.has(path) || path === PROJECT_CONFIG_PATH)
    .map(([path, content]) => ({ path, content }));
  return { lastHash: await projectHash(files) };
}

/** Cron: deletes expired upload transactions, at most 100 a tick (the expiry index finds them). */
export async function sweepExpiredUploads(scope: RequestScope): Promise<number> {
  return repo.deleteExpiredUploads(scope, 100);
}
