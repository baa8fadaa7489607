import { sql } from 'drizzle-orm';
import type { Db } from '../core/env';

/**
 * The origins the account that published `publicId` lets frame its dashboards. Read by publicId
 * alone, so even the page of an expired or unknown session carries its owner's frame-ancestors.
 * `found: false`: no published dashboard has this publicId.
 */
export async function findEmbedOrigins(
  db: Db,
  publicId: string,
): Promise<{ found: boolean; allowedEmbedOrigins: string[] | null }> {
  const rows = await db.all<{ allowed_embed_origins: string | null }>(sql`
    SELECT a.allowed_embed_origins
    FROM published_dashboards pd
      JOIN deployments d ON d.id = pd.deployment_id
      JOIN accounts a ON a.id = d.account_id
    WHERE pd.public_id = ${publicId}`);
  const row = rows[0];
  if (!row) return { found: false, allowedEmbedOrigins: null };
  const parsed: unknown = row.allowed_embed_origins === null ? null : JSON.parse(row.allowed_embed_origins);
  return {
    found: true,
    allowedEmbedOrigins: Array.isArray(parsed)
      ? parsed.filter((o): o is string => typeof o === 'string')
      : null,
  };
}
