import type { NotificationFilter, TimeGrain } from '../../schema/notifications';
import type { ErrorDetail } from '../core/errors';
import type { WorkbookRenderScope } from '../dashboards/render.service';
import { controlMembersProblem } from '../data-api/data.service';
import { controlValuesOf, filterProblem } from '../notifications/notification-controls';

/**
 * An export's filters and time grains, which are a notification's (Cube's DashboardFilterInput
 * and DashboardTimeGrainInput): checked the way a notification run checks them, and turned into
 * the controls' values the renderer takes.
 */

/**
 * Why these controls cannot be applied as written, or null: a filter edgeboard cannot honour
 * (`custom`, a `caseSensitive` its operator does not have) or a member the deployment's serving
 * model lacks. A file that says "Country is FR" must show FR's rows, so such a filter is refused
 * rather than left out. Reads the serving model only for a list that has members to check.
 */
export async function controlsProblem(
  scope: WorkbookRenderScope,
  filters: readonly NotificationFilter[],
  timeGrains: readonly TimeGrain[],
): Promise<ErrorDetail | null> {
  for (const [index, filter] of filters.entries()) {
    const problem = filterProblem(filter);
    if (problem) return { path: `filters.${index}`, message: problem };
  }
  // Filters, then time grains: a refusal names the list it is in (the message names the member).
  for (const [path, members] of [
    ['filters', { filters: filters.map((f) => f.member), timeGrains: [] }],
    ['timeGrains', { filters: [], timeGrains: timeGrains.map((g) => g.member) }],
  ] as const) {
    const problem = await controlMembersProblem(scope, members);
    if (problem) return { path, message: problem };
  }
  return null;
}

/** The controls' values a render takes for an export's filters and time grains. */
export const renderControls = (filters: readonly NotificationFilter[], timeGrains: readonly TimeGrain[]) =>
  controlValuesOf(filters, timeGrains);
