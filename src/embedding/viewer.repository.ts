import { eq } from 'drizzle-orm';
import { accounts } from '../../schema/accounts';
import { publishedDashboards } from '../../schema/dashboards';
import { deployments } from '../../schema/deployments';
import { accountSettings } from '../../schema/settings';
import { accountThemeFonts, dashboardCommentsOffered, type ThemeFont } from '../accounts/app-config.policy';
import type { Db } from '../core/env';

/** What an account's viewer pages carry, as `findEmbedOrigins` reads it. */
export interface EmbedFrame {
  found: boolean;
  allowedEmbedOrigins: string[] | null;
  fonts: ThemeFont[];
  commentsOffered: boolean;
}

/** No published dashboard has the publicId (or it cannot name one): any origin, no font, no comments. */
export const NO_EMBED_FRAME: EmbedFrame = {
  found: false,
  allowedEmbedOrigins: null,
  fonts: [],
  commentsOffered: false,
};

/**
 * The origins the account that published `publicId` lets frame its dashboards, the web fonts of
 * its theme (the page's `@font-face` rules and font-src) and whether its app config lets the
 * viewer offer comments. Read by publicId alone, so even the page of an expired or unknown
 * session carries its owner's frame-ancestors. `found: false`: no published dashboard has this
 * publicId.
 */
export async function findEmbedOrigins(db: Db, publicId: string): Promise<EmbedFrame> {
  const [row] = await db
    .select({ allowedEmbedOrigins: accounts.allowedEmbedOrigins, appConfig: accountSettings.appConfig })
    .from(publishedDashboards)
    .innerJoin(deployments, eq(deployments.id, publishedDashboards.deploymentId))
    .innerJoin(accounts, eq(accounts.id, deployments.accountId))
    .leftJoin(accountSettings, eq(accountSettings.accountId, accounts.id))
    .where(eq(publishedDashboards.publicId, publicId));
  if (!row) return NO_EMBED_FRAME;
  const origins: unknown = row.allowedEmbedOrigins;
  return {
    found: true,
    // Stored by the operator API as a list of strings; anything else is left out of the header.
    allowedEmbedOrigins: Array.isArray(origins)
      ? origins.filter((o): o is string => typeof o === 'string')
      : null,
    fonts: accountThemeFonts(row.appConfig),
    commentsOffered: dashboardCommentsOffered(row.appConfig),
  };
}
