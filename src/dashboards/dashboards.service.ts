import { badRequest, notFound, orNotFound } from '../core/errors';
import { invalidCursor, pageRequest, toPage } from '../core/pagination';
import type { DeploymentScope } from '../core/scope';
import { newPublicId } from '../core/shard-marks';
import { withStorageQuota } from '../core/storage-quota';
import type { DashboardConfig } from './dashboard-config.schemas';
import * as versionsRepo from './dashboard-versions.repository';
import * as repo from './dashboards.repository';
import type { PublishedDashboard, PublishInput } from './dashboards.schemas';

export async function getDashboard(scope: DeploymentScope, workbookId: number) {
  return orNotFound(await repo.findDashboardState(scope, workbookId), 'Workbook');
}

/**
 * Saves the draft: `dashboardDraft` replaces it; null clears it; a body without it (or no body)
 * changes nothing and answers the current state.
 */
export async function updateDashboard(
  scope: DeploymentScope,
  workbookId: number,
  body: { dashboardDraft?: DashboardConfig | null } | undefined,
) {
  if (body?.dashboardDraft === undefined) return getDashboard(scope, workbookId);
  const state = await withStorageQuota(repo.saveDraft(scope, workbookId, body.dashboardDraft));
  if (!state) throw notFound('Workbook');
  return state;
}

/** The published answer without the internal account id. */
function presentPublished(record: repo.PublishedDashboardRecord): PublishedDashboard {
  const { accountId: _accountId, ...published } = record;
  return published;
}

export async function publishDashboard(scope: DeploymentScope, workbookId: number, input: PublishInput) {
  if (input.workbookId !== undefined && input.workbookId !== workbookId) {
    throw badRequest('`workbookId` must be the workbook of the path', [
      { path: 'workbookId', message: `Expected ${workbookId}` },
    ]);
  }
  // 22 URL-safe characters: 112 random bits and the shard, so an embed URL finds its shard; it
  // is only used when this is the first publish.
  const { check, published } = await withStorageQuota(
    repo.publish(scope, workbookId, input, newPublicId(scope.shard)),
  );
  if (!check.workbookFound) throw notFound('Workbook');
  if (!check.dashboardFound) throw notFound('Dashboard');
  if (!check.hasDraft) {
    throw badRequest(
      'The workbook has no dashboard draft to publish (save one with PUT …/dashboard, or send `config`)',
      [{ path: 'dashboardDraft', message: 'No draft' }],
    );
  }
  if (!check.draftValid) {
    throw badRequest(
      'The stored dashboard draft is outside the current limits: save it again with PUT …/dashboard',
      [{ path: 'dashboardDraft', message: 'Not publishable as stored' }],
    );
  }
  if (!published) throw new Error('publish passed its check but read no published dashboard');
  return presentPublished(published);
}

export async function listVersions(
  scope: DeploymentScope,
  workbookId: number,
  query: { first?: number; after?: string },
) {
  const tag = `dashboard-versions:${workbookId}`;
  const request = pageRequest(query, tag, 1);
  const before = request.after?.[0] ?? null;
  if (before !== null && (typeof before !== 'number' || !Number.isSafeInteger(before))) {
    throw invalidCursor();
  }
  const rows = await versionsRepo.listVersions(scope, workbookId, before, request.limit);
  if (!rows) throw notFound('Workbook');
  return toPage(rows, request, tag, (r) => [r.versionNumber], presentVersionSummary);
}

/** A version summary: `publishedAt`/`publishedBy` name what `createdAt`/`createdBy` also say. */
function presentVersionSummary(r: versionsRepo.VersionSummaryRecord) {
  return { ...r, publishedAt: r.createdAt, publishedBy: r.createdBy };
}

/** One version's full body: its config and report snapshots. */
export async function getVersion(scope: DeploymentScope, workbookId: number, versionNumber: number) {
  const { workbookFound, version } = await versionsRepo.findVersion(scope, workbookId, versionNumber);
  if (!workbookFound) throw notFound('Workbook');
  if (!version) throw notFound('Version');
  return { ...version, publishedAt: version.createdAt, publishedBy: version.createdBy };
}
