import type { WorkspaceItemType } from '../../schema/workspace';
import type { Report } from './reports.schemas';
import type { ItemRecord, ReportFields } from './workspace.rows';
import type { Folder, WorkspaceItem } from './workspace.schemas';

/** Workspace items as answered: one stored record, three shapes (Cube's item, folder and report). */

/** How each kind of item is named in messages and operationIds. */
export const LABEL: Record<WorkspaceItemType, string> = {
  FOLDER: 'Folder',
  WORKBOOK: 'Workbook',
  REPORT: 'Report',
};

function common(rec: ItemRecord) {
  return {
    id: rec.id,
    type: rec.type,
    deploymentId: rec.deploymentId,
    name: rec.name,
    folderPath: rec.folderPath,
    createdAt: rec.createdAt,
    updatedAt: rec.updatedAt,
    // Cube's `createdBy` is an integer when present: left out once the creator is deleted.
    ...(rec.createdBy === null ? {} : { createdBy: rec.createdBy }),
    updatedBy: rec.updatedBy,
    userId: rec.createdBy,
    user: rec.owner,
    isFavorite: rec.isFavorite,
    viewerLastViewedAt: rec.viewerLastViewedAt,
  };
}

/** A workspace item as answered (Cube's Workbook shape). Fields that do not apply to the item's type are null. */
export function presentItem(rec: ItemRecord): WorkspaceItem {
  const published = rec.published as WorkspaceItem['publishedDashboard'];
  return {
    ...common(rec),
    folderId: rec.folderId,
    position: rec.type === 'FOLDER' ? rec.position : null,
    slug: rec.workbook?.slug ?? null,
    meta: rec.workbook?.meta ?? rec.report?.meta ?? {},
    calculatedFields: rec.workbook?.calculatedFields ?? {},
    dashboardDraft: (rec.workbook?.dashboardDraft ?? null) as WorkspaceItem['dashboardDraft'],
    dashboardPublished: published?.config ?? null,
    // A `status` the dashboards' own shape carries wins.
    publishedDashboard: published ? { ...published, status: published.status ?? 'published' } : null,
    workbookId: rec.report?.workbookId ?? null,
  };
}

export function presentFolder(rec: ItemRecord): Folder {
  return { ...common(rec), meta: {}, calculatedFields: {}, parentId: rec.folderId, position: rec.position };
}

/** Cube requires a report's owner: a deleted creator reads as user 0. */
const NO_OWNER = { id: 0, email: '', firstName: '', picture: '' };

const addinText = (x: unknown): string | null => (typeof x === 'string' ? x : null);

export function presentReport(rec: ItemRecord): Report {
  const { publicId, jsonQuery, source, externalWorkbookId, addin, ...report } = rec.report as ReportFields;
  const owner = rec.owner ?? NO_OWNER;
  return {
    ...common(rec),
    userId: rec.createdBy ?? 0,
    user: owner,
    // edgeboard runs no report refreshes: the creator stands for the last refresher.
    refreshedByUser: owner,
    refreshedBy: rec.createdBy,
    folderId: rec.folderId,
    ...report,
    calculatedFields: {},
    periodComparisons: report.periodComparisons as Report['periodComparisons'],
    version: report.versionNumber,
    publicId,
    jsonQuery,
    source: source as Report['source'],
    externalWorkbookId,
    pivotItems: (addin.pivotItems ?? null) as Report['pivotItems'],
    resultLocation: addinText(addin.resultLocation),
    endResultCell: addinText(addin.endResultCell),
  };
}
