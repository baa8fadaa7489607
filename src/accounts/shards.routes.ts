import type { Context } from 'hono';
import { describeShards } from '../control/shards.service';
import { PENDING_GRACE_MS, type ShardSweep, sweepShard } from '../control/sweep.service';
import type { AppEnv } from '../core/env';
import type { RequestScope } from '../core/scope';
import { openShard, shardNames } from '../core/shards';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './shards.routes.md';
import { shardsSchema, sweepSchema } from './shards.schemas';

const route = routeGroup({
  auth: 'operator',
  scope: 'request',
  tags: ['Shards (operator)'],
  docs: apiDocs(markdown, { PENDING_GRACE_MINUTES: PENDING_GRACE_MS / 60_000 }),
});

/** The request's scope on every shard, in shard order, each counted with the request's round trips. */
const everyShard = (c: Context<AppEnv>, scope: RequestScope): RequestScope[] =>
  shardNames(scope.env).map((_, shard) => ({
    ...scope,
    shard,
    ...openShard(scope.env, shard, c.get('queries')),
  }));

/** The operator's view of the shards and their sweep, with the ADMIN_TOKEN secret. Mounted at /admin/v1/shards. */
export const shardsAdminRoutes = routes(
  route.get('/', 'listShards', shardsSchema, {
    handler: async (c, _input, scope) => ({ shards: await describeShards(scope, everyShard(c, scope)) }),
  }),
  route.post('/sweep', 'sweepShards', sweepSchema, {
    handler: async (c, _input, scope) => {
      // Every shard's pass runs to its end even when another fails; the answer fails if any did.
      const passes = await Promise.allSettled(everyShard(c, scope).map((s) => sweepShard(s)));
      const failed = passes.find((p) => p.status === 'rejected');
      if (failed) throw failed.reason;
      return { shards: passes.map((p) => (p as PromiseFulfilledResult<ShardSweep>).value) };
    },
  }),
);
