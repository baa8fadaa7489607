import {
  accountTimeZone,
  downloadRestricted,
  downloadsRestricted,
  effectiveTimeZone,
  withAccountTheme,
} from '../accounts/app-config.policy';
import { notFound } from '../core/errors';
import type { DeploymentScope, RequestScope } from '../core/scope';
import { type RenderedDashboard, renderDashboard } from '../render/render';
import type { RenderInput } from '../render/render.types';
import { type ControlValues, displayedControls, resolveControls } from './controls';
import { liveDashboard } from './live-reports.service';
import { findRenderSource } from './render.repository';
import type { RenderQuery } from './render.schemas';

/**
 * What a render reads: a deployment of an account, and the account user it is for (`userId`),
 * whose attribute values its queries run with. A request's `DeploymentScope` is one (the caller,
 * or the admin an API key acts as); a queued dashboard export, which has no principal, builds one
 * from its job (its `renderAs` user, else who started it).
 */
export type WorkbookRenderScope = RequestScope &
  Pick<DeploymentScope, 'accountId' | 'deploymentId' | 'userId'>;

/** The version, format and width of a render, and the controls' values in `resolveControls`' forms. */
export type RenderOptions = Pick<RenderQuery, 'format' | 'version' | 'width'> &
  Pick<ControlValues, 'filters' | 'timeGrains'>;

/**
 * A workbook's dashboard as an image: the published version (what notifications send: its
 * frozen reports) or the draft (the workbook's reports as they are now), with live data for
 * every report that has a query, under the given (else the saved) controls' values. The
 * account's app config applies: a download restriction refuses the file (403), the time zone
 * policy is the zone of the queries and of the data's time, the app theme (applied globally)
 * is the default of the dashboard's theme.
 */
export async function renderWorkbookDashboard(
  scope: WorkbookRenderScope,
  workbookId: number,
  query: RenderOptions,
): Promise<RenderedDashboard & { filename: string }> {
  const source = await findRenderSource(scope, workbookId, query.version);
  if (!source.deploymentOk) throw notFound('Deployment');
  if (downloadsRestricted(source.appConfig)) throw downloadRestricted();
  if (!source.workbookFound) throw notFound('Workbook');
  let input: RenderInput;
  if (query.version === 'draft') {
    if (!source.draft) throw notFound('Dashboard draft (the workbook has none)');
    input = { config: source.draft, reportSnapshots: source.reports };
  } else {
    if (!source.published) throw notFound('Published dashboard (the workbook was never published)');
    const p = source.published;
    input = {
      config: p.config,
      reportSnapshots: p.reportSnapshots,
      title: p.title,
      description: p.description,
    };
  }
  const controls = resolveControls(input.config, { filters: query.filters, timeGrains: query.timeGrains });
  const live = await liveDashboard(
    // An account user is no embed viewer: no groups, no context, their own attribute values.
    { ...scope, identity: source.identity },
    { config: input.config, reportSnapshots: input.reportSnapshots ?? [] },
    controls,
    { timezone: accountTimeZone(source.appConfig) ?? undefined },
  );
  const rendered = await renderDashboard(
    {
      ...input,
      config: withAccountTheme(input.config, source.appConfig),
      reportSnapshots: live.reportSnapshots,
      ...displayedControls(controls),
      dataTime: live.dataTime,
      timeZone: effectiveTimeZone(source.appConfig, 'account'),
    },
    query.format,
    { width: query.width },
  );
  return { ...rendered, filename: `dashboard-${workbookId}-${query.version}.${query.format}` };
}
