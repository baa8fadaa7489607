import { type Column, getTableName } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import { getTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { accessTokens, accounts, apiKeys, users } from '../../schema/accounts';
import { dashboardCommentGuards, dashboardCommentMentions, dashboardComments } from '../../schema/comments';
import {
  dashboardVersions,
  publishedDashboards,
  reportSnapshots,
  snapshotContents,
} from '../../schema/dashboards';
import {
  builds,
  dataModelWriteGuards,
  deploymentEnvVars,
  deployments,
  modelUploadFiles,
  modelUploads,
  projectFiles,
} from '../../schema/deployments';
import {
  embedAttributes,
  embedAttributeValues,
  embedGroups,
  embedMemberships,
  embedSessionRevocations,
  embedTenants,
  embedUsers,
  embedWriteGuards,
} from '../../schema/embedding';
import { dashboardExports } from '../../schema/exports';
import { forwards } from '../../schema/moves';
import {
  notificationDeliveries,
  notificationRecipients,
  notificationRuns,
  notifications,
  notificationWriteGuards,
} from '../../schema/notifications';
import { preAggregationPartitions, preAggregationPlans } from '../../schema/pre-aggregations';
import { roles, userRoles } from '../../schema/roles';
import { accountSettings } from '../../schema/settings';
import { embedTenantShares, sharedWorkspaceItems } from '../../schema/sharing';
import { userAttributeValues } from '../../schema/user-attributes';
import {
  reports,
  workbooks,
  workspaceFavorites,
  workspaceItems,
  workspaceViews,
} from '../../schema/workspace';

/**
 * What moving an account copies, checks and deletes: every table of the shard schema that holds
 * an account's rows, in an order where a row's parents come first (D1 enforces foreign keys), and
 * how each row belongs to the account: an `account_id` column, or a parent that does. A table of
 * the schema must be listed here or in NOT_ACCOUNT_OWNED; test/shards/move-plan.test.ts fails
 * for one in neither, so a new table cannot be forgotten by a move.
 */

/** SQL conditions selecting an account's rows; `?1` is the account's id. */
const OWNED = {
  account: 'account_id = ?1',
  deployment: 'deployment_id IN (SELECT id FROM deployments WHERE account_id = ?1)',
  user: 'user_id IN (SELECT id FROM users WHERE account_id = ?1)',
  embedUser: 'user_id IN (SELECT id FROM embed_users WHERE account_id = ?1)',
  item: `item_id IN (SELECT i.id FROM workspace_items i JOIN deployments d ON d.id = i.deployment_id
    WHERE d.account_id = ?1)`,
  notification: 'notification_id IN (SELECT id FROM notifications WHERE account_id = ?1)',
} as const;

/** Rows of `table` copied by primary key. */
export interface RowsStep {
  kind: 'rows';
  table: SQLiteTable;
  /** The SQL condition selecting the account's rows (`?1`: its id). */
  owner: string;
  /**
   * Columns the first copy writes as these SQL values instead of the source's, put right by a
   * later `restore` step: a reference to a row copied later, or a counter the target's triggers
   * add to while the account's rows arrive.
   */
  initially?: Record<string, string>;
  /**
   * The copy overwrites a row already on the target: rows the target's triggers made while the
   * parents were copied, whose counters the source's copy holds.
   */
  overwrite?: boolean;
}

/** Puts the `initially` columns of an earlier rows step to the source's values. */
export interface RestoreStep {
  kind: 'restore';
  table: SQLiteTable;
  owner: string;
  columns: string[];
  /** The SQL value the columns held while they waited (what a clean-up puts back first). */
  initially: Record<string, string>;
}

export type MoveStep = RowsStep | RestoreStep;

/** More than any account may store: the target's quota trigger never stops the copy of a counter. */
const UNLIMITED = '9007199254740991';

/** A rows step: `table`'s rows selected by `owner`, with its options. */
const rows = (
  table: SQLiteTable,
  owner: string,
  options: Omit<RowsStep, 'kind' | 'table' | 'owner'> = {},
): RowsStep => ({
  kind: 'rows',
  table,
  owner,
  ...options,
});

/** A restore step: puts back the columns of `initially` (what they held while they waited). */
const restore = (table: SQLiteTable, owner: string, initially: Record<string, string>): RestoreStep => ({
  kind: 'restore',
  table,
  owner,
  columns: Object.keys(initially),
  initially,
});

/** The steps of a move, in copying order (deleting goes the other way). */
export const MOVE_PLAN: readonly MoveStep[] = [
  // The triggers of workbooks, reports, versions, snapshots and embed users count into these
  // while the rows arrive; the source's values are restored once they all have.
  rows(accounts, 'id = ?1', {
    initially: { stored_bytes: '0', external_user_count: '0', stored_bytes_limit: UNLIMITED },
  }),
  rows(accountSettings, OWNED.account),
  rows(users, OWNED.account),
  rows(roles, OWNED.account),
  rows(userRoles, OWNED.user),
  rows(accessTokens, OWNED.account),
  rows(apiKeys, OWNED.account),
  rows(embedTenants, OWNED.account),
  rows(embedAttributes, OWNED.account),
  rows(embedGroups, OWNED.account),
  rows(embedUsers, OWNED.account),
  rows(embedMemberships, OWNED.embedUser),
  rows(embedAttributeValues, OWNED.embedUser),
  rows(userAttributeValues, OWNED.user),
  rows(embedSessionRevocations, OWNED.account),
  rows(deployments, OWNED.account),
  rows(deploymentEnvVars, OWNED.deployment),
  rows(projectFiles, OWNED.deployment),
  rows(modelUploads, OWNED.deployment),
  rows(
    modelUploadFiles,
    `upload_id IN (SELECT u.id FROM model_uploads u JOIN deployments d ON d.id = u.deployment_id
      WHERE d.account_id = ?1)`,
  ),
  rows(builds, OWNED.deployment),
  // The refresh state only: the partitions' tables live in the deployment's store, not the shard.
  rows(preAggregationPlans, OWNED.account),
  rows(preAggregationPartitions, OWNED.account),
  // A folder may have a higher id than an item moved into it: items arrive outside any folder,
  // then go back into their folders once every item is there.
  rows(workspaceItems, OWNED.deployment, { initially: { folder_id: 'NULL' } }),
  restore(workspaceItems, `${OWNED.deployment} AND folder_id IS NOT NULL`, { folder_id: 'NULL' }),
  rows(workbooks, OWNED.item),
  rows(reports, OWNED.item),
  rows(snapshotContents, OWNED.deployment),
  rows(publishedDashboards, OWNED.deployment),
  rows(
    dashboardVersions,
    'published_dashboard_id IN (SELECT id FROM published_dashboards WHERE deployment_id IN (SELECT id FROM deployments WHERE account_id = ?1))',
  ),
  rows(
    reportSnapshots,
    `dashboard_version_id IN (SELECT v.id FROM dashboard_versions v JOIN published_dashboards p
      ON p.id = v.published_dashboard_id JOIN deployments d ON d.id = p.deployment_id WHERE d.account_id = ?1)`,
  ),
  rows(embedTenantShares, OWNED.deployment),
  // Sharing triggers of published dashboards and tenant shares made these rows on the target;
  // the source's rows (and their counters) are the truth.
  rows(sharedWorkspaceItems, OWNED.deployment, { overwrite: true }),
  rows(workspaceFavorites, OWNED.user),
  rows(workspaceViews, OWNED.user),
  rows(notifications, OWNED.account),
  rows(notificationRecipients, OWNED.notification),
  rows(notificationRuns, OWNED.notification),
  rows(
    notificationDeliveries,
    `run_id IN (SELECT r.id FROM notification_runs r JOIN notifications n ON n.id = r.notification_id
      WHERE n.account_id = ?1)`,
  ),
  rows(dashboardComments, 'tenant_id IN (SELECT id FROM embed_tenants WHERE account_id = ?1)'),
  rows(
    dashboardCommentMentions,
    `comment_id IN (SELECT c.id FROM dashboard_comments c JOIN embed_tenants t ON t.id = c.tenant_id
      WHERE t.account_id = ?1)`,
  ),
  rows(dashboardExports, OWNED.account),
  restore(accounts, 'id = ?1', { stored_bytes: '0', external_user_count: '0' }),
  // Apart from the counters: lowering the limit first could trip the quota trigger.
  restore(accounts, 'id = ?1', { stored_bytes_limit: UNLIMITED }),
];

/**
 * The shard schema's tables that hold no account's rows, and why: a move neither copies nor
 * deletes them. Names as in sqlite_master; a prefix ending in `*` covers a virtual table's own
 * shadow tables.
 */
export const NOT_ACCOUNT_OWNED: Readonly<Record<string, string>> = {
  [getTableName(forwards)]: "where moved accounts' hints lead; stays on the shard an account left",
  [getTableName(dataModelWriteGuards)]: 'always empty: its CHECK aborts a guarded batch',
  [getTableName(embedWriteGuards)]: 'always empty: its CHECK aborts a guarded batch',
  [getTableName(notificationWriteGuards)]: 'always empty: its CHECK aborts a guarded batch',
  [getTableName(dashboardCommentGuards)]: 'always empty: its CHECK aborts a guarded batch',
  'workspace_items_trgm*':
    "full-text index of workspace_items' names: the target's triggers index each copied item",
  'workspace_items_grams*':
    "full-text index of workspace_items' names: the target's triggers index each copied item",
  sqlite_sequence: "SQLite's AUTOINCREMENT counters: each shard keeps its own id range",
  d1_migrations: 'the migrations applied to the shard',
};

/** The table's name, its columns and its primary key columns, as the move's SQL needs them. */
export interface TableShape {
  name: string;
  columns: string[];
  primaryKey: string[];
}

const shapes = new WeakMap<SQLiteTable, TableShape>();

/** A column's name in SQL: the schema's keys are camelCase, the database's names snake_case (as db.ts's casing). */
const columnName = (column: Column): string => (column.keyAsName ? toSnakeCase(column.name) : column.name);

/** The shape of `table`, read once from its drizzle definition. */
export function shapeOf(table: SQLiteTable): TableShape {
  const known = shapes.get(table);
  if (known) return known;
  const config = getTableConfig(table);
  const composite = config.primaryKeys[0]?.columns.map(columnName);
  const single = config.columns.filter((c) => c.primary);
  const shape: TableShape = {
    name: config.name,
    columns: config.columns.map(columnName),
    primaryKey: composite ?? single.map(columnName),
  };
  if (shape.primaryKey.length === 0) throw new Error(`table ${shape.name} has no primary key to move by`);
  shapes.set(table, shape);
  return shape;
}

/** The tables a move copies, each once, in copying order. */
export const movedTables = (): string[] => [
  ...new Set(MOVE_PLAN.filter((s) => s.kind === 'rows').map((s) => shapeOf(s.table).name)),
];
