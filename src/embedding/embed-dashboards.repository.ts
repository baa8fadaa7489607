import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { publishedDashboards } from '../../schema/dashboards';
import { deployments } from '../../schema/deployments';
import type { StoredConfig } from '../accounts/app-config.policy';
import type { Db } from '../core/env';
import type { AccountScope } from '../core/scope';
import { publishedJson } from '../dashboards/dashboards.queries';
import type { PublishedDashboard } from '../dashboards/dashboards.schemas';
import { servingStateColumns } from '../data-api/data.repository';
import type { ServingState } from '../data-api/data-scope';
import { tenantRevocationKey } from './embed-sessions.repository';
import { ATTRIBUTES_PER_CATALOGUE } from './embedding.schemas';

/**
 * The attribute names of an account's catalogue and of one tenant's, as a JSON array (row-level
 * security restricts by them). Each catalogue holds at most ATTRIBUTES_PER_CATALOGUE names; the
 * LIMITs keep the read bounded anyway. `accountId`/`tenantId` are SQL (a column or a parameter).
 */
export const catalogueNames = (
  accountId: SQL,
  tenantId: SQL,
): SQL => sql`(SELECT json_group_array(name) FROM (
    SELECT name FROM (SELECT name FROM embed_attributes
      WHERE account_id = ${accountId} AND tenant_id IS NULL LIMIT ${ATTRIBUTES_PER_CATALOGUE})
    UNION ALL
    SELECT name FROM (SELECT name FROM embed_attributes
      WHERE account_id = ${accountId} AND tenant_id = ${tenantId} LIMIT ${ATTRIBUTES_PER_CATALOGUE})))`;

export interface EmbedDashboardRow {
  /** The account's toggle, the default of a session's showDashboardChat. */
  showDashboardChat: boolean;
  /** The operator is moving the account to another shard: a session's writes wait. */
  frozen: boolean;
  revoked: boolean;
  /**
   * The attribute names of the account's and the session tenant's catalogues (≤ 200 each):
   * row-level security restricts by them even when the viewer holds no value (fails closed).
   */
  catalogueAttributes: string[];
  /** The dashboard's deployment's serving build and data source version: a live load's cache key. */
  serving: ServingState | null;
  /** null: no published dashboard with this publicId in the session's deployment. */
  dashboard: PublishedDashboard | null;
  /** The account's app config (time zone policy, theme, download restriction); null: never set. */
  appConfig: StoredConfig;
}

/**
 * ONE statement per load: the published dashboard (current version, config, snapshots) of
 * the session's deployment only, the account's chat toggle and app config, and whether the
 * session was revoked. Fit for a replica: a lag of a moment on any of these is harmless. The driving row
 * is the account, so the revocation is answered even when the dashboard is missing.
 */
export async function findEmbedDashboard(
  db: Db,
  claims: { sessionId: string; accountId: number; deploymentId: number; tenant: { id: number } },
  publicId: string,
): Promise<EmbedDashboardRow | null> {
  const rows = await db.all<EmbedDashboardRawRow>(sql`
    SELECT a.show_dashboard_chat, s.app_config, a.frozen_at IS NOT NULL AS frozen, ${publishedJson()} AS published,
      EXISTS (SELECT 1 FROM embed_session_revocations r
        WHERE r.session_id IN (${claims.sessionId}, ${tenantRevocationKey(claims.tenant.id)})) AS revoked,
      ${catalogueNames(sql`a.id`, sql`${claims.tenant.id}`)} AS catalogue,
      ${servingStateColumns(sql`pd.deployment_id`)}
    FROM accounts a
      LEFT JOIN published_dashboards pd ON pd.public_id = ${publicId} AND pd.deployment_id = ${claims.deploymentId}
        AND EXISTS (SELECT 1 FROM deployments d WHERE d.id = pd.deployment_id AND d.account_id = a.id)
      LEFT JOIN dashboard_versions dv ON dv.id = pd.current_version_id
      LEFT JOIN account_settings s ON s.account_id = a.id
    WHERE a.id = ${claims.accountId}`);
  const row = rows[0];
  return row ? toEmbedDashboardRow(row) : null;
}

interface EmbedDashboardRawRow {
  show_dashboard_chat: number;
  /** The stored app config as JSON text; null: the account has no settings row. */
  app_config: string | null;
  frozen: number;
  revoked: number;
  /** JSON array of attribute names. */
  catalogue: string | null;
  /** `publishedJson()`: the PublishedDashboard as JSON text, built by SQL in its own shape. */
  published: string | null;
  serving_build_id: number | null;
  rollup_generation: number | null;
  source_version: string | null;
}

const toEmbedDashboardRow = (row: EmbedDashboardRawRow): EmbedDashboardRow => ({
  showDashboardChat: row.show_dashboard_chat === 1,
  frozen: row.frozen === 1,
  revoked: row.revoked === 1,
  catalogueAttributes: row.catalogue ? (JSON.parse(row.catalogue) as string[]) : [],
  dashboard: row.published === null ? null : JSON.parse(row.published),
  appConfig: row.app_config === null ? null : (JSON.parse(row.app_config) as StoredConfig),
  serving:
    row.serving_build_id === null
      ? null
      : {
          buildId: row.serving_build_id,
          sourceVersion: row.source_version ?? '',
          rollupGeneration: row.rollup_generation ?? 0,
        },
});

/** Sets the embedding switches of a published dashboard of the account; null when there is none. */
export async function updateEmbedFlags(
  scope: AccountScope,
  publicId: string,
  flags: { allowEmbed?: boolean; allEmbedUsers?: boolean },
): Promise<{ publicId: string; allowEmbed: boolean; allEmbedUsers: boolean } | null> {
  const { db, accountId } = scope;
  const [row] = await db
    .update(publishedDashboards)
    .set({
      ...(flags.allowEmbed !== undefined && { allowEmbed: flags.allowEmbed }),
      ...(flags.allEmbedUsers !== undefined && { allEmbedUsers: flags.allEmbedUsers }),
      updatedAt: scope.now.toISOString(),
    })
    .where(
      and(
        eq(publishedDashboards.publicId, publicId),
        inArray(
          publishedDashboards.deploymentId,
          db.select({ id: deployments.id }).from(deployments).where(eq(deployments.accountId, accountId)),
        ),
      ),
    )
    .returning({
      publicId: publishedDashboards.publicId,
      allowEmbed: publishedDashboards.allowEmbed,
      allEmbedUsers: publishedDashboards.allEmbedUsers,
    });
  return row ?? null;
}
