import type * as v from 'valibot';
import { claimName } from '../control/claims.repository';
import { ApiError, badRequest, notFound } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import { withStorageQuota } from '../core/storage-quota';
import { folderNotFound, requireDeployment, sent, upsertBranch, written } from './item-writes';
import * as repo from './reports.repository';
import {
  addinEntries,
  type connectReportBody,
  type createReportBody,
  type placementBody,
  placementEntries,
  type updateReportBody,
} from './reports.schemas';
import type { WriteCheck } from './workspace.writes';

/** Reports: create, update, Cube's upsert by public id and the spreadsheet add-in's placement. */

/** The report fields stored in its `addin` object (the add-in's own, with no effect here). */
const ADDIN_FIELDS: readonly string[] = [...Object.keys(addinEntries), 'pivotItems', 'placementId'];

const PUBLIC_ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A fresh Cube report `publicId`: 12 random characters of [0-9A-Za-z]. */
function newPublicId(): string {
  return [...crypto.getRandomValues(new Uint8Array(12))]
    .map((b) => PUBLIC_ID_ALPHABET[b % PUBLIC_ID_ALPHABET.length])
    .join('');
}

type CreateReportBody = v.InferOutput<typeof createReportBody>;
type UpdateReportBody = v.InferOutput<typeof updateReportBody>;
type ReportInput = NonNullable<UpdateReportBody> & { source?: string | null };

/** A report body as stored values: nulls dropped (not sent), add-in fields gathered. */
function reportValues(body: ReportInput | undefined): {
  name?: string;
  folderId?: number | null;
  values: repo.ReportValues;
} {
  const input = sent(body, ['folderId', 'workbookId', 'fillMissingRows']);
  const addin: Record<string, unknown> = {};
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'name' || key === 'folderId') continue;
    if (ADDIN_FIELDS.includes(key)) addin[key] = value;
    else values[key] = value;
  }
  if (Object.keys(addin).length > 0) values.addin = addin;
  return { name: input.name, folderId: input.folderId, values: values as repo.ReportValues };
}

/** The 409 of a public id another report holds (of this deployment, another one or another account). */
const publicIdUsed = (message: string) =>
  new ApiError('CONFLICT', message, [{ path: 'publicId', message: 'Already used' }]);

function reportErrors(check: WriteCheck) {
  requireDeployment(check);
  if (!check.found) throw notFound('Report');
  if (!check.folderFound) throw folderNotFound('folderId');
  if (!check.workbookFound) {
    throw new ApiError('NOT_FOUND', 'Workbook not found in this deployment', [
      { path: 'workbookId', message: 'No workbook with this id in the deployment' },
    ]);
  }
  if (check.publicIdChanged) {
    throw badRequest('A report’s publicId cannot change once set', [
      { path: 'publicId', message: 'Differs from the report’s publicId' },
    ]);
  }
  if (check.publicIdTaken) {
    throw publicIdUsed('Another report has this publicId');
  }
}

const DEFAULT_REPORT_NAME = 'Untitled report';

/**
 * A public id is unique across every account, and so every shard: claimed in the control
 * database for the caller's account before its shard writes it (the shard's own check then
 * tells this account's reports apart). Another account's is a 409, like a taken one.
 */
async function claimPublicId(scope: DeploymentScope, publicId: string): Promise<void> {
  if (!(await claimName(scope.control, 'report-public-id', publicId, scope.accountId, scope.now))) {
    throw publicIdUsed('Another report has this publicId');
  }
}

export async function createReport(scope: DeploymentScope, body: CreateReportBody) {
  const { name, folderId, values } = reportValues(body);
  const publicId = values.publicId ?? newPublicId();
  await claimPublicId(scope, publicId);
  const result = await withStorageQuota(
    repo.createReport(
      scope,
      { type: 'REPORT', name: name ?? DEFAULT_REPORT_NAME, folderId: folderId ?? null },
      { ...values, publicId },
    ),
  );
  reportErrors(result.check);
  return written(result);
}

export async function updateReport(scope: DeploymentScope, id: number, body: UpdateReportBody) {
  const { name, folderId, values } = reportValues(body);
  if (values.publicId !== undefined) await claimPublicId(scope, values.publicId);
  const result = await withStorageQuota(repo.updateReport(scope, id, { name, folderId }, values));
  reportErrors(result.check);
  return written(result);
}

/**
 * Cube's upsert by public id: the report of this deployment with `publicId` is updated with the
 * fields sent (`source` is create-only: ignored on update), or created with it. A public id held
 * in another deployment is a 409; so is a create or delete racing between the lookup and the write.
 */
export async function upsertReportByPublicId(
  scope: DeploymentScope,
  publicId: string,
  body: CreateReportBody,
) {
  const holder = await repo.reportByPublicId(scope, publicId);
  if (!holder.deploymentFound) throw notFound('Deployment');
  if (holder.otherDeployment) {
    throw publicIdUsed('This publicId belongs to a report of another deployment');
  }
  const { source: _source, ...rest } = body ?? {};
  if (body?.publicId != null && body.publicId !== publicId) {
    throw badRequest('`publicId` in the body must equal the path’s', [
      { path: 'publicId', message: 'Differs from the path' },
    ]);
  }
  const holderId = holder.id;
  return upsertBranch('Report', holderId === null, () =>
    holderId === null
      ? createReport(scope, { ...body, publicId })
      : // Found by its public id, which never changes once set: the update need not send it.
        updateReport(scope, holderId, rest),
  );
}

// ---- Spreadsheet add-in placement (stored, no effect) ----

/** The placement fields a disconnect removes. */
const PLACEMENT_FIELDS = ['addressOnly', ...Object.keys(placementEntries)];

async function placed(scope: DeploymentScope, id: number, placement: Parameters<typeof repo.placeReport>[2]) {
  const rec = await withStorageQuota(repo.placeReport(scope, id, placement));
  if (!rec) throw notFound('Report');
  return rec;
}

/**
 * Cube's connectReportToWorkbook and refreshReport: records where the add-in placed the report
 * (edgeboard runs no query on refresh; the placement fields sent are stored).
 */
export async function storePlacement(
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof connectReportBody> | v.InferOutput<typeof placementBody>,
) {
  const { externalWorkbookId, ...addin } = sent(body);
  return placed(scope, id, { externalWorkbookId, addin });
}

/** Cube's disconnectReportFromWorkbook: forgets the placement; a target matching nothing is a no-op. */
export async function disconnectReport(
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof placementBody>,
) {
  const clear = Object.fromEntries(PLACEMENT_FIELDS.map((f) => [f, null]));
  return placed(scope, id, {
    externalWorkbookId: null,
    addin: clear,
    onlyFor: sent(body).externalWorkbookId,
  });
}
