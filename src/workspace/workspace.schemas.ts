import * as v from 'valibot';
import { WORKSPACE_ITEM_TYPES } from '../../schema/workspace';
import { type Page, pageQueryEntries, pageSchema } from '../core/pagination';
import { boundedObject, idNumber, idString, nonEmptyString, obj } from '../core/validation';
import { dashboardConfigSchema } from '../dashboards/dashboard-config.schemas';
import { WORKBOOK_JSON_LIMITS } from '../dashboards/dashboards.limits';
import { publishedDashboardSchema } from '../dashboards/dashboards.schemas';
import { ORDER_FIELDS } from './workspace-list.repository';

export const NAME_MAX = 255;
export const SLUG_MAX = 100;

export const itemName = nonEmptyString(NAME_MAX);
const position = v.pipe(
  v.number(),
  v.integer('Expected an integer'),
  v.minValue(0),
  v.maxValue(1_000_000_000),
);
/** A folder id, or null for the root. */
export const folderRef = v.nullable(idNumber);

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
export const opt = <S extends v.GenericSchema>(schema: S) => v.optional(v.nullable(schema));

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
export const searchParam = v.optional(
  v.pipe(
    v.string(),
    v.maxLength(NAME_MAX),
    v.check((s) => !hasControl(s), 'Expected no control characters'),
    v.trim(),
  ),
);

/** A folder id in a query string where Cube allows 0: 0 is the root. */
export const folderQueryId = v.pipe(
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

export const slugParams = v.object({
  deploymentId: idString,
  slug: v.pipe(v.string(), v.maxLength(SLUG_MAX * 2)),
});
// ---- Responses ----

const folderPathSchema = v.array(v.object({ id: v.number(), name: v.string() }));
export const ownerObject = v.object({
  id: v.number(),
  email: v.string(),
  firstName: v.string(),
  picture: v.string(),
});
const ownerSchema = v.nullable(ownerObject);

export const common = {
  id: v.number(),
  type: itemTypeSchema,
  deploymentId: v.number(),
  name: v.string(),
  folderPath: folderPathSchema,
  createdAt: v.string(),
  updatedAt: v.string(),
  /**
   * Left out once the creator is deleted (and on shared-workspace items): Cube types it an
   * integer that is not required, so a client sees no author rather than a null it refuses.
   */
  createdBy: v.optional(v.number()),
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
export type BulkFailure = v.InferOutput<typeof failureSchema>;
