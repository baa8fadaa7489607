import { nowOf } from '../auth/deployment-scope';
import { idParams } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
import { theDeployment } from './deployments.routes';
import markdown from './env-vars.routes.md';
import {
  ENV_VAR_LIMITS,
  envVariablesListSchema,
  envVariablesQuery,
  setEnvVariablesBody,
} from './env-vars.schemas';
import { getEnvVariables, setEnvVariables } from './env-vars.service';

const docs = apiDocs(markdown, {
  MAX_PER_REQUEST: ENV_VAR_LIMITS.maxPerRequest,
  MAX_NAME: ENV_VAR_LIMITS.maxNameLength,
  MAX_VALUE_BYTES: ENV_VAR_LIMITS.maxValueBytes,
  MAX_VARIABLES: ENV_VAR_LIMITS.maxVariables,
});
const tags = ['Env Variables'];
/** As for reading a deployment: any user of the account, or a key scoped to it. */
const readRoute = routeGroup({ auth: 'user', tags, errors: [403, 404], docs });
const adminRoute = routeGroup({ auth: 'admin', tags, errors: [403, 404], docs });

/** Cube's env-vars operations of a deployment. Mounted at /api/v1. */
export const envVarsRoutes = routes(
  readRoute.get('/deployments/:id/env-vars', 'getEnvVariables', envVariablesListSchema, {
    input: { params: idParams, query: envVariablesQuery },
    handler: async (c, { params, query }) => getEnvVariables(...theDeployment(c, params), query),
  }),
  adminRoute.put('/deployments/:id/env-vars', 'setEnvVariables', envVariablesListSchema, {
    input: { params: idParams, body: setEnvVariablesBody },
    handler: async (c, { params, body }) => {
      const [db, accountId, id] = theDeployment(c, params);
      return setEnvVariables(db, c.env, accountId, id, body.env_variables, nowOf(c));
    },
  }),
);
