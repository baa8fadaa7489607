import * as v from 'valibot';
import {
  DELIVERY_STATUSES,
  FILTER_OPERATORS,
  NOTIFICATION_FORMATS,
  RECIPIENT_TYPES,
  RUN_STATUSES,
  RUN_TRIGGERS,
} from '../../schema/notifications';
import { pageQueryEntries } from '../core/pagination';
import { canonicalTimeZone } from '../core/time-zone';
import { boundedObject, idNumber, idString, integerString, nonEmptyString, obj } from '../core/validation';
import { tenantName } from '../embedding/embedding.schemas';
import { VALUELESS_OPERATORS as VALUELESS } from '../semantic/query/control-operators';
import {
  MAX_FILTER_VALUE,
  MAX_FILTER_VALUE_ITEMS,
  MAX_FILTERS,
  MAX_MEMBER_NAME,
  MAX_MEMBER_SWITCHERS,
  MAX_RECIPIENT_ATTRIBUTES,
  MAX_RECIPIENT_GROUPS,
  MAX_RECIPIENTS_PER_NOTIFICATION,
  MAX_REMOVE_RECIPIENTS,
  MAX_TIME_GRAINS,
  SECURITY_CONTEXT_LIMITS,
} from './notifications.limits';
import { SCHEDULE_TYPES } from './schedule';

const TIME_GRAINS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

const int = (min: number, max: number) =>
  v.pipe(v.number(), v.integer('Expected an integer'), v.minValue(min), v.maxValue(max));

const timezone = v.pipe(
  v.string(),
  v.check((s) => canonicalTimeZone(s) !== null, 'Expected an IANA time zone name such as Europe/Berlin'),
);

const filterScalar = v.union([
  v.pipe(v.string(), v.maxLength(MAX_FILTER_VALUE)),
  v.pipe(v.number(), v.finite()),
  v.boolean(),
]);

/** Cube's `string | number | boolean | array`: a list holds scalars (or nulls), bounded. */
const filterValue = v.union([
  filterScalar,
  v.pipe(
    v.array(v.nullable(filterScalar)),
    v.maxLength(MAX_FILTER_VALUE_ITEMS, `At most ${MAX_FILTER_VALUE_ITEMS} values`),
  ),
]);

const filterInput = v.pipe(
  obj({
    member: nonEmptyString(MAX_MEMBER_NAME),
    operator: v.nullish(v.picklist(FILTER_OPERATORS)),
    value: v.nullish(filterValue),
    caseSensitive: v.nullish(v.boolean()),
    startInclusive: v.nullish(v.boolean()),
    endInclusive: v.nullish(v.boolean()),
  }),
  v.forward(
    v.check(
      (f) => f.operator !== 'between' || (Array.isArray(f.value) && f.value.length === 2),
      '`between` takes [start, end]',
    ),
    ['value'],
  ),
  v.forward(
    v.check(
      (f) => !f.operator || !VALUELESS.has(f.operator) || f.value == null,
      'No value with this operator',
    ),
    ['value'],
  ),
);

const timeGrainInput = obj({ grain: v.picklist(TIME_GRAINS), member: nonEmptyString(MAX_MEMBER_NAME) });

const memberSwitcherInput = obj({
  member: nonEmptyString(MAX_MEMBER_NAME),
  selected: nonEmptyString(MAX_MEMBER_NAME),
});

/** Every field an update takes; creation takes the same ones (the schedule's rules in schedule.ts). */
const notificationFields = {
  dashboardId: v.nullish(idNumber),
  dashboardPublicId: v.nullish(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  scheduleType: v.nullish(v.picklist(SCHEDULE_TYPES)),
  minute: v.nullish(int(0, 59)),
  hour: v.nullish(int(0, 23)),
  dayOfWeek: v.nullish(int(0, 6)),
  dayOfMonth: v.nullish(int(1, 31)),
  customCron: v.nullish(v.pipe(v.string(), v.trim(), v.minLength(1, 'Must not be empty'), v.maxLength(100))),
  timezone: v.nullish(timezone),
  notificationFormat: v.nullish(v.picklist(NOTIFICATION_FORMATS)),
  isEnabled: v.nullish(v.boolean()),
  notificationEnabled: v.nullish(v.boolean()),
  notificationAiSummary: v.nullish(v.boolean()),
  filters: v.nullish(v.pipe(v.array(filterInput), v.maxLength(MAX_FILTERS))),
  timeGrains: v.nullish(v.pipe(v.array(timeGrainInput), v.maxLength(MAX_TIME_GRAINS))),
  memberSwitchers: v.nullish(v.pipe(v.array(memberSwitcherInput), v.maxLength(MAX_MEMBER_SWITCHERS))),
};

export const createNotificationBody = obj({
  ...notificationFields,
  scheduleType: v.picklist(SCHEDULE_TYPES),
});
export const updateNotificationBody = obj(notificationFields);

/** A body with its nulls read as "not set" (Cube's meaning for every nullable field here). */
type NotSet<T> = { [K in keyof T]?: Exclude<T[K], null> };
export type CreateNotificationInput = NotSet<v.InferOutput<typeof createNotificationBody>> & {
  scheduleType: v.InferOutput<typeof createNotificationBody>['scheduleType'];
};
export type UpdateNotificationInput = NotSet<v.InferOutput<typeof updateNotificationBody>>;

export const deploymentParams = v.object({ deploymentId: idString });
export const notificationParams = v.object({ deploymentId: idString, id: idString });
export const recipientParams = v.object({ deploymentId: idString, id: idString, recipientId: idString });
export const runParams = v.object({ deploymentId: idString, id: idString, runId: idString });

export const listNotificationsQuery = obj({
  ...pageQueryEntries,
  dashboardId: v.optional(idString),
  dashboardPublicId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  recipientUserId: v.optional(idString),
  recipientEmail: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(254))),
  recipientEmbedTenantName: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(255))),
  recipientExternalId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(255))),
});

export const scheduleQuery = obj({
  count: v.optional(integerString(1, 50)),
});

const filterSchema = v.object({
  member: v.string(),
  operator: v.nullable(v.picklist(FILTER_OPERATORS)),
  value: v.nullable(filterValue),
  /** Left out when unset: Cube's DashboardFilter does not admit null for the three flags. */
  caseSensitive: v.optional(v.boolean()),
  startInclusive: v.optional(v.boolean()),
  endInclusive: v.optional(v.boolean()),
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
  notificationAiSummary: v.boolean(),
  filters: v.array(filterSchema),
  timeGrains: v.array(v.object({ grain: v.string(), member: v.string() })),
  memberSwitchers: v.array(v.object({ member: v.string(), selected: v.string() })),
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

// ---- Recipients ----

const RECIPIENT_IDENTITIES = ['userId', 'email', 'externalId', 'channelId'] as const;

/** Cube's UserAttributeInput value: a scalar, a list of strings or of numbers, or null. */
const attributeInputValue = v.nullable(
  v.union([
    v.pipe(v.string(), v.maxLength(4096)),
    v.pipe(v.number(), v.finite()),
    v.boolean(),
    v.pipe(v.array(v.pipe(v.string(), v.maxLength(4096))), v.maxLength(MAX_FILTER_VALUE_ITEMS)),
    v.pipe(v.array(v.pipe(v.number(), v.finite())), v.maxLength(MAX_FILTER_VALUE_ITEMS)),
  ]),
);

const recipientInput = obj({
  type: v.nullish(v.picklist(RECIPIENT_TYPES)),
  userId: v.nullish(idNumber),
  email: v.nullish(v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('Expected an email address'))),
  externalId: v.nullish(
    v.pipe(
      v.string(),
      v.minLength(1, 'Must not be empty'),
      v.maxLength(255),
      v.check((s) => s === s.trim(), 'Must be trimmed'),
      // An email-shaped id is an address (case-insensitive): it names the lowercase embed user.
      v.transform((s) => (EMAIL_SHAPED.test(s) ? s.toLowerCase() : s)),
      v.check((s) => s === s.toLowerCase(), 'Must be lowercase (unless it is an email address)'),
    ),
  ),
  embedTenantName: v.nullish(tenantName),
  groups: v.nullish(v.pipe(v.array(nonEmptyString(100)), v.maxLength(MAX_RECIPIENT_GROUPS))),
  userAttributes: v.nullish(
    v.pipe(
      v.array(obj({ name: nonEmptyString(100), value: v.optional(attributeInputValue, null) })),
      v.maxLength(MAX_RECIPIENT_ATTRIBUTES),
    ),
  ),
  securityContext: v.nullish(boundedObject(SECURITY_CONTEXT_LIMITS)),
  channelId: v.nullish(nonEmptyString(255)),
  channelName: v.nullish(v.pipe(v.string(), v.trim(), v.maxLength(255))),
});
export type RecipientInput = NotSet<v.InferOutput<typeof recipientInput>>;

/** An address an `externalId` may be (Cube delivers to such an id when the user has no email). */
export const EMAIL_SHAPED = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

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
  userAttributes: v.nullable(v.array(v.object({ name: v.string(), value: attributeInputValue }))),
  securityContext: v.nullable(v.record(v.string(), v.unknown())),
  channelId: v.nullable(v.string()),
  channelName: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type RecipientView = v.InferOutput<typeof recipientSchema>;

/** Cube's RemoveNotificationRecipientInput: `id` is the user id, embed user id or channel id. */
const removeRecipientInput = v.pipe(
  obj({
    type: v.picklist(RECIPIENT_TYPES),
    id: v.union([idNumber, v.pipe(v.string(), v.minLength(1), v.maxLength(255))]),
    embedTenantName: v.nullish(tenantName),
  }),
  v.forward(
    v.check((r) => r.type !== 'EMBED_USER' || r.embedTenantName != null, 'Required for EMBED_USER'),
    ['embedTenantName'],
  ),
);

export const removeRecipientsBody = obj({
  recipients: v.pipe(
    v.array(removeRecipientInput),
    v.minLength(1, 'At least 1 recipient'),
    v.maxLength(MAX_REMOVE_RECIPIENTS, `At most ${MAX_REMOVE_RECIPIENTS} recipients per request`),
  ),
});
export type RemoveRecipientInput = v.InferOutput<typeof removeRecipientInput>;

export const removeRecipientsResultSchema = v.object({
  id: v.number(),
  deleted: v.literal(true),
  /** How many of the notification's recipients the request removed (0: none was subscribed). */
  removedCount: v.number(),
});

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
  deliveryCounts: v.object({
    total: v.number(),
    pending: v.number(),
    sent: v.number(),
    failed: v.number(),
    skipped: v.number(),
  }),
  /** The first deliveries by recipient id (Cube's field, bounded to a preview). */
  deliveries: v.array(deliverySchema),
  /** More deliveries follow on `GET …/runs/{runId}/deliveries`. */
  deliveriesHasMore: v.boolean(),
});
export type RunView = v.InferOutput<typeof runSchema>;
