import { createDb } from '../core/db';
import type { Db } from '../core/env';
import { ApiError, notFound } from '../core/errors';
import { type ControlValues, type DashboardControls, resolveControls } from '../dashboards/controls';
import type { PublishedDashboard } from '../dashboards/dashboards.schemas';
import { liveDashboard } from '../dashboards/live-reports.service';
import { restrictSnapshots, type ViewerAttributes } from '../dashboards/row-security';
import * as repo from './embed-dashboards.repository';
import { type EmbedContext, rebuildSession, sessionRevoked } from './embed-sessions.service';
import { getSession, type SessionPayload, type SessionUser } from './session-store';
import { invalidSession, type SessionClaims, type TokenUse, verifySession } from './session-token';

export interface Viewer {
  displayName: string | null;
  picture: string | null;
  initials: string;
}

/** The settings a viewer applies; null: the session did not set it (the viewer's default). */
export interface EffectiveSettings {
  showDashboardChat: boolean;
  locale: string | null;
  timezone: string | null;
  allowAi: boolean | null;
  allowChatWorkspaceAuthoring: boolean | null;
  showAiWidgets: boolean | null;
  showDashboardSettings: boolean | null;
  showGroupByCube: boolean | null;
  showMemberNames: boolean | null;
  showWorkbookChat: boolean | null;
  showWorkbookShare: boolean | null;
}

export type EmbedDashboardView = PublishedDashboard & {
  viewer: Viewer;
  settings: EffectiveSettings;
  /** The controls' values this load applied (widget defaults, the caller's, the session's locked ones). */
  controls: DashboardControls;
  /** When the oldest of the live data was read (ISO); null when no report has a query. */
  dataTime: string | null;
};

/** What a load shows: the controls' values set by the viewer or host page, and which widgets to refresh. */
export interface LoadOptions {
  controls?: Omit<ControlValues, 'locked'>;
  /** Only the reports these widgets show are run and answered (a control changed). */
  widgetIds?: readonly string[];
}

function effectiveSettings(claims: SessionClaims, accountChat: boolean): EffectiveSettings {
  const s = claims.settings;
  return {
    showDashboardChat: s.showDashboardChat ?? accountChat,
    locale: s.locale ?? null,
    timezone: s.timezone ?? null,
    allowAi: s.allowAi ?? null,
    allowChatWorkspaceAuthoring: s.allowChatWorkspaceAuthoring ?? null,
    showAiWidgets: s.showAiWidgets ?? null,
    showDashboardSettings: s.showDashboardSettings ?? null,
    showGroupByCube: s.showGroupByCube ?? null,
    showMemberNames: s.showMemberNames ?? null,
    showWorkbookChat: s.showWorkbookChat ?? null,
    showWorkbookShare: s.showWorkbookShare ?? null,
  };
}

/** Row-level security compares values as text: a boolean attribute matches the cells true/false. */
const asViewerAttributes = (attributes: SessionPayload['attributes']): ViewerAttributes =>
  Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      typeof value === 'boolean' ? String(value) : value,
    ]),
  );

/** Up to two letters for the fallback avatar: first and last word of the name (or of the id). */
export function initialsOf(user: SessionUser): string {
  const id = user.kind === 'external' ? user.externalId : user.username;
  // An id that is an email address gives the initials of its local part (jane.doe@… → JD).
  const source = user.displayName?.trim() || id.split('@')[0] || id;
  const words = source.split(/[\s._@-]+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0], words[words.length - 1]] : words.slice(0, 1);
  const initials = letters.map((w) => Array.from(w as string)[0] ?? '').join('');
  return initials.toUpperCase() || '?';
}

const viewerOf = (payload: SessionPayload): Viewer => ({
  displayName: payload.user.displayName,
  picture: payload.user.picture,
  initials: initialsOf(payload.user),
});

/**
 * A browser's load of an embedded dashboard. The token is verified first (no storage); then
 * KV (the session payload) and ONE replica-served D1 statement (dashboard, chat toggle,
 * revocation) run side by side. A KV miss rebuilds the payload from D1 and writes it back.
 * Exported for every surface that shows an embedded dashboard (the JSON API and the viewer).
 */
export async function loadEmbedDashboard(
  ctx: EmbedContext,
  credential: { id: string; use: TokenUse },
  publicId: string,
  options: LoadOptions = {},
): Promise<EmbedDashboardView> {
  const claims = await verifySession(ctx.env, credential.id, ctx.clock.now(), credential.use);
  return loadEmbedDashboardFor(ctx, claims, publicId, options);
}

/** The load for a session whose token the caller has verified already (the viewer page needs its expiry too). */
export async function loadEmbedDashboardFor(
  ctx: EmbedContext,
  claims: SessionClaims,
  publicId: string,
  options: LoadOptions = {},
): Promise<EmbedDashboardView> {
  // A session minted for one dashboard (Cube's publicDashboardId) sees no other.
  if (claims.publicDashboardId !== undefined && claims.publicDashboardId !== publicId) {
    throw notFound('Dashboard');
  }
  const replica = createDb(ctx.d1.withSession('first-unconstrained'));
  const [cached, row] = await Promise.all([
    getSession(ctx.env.SESSIONS, claims.sessionId),
    repo.findEmbedDashboard(replica, claims, publicId),
  ]);
  if (!row) throw invalidSession();
  if (row.revoked) throw sessionRevoked();
  if (!row.dashboard) throw notFound('Dashboard');
  if (!row.dashboard.allowEmbed && !claims.creatorMode && !row.dashboard.allEmbedUsers) {
    throw new ApiError('EMBED_DISABLED', 'Signed embedding is disabled for this dashboard');
  }
  // Rebuilt from the primary only for a load that will be answered: a refused one costs no write.
  const payload = cached ?? (await rebuildSession(ctx, claims));
  // Only the viewer's public face leaves: never the security context, groups or attributes.
  // Static report rows are those the viewer's attributes allow (row-level security); live
  // reports run with the viewer's identity, so the model's access policies apply.
  const dashboard = row.dashboard;
  const controls = resolveControls(dashboard.config, { ...options.controls });
  const live = await liveDashboard(
    {
      db: replica,
      env: ctx.env,
      accountId: claims.accountId,
      deploymentId: dashboard.deploymentId,
      identity: {
        groups: payload.groups,
        userAttributes: payload.attributes,
        securityContext: payload.securityContext ?? {},
      },
      now: ctx.clock.now(),
      waitUntil: ctx.waitUntil,
    },
    {
      config: dashboard.config,
      reportSnapshots: restrictSnapshots(dashboard.reportSnapshots, asViewerAttributes(payload.attributes), {
        restrictedBy: row.catalogueAttributes,
      }),
    },
    controls,
    { widgetIds: options.widgetIds },
  );
  return {
    ...dashboard,
    reportSnapshots: live.reportSnapshots,
    viewer: viewerOf(payload),
    settings: effectiveSettings(claims, row.showDashboardChat),
    controls,
    dataTime: live.dataTime,
  };
}

/** E8. */
export async function updateEmbedFlags(
  db: Db,
  accountId: number,
  publicId: string,
  flags: { allowEmbed?: boolean; allEmbedUsers?: boolean },
  now: string,
) {
  const updated = await repo.updateEmbedFlags(db, accountId, publicId, flags, now);
  if (!updated) throw notFound('Published dashboard');
  return { allowEmbed: updated.allowEmbed, publicId: updated.publicId, allEmbedUsers: updated.allEmbedUsers };
}
