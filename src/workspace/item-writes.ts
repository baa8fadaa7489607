import { ApiError, badRequest, isNotFound, notFound } from '../core/errors';
import { MAX_FOLDER_DEPTH } from './workspace.queries';
import type { ItemRecord } from './workspace.rows';
import type { WriteCheck, WriteResult } from './workspace.writes';

/**
 * What the write services of every kind share: Cube's "null is not sent", the API errors
 * of a guarded write's check, and the race an upsert can lose.
 */

/**
 * Cube's `null` on an optional field means "not sent": drops the null values of `input`,
 * except `keep` (fields where edgeboard gives null a meaning: the root, detach, clear).
 */
export function sent<T extends object>(
  input: T | undefined,
  keep: string[] = [],
): { [K in keyof T]?: Exclude<T[K], null> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input ?? {})) {
    if (value !== null || keep.includes(key)) out[key] = value;
  }
  return out as { [K in keyof T]?: Exclude<T[K], null> };
}

// ---- The check of a guarded write → the API errors it means ----

export function requireDeployment(check: WriteCheck): void {
  if (!check.deploymentFound) throw notFound('Deployment');
}

export function folderNotFound(field: string): ApiError {
  return new ApiError('NOT_FOUND', 'Folder not found in this deployment', [
    { path: field, message: 'No folder with this id in the deployment' },
  ]);
}

export function depthError(field: string): ApiError {
  return badRequest(`Folders nest at most ${MAX_FOLDER_DEPTH} levels deep`, [
    { path: field, message: `The folder would be deeper than ${MAX_FOLDER_DEPTH} levels` },
  ]);
}

/** The item a successful write read back; a guarded write that passed its check always has one. */
export function written(result: WriteResult): ItemRecord {
  if (!result.item) throw new Error('guarded write passed its check but read no item');
  return result.item;
}

export const randomSuffix = (length: number) =>
  [...crypto.getRandomValues(new Uint8Array(length))].map((b) => (b % 36).toString(36)).join('');

/**
 * An upsert that lost a race with another writer between its lookup and its write: a 409
 * `CONFLICT` whose message starts with `upsert_branch_changed`, the client's cue to retry.
 */
export class UpsertBranchChanged extends ApiError {
  constructor(readonly label: 'Report' | 'Workbook') {
    super('CONFLICT', `upsert_branch_changed: the ${label.toLowerCase()} changed concurrently; retry`);
  }
}

/**
 * Runs the branch an upsert chose by its lookup. A create that finds the key taken (409) or an
 * update whose item vanished (its own 404, not a missing folder or workbook) lost the race:
 * UpsertBranchChanged.
 */
export async function upsertBranch<T>(
  label: 'Report' | 'Workbook',
  creating: boolean,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const raced = creating ? err instanceof ApiError && err.status === 409 : isNotFound(err, label);
    throw raced ? new UpsertBranchChanged(label) : err;
  }
}
