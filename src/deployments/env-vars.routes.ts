import { idParams } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
import { deploymentIdOf } from './deployments.routes';
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
const readRoute = routeGroup({ auth: 'user', scope: 'account', tags, errors: [403, 404], docs });
const writeRoute = readRoute.with({ permission: 'SecretsManage' });

/** Cube's env-vars operations of a deployment. Mounted at /api/v1. */
export const envVarsRoutes = routes(
  readRoute.get('/deployments/:id/env-vars', 'getEnvVariables', envVariablesListSchema, {
    input: { params: idParams, query: envVariablesQuery },
    handler: async (_c, { params, query }, scope) =>
      getEnvVariables(scope, deploymentIdOf(scope, params), query),
  }),
  writeRoute.put('/deployments/:id/env-vars', 'setEnvVariables', envVariablesListSchema, {
    input: { params: idParams, body: setEnvVariablesBody },
    handler: async (_c, { params, body }, scope) =>
      setEnvVariables(scope, deploymentIdOf(scope, params), body.env_variables),
  }),
);
