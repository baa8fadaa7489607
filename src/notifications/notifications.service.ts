import type * as v from 'valibot';
import type { NotificationFilter } from '../../schema/notifications';
import { ApiError, type ErrorDetail, notFound } from '../core/errors';
import type { Page, PageRequest } from '../core/pagination';
import { idCursor, toPage } from '../core/pagination';
import type { DeploymentScope } from '../core/scope';
import { canonicalTimeZone } from '../core/time-zone';
import { withoutNulls } from '../core/validation';
import { CronError, compileSchedule, nextRunAfter, nextRuns } from './cron-expression';
import * as repo from './notifications.repository';
import {
  type CreateNotificationInput,
  EMAIL_SHAPED,
  type NotificationView,
  type UpdateNotificationInput,
  type updateNotificationBody,
} from './notifications.schemas';
import {
  cronExpressionOf,
  SCHEDULE_FIELDS,
  type Schedule,
  type ScheduleField,
  type ScheduleType,
  scheduleOf,
} from './schedule';
import { describeSchedule } from './schedule-wording';
import { localIso } from './time-zone';

const ALL_FIELDS: readonly ScheduleField[] = ['minute', 'hour', 'dayOfWeek', 'dayOfMonth', 'customCron'];

/**
 * The schedule a request leaves behind: given fields over stored ones. A field the resulting
 * type does not use is dropped when stored and refused when given, so a schedule never carries
 * values that silently do nothing.
 */
function mergeSchedule(stored: Schedule | null, input: UpdateNotificationInput): Schedule {
  const type = (input.scheduleType ?? stored?.scheduleType) as ScheduleType;
  const uses = SCHEDULE_FIELDS[type];
  const details: ErrorDetail[] = [];
  const merged: Schedule = {
    scheduleType: type,
    minute: null,
    hour: null,
    dayOfWeek: null,
    dayOfMonth: null,
    customCron: null,
    timezone:
      input.timezone !== undefined
        ? (canonicalTimeZone(input.timezone) as string)
        : (stored?.timezone ?? 'UTC'),
  };
  for (const field of ALL_FIELDS) {
    const given = input[field];
    if (!uses.includes(field)) {
      if (given !== undefined) details.push({ path: field, message: `Does not apply to ${type} schedules` });
      continue;
    }
    const value = given ?? stored?.[field] ?? null;
    if (value === null) details.push({ path: field, message: `Required for ${type} schedules` });
    (merged as unknown as Record<string, unknown>)[field] = value;
  }
  if (details.length === 0 && type === 'CUSTOM') {
    try {
      const compiled = compileSchedule(merged);
      if (nextRunAfter(compiled, Date.UTC(2000, 0, 1)) === null) {
        details.push({ path: 'customCron', message: 'The expression never fires' });
      }
    } catch (err) {
      if (!(err instanceof CronError)) throw err;
      details.push({ path: 'customCron', message: err.message });
    }
  }
  if (details.length > 0) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `Invalid schedule: ${details[0]?.path} ${details[0]?.message}`,
      details,
    );
  }
  return merged;
}

function nextRunAt(schedule: Schedule, isEnabled: boolean, now: Date): string | null {
  if (!isEnabled) return null;
  const next = nextRunAfter(compileSchedule(schedule), now.getTime());
  return next === null ? null : new Date(next).toISOString();
}

const sameSchedule = (a: Schedule, b: Schedule) =>
  (Object.keys(a) as (keyof Schedule)[]).every((k) => a[k] === b[k]);

/**
 * Cube's DashboardFilter: `operator` and `value` are null when unset, the boolean flags are left
 * out (Cube's schema takes them as any value or null through a `oneOf` that null matches twice,
 * so a null flag is one no Cube client can parse).
 */
function normalizeFilters(filters: NotificationFilter[]) {
  return filters.map((f) => ({
    member: f.member,
    operator: f.operator ?? null,
    value: f.value ?? null,
    ...(typeof f.caseSensitive === 'boolean' ? { caseSensitive: f.caseSensitive } : {}),
    ...(typeof f.startInclusive === 'boolean' ? { startInclusive: f.startInclusive } : {}),
    ...(typeof f.endInclusive === 'boolean' ? { endInclusive: f.endInclusive } : {}),
  }));
}

function presentNotification(row: repo.NotificationRow): NotificationView {
  const schedule = scheduleOf(row);
  return {
    id: row.id,
    deploymentId: row.deploymentId,
    dashboardId: row.dashboardId,
    dashboardPublicId: row.dashboardPublicId,
    ...schedule,
    cronExpression: row.cronExpression,
    humanReadableSchedule: describeSchedule(schedule),
    isEnabled: row.isEnabled,
    notificationEnabled: row.notificationEnabled,
    notificationFormat: row.notificationFormat,
    notificationAiSummary: row.notificationAiSummary,
    filters: normalizeFilters(row.filters),
    timeGrains: row.timeGrains,
    memberSwitchers: row.memberSwitchers,
    nextRunAt: row.nextRunAt,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The dashboard a body names (exactly one of dashboardId, dashboardPublicId), of this deployment. */
async function resolveDashboard(scope: DeploymentScope, input: UpdateNotificationInput) {
  const named = [input.dashboardId, input.dashboardPublicId].filter((x) => x !== undefined).length;
  if (named !== 1) {
    const message = 'Give exactly one of dashboardId or dashboardPublicId';
    throw new ApiError('VALIDATION_FAILED', message, [
      { path: named > 1 ? 'dashboardPublicId' : 'dashboardId', message },
    ]);
  }
  const ref: repo.DashboardRef =
    input.dashboardId !== undefined
      ? { id: input.dashboardId }
      : { publicId: input.dashboardPublicId as string };
  const result = await repo.resolveDashboard(scope, ref);
  if (!result.deploymentFound) throw notFound('Deployment');
  if (!result.dashboard) {
    throw new ApiError('NOT_FOUND', 'Published dashboard not found in this deployment', [
      { path: 'id' in ref ? 'dashboardId' : 'dashboardPublicId', message: 'Not found' },
    ]);
  }
  return result.dashboard;
}

/** A notification of the deployment's published dashboard, created by the scope's user. */
export async function createNotification(
  scope: DeploymentScope,
  input: CreateNotificationInput,
): Promise<NotificationView> {
  const schedule = mergeSchedule(null, input);
  const dashboard = await resolveDashboard(scope, input);
  const isEnabled = input.isEnabled ?? true;
  const row = await repo.insertNotification(
    scope,
    {
      dashboardId: dashboard.id,
      ...schedule,
      cronExpression: cronExpressionOf(schedule),
      notificationFormat: input.notificationFormat ?? 'png',
      isEnabled,
      notificationEnabled: input.notificationEnabled ?? true,
      notificationAiSummary: input.notificationAiSummary ?? false,
      filters: input.filters ?? [],
      timeGrains: input.timeGrains ?? [],
      memberSwitchers: input.memberSwitchers ?? [],
      nextRunAt: nextRunAt(schedule, isEnabled, scope.now),
    },
    dashboard.publicId,
  );
  return presentNotification(row);
}

async function getNotificationRow(scope: DeploymentScope, id: number): Promise<repo.NotificationRow> {
  const row = await repo.findNotification(scope, id);
  if (!row) throw notFound('Notification');
  return row;
}

export async function getNotification(scope: DeploymentScope, id: number): Promise<NotificationView> {
  return presentNotification(await getNotificationRow(scope, id));
}

/** The list filter of Cube's query: the recipient filters are exclusive, the embed pair goes together. */
export function listFilterOf(query: {
  dashboardId?: number;
  dashboardPublicId?: string;
  recipientUserId?: number;
  recipientEmail?: string;
  recipientEmbedTenantName?: string;
  recipientExternalId?: string;
}): repo.ListFilter {
  const embedGiven = [query.recipientEmbedTenantName, query.recipientExternalId].filter(
    (x) => x !== undefined,
  ).length;
  if (embedGiven === 1) {
    const path = query.recipientExternalId === undefined ? 'recipientExternalId' : 'recipientEmbedTenantName';
    throw new ApiError(
      'VALIDATION_FAILED',
      'Give recipientEmbedTenantName and recipientExternalId together',
      [{ path, message: 'Required with the other' }],
    );
  }
  const recipientFilters = [query.recipientUserId, query.recipientEmail, embedGiven ? 1 : undefined].filter(
    (x) => x !== undefined,
  ).length;
  if (recipientFilters > 1) {
    throw new ApiError('VALIDATION_FAILED', 'Give at most one recipient filter', [
      { path: 'recipientUserId', message: 'Recipient filters are mutually exclusive' },
    ]);
  }
  const externalId = query.recipientExternalId ?? '';
  const filter: repo.ListFilter = {
    dashboardId: query.dashboardId,
    dashboardPublicId: query.dashboardPublicId,
  };
  if (query.recipientUserId !== undefined) filter.recipientKeys = [`user:${query.recipientUserId}`];
  if (query.recipientEmail !== undefined) filter.recipientEmail = query.recipientEmail;
  if (embedGiven) {
    const id = EMAIL_SHAPED.test(externalId) ? externalId.toLowerCase() : externalId;
    filter.recipientKeys = [`embed:${query.recipientEmbedTenantName}/${id}`];
  }
  return filter;
}

export async function listNotifications(
  scope: DeploymentScope,
  filter: repo.ListFilter,
  request: PageRequest,
): Promise<Page<NotificationView>> {
  const { deploymentFound, rows } = await repo.listNotifications(scope, filter, idCursor(request));
  if (!deploymentFound) throw notFound('Deployment');
  return toPage(rows, request, 'notifications', (n) => [n.id], presentNotification);
}

/**
 * Cube's updateNotification, a partial update: the fields sent change; null or omitted (or no
 * body) leaves a field as it is. `filters` and `timeGrains` replace the stored sets when given.
 * The next run is recomputed from now whenever the schedule or `isEnabled` changes; an edit
 * that leaves both alone keeps it, so a slot that is due but not yet claimed is not lost.
 */
export async function updateNotification(
  scope: DeploymentScope,
  id: number,
  body: v.InferOutput<typeof updateNotificationBody> | undefined,
): Promise<NotificationView> {
  const input: UpdateNotificationInput = withoutNulls(body ?? {});
  const stored = await getNotificationRow(scope, id);
  const schedule = mergeSchedule(scheduleOf(stored), input);
  const dashboard =
    input.dashboardId !== undefined || input.dashboardPublicId !== undefined
      ? await resolveDashboard(scope, input)
      : null;
  const isEnabled = input.isEnabled ?? stored.isEnabled;
  const rescheduled = !sameSchedule(schedule, scheduleOf(stored)) || isEnabled !== stored.isEnabled;
  const row = await repo.updateNotification(scope, id, {
    ...schedule,
    cronExpression: cronExpressionOf(schedule),
    ...(dashboard ? { dashboardId: dashboard.id } : {}),
    ...(input.notificationFormat !== undefined ? { notificationFormat: input.notificationFormat } : {}),
    isEnabled,
    ...(input.notificationEnabled !== undefined ? { notificationEnabled: input.notificationEnabled } : {}),
    ...(input.notificationAiSummary !== undefined
      ? { notificationAiSummary: input.notificationAiSummary }
      : {}),
    ...(input.filters !== undefined ? { filters: input.filters } : {}),
    ...(input.timeGrains !== undefined ? { timeGrains: input.timeGrains } : {}),
    ...(input.memberSwitchers !== undefined ? { memberSwitchers: input.memberSwitchers } : {}),
    ...(rescheduled ? { nextRunAt: nextRunAt(schedule, isEnabled, scope.now) } : {}),
  });
  if (!row) throw notFound('Notification');
  return presentNotification(row);
}

export async function deleteNotification(scope: DeploymentScope, id: number) {
  if (!(await repo.deleteNotification(scope, id))) {
    throw notFound('Notification');
  }
  return { id, deleted: true as const };
}

/**
 * The next `count` runs of a notification's schedule from now (10 unless the query asks), in
 * UTC and in the notification's zone, with its wording.
 */
export async function previewSchedule(scope: DeploymentScope, id: number, count = 10) {
  const row = await getNotificationRow(scope, id);
  const schedule = scheduleOf(row);
  const runs = nextRuns(compileSchedule(schedule), scope.now.getTime(), count);
  return {
    cronExpression: row.cronExpression,
    humanReadableSchedule: describeSchedule(schedule),
    timezone: row.timezone,
    isEnabled: row.isEnabled,
    nextRuns: runs.map((t) => ({ utc: new Date(t).toISOString(), local: localIso(t, row.timezone) })),
  };
}
