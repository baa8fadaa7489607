import type * as v from 'valibot';
import type { DeploymentScope } from '../auth/deployment-scope';
import type { Db } from '../core/env';
import { conflict, notFound } from '../core/errors';
import * as repo from './folders.repository';
import { depthError, folderNotFound, requireDeployment, sent, written } from './item-writes';
import { presentFolder } from './workspace.present';
import type { createFolderBody, updateFolderBody } from './workspace.schemas';

/** Folders: E5, E6 and Cube's ancestors. */

export async function createFolder(
  db: Db,
  scope: DeploymentScope,
  input: v.InferOutput<typeof createFolderBody>,
  now: string,
) {
  const result = await repo.createFolder(
    db,
    scope,
    { type: 'FOLDER', name: input.name, folderId: input.parentId ?? null, now },
    input.position ?? null,
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.folderFound) throw folderNotFound('parentId');
  if (!check.ok) throw depthError('parentId');
  return written(result);
}

export async function updateFolder(
  db: Db,
  scope: DeploymentScope,
  id: number,
  input: v.InferOutput<typeof updateFolderBody>,
  now: string,
) {
  const rec = await repo.updateFolder(db, scope, id, { ...sent(input), now });
  if (!rec) throw notFound('Folder');
  return rec;
}

export async function deleteFolder(db: Db, scope: DeploymentScope, id: number) {
  const check = await repo.deleteFolder(db, scope, id);
  requireDeployment(check);
  if (!check.found) throw notFound('Folder');
  if (check.hasSubfolders) {
    throw conflict('The folder holds sub-folders: move or delete them first');
  }
  return { id, deleted: true as const };
}

/** Cube's getFolderAncestors: root first, down to the folder itself. */
export async function folderAncestors(db: Db, scope: DeploymentScope, id: number) {
  const items = await repo.folderAncestors(db, scope, id);
  if (items === null) throw notFound('Deployment');
  if (items.length === 0) throw notFound('Folder');
  return items.map(presentFolder);
}
