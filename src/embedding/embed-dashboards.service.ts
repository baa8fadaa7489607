import { downloadsRestricted, embedTimeZone, withAccountTheme } from '../accounts/app-config.policy';
import { ApiError, notFound } from '../core/errors';
import type { AccountScope, RequestScope } from '../core/scope';
import { type ControlValues, type DashboardControls, resolveControls } from '../dashboards/controls';
import { parseJsonObject, reportRefs, widgetsOf } from '../dashboards/dashboard-widgets';
import type { PublishedDashboard } from '../dashboards/dashboards.schemas';
import { type DashboardReport, liveDashboard } from '../dashboards/live-reports.service';
import { restrictSnapshots, type ViewerAttributes } from '../dashboards/row-security';
import { loadQueries, queryReach } from '../data-api/data.service';
import type { DataScope } from '../data-api/data-scope';
import type { CubeQuery } from '../semantic/query/query.types';
import * as repo from './embed-dashboards.repository';
import {
  type EmbedSessionScope,
  readWithPayload,
  rebuildSession,
  sessionRevoked,
  withSession,
} from './embed-sessions.service';
import type { SessionPayload, SessionUser } from './session-store';
import { invalidSession, type SessionClaims, type TokenUse, verifySession } from './session-token';

export interface Viewer {
  displayName: string | null;
  picture: string | null;
  initials: string;
}

/**
 * The settings a viewer applies: the session's, with the account's app config where it decides
 * (its embed defaults, time zone policy, download restriction); null: neither set it (the
 * viewer's default).
 */
export interface EffectiveSettings {
  showDashboardChat: boolean;
  locale: string | null;
  /** The zone of the load's queries and of the times it shows (`embedTimeZone`); null: UTC. */
  timezone: string | null;
  /** The account restricts data downloads: the client offers no download or export of the data. */
  restrictDataDownload: boolean;
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
  /** With `targets`: control widget id → the CHART widget ids its value can change. */
  controlTargets?: Record<string, string[]>;
};

/** What a load shows: the controls' values set by the viewer or host page, and which widgets to refresh. */
export interface LoadOptions {
  controls?: Omit<ControlValues, 'locked'>;
  /** Only the reports these widgets show are run and answered (a control changed). */
  widgetIds?: readonly string[];
  /** Also answer which charts each control widget can change (`controlTargets`; the viewer's refreshes). */
  targets?: boolean;
  /**
   * Answer the config with the account's app theme (applied globally) as the default of the
   * dashboard's own, as the viewer page draws it. The JSON load answers the config as published.
   */
  accountTheme?: boolean;
}

function effectiveSettings(claims: SessionClaims, row: repo.EmbedDashboardRow): EffectiveSettings {
  const s = claims.settings;
  return {
    showDashboardChat: s.showDashboardChat ?? row.showDashboardChat,
    locale: s.locale ?? row.appConfig?.embedding?.locale ?? null,
    timezone: embedTimeZone(row.appConfig, s.timezone),
    restrictDataDownload: downloadsRestricted(row.appConfig),
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
 * revocation): side by side, or the payload first within a minute of the signing (its write
 * bookmark, see readWithPayload). A KV miss rebuilds the payload from D1 and writes it back.
 * Exported for every surface that shows an embedded dashboard (the JSON API and the viewer).
 */
export async function loadEmbedDashboard(
  scope: RequestScope,
  credential: { id: string; use: TokenUse },
  publicId: string,
  options: LoadOptions = {},
): Promise<EmbedDashboardView> {
  const claims = await verifySession(scope.env, credential.id, scope.now, credential.use);
  return loadEmbedDashboardFor(withSession(scope, claims), publicId, options);
}

/** An embedded dashboard a session may see, and the data scope of its viewer. */
interface EmbedAccess {
  dashboard: NonNullable<repo.EmbedDashboardRow['dashboard']>;
  row: repo.EmbedDashboardRow;
  payload: SessionPayload;
  data: DataScope;
  /** The settings the viewer applies (the session's under the account's app config). */
  settings: EffectiveSettings;
}

/**
 * Every check of a load (publicDashboardId, revocation, allowEmbed, the session's deployment),
 * then the session's state and the viewer's data scope: their identity, so the model's access
 * policies apply to every query run for them.
 */
export async function openEmbedDashboard(scope: EmbedSessionScope, publicId: string): Promise<EmbedAccess> {
  const claims = scope.session;
  // A session minted for one dashboard (Cube's publicDashboardId) sees no other.
  if (claims.publicDashboardId !== undefined && claims.publicDashboardId !== publicId) {
    throw notFound('Dashboard');
  }
  // A load soon after the mint resumes at the bookmark of its writes (see readWithPayload), so
  // it reads what the mint wrote (a new tenant's catalogue) wherever it runs.
  const {
    cached,
    replica,
    result: row,
  } = await readWithPayload(scope, (db) => repo.findEmbedDashboard(db, claims, publicId));
  if (!row) throw invalidSession();
  if (row.revoked) throw sessionRevoked();
  if (!row.dashboard) throw notFound('Dashboard');
  if (!row.dashboard.allowEmbed && !claims.creatorMode && !row.dashboard.allEmbedUsers) {
    throw new ApiError('EMBED_DISABLED', 'Signed embedding is disabled for this dashboard');
  }
  // Rebuilt from the primary only for a load that will be answered: a refused one costs no write.
  const payload = cached ?? (await rebuildSession(scope));
  const data: DataScope = {
    ...scope,
    db: replica,
    accountId: claims.accountId,
    deploymentId: row.dashboard.deploymentId,
    identity: {
      groups: payload.groups,
      userAttributes: payload.attributes,
      securityContext: payload.securityContext ?? {},
    },
    // Read in the statement above: a repeated live load needs no other read to find its answers.
    serving: row.serving,
  };
  return { dashboard: row.dashboard, row, payload, data, settings: effectiveSettings(claims, row) };
}

/** The load for a session whose token the caller has verified already (the viewer page needs its expiry too). */
export async function loadEmbedDashboardFor(
  scope: EmbedSessionScope,
  publicId: string,
  options: LoadOptions = {},
): Promise<EmbedDashboardView> {
  const claims = scope.session;
  const { dashboard, row, payload, data, settings } = await openEmbedDashboard(scope, publicId);
  // Only the viewer's public face leaves: never the security context, groups or attributes.
  // Static report rows are those the viewer's attributes allow (row-level security); live
  // reports run with the viewer's identity, so the model's access policies apply. The session's
  // locked filters win over every control value and narrow every query of their cube.
  const locked = claims.locked ?? [];
  const controls = resolveControls(dashboard.config, { ...options.controls, locked });
  const [live, targets] = await Promise.all([
    liveDashboard(
      data,
      {
        config: dashboard.config,
        reportSnapshots: restrictSnapshots(
          dashboard.reportSnapshots,
          asViewerAttributes(payload.attributes),
          { restrictedBy: row.catalogueAttributes },
        ),
      },
      controls,
      // Queries that name no zone run in the viewer's (the account's policy decides how the
      // session's own combines with it): time buckets and relative ranges follow it.
      { widgetIds: options.widgetIds, locked, timezone: settings.timezone ?? undefined },
    ),
    options.targets ? controlTargets(data, dashboard, controls) : undefined,
  ]);
  return {
    ...dashboard,
    ...(options.accountTheme && { config: withAccountTheme(dashboard.config, row.appConfig) }),
    reportSnapshots: live.reportSnapshots,
    viewer: viewerOf(payload),
    settings,
    controls,
    dataTime: live.dataTime,
    ...(targets && { controlTargets: targets }),
  };
}

/**
 * For each FILTER and TIME_GRAIN widget, the CHART widgets its value can change: those whose
 * report's query the model lets its member narrow (a filter) or that chart its time dimension
 * with a granularity (a time grain). Static reports are reached by none. No data is read.
 */
async function controlTargets(
  scope: DataScope,
  dashboard: { config: unknown; reportSnapshots: readonly DashboardReport[] },
  controls: DashboardControls,
): Promise<Record<string, string[]>> {
  const charts = widgetsOf(dashboard.config).flatMap((widget) => {
    if (widget.type !== 'CHART') return [];
    const refs = reportRefs(widget);
    const report = dashboard.reportSnapshots.find(
      (r) => refs.includes(r.reportId) || (r.id !== undefined && refs.includes(r.id)),
    );
    const query = parseJsonObject(report?.jsonQuery) as CubeQuery | null;
    return query ? [{ widgetId: widget.widgetId, query }] : [];
  });
  const filterMembers = [...new Set(controls.filters.map((f) => f.member))];
  const grainMembers = [...new Set(controls.timeGrains.map((g) => g.member))];
  const reach = await queryReach(
    scope,
    charts.map((c) => c.query),
    { filters: filterMembers, timeGrains: grainMembers },
  );
  const targets: Record<string, string[]> = {};
  const add = (widgetId: string | undefined, member: string, kind: 'filters' | 'timeGrains') => {
    if (widgetId === undefined) return;
    targets[widgetId] = charts.filter((_, i) => reach[i]?.[kind].includes(member)).map((c) => c.widgetId);
  };
  for (const f of controls.filters) add(f.widgetId, f.member, 'filters');
  for (const g of controls.timeGrains) add(g.widgetId, g.member, 'timeGrains');
  return targets;
}

/** How many values a FILTER control offers at once, and the longest search it takes. */
export const FILTER_VALUES_LIMIT = 100;
export const MAX_FILTER_SEARCH = 200;

/**
 * The values a FILTER widget offers its viewer: its member's distinct values containing `search`
 * (none: all), in order, at most FILTER_VALUES_LIMIT, from a query run with the viewer's identity
 * (a viewer sees only the values their policies let them see) under the session's locked filters.
 * `truncated` says there may be more than shown (search to narrow them).
 */
export async function embedFilterValues(
  scope: EmbedSessionScope,
  publicId: string,
  request: { widgetId: string; search?: string },
): Promise<{ member: string; values: (string | number | boolean | null)[]; truncated: boolean }> {
  const { dashboard, data, settings } = await openEmbedDashboard(scope, publicId);
  const control = resolveControls(dashboard.config).filters.find((f) => f.widgetId === request.widgetId);
  if (!control) throw notFound('Filter widget');
  const member = control.member;
  const search = request.search?.trim() ?? '';
  const query: CubeQuery = {
    dimensions: [member],
    ...(search && { filters: [{ member, operator: 'contains', values: [search] }] }),
    order: { [member]: 'asc' },
    limit: FILTER_VALUES_LIMIT + 1,
    // A time member's values are read in the viewer's zone, as the charts show them.
    ...(settings.timezone && { timezone: settings.timezone }),
  };
  const [outcome] = await loadQueries(data, [query], {
    controls: { filters: [], timeGrains: [], required: scope.session.locked ?? [] },
  });
  if (!outcome) throw new ApiError('INTERNAL', 'No answer for the filter values');
  if (!outcome.ok) throw outcome.error;
  const values = outcome.result.data.map((row) => row[member] as string | number | boolean | null);
  return {
    member,
    values: values.slice(0, FILTER_VALUES_LIMIT),
    truncated: values.length > FILTER_VALUES_LIMIT,
  };
}

/** The embedding switches of one of the account's published dashboards; an omitted flag keeps its value. */
export async function updateEmbedFlags(
  scope: AccountScope,
  publicId: string,
  flags: { allowEmbed?: boolean; allEmbedUsers?: boolean },
) {
  const updated = await repo.updateEmbedFlags(scope, publicId, flags);
  if (!updated) throw notFound('Published dashboard');
  return { allowEmbed: updated.allowEmbed, publicId: updated.publicId, allEmbedUsers: updated.allEmbedUsers };
}
