import type * as v from 'valibot';
import { notFound } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import { LABEL, presentItem } from './workspace.present';
import { MAX_FOLDER_DEPTH } from './workspace.queries';
import type { BulkFailure, bulkDeleteBody, bulkMoveBody, WorkspaceItem } from './workspace.schemas';
import type { BulkCheck, ItemRef } from './workspace-bulk.repository';
import * as bulkRepo from './workspace-bulk.repository';

/** Cube's bulk move and bulk delete: partial success, each one batch. */

/** One entry per distinct item, first occurrence first (Cube collapses duplicates). */
function distinctRefs(items: ItemRef[]): ItemRef[] {
  const seen = new Set<string>();
  return items.filter((r) => {
    const key = `${r.type}:${r.id}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const failure = (check: BulkCheck, status: number, message: string): BulkFailure => ({
  type: check.type,
  id: check.id,
  error: { status, message },
});

const notFoundFailure = (check: BulkCheck) =>
  failure(check, 404, `${LABEL[check.type]} ${check.id} not found in this deployment`);

/** Cube's bulkMoveWorkspaceObjects: the movable items move together; the others are listed. */
export async function bulkMove(scope: DeploymentScope, body: v.InferOutput<typeof bulkMoveBody>) {
  const refs = distinctRefs(body.items);
  const result = await bulkRepo.bulkMove(scope, refs, body.folderId ?? null);
  if (!result.checks) throw notFound('Deployment');
  const byId = new Map(result.items.map((item) => [item.id, item]));
  const moved: WorkspaceItem[] = [];
  const failed: BulkFailure[] = [];
  for (const check of result.checks) {
    const item = byId.get(check.id);
    if (check.ok && item) moved.push(presentItem(item));
    else if (!check.found) failed.push(notFoundFailure(check));
    else if (!check.folderFound)
      failed.push(failure(check, 404, 'Target folder not found in this deployment'));
    else if (check.cycle)
      failed.push(failure(check, 400, 'A folder cannot be moved into itself or one of its sub-folders'));
    else failed.push(failure(check, 400, `Folders nest at most ${MAX_FOLDER_DEPTH} levels deep`));
  }
  return { moved, failed };
}

/** Cube's bulkDeleteWorkspaceObjects: the deletable items go together; the others are listed. */
export async function bulkDelete(scope: DeploymentScope, body: v.InferOutput<typeof bulkDeleteBody>) {
  const checks = await bulkRepo.bulkDelete(scope, distinctRefs(body.items));
  if (!checks) throw notFound('Deployment');
  const deleted: ItemRef[] = [];
  const failed: BulkFailure[] = [];
  for (const check of checks) {
    if (check.ok) deleted.push({ type: check.type, id: check.id });
    else if (!check.found) failed.push(notFoundFailure(check));
    else failed.push(failure(check, 400, 'The folder still has sub-folders: delete or move them first'));
  }
  return { deleted, failed };
}
