import * as v from 'valibot';
import { WORKSPACE_ITEM_TYPES } from '../../schema/workspace';
import { pageQueryEntries } from '../core/pagination';
import { boundedObject, idNumber, idString, nonEmptyString, obj } from '../core/validation';
import {
  MAX_PERIOD_COMPARISONS,
  REPORT_META_LIMITS,
  REPORT_TEXT_MAX_BYTES,
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

/** Report text (spec, SQL): bounded in UTF-8 bytes, which is what a D1 row holds. */
const reportText = v.pipe(
  v.string(),
  v.check(
    (s) => new TextEncoder().encode(s).byteLength <= REPORT_TEXT_MAX_BYTES,
    `At most ${REPORT_TEXT_MAX_BYTES} bytes (UTF-8)`,
  ),
  v.metadata({ description: `At most ${REPORT_TEXT_MAX_BYTES} bytes (UTF-8).` }),
);

export const itemTypeSchema = v.picklist(WORKSPACE_ITEM_TYPES);

// ---- Path parameters ----

export const deploymentParams = v.object({ deploymentId: idString });
export const itemParams = v.object({ deploymentId: idString, id: idString });

// ---- Bodies ----

/** An update body must change something: at least one of `fields`. */
function atLeastOne<S extends v.GenericSchema<unknown, Record<string, unknown>>>(
  schema: S,
  fields: string[],
) {
  return v.pipe(
    schema,
    v.check<v.InferOutput<S>, string>(
      (body) => fields.some((f) => (body as Record<string, unknown>)[f] !== undefined),
      `Send at least one of ${fields.join(', ')}`,
    ),
  );
}

export const createFolderBody = obj({
  name: itemName,
  parentId: v.optional(folderRef),
  position: v.optional(position),
});

export const updateFolderBody = atLeastOne(
  obj({ name: v.optional(itemName), position: v.optional(position) }),
  ['name', 'position'],
);

export const createWorkbookBody = v.optional(
  obj({
    name: v.optional(itemName),
    folderId: v.optional(folderRef),
    slug: v.optional(slugSchema),
    meta: v.optional(workbookJson),
    calculatedFields: v.optional(workbookJson),
  }),
);

export const updateWorkbookBody = atLeastOne(
  obj({
    name: v.optional(itemName),
    folderId: v.optional(folderRef),
    meta: v.optional(workbookJson),
    slug: v.optional(slugSchema),
    slugTakeover: v.optional(v.boolean()),
  }),
  ['name', 'folderId', 'meta', 'slug'],
);

const reportFields = {
  workbookId: v.optional(v.nullable(idNumber)),
  folderId: v.optional(folderRef),
  title: v.optional(v.pipe(v.string(), v.maxLength(500))),
  description: v.optional(v.pipe(v.string(), v.maxLength(10_000))),
  spec: v.optional(reportText),
  sqlQuery: v.optional(reportText),
  meta: v.optional(boundedObject(REPORT_META_LIMITS)),
  fillMissingRows: v.optional(v.nullable(fillMissingRowsSchema)),
  periodComparisons: v.optional(v.pipe(v.array(periodComparisonSchema), v.maxLength(MAX_PERIOD_COMPARISONS))),
  preferences: v.optional(preferencesSchema),
};

export const createReportBody = obj({ name: itemName, ...reportFields });

export const updateReportBody = atLeastOne(obj({ name: v.optional(itemName), ...reportFields }), [
  'name',
  ...Object.keys(reportFields),
]);

export const moveBody = obj({
  id: idNumber,
  folderId: v.optional(folderRef),
  type: v.optional(itemTypeSchema),
});

// ---- E7 query ----

/** One value, or the same parameter repeated (`types=FOLDER&types=WORKBOOK`). */
const oneOrMany = <S extends v.GenericSchema<string>>(item: S) =>
  v.pipe(
    v.union([item, v.array(item)]),
    v.transform((x) => (Array.isArray(x) ? x : [x]) as v.InferOutput<S>[]),
  );

export const listQuery = obj({
  ...pageQueryEntries,
  types: v.optional(oneOrMany(itemTypeSchema)),
  // A repeated single-valued parameter arrives as an array and fails these schemas (400).
  orderByField: v.optional(v.picklist(ORDER_FIELDS)),
  orderByDirection: v.optional(v.picklist(['ASC', 'DESC'])),
  folderId: v.optional(idString),
  search: v.optional(v.pipe(v.string(), v.maxLength(NAME_MAX), v.trim())),
});

// ---- Responses ----

const folderPathSchema = v.array(v.object({ id: v.number(), name: v.string() }));
const ownerSchema = v.nullable(
  v.object({ id: v.number(), email: v.string(), firstName: v.string(), picture: v.string() }),
);

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
};

/** The spec's workspace item (workbook-shaped); fields a type does not have are null. */
export const workspaceItemSchema = v.object({
  ...common,
  folderId: v.nullable(v.number()),
  position: v.nullable(v.number()),
  slug: v.nullable(v.string()),
  meta: v.nullable(workbookJson),
  calculatedFields: v.nullable(workbookJson),
  dashboardDraft: v.nullable(dashboardConfigSchema),
  dashboardPublished: v.nullable(dashboardConfigSchema),
  publishedDashboard: v.nullable(publishedDashboardSchema),
  workbookId: v.nullable(v.number()),
});

export const folderSchema = v.object({
  ...common,
  parentId: v.nullable(v.number()),
  position: v.number(),
});

export const reportSchema = v.object({
  ...common,
  folderId: v.nullable(v.number()),
  workbookId: v.nullable(v.number()),
  ...reportContentEntries,
});

export type WorkspaceItem = v.InferOutput<typeof workspaceItemSchema>;
export type Folder = v.InferOutput<typeof folderSchema>;
export type Report = v.InferOutput<typeof reportSchema>;
