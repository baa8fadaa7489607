import { nowOf } from '../auth/deployment-scope';
import { idParams } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import {
  accountSchema,
  createAccountBody,
  provisionedAccountSchema,
  updateAccountBody,
} from './accounts.schemas';
import { changeAccount, getAccount, provisionAccount } from './accounts.service';
import markdown from './admin.routes.md';

const route = routeGroup({ auth: 'operator', tags: ['Provisioning (operator)'], docs: markdown });

/** The operator's provisioning API, authenticated with the ADMIN_TOKEN secret. Mounted at /admin/v1/accounts. */
export const accountsAdminRoutes = routes(
  route.post('/', 'createAccount', {
    input: { body: createAccountBody },
    responses: { 201: provisionedAccountSchema },
    handler: async (c, { body }) => provisionAccount(c.get('db'), body, nowOf(c)),
  }),
  route.get('/:id', 'getAccount', accountSchema, {
    input: { params: idParams },
    errors: [404],
    handler: async (c, { params }) => getAccount(c.get('db'), params.id),
  }),
  route.patch('/:id', 'updateAccount', accountSchema, {
    input: { params: idParams, body: updateAccountBody },
    errors: [404],
    handler: async (c, { params, body }) => changeAccount(c.get('db'), params.id, body ?? {}, nowOf(c)),
  }),
);
