import { and, count, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { accessTokens, accounts, apiKeys } from '../../schema/accounts';
import { publishedDashboards } from '../../schema/dashboards';
import { builds, deployments } from '../../schema/deployments';
import { dashboardExports } from '../../schema/exports';
import { accountForwardKey, forwards } from '../../schema/moves';
import { notificationRuns, notifications } from '../../schema/notifications';
import { preAggregationPartitions } from '../../schema/pre-aggregations';
import { runBatch } from '../core/db';
import type { Db } from '../core/env';

/** What a moving account's row says on a shard. */
export async function accountMoveState(
  db: Db,
  accountId: number,
): Promise<{ frozenAt: string | null; movedTo: number | null } | null> {
  const [row] = await db
    .select({ frozenAt: accounts.frozenAt, movedTo: accounts.movedTo })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row ?? null;
}

/**
 * Freezes the account on its shard: from now on its writes are refused and background work
 * skips it. False when the shard has no such account, or it is frozen already.
 */
export async function freezeAccount(db: Db, accountId: number, now: string): Promise<boolean> {
  const rows = await db
    .update(accounts)
    .set({ frozenAt: now })
    .where(and(eq(accounts.id, accountId), isNull(accounts.frozenAt), isNull(accounts.movedTo)))
    .returning({ id: accounts.id });
  return rows.length > 0;
}

/** Lets the account write again on this shard (a failed move's source, or the target once switched). */
export async function unfreezeAccount(db: Db, accountId: number): Promise<void> {
  await db.update(accounts).set({ frozenAt: null }).where(eq(accounts.id, accountId));
}

/**
 * The account's background work still under way on this shard: builds queued or building,
 * notification runs queued or running, exports queued or running, rollup partitions whose claim
 * is live at `now` (queued or building, claimed until later: a partition registered but never
 * claimed, or whose claim lapsed, has no message on its way). A move copies nothing until
 * all of it has finished, so no message in a queue still names a row the move left behind.
 */
export async function workInFlight(db: Db, accountId: number, now: string): Promise<number> {
  const accountDeployments = db
    .select({ id: deployments.id })
    .from(deployments)
    .where(eq(deployments.accountId, accountId));
  const accountNotifications = db
    .select({ id: notifications.id })
    .from(notifications)
    .where(eq(notifications.accountId, accountId));
  const [b, r, e, p] = await runBatch<{ n: number }>(db, [
    db
      .select({ n: count().as('n') })
      .from(builds)
      .where(
        and(inArray(builds.deploymentId, accountDeployments), inArray(builds.status, ['queued', 'building'])),
      ),
    db
      .select({ n: count().as('n') })
      .from(notificationRuns)
      .where(
        and(
          inArray(notificationRuns.notificationId, accountNotifications),
          inArray(notificationRuns.status, ['queued', 'running']),
        ),
      ),
    db
      .select({ n: count().as('n') })
      .from(dashboardExports)
      .where(
        and(
          eq(dashboardExports.accountId, accountId),
          inArray(dashboardExports.status, ['queued', 'running']),
        ),
      ),
    db
      .select({ n: count().as('n') })
      .from(preAggregationPartitions)
      .where(
        and(
          eq(preAggregationPartitions.accountId, accountId),
          inArray(preAggregationPartitions.state, ['queued', 'building']),
          gt(preAggregationPartitions.nextRefreshAt, now),
        ),
      ),
  ]);
  // runBatch returns rows as D1 names their columns: each count carries its alias (`count(*)`
  // without one, which read as 0 and let a move copy with work still in flight).
  const n = (result: D1Result<{ n: number }> | undefined) => Number(result?.results[0]?.n ?? 0);
  return n(b) + n(r) + n(e) + n(p);
}

/**
 * The switch, on the shard the account leaves, in one batch: forwards for every hint a caller
 * may still hold (the account id of its sessions and tokens, the hashes of its API keys and
 * access tokens, the public ids of its dashboards), the account row marked as moved, and the
 * rows those hints find here made unfindable (credentials deleted, public ids set aside), so
 * from this batch on every such hint misses here and is sent to `shard`. Idempotent. Answers the
 * credentials it deleted, by table.
 */
export async function leaveShard(
  db: Db,
  accountId: number,
  shard: number,
  now: string,
): Promise<Record<string, number>> {
  const accountDashboards = sql`deployment_id IN (SELECT id FROM deployments WHERE account_id = ${accountId})`;
  // Hand-written: INSERT … SELECT … ON CONFLICT, which needs the WHERE the builder does not write.
  const forward = (kind: string, keys: ReturnType<typeof sql>) =>
    sql`INSERT INTO forwards (kind, key, shard, account_id, created_at)
      SELECT ${kind}, k.key, ${shard}, ${accountId}, ${now} FROM (${keys}) k WHERE true
      ON CONFLICT (kind, key) DO UPDATE SET shard = excluded.shard, account_id = excluded.account_id`;
  const results = await runBatch(db, [
    // Bound as text: D1 binds a JS number as REAL, whose text ('2.0') no hint would ever match.
    forward('account', sql`SELECT ${accountForwardKey(accountId)} AS key`),
    forward('secret', sql`SELECT key_hash AS key FROM api_keys WHERE account_id = ${accountId}`),
    forward('secret', sql`SELECT token_hash AS key FROM access_tokens WHERE account_id = ${accountId}`),
    forward(
      'public-id',
      sql`SELECT public_id AS key FROM published_dashboards WHERE ${accountDashboards}
        AND public_id NOT LIKE '~%'`,
    ),
    db.update(accounts).set({ movedTo: shard }).where(eq(accounts.id, accountId)),
    db.delete(apiKeys).where(eq(apiKeys.accountId, accountId)).returning({ id: apiKeys.id }),
    db.delete(accessTokens).where(eq(accessTokens.accountId, accountId)).returning({ id: accessTokens.id }),
    // Set aside, not deleted (their versions and comments go with the clean-up, in bounded steps).
    db
      .update(publishedDashboards)
      .set({ publicId: sql`'~' || ${publishedDashboards.publicId}` })
      .where(
        and(
          inArray(
            publishedDashboards.deploymentId,
            db.select({ id: deployments.id }).from(deployments).where(eq(deployments.accountId, accountId)),
          ),
          sql`${publishedDashboards.publicId} NOT LIKE '~%'`,
        ),
      ),
  ]);
  return { api_keys: results[5]?.results.length ?? 0, access_tokens: results[6]?.results.length ?? 0 };
}

/**
 * On the shard the account arrives at: it may write again, and forwards it left here in an
 * earlier move stop sending its callers away (its rows are here now).
 */
export async function arriveOnShard(db: Db, accountId: number): Promise<void> {
  await runBatch(db, [
    db.update(accounts).set({ frozenAt: null }).where(eq(accounts.id, accountId)),
    db.delete(forwards).where(eq(forwards.accountId, accountId)),
  ]);
}
