import * as v from 'valibot';
import { boundedObject, idParams } from '../core/validation';
import { signApiToken } from '../data-api/api-token';
import { deploymentIdOf } from '../deployments/deployments.routes';
import { getDeployment } from '../deployments/deployments.service';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './token.routes.md';

export const TOKEN_MIN_SECONDS = 60;
export const TOKEN_MAX_SECONDS = 86_400;
const SECURITY_CONTEXT_LIMITS = { maxDepth: 8, maxBytes: 16 * 1024 };

const tokenBody = v.optional(
  v.nullable(
    v.object({
      expiresIn: v.optional(
        v.nullable(
          v.pipe(v.number(), v.integer(), v.minValue(TOKEN_MIN_SECONDS), v.maxValue(TOKEN_MAX_SECONDS)),
        ),
      ),
      securityContext: v.optional(v.nullable(boundedObject(SECURITY_CONTEXT_LIMITS))),
    }),
  ),
);

const tokenSchema = v.object({ cubeApiToken: v.string() });

const docs = apiDocs(markdown, {
  TOKEN_MIN_SECONDS,
  TOKEN_MAX_SECONDS,
  SECURITY_CONTEXT_BYTES: SECURITY_CONTEXT_LIMITS.maxBytes,
});
const route = routeGroup({
  auth: 'user',
  permission: 'DeploymentsManage',
  scope: 'account',
  tags: ['Deployments'],
  errors: [403, 404],
  docs,
});

/** Cube's deployment token: a credential for the deployment's REST API. Mounted at /api/v1. */
export const tokenRoutes = routes(
  route.post('/deployments/:id/token', 'deploymentToken', tokenSchema, {
    input: { params: idParams, body: tokenBody },
    handler: async (_c, { params, body }, scope) => {
      const deploymentId = deploymentIdOf(scope, params);
      await getDeployment(scope, deploymentId);
      const expiresIn = body?.expiresIn ?? TOKEN_MAX_SECONDS;
      const cubeApiToken = await signApiToken(
        scope.env,
        {
          shard: scope.shard,
          accountId: scope.accountId,
          deploymentId,
          securityContext: body?.securityContext ?? {},
          expiresAt: Math.floor(scope.now.getTime() / 1000) + expiresIn,
        },
        scope.now,
      );
      return { cubeApiToken };
    },
  }),
);
