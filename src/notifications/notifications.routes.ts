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

/**
 * Mounted at /api/v1/deployments/:deploymentId/notifications (a prefix only this router uses).
 * Notifications and their recipients need NotificationsManage (an admin's token, a user whose
 * role grants it on the deployment, or an API key scoped to the deployment); each handler gets
 * the path's deployment as its scope.
 */
const route = routeGroup({
  auth: 'user',
  permission: 'NotificationsManage',
  scope: 'deployment',
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
    handler: async (_c, { body }, scope) =>
      service.createNotification(scope, { ...withoutNulls(body), scheduleType: body.scheduleType }),
  }),
  route.get('/', 'getNotifications', pageSchema(notificationSchema), {
    input: { params: deploymentParams, query: listNotificationsQuery },
    handler: async (_c, { query }, scope) =>
      service.listNotifications(scope, service.listFilterOf(query), pageRequest(query, 'notifications', 1)),
  }),
  route.get('/:id', 'getNotification', notificationSchema, {
    input: { params: notificationParams },
    handler: async (_c, { params }, scope) => service.getNotification(scope, params.id),
  }),
  route.put('/:id', 'updateNotification', notificationSchema, {
    input: { params: notificationParams, body: updateNotificationBody },
    handler: async (_c, { params, body }, scope) => service.updateNotification(scope, params.id, body),
  }),
  route.delete('/:id', 'deleteNotification', deletedSchema, {
    input: { params: notificationParams },
    handler: async (_c, { params }, scope) => service.deleteNotification(scope, params.id),
  }),
  route.get('/:id/schedule', 'getNotificationSchedule', scheduleSchema, {
    input: { params: notificationParams, query: scheduleQuery },
    handler: async (_c, { params, query }, scope) => service.previewSchedule(scope, params.id, query.count),
  }),
  route.post('/:id/recipients', 'addRecipients', addRecipientsResultSchema, {
    input: { params: notificationParams, body: addRecipientsBody },
    errors: [409, 429],
    handler: async (_c, { params, body }, scope) =>
      recipients.addRecipients(scope, params.id, body.recipients.map(withoutNulls)),
  }),
  route.get('/:id/recipients', 'getRecipients', pageSchema(recipientSchema), {
    input: { params: notificationParams, query: pageQuery },
    handler: async (_c, { params, query }, scope) =>
      recipients.listRecipients(scope, params.id, pageRequest(query, 'recipients', 1)),
  }),
  route.delete('/:id/recipients', 'removeRecipients', removeRecipientsResultSchema, {
    input: { params: notificationParams, body: removeRecipientsBody },
    handler: async (_c, { params, body }, scope) =>
      recipients.removeRecipients(scope, params.id, body.recipients),
  }),
  route.delete('/:id/recipients/:recipientId', 'removeRecipient', deletedSchema, {
    input: { params: recipientParams },
    handler: async (_c, { params }, scope) =>
      recipients.deleteRecipient(scope, params.id, params.recipientId),
  }),
  route.get('/:id/runs', 'getNotificationRuns', pageSchema(runSchema), {
    input: { params: notificationParams, query: pageQuery },
    handler: async (_c, { params, query }, scope) =>
      runs.listRuns(scope, params.id, pageRequest(query, 'runs', 1)),
  }),
  route.get('/:id/runs/:runId/deliveries', 'getRunDeliveries', pageSchema(deliverySchema), {
    input: { params: runParams, query: pageQuery },
    handler: async (_c, { params, query }, scope) =>
      runs.listDeliveries(scope, params.id, params.runId, pageRequest(query, 'deliveries', 1)),
  }),
  route.post('/:id/run', 'runNotification', {
    input: { params: notificationParams },
    responses: { 202: runSchema },
    errors: [409],
    handler: async (_c, { params }, scope) => runs.runNow(scope, params.id),
  }),
);
