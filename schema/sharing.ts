import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { deployments } from './deployments';
import { embedTenants } from './embedding';
import { WORKSPACE_ITEM_TYPES, workspaceItems } from './workspace';

/**
 * The audience of a workbook shared with every embed user (its published dashboard's
 * `allEmbedUsers`) in `shared_workspace_items`: embed tenant ids start at 1.
 */
export const ALL_EMBED_USERS = 0;

/**
 * A workbook shared with one embed tenant (Cube's updateEmbedAccess with `embedTenantName`):
 * its published dashboard is listed in that tenant's shared workspace. Deleting the workbook or
 * the tenant deletes the share.
 */
export const embedTenantShares = sqliteTable(
  'embed_tenant_shares',
  {
    workbookId: integer()
      .notNull()
      .references(() => workspaceItems.id, { onDelete: 'cascade' }),
    tenantId: integer()
      .notNull()
      .references(() => embedTenants.id, { onDelete: 'cascade' }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    createdAt: text().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workbookId, t.tenantId] }),
    index('embed_tenant_shares_tenant_idx').on(t.tenantId),
    index('embed_tenant_shares_deployment_idx').on(t.deploymentId),
  ],
);

/**
 * What each audience's shared workspace shows: every shared workbook, and every folder above one
 * (navigation), per audience (an embed tenant's id, or ALL_EMBED_USERS). Never written by the
 * Worker: triggers keep it in step with the shares (`embed_tenant_shares`, the published
 * dashboards' `all_embed_users`) and with every move, rename and delete of workspace items, so
 * the shared lists walk these rows in their order and read one page, whatever the workspace's
 * size (see the migration's custom block). The item's folder and sort keys are copies.
 */
export const sharedWorkspaceItems = sqliteTable(
  'shared_workspace_items',
  {
    audienceId: integer().notNull(),
    itemId: integer()
      .notNull()
      .references(() => workspaceItems.id, { onDelete: 'cascade' }),
    deploymentId: integer()
      .notNull()
      .references(() => deployments.id, { onDelete: 'cascade' }),
    folderId: integer(),
    type: text({ enum: WORKSPACE_ITEM_TYPES }).notNull(),
    nameKey: text().notNull(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
    /** 1: the item itself is shared with the audience. */
    shared: integer().notNull().default(0),
    /** Shared workbooks inside the folder, at any depth (0 for a workbook). */
    nested: integer().notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.audienceId, t.itemId] }),
    // The triggers find an item's rows by item.
    index('shared_workspace_items_item_idx').on(t.itemId),
    // One folder's (or the root's) items of one type, in each order of the workspace list.
    index('shared_workspace_items_folder_name_idx').on(
      t.deploymentId,
      t.audienceId,
      t.folderId,
      t.type,
      t.nameKey,
      t.itemId,
    ),
    index('shared_workspace_items_folder_updated_idx').on(
      t.deploymentId,
      t.audienceId,
      t.folderId,
      t.type,
      t.updatedAt,
      t.itemId,
    ),
    index('shared_workspace_items_folder_created_idx').on(
      t.deploymentId,
      t.audienceId,
      t.folderId,
      t.type,
      t.createdAt,
      t.itemId,
    ),
    index('shared_workspace_items_folder_id_idx').on(
      t.deploymentId,
      t.audienceId,
      t.folderId,
      t.type,
      t.itemId,
    ),
    // Every folder's items of one type by id: the workbooks an embed tenant can see.
    index('shared_workspace_items_all_id_idx').on(t.deploymentId, t.audienceId, t.type, t.itemId),
  ],
);
