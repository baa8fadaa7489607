import { and, asc, eq, getTableColumns, gt, type SQL, sql } from 'drizzle-orm';
import { publishedDashboards } from '../../schema/dashboards';
import { deployments } from '../../schema/deployments';
import { notifications } from '../../schema/notifications';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';
import type { IdCursor } from '../core/pagination';
import type { DeploymentScope } from '../core/scope';

export type NotificationRow = typeof notifications.$inferSelect & { dashboardPublicId: string };
/** What a create writes; the scope gives the account, deployment, creator and times. */
export type NotificationValues = Omit<
  typeof notifications.$inferInsert,
  'id' | 'accountId' | 'deploymentId' | 'createdBy' | 'createdAt' | 'updatedAt'
>;

/** A row of a batch statement as D1 answers it (snake_case keys): map it with `mapRow`. */
export type Raw = Record<string, unknown>;
export const rowsOf = (result: D1Result | undefined): Raw[] => (result?.results ?? []) as Raw[];

/** Rows of the scope's deployment: another account's (or deployment's) are never found. */
const inScope = (scope: DeploymentScope): SQL | undefined =>
  and(eq(notifications.accountId, scope.accountId), eq(notifications.deploymentId, scope.deploymentId));

/**
 * The scope's notification `id`, as a subquery of its id: every statement about one of its
 * recipients or runs is checked through it (in a batch, or inside the statement).
 */
export const ownNotification = (scope: DeploymentScope, id: number) =>
  scope.db
    .select({ id: notifications.id })
    .from(notifications)
    .where(and(eq(notifications.id, id), inScope(scope)));

/** The scope's deployment, as a subquery of its id: a list of an unknown one is a 404. */
const ownDeployment = (scope: DeploymentScope) =>
  scope.db
    .select({ id: deployments.id })
    .from(deployments)
    .where(and(eq(deployments.id, scope.deploymentId), eq(deployments.accountId, scope.accountId)));

/** Notifications with their dashboard's publicId; the caller adds WHERE/ORDER. */
const selectWithPublicId = (db: Db) =>
  db
    .select({ ...getTableColumns(notifications), dashboardPublicId: publishedDashboards.publicId })
    .from(notifications)
    .innerJoin(publishedDashboards, eq(publishedDashboards.id, notifications.dashboardId));

/** A row of `selectWithPublicId` as a batch answers it (raw). */
const toRow = (raw: Raw): NotificationRow => ({
  ...mapRow(notifications, raw),
  dashboardPublicId: String(raw.public_id),
});

/** A published dashboard, by id or by publicId. */
export type DashboardRef = { id: number } | { publicId: string };

/**
 * One round trip: whether the deployment is the account's, and the published dashboard of
 * that deployment the reference names, if any.
 */
export async function resolveDashboard(
  scope: DeploymentScope,
  ref: DashboardRef,
): Promise<{ deploymentFound: boolean; dashboard: { id: number; publicId: string } | null }> {
  const named =
    'id' in ref ? eq(publishedDashboards.id, ref.id) : eq(publishedDashboards.publicId, ref.publicId);
  const [row] = await scope.db
    .select({ id: publishedDashboards.id, publicId: publishedDashboards.publicId })
    .from(deployments)
    .leftJoin(publishedDashboards, and(eq(publishedDashboards.deploymentId, deployments.id), named))
    .where(and(eq(deployments.id, scope.deploymentId), eq(deployments.accountId, scope.accountId)));
  if (!row) return { deploymentFound: false, dashboard: null };
  return {
    deploymentFound: true,
    dashboard: row.id === null || row.publicId === null ? null : { id: row.id, publicId: row.publicId },
  };
}

/** A notification of the scope's deployment, created by its user now. */
export async function insertNotification(
  scope: DeploymentScope,
  values: NotificationValues,
  publicId: string,
): Promise<NotificationRow> {
  const now = scope.now.toISOString();
  const [row] = await scope.db
    .insert(notifications)
    .values({
      ...values,
      accountId: scope.accountId,
      deploymentId: scope.deploymentId,
      createdBy: scope.userId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error('INSERT … RETURNING answered no row');
  return { ...row, dashboardPublicId: publicId };
}

export async function findNotification(scope: DeploymentScope, id: number): Promise<NotificationRow | null> {
  const [row] = await selectWithPublicId(scope.db).where(and(eq(notifications.id, id), inScope(scope)));
  return row ?? null;
}

export interface ListFilter {
  dashboardId?: number;
  dashboardPublicId?: string;
  /** Identity keys of recipients (see notification_recipients.recipient_key): one must be subscribed. */
  recipientKeys?: string[];
  /** A recipient by email: the address itself, or the account's user with that address. */
  recipientEmail?: string;
}

/** One round trip: the deployment check and the page (keyset on id). */
export async function listNotifications(
  scope: DeploymentScope,
  filter: ListFilter,
  { afterId, limit }: IdCursor,
): Promise<{ deploymentFound: boolean; rows: NotificationRow[] }> {
  const conditions = [inScope(scope)];
  if (filter.dashboardId !== undefined) conditions.push(eq(notifications.dashboardId, filter.dashboardId));
  if (filter.dashboardPublicId !== undefined)
    conditions.push(eq(publishedDashboards.publicId, filter.dashboardPublicId));
  if (filter.recipientKeys !== undefined || filter.recipientEmail !== undefined) {
    const email = filter.recipientEmail?.toLowerCase() ?? null;
    // Hand-written: keys travel as one JSON parameter (json_each) and a union of key sources
    // drizzle has no builder for. Served by the recipients' (notification_id, recipient_key)
    // index, one probe per key.
    conditions.push(sql`EXISTS (SELECT 1 FROM notification_recipients r WHERE r.notification_id = ${notifications.id}
      AND r.recipient_key IN (SELECT value FROM json_each(${JSON.stringify(filter.recipientKeys ?? [])})
        UNION ALL SELECT 'email:' || ${email} WHERE ${email} IS NOT NULL
        UNION ALL SELECT 'user:' || id FROM users WHERE account_id = ${scope.accountId} AND lower(email) = ${email}))`);
  }
  if (afterId !== null) conditions.push(gt(notifications.id, afterId));
  const [deployment, page] = await runBatch(scope.db, [
    ownDeployment(scope),
    selectWithPublicId(scope.db)
      .where(and(...conditions))
      .orderBy(asc(notifications.id))
      .limit(limit + 1),
  ]);
  return { deploymentFound: rowsOf(deployment).length > 0, rows: rowsOf(page).map(toRow) };
}

/** The update (stamped now) and the re-read with the dashboard's publicId, in one batch. */
export async function updateNotification(
  scope: DeploymentScope,
  id: number,
  values: Partial<NotificationValues>,
): Promise<NotificationRow | null> {
  const owned = and(eq(notifications.id, id), inScope(scope));
  const [, reread] = await runBatch(scope.db, [
    scope.db
      .update(notifications)
      .set({ ...values, updatedAt: scope.now.toISOString() })
      .where(owned),
    selectWithPublicId(scope.db).where(owned),
  ]);
  const row = rowsOf(reread)[0];
  return row ? toRow(row) : null;
}

/** Recipients, runs and deliveries go with it (foreign keys cascade). */
export async function deleteNotification(scope: DeploymentScope, id: number): Promise<boolean> {
  const rows = await scope.db
    .delete(notifications)
    .where(and(eq(notifications.id, id), inScope(scope)))
    .returning({ id: notifications.id });
  return rows.length > 0;
}
