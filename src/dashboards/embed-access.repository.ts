import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { publishedDashboards } from '../../schema/dashboards';
import { embedTenants } from '../../schema/embedding';
import { embedTenantShares } from '../../schema/sharing';
import { workbooks } from '../../schema/workspace';
import { mapRow, runBatch, type Statement } from '../core/db';
import type { DeploymentScope } from '../core/scope';
import { deploymentOwned } from '../core/tenancy';
import { MAX_TENANT_SHARES } from './dashboards.limits';
import { ownWorkbook } from './dashboards.queries';

/** The embed flags of a workbook's published dashboard; `published` false when it has none. */
export interface EmbedFlags {
  published: boolean;
  allowEmbed: boolean;
  allEmbedUsers: boolean;
}

/** A workbook's embed audience: its flags and the embed tenants it is shared with (by name). */
export interface EmbedAudience extends EmbedFlags {
  tenants: { id: number; name: string }[];
}

type PublishedRow = typeof publishedDashboards.$inferSelect;

/** The published dashboard's columns the flags are read from: null when the workbook has none. */
type FlagColumns = { [K in 'id' | 'allowEmbed' | 'allEmbedUsers']: PublishedRow[K] | null };

const flagsOf = (row: FlagColumns): EmbedFlags => ({
  published: row.id !== null,
  allowEmbed: row.allowEmbed === true,
  allEmbedUsers: row.allEmbedUsers === true,
});

/** The workbook of the caller's deployment and its published dashboard's flags: no row when there is no such workbook. */
const flagsRead = (scope: DeploymentScope, workbookId: number) =>
  scope.db
    .select({
      id: publishedDashboards.id,
      allowEmbed: publishedDashboards.allowEmbed,
      allEmbedUsers: publishedDashboards.allEmbedUsers,
    })
    .from(workbooks)
    .leftJoin(publishedDashboards, eq(publishedDashboards.workbookId, workbooks.itemId))
    .where(ownWorkbook(scope, workbookId));

/** The tenants a workbook of the caller's deployment is shared with, by name (at most MAX_TENANT_SHARES exist). */
const tenantsRead = (scope: DeploymentScope, workbookId: number) =>
  scope.db
    .select({ id: embedTenants.id, name: embedTenants.name })
    .from(embedTenantShares)
    .innerJoin(embedTenants, eq(embedTenants.id, embedTenantShares.tenantId))
    .where(
      and(
        eq(embedTenantShares.workbookId, workbookId),
        eq(embedTenantShares.deploymentId, scope.deploymentId),
      ),
    )
    .orderBy(asc(embedTenants.name))
    .limit(MAX_TENANT_SHARES);

/** The account's embed tenant of that name, as a one-column select (its id). */
const tenantNamed = (scope: DeploymentScope, name: string) =>
  scope.db
    .select({ id: embedTenants.id })
    .from(embedTenants)
    .where(and(eq(embedTenants.accountId, scope.accountId), eq(embedTenants.name, name)));

/** A batch's raw rows of `tenantsRead`. */
const tenantsOf = (rows: Record<string, unknown>[] | undefined) =>
  (rows ?? []).map((r) => ({ id: Number(r.id), name: String(r.name) }));

/** null: the workbook is not one of the caller's deployment. One round trip. */
export async function findEmbedAudience(
  scope: DeploymentScope,
  workbookId: number,
): Promise<EmbedAudience | null> {
  const [flags, tenants] = await runBatch(scope.db, [
    flagsRead(scope, workbookId),
    tenantsRead(scope, workbookId),
  ]);
  const row = flags?.results[0];
  return row ? { ...flagsOf(mapRow(publishedDashboards, row)), tenants: tenantsOf(tenants?.results) } : null;
}

/** One embed tenant to share the workbook with (`read`) or to unshare it from (`none`). */
export interface TenantChange {
  name: string;
  action: 'read' | 'none';
}

export interface AudienceUpdate {
  /** A flag not given (undefined) is left as it is. */
  flags: { allowEmbed?: boolean; allEmbedUsers?: boolean };
  tenant?: TenantChange;
}

export interface UpdatedAudience {
  audience: EmbedAudience | null;
  /** The named tenant's id; null when the account has no such tenant (nothing was written). */
  tenantId: number | null;
}

/**
 * Hand-written SQL: the guard of a tenant share, checked inside the batch's own statements so
 * that a request that fails writes nothing. True when the named tenant exists and, for `read`,
 * the workbook has room for one more tenant or is already shared with this one.
 */
function tenantGuard(scope: DeploymentScope, workbookId: number, change: TenantChange): SQL {
  // drizzle renders an embedded select in parentheses.
  const exists = sql`EXISTS ${tenantNamed(scope, change.name)}`;
  if (change.action === 'none') return exists;
  return sql`${exists} AND (
    (SELECT count(*) FROM (SELECT 1 FROM embed_tenant_shares WHERE workbook_id = ${workbookId} LIMIT ${MAX_TENANT_SHARES})) < ${MAX_TENANT_SHARES}
    OR EXISTS (SELECT 1 FROM embed_tenant_shares WHERE workbook_id = ${workbookId}
      AND tenant_id IN ${tenantNamed(scope, change.name)}))`;
}

/** The share or unshare of one tenant: only a published dashboard of the caller's deployment is shared. */
function tenantWrite(
  scope: DeploymentScope,
  workbookId: number,
  change: TenantChange,
  guard: SQL,
): Statement {
  const { db } = scope;
  const owned = deploymentOwned(scope.deploymentId, scope.accountId);
  if (change.action === 'none') {
    return db
      .delete(embedTenantShares)
      .where(
        and(
          eq(embedTenantShares.workbookId, workbookId),
          eq(embedTenantShares.deploymentId, scope.deploymentId),
          inArray(embedTenantShares.tenantId, tenantNamed(scope, change.name)),
          owned,
        ),
      );
  }
  return db
    .insert(embedTenantShares)
    .select(
      db
        .select({
          workbookId: publishedDashboards.workbookId,
          tenantId: embedTenants.id,
          deploymentId: publishedDashboards.deploymentId,
          createdAt: sql<string>`${scope.now.toISOString()}`.as('created_at'),
        })
        .from(publishedDashboards)
        .innerJoin(
          embedTenants,
          and(eq(embedTenants.accountId, scope.accountId), eq(embedTenants.name, change.name)),
        )
        .where(
          and(
            eq(publishedDashboards.workbookId, workbookId),
            eq(publishedDashboards.deploymentId, scope.deploymentId),
            owned,
            guard,
          ),
        ),
    )
    .onConflictDoNothing();
}

/**
 * Sets the given flags and shares with (or unshares from) one tenant, then reads the audience
 * back, in ONE batch. Every write is guarded by the same checks (published dashboard, tenant,
 * room for the tenant), so a request refused afterwards from what the batch read wrote nothing.
 */
export async function updateEmbedAudience(
  scope: DeploymentScope,
  workbookId: number,
  update: AudienceUpdate,
): Promise<UpdatedAudience> {
  const { db } = scope;
  const guard = update.tenant ? tenantGuard(scope, workbookId, update.tenant) : sql`1`;
  const writes: Statement[] = [];
  if (update.flags.allowEmbed !== undefined || update.flags.allEmbedUsers !== undefined) {
    writes.push(
      db
        .update(publishedDashboards)
        .set({ ...update.flags, updatedAt: scope.now.toISOString() })
        .where(
          and(
            eq(publishedDashboards.workbookId, workbookId),
            eq(publishedDashboards.deploymentId, scope.deploymentId),
            deploymentOwned(scope.deploymentId, scope.accountId),
            guard,
          ),
        ),
    );
  }
  if (update.tenant) writes.push(tenantWrite(scope, workbookId, update.tenant, guard));
  const reads: Statement[] = [flagsRead(scope, workbookId), tenantsRead(scope, workbookId)];
  if (update.tenant) reads.push(tenantNamed(scope, update.tenant.name));
  const results = await runBatch(db, [...writes, ...reads]);
  const [flags, tenants, named] = results.slice(writes.length);
  // A batch answers raw rows (snake_case, 0/1): mapped as drizzle maps the table's columns.
  const row = flags?.results[0];
  const tenantRow = named?.results[0];
  return {
    audience: row
      ? { ...flagsOf(mapRow(publishedDashboards, row)), tenants: tenantsOf(tenants?.results) }
      : null,
    tenantId: tenantRow ? Number(tenantRow.id) : null,
  };
}
