import type { Context } from 'hono';
import { authenticate, userPrincipal } from '../auth/auth.middleware';
import { scopeOf } from '../auth/deployment-scope';
import { doc } from '../core/openapi';
import { pageQuery, pageRequest, pageSchema } from '../core/pagination';
import { createRouter } from '../core/router';
import { deletedSchema, validate } from '../core/validation';
import type { AppEnv } from '../env';
import { deliveryPorts } from './delivery';
import {
  addRecipientsBody,
  addRecipientsResultSchema,
  createNotificationBody,
  deploymentParams,
  listNotificationsQuery,
  notificationParams,
  notificationSchema,
  recipientParams,
  recipientSchema,
  runSchema,
  scheduleQuery,
  scheduleSchema,
  updateNotificationBody,
} from './notifications.schemas';
import * as service from './notifications.service';
import * as recipients from './recipients.service';
import * as runs from './runs.service';

const tags = ['Notifications'];
// Contract §2: notifications and their recipients are for admins, with a Bearer token.
const admin = authenticate(['Bearer'], { role: 'admin' });

function notificationScope(c: Context<AppEnv>, deploymentId: number): service.NotificationScope {
  return { ...scopeOf(c, deploymentId), db: c.get('db'), now: c.get('clock').now() };
}

/** Mounted at /api/v1/deployments/:deploymentId/notifications (a prefix only this router uses). */
export const notificationsRoutes = createRouter()
  .post(
    '/',
    doc({
      summary: 'Create a scheduled notification of a published dashboard',
      tags,
      auth: 'bearer',
      operationId: 'createNotification',
      responses: { 201: notificationSchema },
      errors: [403, 404],
    }),
    admin,
    validate('param', deploymentParams),
    validate('json', createNotificationBody),
    async (c) => {
      const scope = notificationScope(c, c.req.valid('param').deploymentId);
      const created = await service.createNotification(scope, userPrincipal(c).userId, c.req.valid('json'));
      return c.json(created, 201);
    },
  )
  .get(
    '/',
    doc({
      summary: 'List the notifications of a deployment (optionally of one dashboard)',
      tags,
      auth: 'bearer',
      responses: { 200: pageSchema(notificationSchema) },
      errors: [403, 404],
    }),
    admin,
    validate('param', deploymentParams),
    validate('query', listNotificationsQuery),
    async (c) => {
      const query = c.req.valid('query');
      const scope = notificationScope(c, c.req.valid('param').deploymentId);
      const request = pageRequest(query, 'notifications', 1);
      return c.json(
        await service.listNotifications(
          scope,
          { dashboardId: query.dashboardId, dashboardPublicId: query.dashboardPublicId },
          request,
        ),
      );
    },
  )
  .get(
    '/:id',
    doc({
      summary: 'Get a notification',
      tags,
      auth: 'bearer',
      responses: { 200: notificationSchema },
      errors: [403, 404],
    }),
    admin,
    validate('param', notificationParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const row = await service.getNotificationRow(notificationScope(c, deploymentId), id);
      return c.json(service.presentNotification(row));
    },
  )
  .put(
    '/:id',
    doc({
      summary: 'Update a scheduled notification (E16)',
      description:
        'Partial: omitted fields keep their values. `filters` and `timeGrains` replace the stored sets when given. The next run is recomputed whenever the schedule or `isEnabled` changes.',
      tags,
      auth: 'bearer',
      operationId: 'updateNotification',
      responses: { 200: notificationSchema },
      errors: [403, 404],
    }),
    admin,
    validate('param', notificationParams),
    validate('json', updateNotificationBody),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(
        await service.updateNotification(notificationScope(c, deploymentId), id, c.req.valid('json') ?? {}),
      );
    },
  )
  .delete(
    '/:id',
    doc({
      summary: 'Delete a notification with its recipients and runs',
      tags,
      auth: 'bearer',
      responses: { 200: deletedSchema },
      errors: [403, 404],
    }),
    admin,
    validate('param', notificationParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(await service.deleteNotification(notificationScope(c, deploymentId), id));
    },
  )
  .get(
    '/:id/schedule',
    doc({
      summary: 'Preview the next runs of a notification, in UTC and in its time zone',
      tags,
      auth: 'bearer',
      responses: { 200: scheduleSchema },
      errors: [403, 404],
    }),
    admin,
    validate('param', notificationParams),
    validate('query', scheduleQuery),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const count = c.req.valid('query').count ?? 10;
      return c.json(await service.previewSchedule(notificationScope(c, deploymentId), id, count));
    },
  )
  .post(
    '/:id/recipients',
    doc({
      summary: 'Add notification recipients (E15)',
      description:
        'Each recipient is identified by exactly one of `userId`, `email`, `externalId` (with `embedTenantName`, default `default`) or `channelId`. Repeating a request changes nothing; the answer sorts every recipient into created, updated or unchanged.',
      tags,
      auth: 'bearer',
      operationId: 'addNotificationRecipients',
      responses: { 200: addRecipientsResultSchema },
      errors: [403, 404, 429],
    }),
    admin,
    validate('param', notificationParams),
    validate('json', addRecipientsBody),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const scope = notificationScope(c, deploymentId);
      return c.json(await recipients.addRecipients(scope, id, c.req.valid('json').recipients));
    },
  )
  .get(
    '/:id/recipients',
    doc({
      summary: 'List the recipients of a notification',
      tags,
      auth: 'bearer',
      responses: { 200: pageSchema(recipientSchema) },
      errors: [403, 404],
    }),
    admin,
    validate('param', notificationParams),
    validate('query', pageQuery),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const request = pageRequest(c.req.valid('query'), 'recipients', 1);
      return c.json(await recipients.listRecipients(notificationScope(c, deploymentId), id, request));
    },
  )
  .delete(
    '/:id/recipients/:recipientId',
    doc({
      summary: 'Remove a recipient from a notification',
      tags,
      auth: 'bearer',
      responses: { 200: deletedSchema },
      errors: [403, 404],
    }),
    admin,
    validate('param', recipientParams),
    async (c) => {
      const { deploymentId, id, recipientId } = c.req.valid('param');
      return c.json(await recipients.deleteRecipient(notificationScope(c, deploymentId), id, recipientId));
    },
  )
  .get(
    '/:id/runs',
    doc({
      summary: "List the runs of a notification, newest first, with each recipient's delivery",
      tags,
      auth: 'bearer',
      responses: { 200: pageSchema(runSchema) },
      errors: [403, 404],
    }),
    admin,
    validate('param', notificationParams),
    validate('query', pageQuery),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const request = pageRequest(c.req.valid('query'), 'runs', 1);
      return c.json(await runs.listRuns(notificationScope(c, deploymentId), id, request));
    },
  )
  .post(
    '/:id/run',
    doc({
      summary: 'Start a run of a notification now',
      description:
        'Answers the run (`queued`, or `suppressed` while `notificationEnabled` is false); the queue consumer delivers it. Works while the schedule is off.',
      tags,
      auth: 'bearer',
      responses: { 202: runSchema },
      errors: [403, 404],
    }),
    admin,
    validate('param', notificationParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const run = await runs.runNow(notificationScope(c, deploymentId), deliveryPorts(c.env).queue, id);
      return c.json(run, 202);
    },
  );
