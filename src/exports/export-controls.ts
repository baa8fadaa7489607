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
 * rather than left out. Reads the serving model once, and only when there are members to check.
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
  // Both lists in one check, so the serving model is looked up once; only on the way to a
  // refusal is the filters' list checked alone, to name the list the member is in.
  const members = { filters: filters.map((f) => f.member), timeGrains: timeGrains.map((g) => g.member) };
  const problem = await controlMembersProblem(scope, members);
  if (problem === null) return null;
  const inFilters = await controlMembersProblem(scope, { filters: members.filters, timeGrains: [] });
  return inFilters === null
    ? { path: 'timeGrains', message: problem }
    : { path: 'filters', message: inFilters };
}

/** The controls' values a render takes for an export's filters and time grains. */
export const renderControls = (filters: readonly NotificationFilter[], timeGrains: readonly TimeGrain[]) =>
  controlValuesOf(filters, timeGrains);
