import type { Context } from 'hono';
import { userPrincipal } from '../auth/auth.middleware';
import { scopeOf } from '../auth/deployment-scope';
import type { AppEnv } from '../core/env';
import { QUOTA_RETRY_AFTER_SECONDS } from '../core/errors';
import { pageQuery, pageRequest, pageSchema } from '../core/pagination';
import { deletedSchema } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import { deliveryPorts } from './delivery';
import {
  MAX_RECIPIENTS_PER_NOTIFICATION,
  MAX_REMOVE_RECIPIENTS,
  RUN_DELIVERIES_PREVIEW,
} from './notifications.limits';
import {
  addRecipientsBody,
  addRecipientsResultSchema,
  createNotificationBody,
  deliverySchema,
  deploymentParams,
  listNotificationsQuery,
  notificationParams,
  notificationSchema,
  recipientParams,
  recipientSchema,
  removeRecipientsBody,
  removeRecipientsResultSchema,
  runParams,
  runSchema,
  scheduleQuery,
  scheduleSchema,
  updateNotificationBody,
  withoutNulls,
} from './notifications.schemas';
import * as service from './notifications.service';
import * as recipients from './recipients.service';
import * as runs from './runs.service';

const tags = ['Notifications'];

function notificationScope(c: Context<AppEnv>, deploymentId: number): service.NotificationScope {
  return { ...scopeOf(c, deploymentId), db: c.get('db'), now: c.get('clock').now() };
}

/**
 * Mounted at /api/v1/deployments/:deploymentId/notifications (a prefix only this router uses).
 * Contract §2: notifications and their recipients are for admins, with a Bearer token.
 */
export const notificationsRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/',
    auth: 'admin',
    summary: 'Create a scheduled notification of a published dashboard',
    description:
      'At most 100 `filters` (`value` ≤ 4096 characters) and 50 `timeGrains`; member names ≤ 255 characters.',
    tags,
    operationId: 'createNotification',
    params: deploymentParams,
    body: createNotificationBody,
    responses: { 200: notificationSchema },
    errors: [403, 404],
    handler: async (c, { params, body }) => {
      const scope = notificationScope(c, params.deploymentId);
      return service.createNotification(scope, userPrincipal(c).userId, {
        ...withoutNulls(body),
        scheduleType: body.scheduleType,
      });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/',
    auth: 'admin',
    summary: 'List the notifications of a deployment (optionally of one dashboard or recipient)',
    description:
      'Cube’s filters: `dashboardId` or `dashboardPublicId`; one recipient as `recipientUserId`, ' +
      '`recipientEmail` (an address, or the account’s user with it) or `recipientEmbedTenantName` with ' +
      '`recipientExternalId` (both or neither) — the recipient filters are mutually exclusive (400). ' +
      'Ordered by id ascending (Cube: newest first), `first` ≤ 100.',
    tags,
    operationId: 'getNotifications',
    params: deploymentParams,
    query: listNotificationsQuery,
    responses: { 200: pageSchema(notificationSchema) },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      service.listNotifications(
        notificationScope(c, params.deploymentId),
        service.listFilterOf(query),
        pageRequest(query, 'notifications', 1),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/:id',
    auth: 'admin',
    summary: 'Get a notification',
    tags,
    operationId: 'getNotification',
    params: notificationParams,
    responses: { 200: notificationSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      service.getNotification(notificationScope(c, params.deploymentId), params.id),
  }),
  defineRoute({
    method: 'put',
    path: '/:id',
    auth: 'admin',
    summary: 'Update a scheduled notification (E16)',
    description:
      'Partial: omitted fields keep their values. `filters` and `timeGrains` replace the stored sets when given. The next run is recomputed whenever the schedule or `isEnabled` changes.',
    tags,
    operationId: 'updateNotification',
    params: notificationParams,
    body: updateNotificationBody,
    responses: { 200: notificationSchema },
    errors: [403, 404],
    handler: async (c, { params, body }) =>
      service.updateNotification(
        notificationScope(c, params.deploymentId),
        params.id,
        withoutNulls(body ?? {}),
      ),
  }),
  defineRoute({
    method: 'delete',
    path: '/:id',
    auth: 'admin',
    summary: 'Delete a notification with its recipients and runs',
    tags,
    operationId: 'deleteNotification',
    params: notificationParams,
    responses: { 200: deletedSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      service.deleteNotification(notificationScope(c, params.deploymentId), params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/schedule',
    auth: 'admin',
    summary: 'Preview the next runs of a notification, in UTC and in its time zone',
    tags,
    params: notificationParams,
    query: scheduleQuery,
    responses: { 200: scheduleSchema },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      service.previewSchedule(notificationScope(c, params.deploymentId), params.id, query.count ?? 10),
  }),
  defineRoute({
    method: 'post',
    path: '/:id/recipients',
    auth: 'admin',
    summary: 'Add notification recipients (E15)',
    description: `Each recipient is identified by exactly one of \`userId\`, \`email\`, \`externalId\` (with \`embedTenantName\`, default \`default\`) or \`channelId\`. Repeating a request changes nothing; the answer sorts every recipient into created, updated or unchanged. A notification has at most ${MAX_RECIPIENTS_PER_NOTIFICATION} recipients (and a request names at most as many): a request that would pass that is a 409 and writes nothing. New external users past \`externalUserLimit\` are a 429 with \`Retry-After: ${QUOTA_RETRY_AFTER_SECONDS}\`.`,
    tags,
    operationId: 'addRecipients',
    params: notificationParams,
    body: addRecipientsBody,
    responses: { 200: addRecipientsResultSchema },
    errors: [403, 404, 409, 429],
    handler: async (c, { params, body }) =>
      recipients.addRecipients(
        notificationScope(c, params.deploymentId),
        params.id,
        body.recipients.map(withoutNulls),
      ),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/recipients',
    auth: 'admin',
    summary: 'List the recipients of a notification',
    description: 'Ordered by id ascending (Cube: newest first), `first` ≤ 100.',
    tags,
    operationId: 'getRecipients',
    params: notificationParams,
    query: pageQuery,
    responses: { 200: pageSchema(recipientSchema) },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      recipients.listRecipients(
        notificationScope(c, params.deploymentId),
        params.id,
        pageRequest(query, 'recipients', 1),
      ),
  }),
  defineRoute({
    method: 'delete',
    path: '/:id/recipients',
    auth: 'admin',
    summary: 'Remove recipients from a notification, named as Cube names them',
    description: `Cube's RemoveNotificationRecipientsInput: 1–${MAX_REMOVE_RECIPIENTS} entries \`{type, id, embedTenantName}\`. \`id\` is the user id (USER), the embed user id (EMBED_USER, with \`embedTenantName\`, required) or the channel id (SLACK) — not the recipient's own \`id\` (that is \`DELETE …/recipients/{recipientId}\`). A string \`id\` also names a USER recipient by email and an EMBED_USER by externalId. Idempotent: entries not subscribed are skipped; \`removedCount\` says how many were removed.`,
    tags,
    operationId: 'removeRecipients',
    params: notificationParams,
    body: removeRecipientsBody,
    responses: { 200: removeRecipientsResultSchema },
    errors: [403, 404],
    handler: async (c, { params, body }) =>
      recipients.removeRecipients(notificationScope(c, params.deploymentId), params.id, body.recipients),
  }),
  defineRoute({
    method: 'delete',
    path: '/:id/recipients/:recipientId',
    auth: 'admin',
    summary: 'Remove a recipient from a notification',
    tags,
    params: recipientParams,
    responses: { 200: deletedSchema },
    errors: [403, 404],
    handler: async (c, { params }) =>
      recipients.deleteRecipient(notificationScope(c, params.deploymentId), params.id, params.recipientId),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/runs',
    auth: 'admin',
    summary: 'List the runs of a notification, newest first',
    description: `Paginated (\`first\` ≤ 100, \`after\`). Each run carries \`deliveryCounts\` and the first ${RUN_DELIVERIES_PREVIEW} of its \`deliveries\` (by recipient id); \`deliveriesHasMore\` says whether more follow on \`GET …/runs/{runId}/deliveries\`.`,
    tags,
    params: notificationParams,
    query: pageQuery,
    responses: { 200: pageSchema(runSchema) },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      runs.listRuns(notificationScope(c, params.deploymentId), params.id, pageRequest(query, 'runs', 1)),
  }),
  defineRoute({
    method: 'get',
    path: '/:id/runs/:runId/deliveries',
    auth: 'admin',
    summary: "List one run's deliveries, by recipient id",
    description: 'Paginated (`first` ≤ 100, `after`).',
    tags,
    params: runParams,
    query: pageQuery,
    responses: { 200: pageSchema(deliverySchema) },
    errors: [403, 404],
    handler: async (c, { params, query }) =>
      runs.listDeliveries(
        notificationScope(c, params.deploymentId),
        params.id,
        params.runId,
        pageRequest(query, 'deliveries', 1),
      ),
  }),
  defineRoute({
    method: 'post',
    path: '/:id/run',
    auth: 'admin',
    summary: 'Start a run of a notification now',
    description:
      'Answers the run (`queued`, or `suppressed` while `notificationEnabled` is false); the queue consumer delivers it. Works while the schedule is off. While a manual run of the notification is `queued` or `running`, another is a 409.',
    tags,
    params: notificationParams,
    responses: { 202: runSchema },
    errors: [403, 404, 409],
    handler: async (c, { params }) =>
      runs.runNow(notificationScope(c, params.deploymentId), deliveryPorts(c.env).queue, params.id),
  }),
);
