import type * as v from 'valibot';
import { conflict, notFound } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import * as repo from './folders.repository';
import { depthError, folderNotFound, requireDeployment, sent, written } from './item-writes';
import { presentFolder } from './workspace.present';
import type { createFolderBody, updateFolderBody } from './workspace.schemas';

/** Folders: create, update, delete and Cube's ancestors. */

export async function createFolder(scope: DeploymentScope, input: v.InferOutput<typeof createFolderBody>) {
  const result = await repo.createFolder(
    scope,
    { type: 'FOLDER', name: input.name, folderId: input.parentId ?? null },
    input.position ?? null,
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.folderFound) throw folderNotFound('parentId');
  if (!check.ok) throw depthError('parentId');
  return written(result);
}

export async function updateFolder(
  scope: DeploymentScope,
  id: number,
  input: v.InferOutput<typeof updateFolderBody>,
) {
  const rec = await repo.updateFolder(scope, id, sent(input));
  if (!rec) throw notFound('Folder');
  return rec;
}

export async function deleteFolder(scope: DeploymentScope, id: number) {
  const check = await repo.deleteFolder(scope, id);
  requireDeployment(check);
  if (!check.found) throw notFound('Folder');
  if (check.hasSubfolders) {
    throw conflict('The folder holds sub-folders: move or delete them first');
  }
  return { id, deleted: true as const };
}

/** Cube's getFolderAncestors: root first, down to the folder itself. */
export async function folderAncestors(scope: DeploymentScope, id: number) {
  const items = await repo.folderAncestors(scope, id);
  if (items === null) throw notFound('Deployment');
  if (items.length === 0) throw notFound('Folder');
  return items.map(presentFolder);
}
