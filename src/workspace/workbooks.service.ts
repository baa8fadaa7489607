import type * as v from 'valibot';
import { ApiError, badRequest, notFound } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import { withStorageQuota } from '../core/storage-quota';
import { slugify } from '../core/text';
import { folderNotFound, randomSuffix, requireDeployment, sent, upsertBranch, written } from './item-writes';
import * as repo from './workbooks.repository';
import {
  type createWorkbookBody,
  type duplicateWorkbookBody,
  NAME_MAX,
  SLUG_MAX,
  type updateWorkbookBody,
  type upsertWorkbookBody,
} from './workspace.schemas';

/** Workbooks: create, update, duplicate, favourites and Cube's upsert by slug. */

const DEFAULT_WORKBOOK_NAME = 'Untitled workbook';

export async function createWorkbook(
  scope: DeploymentScope,
  input: v.InferOutput<typeof createWorkbookBody>,
) {
  const name = input?.name ?? DEFAULT_WORKBOOK_NAME;
  const slug = input?.slug ?? `${slugify(name) || 'workbook'}-${randomSuffix(8)}`;
  return createWorkbookWithSlug(scope, { ...input, name, slug });
}

async function createWorkbookWithSlug(
  scope: DeploymentScope,
  input: {
    name: string;
    slug: string;
    folderId?: number | null;
    meta?: Record<string, unknown> | null;
    calculatedFields?: Record<string, unknown> | null;
  },
) {
  const { name, slug } = input;
  const result = await withStorageQuota(
    repo.createWorkbook(scope, {
      type: 'WORKBOOK',
      name,
      folderId: input.folderId ?? null,
      slug,
      meta: input.meta ?? {},
      calculatedFields: input.calculatedFields ?? {},
    }),
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.folderFound) throw folderNotFound('folderId');
  if (check.slugTaken) throw slugConflict(slug);
  return written(result);
}

function slugConflict(slug: string): ApiError {
  return new ApiError(
    'CONFLICT',
    `Another workbook of this deployment has the slug "${slug}" (send slugTakeover: true to take it)`,
    [{ path: 'slug', message: 'Already used in this deployment' }],
  );
}

export async function updateWorkbook(
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof updateWorkbookBody>,
) {
  const patch = sent(body, ['folderId']);
  return applyWorkbookPatch(scope, id, patch);
}

async function applyWorkbookPatch(
  scope: DeploymentScope,
  id: number,
  input: Omit<repo.WorkbookPatch, 'displacedSlug'> & { slugTakeover?: boolean },
) {
  const takeover = input.slug !== undefined && input.slugTakeover === true;
  const result = await withStorageQuota(
    repo.updateWorkbook(scope, id, {
      name: input.name,
      folderId: input.folderId,
      meta: input.meta,
      metaMerge: input.metaMerge,
      slug: input.slug,
      // The workbook that held the slug keeps a recognisable, still-unique one.
      displacedSlug: takeover ? `${input.slug?.slice(0, SLUG_MAX - 9)}-${randomSuffix(8)}` : undefined,
    }),
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.found) throw notFound('Workbook');
  if (!check.folderFound) throw folderNotFound('folderId');
  if (!check.ok) throw slugConflict(input.slug ?? '');
  return written(result);
}

/**
 * Cube's duplicateWorkbook: "Copy of {name}" in the same folder, with the source's meta,
 * calculated fields, draft and a copy of each of its reports. The published dashboard is not
 * copied (the copy starts unpublished, so not embeddable); `shared` (creator-mode embed sessions
 * of a shared workspace) is refused: edgeboard has no such sessions here.
 */
export async function duplicateWorkbook(
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof duplicateWorkbookBody>,
) {
  if (body?.shared === true) {
    throw new ApiError(
      'FORBIDDEN',
      'Duplicating into the shared workspace is for creator-mode embed sessions',
    );
  }
  const source = await repo.readWorkbookPlace(scope, id);
  if (!source) throw notFound('Workbook');
  const name = `Copy of ${source.name}`.slice(0, NAME_MAX);
  const slug = `${slugify(name).slice(0, SLUG_MAX - 9) || 'workbook'}-${randomSuffix(8)}`;
  const result = await withStorageQuota(
    repo.duplicateWorkbook(scope, id, {
      type: 'WORKBOOK',
      name,
      folderId: source.folderId,
      slug,
      meta: {},
      calculatedFields: {},
    }),
  );
  const { check } = result;
  requireDeployment(check);
  if (!check.found) throw notFound('Workbook');
  if (check.slugTaken) throw slugConflict(slug);
  return written(result);
}

export async function setFavorite(scope: DeploymentScope, id: number, on: boolean) {
  const rec = await repo.setFavorite(scope, id, on);
  if (!rec) throw notFound('Workbook');
  return rec;
}

// ---- Upsert of a workbook by slug ----

/** Cube normalises the slug of upsert-by-slug (trimmed, lower-cased) before matching. */
function normalizeSlug(raw: string): string {
  const slug = raw.trim().toLowerCase();
  if (!/^[a-z0-9-]{1,100}$/.test(slug)) {
    throw badRequest('Invalid slug: 1–100 characters of a-z, 0-9 and "-" (after trimming and lower-casing)', [
      { path: 'slug', message: 'Only lowercase letters a-z, digits 0-9 and "-"' },
    ]);
  }
  return slug;
}

/**
 * Cube's upsertWorkbookBySlug: the workbook with this slug gets the fields sent (`meta` merged
 * into its stored object), or a workbook is created with it.
 */
export async function upsertWorkbookBySlug(
  scope: DeploymentScope,
  rawSlug: string,
  body: v.InferOutput<typeof upsertWorkbookBody>,
) {
  const slug = normalizeSlug(rawSlug);
  const input = sent(body, ['folderId']);
  const holder = await repo.workbookBySlug(scope, slug);
  if (!holder.deploymentFound) throw notFound('Deployment');
  const holderId = holder.id;
  const { meta, ...rest } = input;
  return upsertBranch('Workbook', holderId === null, () =>
    holderId === null
      ? createWorkbookWithSlug(scope, { ...input, name: input.name ?? DEFAULT_WORKBOOK_NAME, slug })
      : applyWorkbookPatch(scope, holderId, { ...rest, metaMerge: meta }),
  );
}
