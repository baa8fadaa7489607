import { nowOf } from '../auth/deployment-scope';
import { idParams } from '../core/validation';
import { defineRoute, routes } from '../http/route';
import {
  accountSchema,
  createAccountBody,
  provisionedAccountSchema,
  updateAccountBody,
} from './accounts.schemas';
import { changeAccount, getAccount, provisionAccount } from './accounts.service';

const tags = ['Provisioning (operator)'];

/** The operator's provisioning API, authenticated with the ADMIN_TOKEN secret. Mounted at /admin/v1/accounts. */
export const accountsAdminRoutes = routes(
  defineRoute({
    method: 'post',
    path: '/',
    operationId: 'createAccount',
    auth: 'operator',
    summary: 'Provision an account with its admin user, an access token and an API key',
    description:
      '`storedBytesLimit` and `sessionRateLimit` default to the plan’s values (free 50 MiB / 60, ' +
      'starter 250 MiB / 300, premium 1 GiB / 1200, enterprise 4 GiB / 6000 per key per minute).',
    tags,
    body: createAccountBody,
    responses: { 201: provisionedAccountSchema },
    handler: async (c, { body }) => provisionAccount(c.get('db'), body, nowOf(c)),
  }),
  defineRoute({
    method: 'get',
    path: '/:id',
    operationId: 'getAccount',
    auth: 'operator',
    summary: 'Get an account',
    tags,
    params: idParams,
    responses: { 200: accountSchema },
    errors: [404],
    handler: async (c, { params }) => getAccount(c.get('db'), params.id),
  }),
  defineRoute({
    method: 'patch',
    path: '/:id',
    operationId: 'updateAccount',
    auth: 'operator',
    summary: 'Change an account',
    description:
      'Changing `plan` keeps the stored `storedBytesLimit` and `sessionRateLimit`: the operator sets them ' +
      'explicitly when a plan change should move them.',
    tags,
    params: idParams,
    body: updateAccountBody,
    responses: { 200: accountSchema },
    errors: [404],
    handler: async (c, { params, body }) => changeAccount(c.get('db'), params.id, body ?? {}, nowOf(c)),
  }),
);
