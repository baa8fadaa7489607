import * as v from 'valibot';
import {
  DELIVERY_STATUSES,
  NOTIFICATION_FORMATS,
  RECIPIENT_TYPES,
  RUN_STATUSES,
  RUN_TRIGGERS,
} from '../../schema/notifications';
import { pageQueryEntries } from '../core/pagination';
import { boundedObject, idNumber, idString, nonEmptyString, obj } from '../core/validation';
import { tenantName } from '../embedding/embedding.schemas';
import {
  MAX_FILTER_VALUE,
  MAX_FILTERS,
  MAX_MEMBER_NAME,
  MAX_RECIPIENT_ATTRIBUTES,
  MAX_RECIPIENT_GROUPS,
  MAX_RECIPIENTS_PER_NOTIFICATION,
  MAX_TIME_GRAINS,
  SECURITY_CONTEXT_LIMITS,
} from './notifications.limits';
import { SCHEDULE_TYPES } from './schedule';
import { resolveTimeZone } from './time-zone';

export const TIME_GRAINS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

const int = (min: number, max: number) =>
  v.pipe(v.number(), v.integer('Expected an integer'), v.minValue(min), v.maxValue(max));

const timezone = v.pipe(
  v.string(),
  v.check((s) => resolveTimeZone(s) !== null, 'Expected an IANA time zone name such as Europe/Berlin'),
);

const filterInput = obj({
  member: nonEmptyString(MAX_MEMBER_NAME),
  value: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(MAX_FILTER_VALUE)))),
  caseSensitive: v.optional(v.nullable(v.boolean())),
  startInclusive: v.optional(v.nullable(v.boolean())),
  endInclusive: v.optional(v.nullable(v.boolean())),
});

const timeGrainInput = obj({ grain: v.picklist(TIME_GRAINS), member: nonEmptyString(MAX_MEMBER_NAME) });

/** Every field of E16; creation takes the same ones (contract §7). */
const notificationFields = {
  dashboardId: v.optional(idNumber),
  dashboardPublicId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  scheduleType: v.optional(v.picklist(SCHEDULE_TYPES)),
  minute: v.optional(int(0, 59)),
  hour: v.optional(int(0, 23)),
  dayOfWeek: v.optional(int(0, 6)),
  dayOfMonth: v.optional(int(1, 31)),
  customCron: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, 'Must not be empty'), v.maxLength(100))),
  timezone: v.optional(timezone),
  notificationFormat: v.optional(v.picklist(NOTIFICATION_FORMATS)),
  isEnabled: v.optional(v.boolean()),
  notificationEnabled: v.optional(v.boolean()),
  filters: v.optional(v.pipe(v.array(filterInput), v.maxLength(MAX_FILTERS))),
  timeGrains: v.optional(v.pipe(v.array(timeGrainInput), v.maxLength(MAX_TIME_GRAINS))),
};

export const createNotificationBody = obj({
  ...notificationFields,
  scheduleType: v.picklist(SCHEDULE_TYPES),
});
export const updateNotificationBody = obj(notificationFields);

export type CreateNotificationInput = v.InferOutput<typeof createNotificationBody>;
export type UpdateNotificationInput = v.InferOutput<typeof updateNotificationBody>;

export const deploymentParams = v.object({ deploymentId: idString });
export const notificationParams = v.object({ deploymentId: idString, id: idString });
export const recipientParams = v.object({ deploymentId: idString, id: idString, recipientId: idString });
export const runParams = v.object({ deploymentId: idString, id: idString, runId: idString });

export const listNotificationsQuery = obj({
  ...pageQueryEntries,
  dashboardId: v.optional(idString),
  dashboardPublicId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});

export const scheduleQuery = obj({
  count: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, 'Expected an integer'),
      v.transform(Number),
      v.minValue(1),
      v.maxValue(50),
    ),
  ),
});

const filterSchema = v.object({
  member: v.string(),
  value: v.nullable(v.string()),
  caseSensitive: v.nullable(v.boolean()),
  startInclusive: v.nullable(v.boolean()),
  endInclusive: v.nullable(v.boolean()),
});

export const notificationSchema = v.object({
  id: v.number(),
  deploymentId: v.number(),
  dashboardId: v.number(),
  dashboardPublicId: v.string(),
  scheduleType: v.picklist(SCHEDULE_TYPES),
  minute: v.nullable(v.number()),
  hour: v.nullable(v.number()),
  dayOfWeek: v.nullable(v.number()),
  dayOfMonth: v.nullable(v.number()),
  customCron: v.nullable(v.string()),
  cronExpression: v.string(),
  humanReadableSchedule: v.string(),
  timezone: v.string(),
  isEnabled: v.boolean(),
  notificationEnabled: v.boolean(),
  notificationFormat: v.picklist(NOTIFICATION_FORMATS),
  filters: v.array(filterSchema),
  timeGrains: v.array(v.object({ grain: v.string(), member: v.string() })),
  nextRunAt: v.nullable(v.string()),
  createdBy: v.nullable(v.number()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type NotificationView = v.InferOutput<typeof notificationSchema>;

export const scheduleSchema = v.object({
  cronExpression: v.string(),
  humanReadableSchedule: v.string(),
  timezone: v.string(),
  isEnabled: v.boolean(),
  nextRuns: v.array(v.object({ utc: v.string(), local: v.string() })),
});

// ---- Recipients (E15) ----

const RECIPIENT_IDENTITIES = ['userId', 'email', 'externalId', 'channelId'] as const;

const recipientInput = obj({
  type: v.optional(v.picklist(RECIPIENT_TYPES)),
  userId: v.optional(idNumber),
  email: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('Expected an email address'))),
  externalId: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, 'Must not be empty'),
      v.maxLength(255),
      v.check((s) => s === s.trim().toLowerCase(), 'Must be lowercase and trimmed'),
    ),
  ),
  embedTenantName: v.optional(tenantName),
  groups: v.optional(v.pipe(v.array(nonEmptyString(100)), v.maxLength(MAX_RECIPIENT_GROUPS))),
  userAttributes: v.optional(
    v.pipe(
      v.array(obj({ name: nonEmptyString(100), value: v.pipe(v.string(), v.maxLength(4096)) })),
      v.maxLength(MAX_RECIPIENT_ATTRIBUTES),
    ),
  ),
  securityContext: v.optional(boundedObject(SECURITY_CONTEXT_LIMITS)),
  channelId: v.optional(nonEmptyString(255)),
  channelName: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(255))),
});
export type RecipientInput = v.InferOutput<typeof recipientInput>;

export const addRecipientsBody = obj({
  recipients: v.pipe(
    v.array(recipientInput),
    v.minLength(1, 'At least 1 recipient'),
    v.maxLength(
      MAX_RECIPIENTS_PER_NOTIFICATION,
      `At most ${MAX_RECIPIENTS_PER_NOTIFICATION} recipients per request`,
    ),
  ),
});
export { RECIPIENT_IDENTITIES };

export const recipientSchema = v.object({
  id: v.number(),
  type: v.picklist(RECIPIENT_TYPES),
  userId: v.nullable(v.number()),
  username: v.nullable(v.string()),
  email: v.nullable(v.string()),
  embedUserId: v.nullable(v.number()),
  externalId: v.nullable(v.string()),
  embedTenantName: v.nullable(v.string()),
  groups: v.nullable(v.array(v.string())),
  userAttributes: v.nullable(v.array(v.object({ name: v.string(), value: v.string() }))),
  securityContext: v.nullable(v.record(v.string(), v.unknown())),
  channelId: v.nullable(v.string()),
  channelName: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type RecipientView = v.InferOutput<typeof recipientSchema>;

export const addRecipientsResultSchema = v.object({
  createdRecipients: v.array(recipientSchema),
  updatedRecipients: v.array(recipientSchema),
  unchangedRecipients: v.array(recipientSchema),
});

// ---- Runs ----

export const deliverySchema = v.object({
  recipientId: v.number(),
  status: v.picklist(DELIVERY_STATUSES),
  attempts: v.number(),
  lastError: v.nullable(v.string()),
  sentAt: v.nullable(v.string()),
});
export type DeliveryView = v.InferOutput<typeof deliverySchema>;

export const runSchema = v.object({
  id: v.number(),
  notificationId: v.number(),
  slot: v.string(),
  trigger: v.picklist(RUN_TRIGGERS),
  status: v.picklist(RUN_STATUSES),
  error: v.nullable(v.string()),
  createdAt: v.string(),
  startedAt: v.nullable(v.string()),
  finishedAt: v.nullable(v.string()),
  /** Every delivery of the run, counted by state. */
  deliveryCounts: v.object({ total: v.number(), pending: v.number(), sent: v.number(), failed: v.number() }),
  /** The first deliveries by recipient id (the contract's field, bounded). */
  deliveries: v.array(deliverySchema),
  /** More deliveries follow on `GET …/runs/{runId}/deliveries`. */
  deliveriesHasMore: v.boolean(),
});
export type RunView = v.InferOutput<typeof runSchema>;
