import * as v from 'valibot';
import { pageInfoSchema, pageQueryEntries } from '../core/pagination';
import { obj, objectOf } from '../core/validation';

/** A project holds at most this many files. */
export const MAX_PROJECT_FILES = 200;
/** Bytes (UTF-8) of one file's content. */
export const MAX_FILE_BYTES = 256 * 1024;
/** Bytes (UTF-8) of all of a project's files together. */
export const MAX_PROJECT_BYTES = 2 * 1024 * 1024;
/** Characters of a file's path. */
export const MAX_PATH_LENGTH = 255;
/** How long an upload transaction stays open. */
export const UPLOAD_TTL_MS = 60 * 60 * 1000;
/** Upload transactions a deployment may hold open at once (each stages up to a project's worth). */
export const MAX_OPEN_UPLOADS = 10;

/** Why a path is refused, or null for a good one: relative, `/`-separated, no `.` or `..` segment, printable. */
export function pathProblem(path: string): string | null {
  if (path.length === 0) return 'Must not be empty';
  if (path.length > MAX_PATH_LENGTH) return `At most ${MAX_PATH_LENGTH} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return 'Control characters and backslashes are not allowed';
  if (path.startsWith('/')) return 'Must be relative (no leading /)';
  const segments = path.split('/');
  if (segments.some((s) => s === '')) return 'Must not have empty segments (// or a trailing /)';
  if (segments.some((s) => s === '.' || s === '..')) return 'Must not have . or .. segments';
  if (segments.some((s) => s !== s.trim())) return 'Segments must not start or end with spaces';
  return null;
}

export const filePath = v.pipe(
  v.string(),
  v.check(
    (path) => pathProblem(path) === null,
    (issue) => pathProblem(String(issue.input)) ?? 'Invalid path',
  ),
  v.description(
    `A project-relative path: \`/\`-separated, no leading \`/\`, no \`.\` or \`..\` segments, printable, at most ${MAX_PATH_LENGTH} characters.`,
  ),
);

const booleanString = v.pipe(
  v.picklist(['true', 'false']),
  v.transform((s) => s === 'true'),
);

const branchName = v.pipe(
  v.string(),
  v.maxLength(255),
  v.description('edgeboard deployments have one branch, `main`; another is a 404.'),
);

/** Cube's branch fields of a write body: only `main` is a branch. */
const branchEntries = {
  branchName: v.optional(branchName),
};

/** Cube's query parameters of the upload operations: `live` and `useDeployProjectRoot` change nothing. */
export const uploadQuery = obj({
  live: v.optional(booleanString),
  branchName: v.optional(branchName),
  useDeployProjectRoot: v.optional(booleanString),
});

export const listFilesQuery = obj({
  withContent: v.optional(booleanString),
  branchName: v.optional(branchName),
  showLastCLIUpload: v.optional(booleanString),
  ...pageQueryEntries,
});

const filesOf = <S extends v.GenericSchema>(item: S) =>
  v.pipe(v.array(item), v.minLength(1, 'Name at least one file'), v.maxLength(MAX_PROJECT_FILES));

export const updateFilesBody = obj({
  files: filesOf(obj({ path: filePath, content: v.string() })),
  ...branchEntries,
});
export type UpdateFilesInput = v.InferOutput<typeof updateFilesBody>;

export const removeFilesBody = obj({
  files: filesOf(obj({ path: filePath })),
  ...branchEntries,
});

export const renameFilesBody = obj({
  files: filesOf(obj({ path: filePath, newPath: filePath })),
  ...branchEntries,
});
export type RenameFilesInput = v.InferOutput<typeof renameFilesBody>;

export const validateQuery = obj({
  branchName: v.optional(branchName),
  devMode: v.optional(booleanString),
});

const isFileHash = (x: unknown): x is { hash?: string } =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

export const finishUploadBody = obj({
  transaction: v.object({ id: v.pipe(v.string(), v.maxLength(64)) }),
  files: v.pipe(
    objectOf(isFileHash, { type: 'object', properties: { hash: { type: 'string' } } }, 'an object of paths'),
    v.check((files) => Object.keys(files).length <= MAX_PROJECT_FILES, `At most ${MAX_PROJECT_FILES} files`),
    v.check(
      (files) => Object.keys(files).every((path) => pathProblem(path) === null),
      (issue) => {
        const bad = Object.keys(issue.input as object).find((path) => pathProblem(path) !== null) ?? '';
        return `${JSON.stringify(bad)}: ${pathProblem(bad)}`;
      },
    ),
    v.description(
      'Every file the project should hold, by path (`{hash}` as `GET …/file-hashes` answers): uploaded files take their new content, the others keep theirs.',
    ),
  ),
  commitMessage: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(1000)))),
  autoRemoveFiles: v.optional(v.nullable(v.boolean())),
  awaitGitOperations: v.optional(v.nullable(v.boolean())),
});
export type FinishUploadInput = v.InferOutput<typeof finishUploadBody>;

// ---- Answers ----

export const writeResponseSchema = v.object({ success: v.boolean() });

export const sourceFileSchema = v.object({
  path: v.string(),
  fileName: v.string(),
  type: v.literal('file'),
  size: v.number(),
  updatedAt: v.string(),
  content: v.optional(v.string()),
});

export const sourceTreeSchema = v.object({
  items: v.array(sourceFileSchema),
  data: v.array(sourceFileSchema),
  pageInfo: pageInfoSchema,
});

export const validationSchema = v.object({
  deploymentId: v.number(),
  branchName: v.string(),
  mode: v.picklist(['production', 'dev_mode']),
  valid: v.boolean(),
  errors: v.array(v.object({ message: v.string(), fileName: v.nullable(v.string()) })),
  cubesCount: v.nullable(v.number()),
});

export const fileHashesSchema = v.record(v.string(), v.object({ hash: v.string() }));

export const startUploadSchema = v.object({
  transaction: v.object({ id: v.string() }),
  deploymentName: v.string(),
  expiresAt: v.string(),
});

export const uploadedFileSchema = v.object({ fileName: v.string(), hash: v.string() });

export const finishUploadSchema = v.object({ lastHash: v.nullable(v.string()) });
