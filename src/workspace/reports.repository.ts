import { and, eq, exists, type SQL, sql } from 'drizzle-orm';
import { deployments } from '../../schema/deployments';
import { reports, workspaceItems } from '../../schema/workspace';
import { runBatch, type Statement } from '../core/db';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';
import { isFolderOf } from './workspace.queries';
import { itemOf, type Raw, singleFrom } from './workspace.rows';
import {
  bound,
  flagsOf,
  guard,
  guardedItemUpdate,
  guardedWrite,
  insertItem,
  itemIs,
  type NewItem,
} from './workspace.writes';

/** Reports (create, update, upsert by public id, the add-in's placement): the report detail beside its item. */

type ReportInsert = typeof reports.$inferInsert;

/**
 * A report's columns as sent: null only where it means something (`workbookId`: detached,
 * `fillMissingRows`: cleared). The add-in fields sent (`addin`) are merged into the stored ones.
 */
export type ReportValues = {
  [K in Exclude<keyof ReportInsert, 'itemId' | 'versionNumber'>]?: K extends 'workbookId' | 'fillMissingRows'
    ? ReportInsert[K]
    : NonNullable<ReportInsert[K]>;
};

/** The add-in fields sent merged into the stored ones (RFC 7396: a key set to null is removed). */
const mergedAddin = (addin: NonNullable<ReportValues['addin']>): SQL =>
  sql`json_patch(coalesce(${reports.addin}, '{}'), ${bound(reports.addin, addin)})`;

/** The report fields a published snapshot freezes (with the item's name): they move the version. */
const SNAPSHOT_FIELDS = [
  'title',
  'description',
  'spec',
  'sqlQuery',
  'jsonQuery',
  'meta',
  'fillMissingRows',
  'periodComparisons',
  'preferences',
] as const satisfies readonly (keyof ReportValues)[];

/** Who holds a public id, anywhere (ids are unique across accounts). */
const publicIdTaken = (publicId: string | undefined, except: number | null): SQL =>
  publicId === undefined
    ? sql`0`
    : sql`EXISTS (SELECT 1 FROM reports WHERE public_id = ${publicId}
        ${except === null ? sql`` : sql`AND item_id <> ${except}`})`;

const isWorkbookOf = (workbookId: number | null | undefined, deploymentId: number): SQL =>
  workbookId == null
    ? sql`1`
    : sql`EXISTS (SELECT 1 FROM workspace_items WHERE id = ${workbookId} AND deployment_id = ${deploymentId} AND type = 'WORKBOOK')`;

/** A guarded write: INSERT … SELECT from its check (see insertItem), hand-written. */
export function createReport(
  scope: DeploymentScope,
  item: NewItem,
  values: ReportValues & { publicId: string },
) {
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      ${isFolderOf(item.folderId, scope.deploymentId)} AS folder_ok,
      ${isWorkbookOf(values.workbookId, scope.deploymentId)} AS workbook_ok,
      ${publicIdTaken(values.publicId, null)} AS public_id_taken`,
    'deployment_ok AND folder_ok AND workbook_ok AND NOT public_id_taken',
  );
  return guardedWrite(
    scope.db,
    check,
    [
      insertItem(scope, item, check),
      sql`INSERT INTO reports (item_id, workbook_id, version_number, title, description, spec, sql_query, meta,
          fill_missing_rows, period_comparisons, preferences, public_id, json_query, source,
          external_workbook_id, addin)
        SELECT last_insert_rowid(), ${values.workbookId ?? null}, 1, ${values.title ?? ''},
          ${values.description ?? ''}, ${values.spec ?? ''}, ${values.sqlQuery ?? ''},
          ${bound(reports.meta, values.meta ?? {})}, ${bound(reports.fillMissingRows, values.fillMissingRows ?? null)},
          ${bound(reports.periodComparisons, values.periodComparisons ?? [])},
          ${bound(reports.preferences, values.preferences ?? { columnFormats: {} })}, ${values.publicId},
          ${values.jsonQuery ?? null}, ${values.source ?? null}, ${values.externalWorkbookId ?? null},
          ${bound(reports.addin, values.addin ?? null)}
        FROM (${check}) c WHERE c.ok = 1`,
    ],
    itemOf(scope, sql`last_insert_rowid()`, 'REPORT'),
  );
}

/** A guarded write: the check is hand-written SQL, the writes are guarded by it. */
export function updateReport(
  scope: DeploymentScope,
  id: number,
  patch: { name?: string; folderId?: number | null },
  values: ReportValues,
) {
  const { db } = scope;
  const folderId = patch.folderId === undefined ? null : patch.folderId;
  const check = flagsOf(
    sql`${deploymentOwned(scope.deploymentId, scope.accountId)} AS deployment_ok,
      EXISTS (SELECT 1 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId}
        AND type = 'REPORT') AS found,
      ${isFolderOf(folderId, scope.deploymentId)} AS folder_ok,
      ${isWorkbookOf(values.workbookId, scope.deploymentId)} AS workbook_ok,
      ${values.publicId === undefined ? sql`1` : sql`coalesce((SELECT public_id FROM reports WHERE item_id = ${id}), ${values.publicId}) = ${values.publicId}`} AS public_id_kept,
      ${publicIdTaken(values.publicId, id)} AS public_id_taken`,
    'deployment_ok AND found AND folder_ok AND workbook_ok AND public_id_kept AND NOT public_id_taken',
  );
  // The version moves with what a publish freezes (name, content and query), and only then:
  // publishes store one copy of each version, so a move of the placement must not add one.
  const contentSent =
    patch.name !== undefined || SNAPSHOT_FIELDS.some((field) => values[field] !== undefined);
  // An empty update (Cube: every field optional) changes nothing, not even the version.
  const sent =
    patch.name !== undefined ||
    patch.folderId !== undefined ||
    Object.values(values).some((x) => x !== undefined);
  const writes: Statement[] = [];
  if (sent) {
    writes.push(guardedItemUpdate(scope, id, check, patch));
    // `source` is create-only.
    const { addin, source: _createOnly, ...columns } = values;
    const set = {
      ...columns,
      versionNumber: contentSent ? sql`${reports.versionNumber} + 1` : undefined,
      addin: addin === undefined ? undefined : mergedAddin(addin),
    };
    if (Object.values(set).some((x) => x !== undefined)) {
      writes.push(
        db
          .update(reports)
          .set(set)
          .where(and(eq(reports.itemId, id), guard(check))),
      );
    }
  }
  return guardedWrite(db, check, writes, itemOf(scope, id, 'REPORT'));
}

/**
 * The spreadsheet add-in's placement of a report (Cube's connect/disconnect/refresh): sets
 * `externalWorkbookId` (undefined: unchanged) and merges `addin` (a key set to null is removed),
 * without touching the report's content, version or `updatedAt`. With `onlyFor`, only when the
 * report is placed in that spreadsheet. Null when the report is not the deployment's.
 */
export async function placeReport(
  scope: DeploymentScope,
  id: number,
  placement: { externalWorkbookId?: string | null; addin: Record<string, unknown>; onlyFor?: string },
) {
  const { db } = scope;
  const place = db
    .update(reports)
    .set({ addin: mergedAddin(placement.addin), externalWorkbookId: placement.externalWorkbookId })
    .where(
      and(
        eq(reports.itemId, id),
        exists(
          db
            .select({ id: workspaceItems.id })
            .from(workspaceItems)
            .where(itemIs(scope, id, 'REPORT')),
        ),
        deploymentOwned(scope.deploymentId, scope.accountId),
        placement.onlyFor === undefined ? undefined : eq(reports.externalWorkbookId, placement.onlyFor),
      ),
    );
  const [, read] = await runBatch<Raw>(db, [place, itemOf(scope, id, 'REPORT')]);
  return singleFrom(read);
}

/** Which report of the deployment holds `publicId`, and whether another deployment's does. */
export async function reportByPublicId(scope: DeploymentScope, publicId: string) {
  // A public id is unique across deployments: at most one report joins.
  const [row] = await scope.db
    .select({ id: reports.itemId, deploymentId: workspaceItems.deploymentId })
    .from(deployments)
    .leftJoin(reports, eq(reports.publicId, publicId))
    .leftJoin(workspaceItems, eq(workspaceItems.id, reports.itemId))
    .where(and(eq(deployments.id, scope.deploymentId), eq(deployments.accountId, scope.accountId)));
  const here = row?.id != null && row.deploymentId === scope.deploymentId;
  return {
    deploymentFound: row !== undefined,
    id: here ? row.id : null,
    otherDeployment: row?.id != null && !here,
  };
}
