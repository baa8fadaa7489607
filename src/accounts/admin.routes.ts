import { requestScope } from '../auth/scope';
import { useShard } from '../auth/shard-routing';
import { idParams } from '../core/validation';
import { routeGroup, routes } from '../http/route';
import {
  createAccountBody,
  operatorAccountSchema,
  provisionedAccountSchema,
  updateAccountBody,
} from './accounts.schemas';
import { changeAccount, getAccount, provisionAccount } from './accounts.service';
import markdown from './admin.routes.md';
import { accountShard, placeAccount } from './placement.service';

/** The operator's routes: the ADMIN_TOKEN secret, no account scope (they find the account themselves). */
export const operatorRoute = routeGroup({
  auth: 'operator',
  scope: 'request',
  tags: ['Provisioning (operator)'],
  docs: markdown,
});

/** The operator's provisioning API, authenticated with the ADMIN_TOKEN secret. Mounted at /admin/v1/accounts. */
export const accountsAdminRoutes = routes(
  operatorRoute.post('/', 'createAccount', {
    input: { body: createAccountBody },
    responses: { 201: provisionedAccountSchema },
    // The account is written on the least-loaded shard, then listed in the directory.
    handler: async (c, { body }, scope) => {
      useShard(c, await placeAccount(scope));
      return provisionAccount(requestScope(c), body);
    },
  }),
  operatorRoute.get('/:id', 'getAccount', operatorAccountSchema, {
    input: { params: idParams },
    errors: [404],
    handler: async (c, { params }, scope) => {
      const shard = await accountShard(scope, params.id);
      useShard(c, shard);
      return { ...(await getAccount(requestScope(c), params.id)), shard };
    },
  }),
  operatorRoute.patch('/:id', 'updateAccount', operatorAccountSchema, {
    input: { params: idParams, body: updateAccountBody },
    errors: [404, 503],
    handler: async (c, { params, body }, scope) => {
      const shard = await accountShard(scope, params.id);
      useShard(c, shard);
      return { ...(await changeAccount(requestScope(c), params.id, body ?? {})), shard };
    },
  }),
);
