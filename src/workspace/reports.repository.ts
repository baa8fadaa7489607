import { type SQL, sql } from 'drizzle-orm';
import type { DeploymentScope } from '../auth/deployment-scope';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';
import { deploymentOwned } from '../core/tenancy';
import { isFolderOf } from './workspace.queries';
import { itemOf, type Raw, type ReportFields, singleFrom } from './workspace.rows';
import { flagsOf, guard, guardedWrite, insertItem, type NewItem, nameSet } from './workspace.writes';

/** Reports (create, update, upsert by public id, the add-in's placement): the report detail beside its item. */

export interface ReportValues {
  workbookId?: number | null;
  title?: string;
  description?: string;
  spec?: string;
  sqlQuery?: string;
  meta?: Record<string, unknown>;
  fillMissingRows?: ReportFields['fillMissingRows'];
  periodComparisons?: unknown[];
  preferences?: ReportFields['preferences'];
  publicId?: string;
  jsonQuery?: string;
  source?: string;
  externalWorkbookId?: string;
  /** Spreadsheet add-in fields sent: merged into the stored ones. */
  addin?: Record<string, unknown>;
}

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

const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value));

export function createReport(
  db: Db,
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
    db,
    check,
    [
      insertItem(scope, item, check),
      sql`INSERT INTO reports (item_id, workbook_id, version_number, title, description, spec, sql_query, meta,
          fill_missing_rows, period_comparisons, preferences, public_id, json_query, source,
          external_workbook_id, addin)
        SELECT last_insert_rowid(), ${values.workbookId ?? null}, 1, ${values.title ?? ''},
          ${values.description ?? ''}, ${values.spec ?? ''}, ${values.sqlQuery ?? ''},
          ${JSON.stringify(values.meta ?? {})}, ${jsonOrNull(values.fillMissingRows ?? null)},
          ${JSON.stringify(values.periodComparisons ?? [])},
          ${JSON.stringify(values.preferences ?? { columnFormats: {} })}, ${values.publicId},
          ${values.jsonQuery ?? null}, ${values.source ?? null}, ${values.externalWorkbookId ?? null},
          ${values.addin ? JSON.stringify(values.addin) : null}
        FROM (${check}) c WHERE c.ok = 1`,
    ],
    itemOf(scope, sql`last_insert_rowid()`, 'REPORT'),
  );
}

export function updateReport(
  db: Db,
  scope: DeploymentScope,
  id: number,
  patch: { name?: string; folderId?: number | null; now: string },
  values: ReportValues,
) {
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
  const sets: SQL[] = contentSent ? [sql`version_number = version_number + 1`] : [];
  if (values.publicId !== undefined) sets.push(sql`public_id = ${values.publicId}`);
  if (values.jsonQuery !== undefined) sets.push(sql`json_query = ${values.jsonQuery}`);
  if (values.externalWorkbookId !== undefined)
    sets.push(sql`external_workbook_id = ${values.externalWorkbookId}`);
  if (values.addin !== undefined)
    sets.push(sql`addin = json_patch(coalesce(addin, '{}'), ${JSON.stringify(values.addin)})`);
  if (values.workbookId !== undefined) sets.push(sql`workbook_id = ${values.workbookId}`);
  if (values.title !== undefined) sets.push(sql`title = ${values.title}`);
  if (values.description !== undefined) sets.push(sql`description = ${values.description}`);
  if (values.spec !== undefined) sets.push(sql`spec = ${values.spec}`);
  if (values.sqlQuery !== undefined) sets.push(sql`sql_query = ${values.sqlQuery}`);
  if (values.meta !== undefined) sets.push(sql`meta = ${JSON.stringify(values.meta)}`);
  if (values.fillMissingRows !== undefined)
    sets.push(sql`fill_missing_rows = ${jsonOrNull(values.fillMissingRows)}`);
  if (values.periodComparisons !== undefined)
    sets.push(sql`period_comparisons = ${JSON.stringify(values.periodComparisons)}`);
  if (values.preferences !== undefined) sets.push(sql`preferences = ${JSON.stringify(values.preferences)}`);
  // An empty update (Cube: every field optional) changes nothing, not even the version.
  const sent =
    patch.name !== undefined ||
    patch.folderId !== undefined ||
    Object.values(values).some((x) => x !== undefined);
  const writes = sent
    ? [
        sql`UPDATE workspace_items SET
          ${patch.name === undefined ? sql`` : nameSet(patch.name)}
          ${patch.folderId === undefined ? sql`` : sql`folder_id = ${patch.folderId},`}
          updated_at = ${patch.now}, updated_by = ${scope.userId}
        WHERE id = ${id} AND ${guard(check)}`,
        ...(sets.length > 0
          ? [sql`UPDATE reports SET ${sql.join(sets, sql`, `)} WHERE item_id = ${id} AND ${guard(check)}`]
          : []),
      ]
    : [];
  return guardedWrite(db, check, writes, itemOf(scope, id, 'REPORT'));
}

/**
 * The spreadsheet add-in's placement of a report (Cube's connect/disconnect/refresh): sets
 * `externalWorkbookId` (undefined: unchanged) and merges `addin` (a key set to null is removed),
 * without touching the report's content, version or `updatedAt`. With `onlyFor`, only when the
 * report is placed in that spreadsheet. Null when the report is not the deployment's.
 */
export async function placeReport(
  db: Db,
  scope: DeploymentScope,
  id: number,
  placement: { externalWorkbookId?: string | null; addin: Record<string, unknown>; onlyFor?: string },
) {
  const sets: SQL[] = [sql`addin = json_patch(coalesce(addin, '{}'), ${JSON.stringify(placement.addin)})`];
  if (placement.externalWorkbookId !== undefined) {
    sets.push(sql`external_workbook_id = ${placement.externalWorkbookId}`);
  }
  const [, read] = await runBatch<Raw>(db, [
    sql`UPDATE reports SET ${sql.join(sets, sql`, `)}
      WHERE item_id = ${id}
        AND EXISTS (SELECT 1 FROM workspace_items WHERE id = ${id} AND deployment_id = ${scope.deploymentId} AND type = 'REPORT')
        AND ${deploymentOwned(scope.deploymentId, scope.accountId)}
        ${placement.onlyFor === undefined ? sql`` : sql`AND external_workbook_id = ${placement.onlyFor}`}`,
    itemOf(scope, id, 'REPORT'),
  ]);
  return singleFrom(read);
}

/** Which report of the deployment holds `publicId`, and whether another deployment's does. */
export async function reportByPublicId(db: Db, scope: DeploymentScope, publicId: string) {
  const [row] = await db.all<Raw>(sql`SELECT d.id AS deployment_ok,
      (SELECT r.item_id FROM reports r JOIN workspace_items i ON i.id = r.item_id
        WHERE r.public_id = ${publicId} AND i.deployment_id = d.id) AS id,
      EXISTS (SELECT 1 FROM reports r JOIN workspace_items i ON i.id = r.item_id
        WHERE r.public_id = ${publicId} AND i.deployment_id <> d.id) AS other
    FROM deployments d WHERE d.id = ${scope.deploymentId} AND d.account_id = ${scope.accountId}`);
  return {
    deploymentFound: row !== undefined,
    id: row?.id == null ? null : Number(row.id),
    otherDeployment: row?.other === 1,
  };
}
