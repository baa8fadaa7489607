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

const route = routeGroup({
  auth: 'operator',
  scope: 'request',
  tags: ['Provisioning (operator)'],
  docs: markdown,
});

/** The operator's provisioning API, authenticated with the ADMIN_TOKEN secret. Mounted at /admin/v1/accounts. */
export const accountsAdminRoutes = routes(
  route.post('/', 'createAccount', {
    input: { body: createAccountBody },
    responses: { 201: provisionedAccountSchema },
    handler: async (_c, { body }, scope) => provisionAccount(scope, body),
  }),
  route.get('/:id', 'getAccount', accountSchema, {
    input: { params: idParams },
    errors: [404],
    handler: async (_c, { params }, scope) => getAccount(scope, params.id),
  }),
  route.patch('/:id', 'updateAccount', accountSchema, {
    input: { params: idParams, body: updateAccountBody },
    errors: [404],
    handler: async (_c, { params, body }, scope) => changeAccount(scope, params.id, body ?? {}),
  }),
);
