import * as v from 'valibot';
import { type JsonLimits, jsonBounds, jsonBoundsDoc } from '../core/json';
import { pageQueryEntries } from '../core/pagination';
import { boundedObject, idNumber, idString, integerString, obj } from '../core/validation';
import {
  MAX_PERIOD_COMPARISONS,
  PIVOT_ITEMS_LIMITS,
  REPORT_META_LIMITS,
  REPORT_TEXT_MAX_BYTES,
  RESULT_CHECKSUM_LIMITS,
} from '../dashboards/dashboards.limits';
import {
  fillMissingRowsSchema,
  periodComparisonSchema,
  preferencesSchema,
  reportContentEntries,
} from '../dashboards/dashboards.schemas';
import {
  common,
  folderQueryId,
  folderRef,
  itemName,
  NAME_MAX,
  opt,
  ownerObject,
  searchParam,
} from './workspace.schemas';

/**
 * A report's schemas beside the workspace item's: its bodies (with the spreadsheet add-in's
 * fields, stored as sent), its list query and its answer.
 */

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

// ---- Queries and path parameters ----

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

export const publicIdParams = v.object({ deploymentId: idString, publicId: publicIdSchema });

// ---- Responses ----

export const reportSchema = v.object({
  ...common,
  // Cube requires these non-null: a deleted creator reads as user 0 with empty fields (the row
  // keeps no id once its author goes, and 0 is no user's id).
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

export type Report = v.InferOutput<typeof reportSchema>;
