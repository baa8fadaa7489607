import { idParams } from '../core/validation';
import { deploymentIdOf } from '../deployments/deployments.routes';
import { getDeployment } from '../deployments/deployments.service';
import { apiDocs, routeGroup, routes } from '../http/route';
import { jobsBody, jobsResponseSchema } from './jobs.schemas';
import { runJobs } from './jobs.service';
import markdown from './pre-aggregations.routes.md';
import { partitionsListSchema, partitionsQuery } from './pre-aggregations.schemas';
import { listPartitions } from './pre-aggregations.service';

const docs = apiDocs(markdown, {});
const readRoute = routeGroup({
  auth: 'user',
  scope: 'account',
  tags: ['Pre-aggregations'],
  errors: [403, 404],
  docs,
});

/** A deployment's pre-aggregation partitions (edgeboard's own operation). Mounted at /api/v1. */
export const preAggregationRoutes = routes(
  readRoute.get('/deployments/:id/pre-aggregations', 'listPreAggregationPartitions', partitionsListSchema, {
    input: { params: idParams, query: partitionsQuery },
    handler: async (_c, { params, query }, scope) =>
      listPartitions(scope, deploymentIdOf(scope, params), query),
  }),
  readRoute
    .with({ permission: 'PreAggregationBuild' })
    .post('/deployments/:id/pre-aggregations/jobs', 'preAggregationJobs', jobsResponseSchema, {
      input: { params: idParams, body: jobsBody },
      errors: [400],
      handler: async (_c, { params, body }, scope) => {
        const deploymentId = deploymentIdOf(scope, params);
        await getDeployment(scope, deploymentId);
        return runJobs({ ...scope, deploymentId }, body);
      },
    }),
);
