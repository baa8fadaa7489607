import * as v from 'valibot';
import { WORKSPACE_ITEM_TYPES } from '../../schema/workspace';
import { type JsonLimits, jsonBounds, jsonBoundsDoc } from '../core/json';
import { type Page, pageQueryEntries, pageSchema } from '../core/pagination';
import { boundedObject, idNumber, idString, integerString, nonEmptyString, obj } from '../core/validation';
import {
  MAX_PERIOD_COMPARISONS,
  PIVOT_ITEMS_LIMITS,
  REPORT_META_LIMITS,
  REPORT_TEXT_MAX_BYTES,
  RESULT_CHECKSUM_LIMITS,
  WORKBOOK_JSON_LIMITS,
} from '../dashboards/dashboards.limits';
import {
  dashboardConfigSchema,
  fillMissingRowsSchema,
  periodComparisonSchema,
  preferencesSchema,
  publishedDashboardSchema,
  reportContentEntries,
} from '../dashboards/dashboards.schemas';
import { ORDER_FIELDS } from './workspace-list.repository';

export const NAME_MAX = 255;
export const SLUG_MAX = 100;

const itemName = nonEmptyString(NAME_MAX);
const position = v.pipe(
  v.number(),
  v.integer('Expected an integer'),
  v.minValue(0),
  v.maxValue(1_000_000_000),
);
/** A folder id, or null for the root. */
const folderRef = v.nullable(idNumber);

export const slugSchema = v.pipe(
  v.string(),
  v.minLength(1, 'Must not be empty'),
  v.maxLength(SLUG_MAX),
  v.regex(/^[a-z0-9-]+$/, 'Only lowercase letters a-z, digits 0-9 and "-"'),
);

/** A workbook's `meta` or `calculatedFields`. */
const workbookJson = boundedObject(WORKBOOK_JSON_LIMITS);

export const itemTypeSchema = v.picklist(WORKSPACE_ITEM_TYPES);

// ---- Path parameters ----

export const deploymentParams = v.object({ deploymentId: idString });
export const itemParams = v.object({ deploymentId: idString, id: idString });

// ---- Bodies ----

/** Cube makes almost every optional field nullable: `null` means "not sent". */
const opt = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));

export const createFolderBody = obj({
  name: itemName,
  parentId: v.optional(folderRef),
  position: opt(position),
});

/** Nothing is required (Cube): an empty body changes nothing and answers the folder. */
export const updateFolderBody = v.optional(obj({ name: opt(itemName), position: opt(position) }));

const workbookFields = {
  name: opt(itemName),
  folderId: v.optional(folderRef),
  meta: opt(workbookJson),
};

export const createWorkbookBody = v.optional(
  obj({
    ...workbookFields,
    slug: opt(slugSchema),
    calculatedFields: opt(workbookJson),
  }),
);

/** Cube's upsert-by-slug body (its CreateWorkbookInput): `meta` is merged into the stored one. */
export const upsertWorkbookBody = v.optional(obj(workbookFields));

/** Nothing is required (Cube): an empty body changes nothing and answers the workbook. */
export const updateWorkbookBody = v.optional(
  obj({
    ...workbookFields,
    slug: opt(slugSchema),
    slugTakeover: opt(v.boolean()),
  }),
);

/** Cube's DuplicateWorkbookInput. */
export const duplicateWorkbookBody = v.optional(obj({ shared: opt(v.boolean()) }));

export const REPORT_SOURCES = ['GOOGLE_SHEETS', 'EXCEL', 'PLAYGROUND', 'D3'] as const;
export const REPORT_HOSTS = ['GOOGLE_SHEETS', 'EXCEL'] as const;
/** Bytes (UTF-8) of a report's `jsonQuery`. */
export const JSON_QUERY_MAX_BYTES = 64 * 1024;
/** Characters of each spreadsheet add-in string (`sheetId`, `resultLocation`, …). */
export const ADDIN_TEXT_MAX = 255;
export const MAX_PIVOT_MEMBERS = 200;
export const MAX_CHECKSUM_CHUNKS = 2000;

const utf8Bounded = (max: number) =>
  v.pipe(
    v.string(),
    v.check((s) => new TextEncoder().encode(s).byteLength <= max, `At most ${max} bytes (UTF-8)`),
    v.metadata({ description: `At most ${max} bytes (UTF-8).` }),
  );

/** Report text (spec, SQL): bounded in UTF-8 bytes, which is what a D1 row holds. */
const reportText = utf8Bounded(REPORT_TEXT_MAX_BYTES);

export const publicIdSchema = v.pipe(
  v.string(),
  v.regex(/^[0-9A-Za-z]{12}$/, 'Expected 12 characters of 0-9, A-Z, a-z'),
);

const addinText = v.pipe(v.string(), v.maxLength(ADDIN_TEXT_MAX));
const members = v.pipe(v.array(v.pipe(v.string(), v.maxLength(NAME_MAX))), v.maxLength(MAX_PIVOT_MEMBERS));

/**
 * A strict object whose whole JSON also keeps `limits`: each member is bounded, and so is the sum
 * (control characters grow sixfold as JSON, and the row must stay under D1's limit).
 */
const within = <E extends v.ObjectEntries>(limits: JsonLimits, entries: E) =>
  v.pipe(
    obj(entries),
    jsonBounds<v.InferOutput<ReturnType<typeof obj<E>>>>(limits),
    v.metadata(jsonBoundsDoc(limits)),
  );

/** Cube's PivotItems: how the spreadsheet add-in lays a result out (stored, no effect here). */
export const pivotItemsSchema = within(PIVOT_ITEMS_LIMITS, {
  columns: members,
  measures: members,
  rows: members,
  filters: members,
  displayScale: opt(v.picklist(['model', 'absolute', 'thousands', 'millions', 'billions'])),
  measuresAxis: opt(v.picklist(['columns', 'rows'])),
  measuresPosition: opt(v.picklist(['before', 'after'])),
  showAppliedFilters: opt(v.boolean()),
  showColumnTotals: opt(v.boolean()),
  showRowTotals: opt(v.boolean()),
});

const resultChecksumSchema = within(RESULT_CHECKSUM_LIMITS, {
  v: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
  chunks: v.pipe(
    v.array(
      obj({
        from: v.pipe(v.number(), v.integer(), v.minValue(0), v.safeInteger()),
        hash: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
        to: opt(v.pipe(v.number(), v.integer(), v.minValue(0), v.safeInteger())),
      }),
    ),
    v.maxLength(MAX_CHECKSUM_CHUNKS),
  ),
});

/** The spreadsheet add-in fields of Cube's report inputs: stored as sent, no effect here. */
export const addinEntries = {
  host: opt(v.picklist(REPORT_HOSTS)),
  workbookName: opt(addinText),
  sheetId: opt(addinText),
  resultLocation: opt(addinText),
  endResultCell: opt(addinText),
  resultChecksum: opt(resultChecksumSchema),
};

/** Where the spreadsheet add-in placed a report (connect, disconnect, refresh). */
export const placementEntries = {
  anchorCell: opt(addinText),
  sheetName: opt(addinText),
  placementId: opt(addinText),
  ...addinEntries,
};

/** Cube's ConnectReportToWorkbookInput. */
export const connectReportBody = obj({
  addressOnly: opt(v.boolean()),
  ...placementEntries,
  externalWorkbookId: addinText,
  resultLocation: addinText,
});

/** Cube's DisconnectReportFromWorkbookInput and RefreshReportInput (nothing required). */
export const placementBody = v.optional(obj({ externalWorkbookId: opt(addinText), ...placementEntries }));

const reportFields = {
  workbookId: v.optional(v.nullable(idNumber)),
  folderId: v.optional(folderRef),
  // Cube bounds `title` at 255 characters; edgeboard's 500 is kept (a superset).
  title: opt(v.pipe(v.string(), v.maxLength(500))),
  // edgeboard's own fields (not in Cube's inputs) keep refusing null.
  description: v.optional(v.pipe(v.string(), v.maxLength(10_000))),
  spec: v.optional(reportText),
  sqlQuery: opt(reportText),
  jsonQuery: opt(utf8Bounded(JSON_QUERY_MAX_BYTES)),
  meta: opt(boundedObject(REPORT_META_LIMITS)),
  fillMissingRows: v.optional(v.nullable(fillMissingRowsSchema)),
  periodComparisons: v.optional(v.pipe(v.array(periodComparisonSchema), v.maxLength(MAX_PERIOD_COMPARISONS))),
  preferences: v.optional(preferencesSchema),
  publicId: opt(publicIdSchema),
  externalWorkbookId: opt(addinText),
  pivotItems: opt(pivotItemsSchema),
  ...addinEntries,
};

/** Cube's CreateReportInput (also the body of upsert-by-public-id): nothing is required. */
export const createReportBody = v.optional(
  obj({ name: opt(itemName), source: opt(v.picklist(REPORT_SOURCES)), ...reportFields }),
);

/** Cube's UpdateReportInput: nothing is required; `source` is create-only. */
export const updateReportBody = v.optional(
  obj({
    name: opt(itemName),
    ...reportFields,
    placementId: opt(addinText),
  }),
);

export const moveBody = obj({
  id: idNumber,
  folderId: v.optional(folderRef),
  type: v.optional(itemTypeSchema),
});

/** Items per bulk move or bulk delete (Cube: 1–100). */
export const MAX_BULK_ITEMS = 100;

const itemRef = obj({ type: itemTypeSchema, id: idNumber });
const itemRefs = v.pipe(
  v.array(itemRef),
  v.minLength(1, 'Send at least one item'),
  v.maxLength(MAX_BULK_ITEMS, `At most ${MAX_BULK_ITEMS} items per call`),
);

export const bulkMoveBody = obj({ items: itemRefs, folderId: v.optional(folderRef) });
export const bulkDeleteBody = obj({ items: itemRefs });

// ---- Queries ----

/** One value, or the same parameter repeated (`types=FOLDER&types=WORKBOOK`). */
const oneOrMany = <S extends v.GenericSchema<string>>(item: S) =>
  v.pipe(
    v.union([item, v.array(item)]),
    v.transform((x) => (Array.isArray(x) ? x : [x]) as v.InferOutput<S>[]),
  );

/** A control character (U+0000–U+001F, U+007F): the full-text index cannot take one in a query. */
const hasControl = (s: string) => [...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
const searchParam = v.optional(
  v.pipe(
    v.string(),
    v.maxLength(NAME_MAX),
    v.check((s) => !hasControl(s), 'Expected no control characters'),
    v.trim(),
  ),
);

/** A folder id in a query string where Cube allows 0: 0 is the root. */
const folderQueryId = v.pipe(
  v.string(),
  v.regex(/^\d{1,15}$/, 'Expected a folder id (0: the root)'),
  v.transform(Number),
);

/** The workspace list's parameters (Cube's workspaceObjects; the shared workspace takes them too). */
export const listQueryEntries = {
  ...pageQueryEntries,
  types: v.optional(oneOrMany(itemTypeSchema)),
  // A repeated single-valued parameter arrives as an array and fails these schemas (400).
  orderByField: v.optional(v.picklist(ORDER_FIELDS)),
  orderByDirection: v.optional(v.picklist(['ASC', 'DESC'])),
  folderId: v.optional(folderQueryId),
  search: searchParam,
};

export const listQuery = obj(listQueryEntries);

/** GET …/folders: `parentId` omitted or 0 lists the root level. */
export const foldersQuery = obj({ ...pageQueryEntries, parentId: v.optional(folderQueryId) });

/** GET …/workbooks: `folderId` omitted lists every workbook; 0 the root level. */
export const workbooksQuery = obj({ ...pageQueryEntries, folderId: v.optional(folderQueryId) });

export const REPORT_SORT_FIELDS = ['name', 'createdAt', 'updatedAt', 'lastViewedAt'] as const;

/** GET …/reports, Cube's GetReports query. */
export const reportsQuery = obj({
  ...pageQueryEntries,
  workbookId: v.optional(idString),
  folderId: v.optional(folderQueryId),
  externalWorkbookId: v.optional(v.pipe(v.string(), v.maxLength(ADDIN_TEXT_MAX))),
  search: searchParam,
  sortBy: v.optional(v.picklist(REPORT_SORT_FIELDS)),
  sortDirection: v.optional(v.picklist(['ASC', 'DESC'])),
  // Cube's legacy page-number pagination: `limit` is `first`; only the first page is served.
  limit: pageQueryEntries.first,
  page: v.optional(integerString(1, 1, 'Only page 1: use `after` (pageInfo.endCursor) for the next pages')),
});

export const slugParams = v.object({
  deploymentId: idString,
  slug: v.pipe(v.string(), v.maxLength(SLUG_MAX * 2)),
});
export const publicIdParams = v.object({ deploymentId: idString, publicId: publicIdSchema });

// ---- Responses ----

const folderPathSchema = v.array(v.object({ id: v.number(), name: v.string() }));
const ownerObject = v.object({
  id: v.number(),
  email: v.string(),
  firstName: v.string(),
  picture: v.string(),
});
const ownerSchema = v.nullable(ownerObject);

const common = {
  id: v.number(),
  type: itemTypeSchema,
  deploymentId: v.number(),
  name: v.string(),
  folderPath: folderPathSchema,
  createdAt: v.string(),
  updatedAt: v.string(),
  createdBy: v.nullable(v.number()),
  updatedBy: v.nullable(v.number()),
  userId: v.nullable(v.number()),
  user: ownerSchema,
  isFavorite: v.boolean(),
  viewerLastViewedAt: v.nullable(v.string()),
  // Cube marks both required objects on every item; `{}` where the type has none.
  meta: workbookJson,
  calculatedFields: workbookJson,
};

/** A workspace item as answered (Cube's Workbook shape); fields a type does not have are null. */
export const workspaceItemSchema = v.object({
  ...common,
  folderId: v.nullable(v.number()),
  position: v.nullable(v.number()),
  slug: v.nullable(v.string()),
  dashboardDraft: v.nullable(dashboardConfigSchema),
  dashboardPublished: v.nullable(dashboardConfigSchema),
  // Cube's Dashboard requires `status`; a workbook's published dashboard is `published`.
  publishedDashboard: v.nullable(
    v.object({ ...publishedDashboardSchema.entries, status: v.picklist(['draft', 'published', 'archived']) }),
  ),
  workbookId: v.nullable(v.number()),
});

export const folderSchema = v.object({
  ...common,
  parentId: v.nullable(v.number()),
  position: v.number(),
});

export const reportSchema = v.object({
  ...common,
  // Cube requires these non-null: a deleted creator reads as user 0 with empty fields.
  userId: v.number(),
  user: ownerObject,
  refreshedByUser: ownerObject,
  refreshedBy: v.nullable(v.number()),
  folderId: v.nullable(v.number()),
  workbookId: v.nullable(v.number()),
  ...reportContentEntries,
  meta: boundedObject(REPORT_META_LIMITS),
  version: v.number(),
  publicId: v.string(),
  jsonQuery: v.nullable(v.string()),
  source: v.nullable(v.picklist(REPORT_SOURCES)),
  externalWorkbookId: v.nullable(v.string()),
  pivotItems: v.nullable(pivotItemsSchema),
  resultLocation: v.nullable(v.string()),
  endResultCell: v.nullable(v.string()),
});

/** Cube's list envelope: `items`, the deprecated `data` (the same items) and `pageInfo`. */
export function cubeListSchema<S extends v.GenericSchema>(item: S) {
  const page = pageSchema(item);
  return v.object({ ...page.entries, data: v.array(item) });
}

/** `{items, pageInfo}` as Cube's list envelope, with the deprecated `data` array Cube requires. */
export function cubeList<T>(page: Page<T>): Page<T> & { data: T[] } {
  return { items: page.items, data: page.items, pageInfo: page.pageInfo };
}

const failureSchema = v.object({
  type: itemTypeSchema,
  id: v.number(),
  error: v.object({ status: v.number(), message: v.string() }),
});

export const bulkMoveResponse = v.object({
  moved: v.array(workspaceItemSchema),
  failed: v.array(failureSchema),
});
export const bulkDeleteResponse = v.object({
  deleted: v.array(v.object({ type: itemTypeSchema, id: v.number() })),
  failed: v.array(failureSchema),
});

export type WorkspaceItem = v.InferOutput<typeof workspaceItemSchema>;
export type Folder = v.InferOutput<typeof folderSchema>;
export type Report = v.InferOutput<typeof reportSchema>;
export type BulkFailure = v.InferOutput<typeof failureSchema>;
