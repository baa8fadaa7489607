import type { Context } from 'hono';
import { userPrincipal } from '../auth/auth.middleware';
import { scopeOf } from '../auth/deployment-scope';
import type { AppEnv } from '../core/env';
import { QUOTA_RETRY_AFTER_SECONDS } from '../core/errors';
import { pageQuery, pageRequest, pageSchema } from '../core/pagination';
import { deletedSchema, withoutNulls } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
import {
  MAX_RECIPIENTS_PER_NOTIFICATION,
  MAX_REMOVE_RECIPIENTS,
  RUN_DELIVERIES_PREVIEW,
} from './notifications.limits';
import markdown from './notifications.routes.md';
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
} from './notifications.schemas';
import * as service from './notifications.service';
import * as recipients from './recipients.service';
import * as runs from './runs.service';

/** The deployment a request names (its `deploymentId` path parameter), with the database and the time. */
function scope(c: Context<AppEnv>, params: { deploymentId: number }): service.NotificationScope {
  return { ...scopeOf(c, params.deploymentId), db: c.get('db'), now: c.get('clock').now() };
}

/**
 * Mounted at /api/v1/deployments/:deploymentId/notifications (a prefix only this router uses).
 * Contract §2: notifications and their recipients are for admins, with a Bearer token.
 */
const route = routeGroup({
  auth: 'admin',
  tags: ['Notifications'],
  errors: [403, 404],
  docs: apiDocs(markdown, {
    MAX_RECIPIENTS_PER_NOTIFICATION,
    QUOTA_RETRY_AFTER_SECONDS,
    MAX_REMOVE_RECIPIENTS,
    RUN_DELIVERIES_PREVIEW,
  }),
});

export const notificationsRoutes = routes(
  route.post('/', 'createNotification', notificationSchema, {
    input: { params: deploymentParams, body: createNotificationBody },
    handler: async (c, { params, body }) => {
      return service.createNotification(scope(c, params), userPrincipal(c).userId, {
        ...withoutNulls(body),
        scheduleType: body.scheduleType,
      });
    },
  }),
  route.get('/', 'getNotifications', pageSchema(notificationSchema), {
    input: { params: deploymentParams, query: listNotificationsQuery },
    handler: async (c, { params, query }) =>
      service.listNotifications(
        scope(c, params),
        service.listFilterOf(query),
        pageRequest(query, 'notifications', 1),
      ),
  }),
  route.get('/:id', 'getNotification', notificationSchema, {
    input: { params: notificationParams },
    handler: async (c, { params }) => service.getNotification(scope(c, params), params.id),
  }),
  route.put('/:id', 'updateNotification', notificationSchema, {
    input: { params: notificationParams, body: updateNotificationBody },
    handler: async (c, { params, body }) => service.updateNotification(scope(c, params), params.id, body),
  }),
  route.delete('/:id', 'deleteNotification', deletedSchema, {
    input: { params: notificationParams },
    handler: async (c, { params }) => service.deleteNotification(scope(c, params), params.id),
  }),
  route.get('/:id/schedule', 'getNotificationSchedule', scheduleSchema, {
    input: { params: notificationParams, query: scheduleQuery },
    handler: async (c, { params, query }) =>
      service.previewSchedule(scope(c, params), params.id, query.count),
  }),
  route.post('/:id/recipients', 'addRecipients', addRecipientsResultSchema, {
    input: { params: notificationParams, body: addRecipientsBody },
    errors: [409, 429],
    handler: async (c, { params, body }) =>
      recipients.addRecipients(scope(c, params), params.id, body.recipients.map(withoutNulls)),
  }),
  route.get('/:id/recipients', 'getRecipients', pageSchema(recipientSchema), {
    input: { params: notificationParams, query: pageQuery },
    handler: async (c, { params, query }) =>
      recipients.listRecipients(scope(c, params), params.id, pageRequest(query, 'recipients', 1)),
  }),
  route.delete('/:id/recipients', 'removeRecipients', removeRecipientsResultSchema, {
    input: { params: notificationParams, body: removeRecipientsBody },
    handler: async (c, { params, body }) =>
      recipients.removeRecipients(scope(c, params), params.id, body.recipients),
  }),
  route.delete('/:id/recipients/:recipientId', 'removeRecipient', deletedSchema, {
    input: { params: recipientParams },
    handler: async (c, { params }) =>
      recipients.deleteRecipient(scope(c, params), params.id, params.recipientId),
  }),
  route.get('/:id/runs', 'getNotificationRuns', pageSchema(runSchema), {
    input: { params: notificationParams, query: pageQuery },
    handler: async (c, { params, query }) =>
      runs.listRuns(scope(c, params), params.id, pageRequest(query, 'runs', 1)),
  }),
  route.get('/:id/runs/:runId/deliveries', 'getRunDeliveries', pageSchema(deliverySchema), {
    input: { params: runParams, query: pageQuery },
    handler: async (c, { params, query }) =>
      runs.listDeliveries(scope(c, params), params.id, params.runId, pageRequest(query, 'deliveries', 1)),
  }),
  route.post('/:id/run', 'runNotification', {
    input: { params: notificationParams },
    responses: { 202: runSchema },
    errors: [409],
    handler: async (c, { params }) => runs.runNow(scope(c, params), c.var.notificationsQueue, params.id),
  }),
);
