import {
  type AnySQLiteColumn,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import { users } from './accounts';
import { deployments } from './deployments';

export const WORKSPACE_ITEM_TYPES = ['FOLDER', 'WORKBOOK', 'REPORT'] as const;
export type WorkspaceItemType = (typeof WORKSPACE_ITEM_TYPES)[number];

/**
 * Every folder, workbook and report of a deployment. One table with one id sequence, so ids
 * are unique across the three types (a move names any item by id) and the workspace list
 * pages over one set of indexes.
 */
export const workspaceItems = sqliteTable(
  'workspace_items',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    type: text({ enum: WORKSPACE_ITEM_TYPES }).notNull(),
    name: text().notNull(),
    /** lower(name): the case-insensitive sort key and search haystack of the workspace list. */
    nameKey: text().notNull(),
    /**
     * The 1- and 2-character grams of `nameKey` as FTS tokens (`g` + hex of the UTF-8 bytes): the
     * haystack of 1–2 character workspace searches, which a trigram index cannot answer. Written with the
     * name; indexed by `workspace_items_grams` (FTS5, kept in sync by triggers).
     */
    nameGrams: text().notNull().default(''),
    /**
     * The containing folder; null is the root. "No action" (checked at the end of the
     * statement) rather than cascade: a folder is only deleted once it is empty (deleteFolder), and a
     * deployment's cascade removes parents and children in the same statement.
     */
    folderId: integer().references((): AnySQLiteColumn => workspaceItems.id),
    /** A folder's position among its siblings (set on create and update); 0 for workbooks and reports. */
    position: integer().notNull().default(0),
    createdBy: integer().references(() => users.id, { onDelete: 'set null' }),
    updatedBy: integer().references(() => users.id, { onDelete: 'set null' }),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    // The workspace list within one folder (or the root): equality on (deployment, folder, type), then the
    // requested order with id as tie-breaker. One index per sort field, each walked either way.
    index('workspace_items_folder_updated_idx').on(t.deploymentId, t.folderId, t.type, t.updatedAt, t.id),
    index('workspace_items_folder_created_idx').on(t.deploymentId, t.folderId, t.type, t.createdAt, t.id),
    index('workspace_items_folder_name_idx').on(t.deploymentId, t.folderId, t.type, t.nameKey, t.id),
    // Items the caller never viewed sort by id alone (viewer_last_viewed_at).
    index('workspace_items_folder_id_idx').on(t.deploymentId, t.folderId, t.type, t.id),
    // The workspace list's `search` spans every folder: the same orders without the folder column.
    index('workspace_items_all_updated_idx').on(t.deploymentId, t.type, t.updatedAt, t.id),
    index('workspace_items_all_created_idx').on(t.deploymentId, t.type, t.createdAt, t.id),
    index('workspace_items_all_name_idx').on(t.deploymentId, t.type, t.nameKey, t.id),
    index('workspace_items_all_id_idx').on(t.deploymentId, t.type, t.id),
    // Children of a folder (sub-folder checks, deleting a folder, and the foreign key's own lookups).
    index('workspace_items_parent_idx').on(t.folderId, t.type),
    // Foreign keys' own lookups (a user's deletion sets these to null).
    index('workspace_items_created_by_idx').on(t.createdBy),
    index('workspace_items_updated_by_idx').on(t.updatedBy),
  ],
);

/** Workbook detail, one row per WORKBOOK item. */
export const workbooks = sqliteTable(
  'workbooks',
  {
    itemId: integer()
      .primaryKey()
      .references(() => workspaceItems.id, { onDelete: 'cascade' }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    slug: text().notNull(),
    meta: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    calculatedFields: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    /** The draft DashboardConfig (updateWorkbookDashboard); null: no draft. */
    dashboardDraft: text({ mode: 'json' }).$type<Record<string, unknown> | null>(),
  },
  (t) => [uniqueIndex('workbooks_slug_uq').on(t.deploymentId, t.slug)],
);

/** Report detail (the fields a ReportSnapshot freezes), one row per REPORT item. */
export const reports = sqliteTable(
  'reports',
  {
    itemId: integer()
      .primaryKey()
      .references(() => workspaceItems.id, { onDelete: 'cascade' }),
    /** The workbook whose dashboard snapshots this report when it is published. */
    workbookId: integer().references(() => workspaceItems.id, { onDelete: 'set null' }),
    /** Bumped by every update; a snapshot records the version it froze. */
    versionNumber: integer().notNull().default(1),
    title: text().notNull().default(''),
    description: text().notNull().default(''),
    spec: text().notNull().default(''),
    sqlQuery: text().notNull().default(''),
    meta: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    fillMissingRows: text({ mode: 'json' }).$type<{ member: string; excludedDimensions: string[] } | null>(),
    periodComparisons: text({ mode: 'json' }).$type<unknown[]>().notNull(),
    preferences: text({ mode: 'json' }).$type<{ columnFormats: Record<string, unknown> }>().notNull(),
    /**
     * Cube's `publicId`: 12 characters of [0-9A-Za-z], unique across all accounts (so unique in
     * the account, as Cube requires), generated when the client sends none. Write-once.
     */
    publicId: text(),
    /** Cube's `jsonQuery` (the report's query as JSON text); stored and returned. */
    jsonQuery: text(),
    /** Cube's `source` (GOOGLE_SHEETS, EXCEL, PLAYGROUND, D3), set on create only. */
    source: text(),
    /** The spreadsheet add-in's workbook id (Cube's `externalWorkbookId`): a list filter. */
    externalWorkbookId: text(),
    /**
     * The other spreadsheet add-in fields Cube defines (`pivotItems`, `resultLocation`,
     * `endResultCell`, `host`, `sheetId`, `workbookName`, `resultChecksum`, `placementId`):
     * stored and returned as sent; edgeboard has no spreadsheet add-in.
     */
    addin: text({ mode: 'json' }).$type<Record<string, unknown>>(),
  },
  (t) => [
    index('reports_workbook_idx').on(t.workbookId),
    uniqueIndex('reports_public_id_uq').on(t.publicId),
    index('reports_external_workbook_idx').on(t.externalWorkbookId),
  ],
);

/** A user's favourite items (`isFavorite` is per caller). */
export const workspaceFavorites = sqliteTable(
  'workspace_favorites',
  {
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemId: integer()
      .notNull()
      .references(() => workspaceItems.id, { onDelete: 'cascade' }),
    createdAt: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.itemId] }), index('workspace_favorites_item_idx').on(t.itemId)],
);

/** A user's last GET of an item: the workspace list's `viewer_last_viewed_at`. */
export const workspaceViews = sqliteTable(
  'workspace_views',
  {
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemId: integer()
      .notNull()
      .references(() => workspaceItems.id, { onDelete: 'cascade' }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    viewedAt: text().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.itemId] }),
    // The workspace list by viewer_last_viewed_at walks the caller's views of the deployment in order.
    index('workspace_views_order_idx').on(t.userId, t.deploymentId, t.viewedAt, t.itemId),
    index('workspace_views_item_idx').on(t.itemId),
    index('workspace_views_deployment_idx').on(t.deploymentId),
  ],
);
