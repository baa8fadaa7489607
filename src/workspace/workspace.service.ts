import type * as v from 'valibot';
import type { WorkspaceItemType } from '../../schema/workspace';
import { ApiError, badRequest, notFound } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import { depthError, folderNotFound, requireDeployment, written } from './item-writes';
import { LABEL } from './workspace.present';
import * as repo from './workspace.repository';
import type { moveBody } from './workspace.schemas';

/** What every kind of item shares: a GET (which records the view), a delete and a move. */

/** GET of one item: records the caller's view time and answers the item. */
export async function viewItem(scope: DeploymentScope, id: number, type: WorkspaceItemType) {
  const rec = await repo.viewItem(scope, id, type);
  if (!rec) throw notFound(LABEL[type]);
  return rec;
}

export async function deleteItem(scope: DeploymentScope, id: number, type: WorkspaceItemType) {
  if (!(await repo.deleteItem(scope, id, type))) throw notFound(LABEL[type]);
  return { id, deleted: true as const };
}

export async function moveItem(scope: DeploymentScope, input: v.InferOutput<typeof moveBody>) {
  const folderId = input.folderId ?? null;
  const result = await repo.moveItem(scope, input.id, folderId, input.type ?? null);
  const { check } = result;
  requireDeployment(check);
  if (check.itemType === null) {
    throw new ApiError('NOT_FOUND', 'No item with this id in the deployment', [
      { path: 'id', message: 'Unknown item' },
    ]);
  }
  if (input.type !== undefined && check.itemType !== input.type) {
    throw badRequest(`Item ${input.id} is a ${check.itemType}, not a ${input.type}`, [
      { path: 'type', message: `Does not match the item's type (${check.itemType})` },
    ]);
  }
  if (!check.folderFound) throw folderNotFound('folderId');
  if (check.cycle) {
    throw badRequest('A folder cannot be moved into itself or one of its sub-folders', [
      { path: 'folderId', message: 'Is the moved folder or one of its descendants' },
    ]);
  }
  if (!check.ok) throw depthError('folderId');
  return written(result);
}
