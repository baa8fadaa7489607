import { and, eq, sql } from 'drizzle-orm';
import { notifications } from '../../schema/notifications';
import { mapRow, runBatch } from '../core/db';
import type { Db } from '../core/env';

export type NotificationRow = typeof notifications.$inferSelect & { dashboardPublicId: string };
export type NotificationValues = Omit<typeof notifications.$inferInsert, 'id'>;

type Raw = Record<string, unknown>;
const rowsOf = (result: D1Result | undefined): Raw[] => (result?.results ?? []) as Raw[];

/** The one mapper of a notification row, with its dashboard's publicId joined in. */
function toRow(raw: Raw): NotificationRow {
  return { ...mapRow(notifications, raw), dashboardPublicId: String(raw.dashboard_public_id) };
}

const selectWithPublicId = sql`SELECT n.*, pd.public_id AS dashboard_public_id
  FROM notifications n JOIN published_dashboards pd ON pd.id = n.dashboard_id`;

const ofAccount = (accountId: number, deploymentId: number) =>
  sql`n.account_id = ${accountId} AND n.deployment_id = ${deploymentId}`;

export interface DashboardRef {
  id?: number;
  publicId?: string;
}

/**
 * One round trip: whether the deployment is the account's, and the published dashboard of
 * that deployment the reference names (by id or publicId), if any.
 */
export async function resolveDashboard(
  db: Db,
  accountId: number,
  deploymentId: number,
  ref: DashboardRef,
): Promise<{ deploymentFound: boolean; dashboard: { id: number; publicId: string } | null }> {
  const rows = await db.all<{ dashboard_id: number | null; public_id: string | null }>(sql`
    SELECT pd.id AS dashboard_id, pd.public_id FROM deployments d
    LEFT JOIN published_dashboards pd ON pd.deployment_id = d.id
      AND (pd.id = ${ref.id ?? null} OR pd.public_id = ${ref.publicId ?? null})
    WHERE d.id = ${deploymentId} AND d.account_id = ${accountId}`);
  const row = rows[0];
  if (!row) return { deploymentFound: false, dashboard: null };
  return {
    deploymentFound: true,
    dashboard:
      row.dashboard_id === null || row.public_id === null
        ? null
        : { id: row.dashboard_id, publicId: row.public_id },
  };
}

export async function insertNotification(db: Db, values: NotificationValues, publicId: string) {
  const [row] = await db.insert(notifications).values(values).returning();
  if (!row) throw new Error('INSERT … RETURNING answered no row');
  return { ...row, dashboardPublicId: publicId };
}

export async function findNotification(
  db: Db,
  accountId: number,
  deploymentId: number,
  id: number,
): Promise<NotificationRow | null> {
  const rows = await db.all<Raw>(
    sql`${selectWithPublicId} WHERE n.id = ${id} AND ${ofAccount(accountId, deploymentId)}`,
  );
  return rows[0] ? toRow(rows[0]) : null;
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
  db: Db,
  accountId: number,
  deploymentId: number,
  filter: ListFilter,
  afterId: number | null,
  limit: number,
): Promise<{ deploymentFound: boolean; rows: NotificationRow[] }> {
  const conditions = [sql`${ofAccount(accountId, deploymentId)}`];
  if (filter.dashboardId !== undefined) conditions.push(sql`n.dashboard_id = ${filter.dashboardId}`);
  if (filter.dashboardPublicId !== undefined)
    conditions.push(sql`pd.public_id = ${filter.dashboardPublicId}`);
  if (filter.recipientKeys !== undefined || filter.recipientEmail !== undefined) {
    const email = filter.recipientEmail?.toLowerCase() ?? null;
    // Served by the recipients' (notification_id, recipient_key) index, one probe per key.
    conditions.push(sql`EXISTS (SELECT 1 FROM notification_recipients r WHERE r.notification_id = n.id
      AND r.recipient_key IN (SELECT value FROM json_each(${JSON.stringify(filter.recipientKeys ?? [])})
        UNION ALL SELECT 'email:' || ${email} WHERE ${email} IS NOT NULL
        UNION ALL SELECT 'user:' || id FROM users WHERE account_id = ${accountId} AND lower(email) = ${email}))`);
  }
  if (afterId !== null) conditions.push(sql`n.id > ${afterId}`);
  const [deployment, page] = await runBatch(db, [
    sql`SELECT 1 AS found FROM deployments WHERE id = ${deploymentId} AND account_id = ${accountId}`,
    sql`${selectWithPublicId} WHERE ${sql.join(conditions, sql` AND `)} ORDER BY n.id ASC LIMIT ${limit + 1}`,
  ]);
  return {
    deploymentFound: rowsOf(deployment).length > 0,
    rows: rowsOf(page).map(toRow),
  };
}

/** The update and the re-read with the dashboard's publicId, in one batch. */
export async function updateNotification(
  db: Db,
  accountId: number,
  deploymentId: number,
  id: number,
  values: Partial<NotificationValues>,
): Promise<NotificationRow | null> {
  const [, reread] = await runBatch(db, [
    db
      .update(notifications)
      .set(values)
      .where(
        and(
          eq(notifications.id, id),
          eq(notifications.accountId, accountId),
          eq(notifications.deploymentId, deploymentId),
        ),
      ),
    sql`${selectWithPublicId} WHERE n.id = ${id} AND ${ofAccount(accountId, deploymentId)}`,
  ]);
  const row = rowsOf(reread)[0];
  return row ? toRow(row) : null;
}

/** Recipients, runs and deliveries go with it (foreign keys cascade). */
export async function deleteNotification(
  db: Db,
  accountId: number,
  deploymentId: number,
  id: number,
): Promise<boolean> {
  const rows = await db
    .delete(notifications)
    .where(
      and(
        eq(notifications.id, id),
        eq(notifications.accountId, accountId),
        eq(notifications.deploymentId, deploymentId),
      ),
    )
    .returning({ id: notifications.id });
  return rows.length > 0;
}
