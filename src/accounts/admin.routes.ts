import { authenticateOperator } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import { notFound } from '../core/errors';
import { doc } from '../core/openapi';
import { createRouter } from '../core/router';
import { idParams, validate } from '../core/validation';
import * as repo from './accounts.repository';
import {
  accountSchema,
  createAccountBody,
  provisionedAccountSchema,
  updateAccountBody,
} from './accounts.schemas';
import { provisionAccount } from './accounts.service';

const tags = ['Provisioning (operator)'];

/** The operator's provisioning API, authenticated with the ADMIN_TOKEN secret. */
export const accountsAdminRoutes = createRouter()
  .use('*', authenticateOperator)
  .post(
    '/',
    doc({
      summary: 'Provision an account with its admin user, an access token and an API key',
      tags,
      auth: 'operator',
      responses: { 201: provisionedAccountSchema },
    }),
    validate('json', createAccountBody),
    async (c) => {
      const result = await provisionAccount(c.get('db'), c.req.valid('json'), isoNow(c.get('clock')));
      return c.json(result, 201);
    },
  )
  .get(
    '/:id',
    doc({
      summary: 'Get an account',
      tags,
      auth: 'operator',
      responses: { 200: accountSchema },
      errors: [404],
    }),
    validate('param', idParams),
    async (c) => {
      const account = await repo.findAccount(c.get('db'), c.req.valid('param').id);
      if (!account) throw notFound('Account');
      return c.json(account);
    },
  )
  .patch(
    '/:id',
    doc({
      summary: 'Change an account',
      tags,
      auth: 'operator',
      responses: { 200: accountSchema },
      errors: [404],
    }),
    validate('param', idParams),
    validate('json', updateAccountBody),
    async (c) => {
      const account = await repo.updateAccount(
        c.get('db'),
        c.req.valid('param').id,
        c.req.valid('json') ?? {},
        isoNow(c.get('clock')),
      );
      if (!account) throw notFound('Account');
      return c.json(account);
    },
  );
