import { authenticate, userPrincipal } from '../auth/auth.middleware';
import { isoNow } from '../core/clock';
import { doc } from '../core/openapi';
import { afterId, pageQuery, pageRequest, pageSchema, toPage } from '../core/pagination';
import { createRouter } from '../core/router';
import { idParams, validate } from '../core/validation';
import * as repo from './deployments.repository';
import {
  buildStatusSchema,
  CLOUD_PROVIDERS,
  createDeploymentBody,
  deploymentCreatedSchema,
  deploymentSchema,
  REGIONS,
  regionsQuery,
  regionsSchema,
} from './deployments.schemas';
import { createDeployment, getDeployment, presentDeployment } from './deployments.service';

const tags = ['Deployments'];
const member = authenticate(['Bearer']);

/** Reading deployments: every user of the account. Mounted at /api/v1. */
export const deploymentsRoutes = createRouter()
  .get(
    '/regions',
    doc({
      summary: 'List the regions of each cloud provider',
      tags,
      auth: 'bearer',
      responses: { 200: regionsSchema },
    }),
    member,
    validate('query', regionsQuery),
    (c) => {
      const { cloudProvider } = c.req.valid('query');
      const providers = cloudProvider ? [cloudProvider] : CLOUD_PROVIDERS;
      return c.json({
        items: providers.map((p) => ({
          cloudProvider: p,
          regions: [...REGIONS[p]],
          defaultRegion: REGIONS[p][0] as string,
        })),
      });
    },
  )
  .get(
    '/deployments',
    doc({
      summary: 'List deployments',
      tags,
      auth: 'bearer',
      responses: { 200: pageSchema(deploymentSchema) },
    }),
    member,
    validate('query', pageQuery),
    async (c) => {
      const principal = userPrincipal(c);
      const request = pageRequest(c.req.valid('query'), 'deployments', 1);
      const rows = await repo.listDeployments(
        c.get('db'),
        principal.account.id,
        afterId(request),
        request.limit,
      );
      return c.json(toPage(rows, request, 'deployments', (d) => [d.id], presentDeployment));
    },
  )
  .get(
    '/deployments/:id',
    doc({
      summary: 'Get a deployment',
      tags,
      auth: 'bearer',
      responses: { 200: deploymentSchema },
      errors: [404],
    }),
    member,
    validate('param', idParams),
    async (c) => {
      const principal = userPrincipal(c);
      return c.json(
        presentDeployment(await getDeployment(c.get('db'), principal.account.id, c.req.valid('param').id)),
      );
    },
  )
  .get(
    '/deployments/:id/build-status',
    doc({
      summary: "The status of a deployment's latest build",
      tags,
      auth: 'bearer',
      responses: { 200: buildStatusSchema },
      errors: [404],
    }),
    member,
    validate('param', idParams),
    async (c) => {
      const principal = userPrincipal(c);
      const deployment = await getDeployment(c.get('db'), principal.account.id, c.req.valid('param').id);
      const build = deployment.latestBuild;
      // Every deployment is created with its first build, in the same batch.
      if (!build) throw new Error(`deployment ${deployment.id} has no build`);
      return c.json({ status: build.status, buildId: build.buildId, errorText: build.errorText });
    },
  );

/** E4, on the build side: mounted at /build/api/v1. */
export const buildDeploymentsRoutes = createRouter().post(
  '/deployments',
  doc({
    summary: 'Create a deployment with an empty starter project and trigger its first build (E4)',
    tags,
    auth: 'bearer',
    operationId: 'createDeployment',
    responses: { 201: deploymentCreatedSchema },
    errors: [403],
  }),
  authenticate(['Bearer'], { role: 'admin' }),
  validate('json', createDeploymentBody),
  async (c) => {
    const principal = userPrincipal(c);
    const result = await createDeployment(
      {
        db: c.get('db'),
        queue: c.env.BUILDS_QUEUE,
        domain: c.env.DEPLOYMENTS_DOMAIN,
        now: isoNow(c.get('clock')),
      },
      principal.account.id,
      principal.userId,
      c.req.valid('json'),
    );
    return c.json(result, 201);
  },
);
