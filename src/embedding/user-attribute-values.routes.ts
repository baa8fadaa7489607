import * as v from 'valibot';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './user-attribute-values.routes.md';
import {
  MAX_USER_VALUE_BYTES,
  upsertValueBody,
  userAttributeValueSchema,
  userValuesParams,
} from './user-attribute-values.schemas';
import { getUserAttributeValues, upsertUserAttributeValue } from './user-attribute-values.service';

/**
 * Cube's user attribute values: what the account's own users hold for the account-wide
 * catalogue's attributes. Any user's Bearer token or an API key authenticates; the service says
 * who may do what (reads: an admin or the user themself; writes: an admin). Mounted at
 * /api/v1/user-attribute-values.
 */
const docs = apiDocs(markdown, { MAX_USER_VALUE_BYTES });
const tags = ['User attribute values'];
const route = routeGroup({ auth: 'user', scope: 'account', tags, errors: [403, 404], docs });

export const userAttributeValuesRoutes = routes(
  route.post('/', 'upsertUserAttributeValue', userAttributeValueSchema, {
    input: { body: upsertValueBody },
    errors: [409],
    handler: async (_c, { body }, scope) => upsertUserAttributeValue(scope, body),
  }),
  route.get('/:userId', 'getUserAttributeValues', v.array(userAttributeValueSchema), {
    input: { params: userValuesParams },
    handler: async (_c, { params }, scope) => getUserAttributeValues(scope, params.userId),
  }),
);
