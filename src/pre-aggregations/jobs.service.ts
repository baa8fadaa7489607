import { sql } from 'drizzle-orm';
import type { InferOutput } from 'valibot';
import { accountMoving, FROZEN_ACCOUNTS } from '../core/account-moving';
import { runBatch } from '../core/db';
import type { PreAggregationMessage } from '../core/env';
import { ApiError } from '../core/errors';
import type { RequestScope } from '../core/scope';
import { activeModel } from '../deployments/deployments.service';
import { type JobsSelector, type jobsBody, MAX_JOB_PARTITIONS } from './jobs.schemas';
import { CLAIM_TIMEOUT_MS, MAX_TIMEZONES } from './pre-aggregations.limits';
import * as repo from './pre-aggregations.repository';
import { preAggregationsOf } from './refresh.service';

/**
 * Cube's Orchestration API (`POST /v1/pre-aggregations/jobs`) over the deployment's refresh: a
 * `post` claims the selected partitions now, whatever their next refresh, and enqueues one build
 * each; its tokens name the partition and the version claimed, so a `get` tells that build's
 * state. A time zone not built yet joins the deployment's plan and its partitions are
 * registered at the next tick (ask again then).
 */

type JobScope = RequestScope & { accountId: number; deploymentId: number };

const tokenOf = (id: number, version: number) => `${id}_${version}`;

/** The pre-aggregations of the serving model the selector names, by `Cube.name`. */
async function selected(scope: JobScope, selector: JobsSelector): Promise<string[]> {
  const serving = await activeModel(scope.db, scope.deploymentId);
  const names = [...(serving ? preAggregationsOf(serving.model).values() : [])]
    .map((p) => ({ id: `${p.cube}.${p.name}`, cube: p.cube }))
    .filter((p) => !selector.cubes || selector.cubes.includes(p.cube))
    .filter((p) => !selector.preAggregations || selector.preAggregations.includes(p.id))
    .map((p) => p.id);
  if (names.length === 0) {
    throw new ApiError(
      'BAD_REQUEST',
      "A user's selector doesn't match any of the pre-aggregations defined by the Cube schemas.",
    );
  }
  return names;
}

/** Claims and enqueues the partitions the selector names; answers a token per build. */
export async function postJobs(scope: JobScope, selector: JobsSelector): Promise<string[]> {
  const names = await selected(scope, selector);
  const zones = [...new Set(selector.timezones)];
  // The account's freeze (a move copies its rows) is read with the partitions: a write refused,
  // as every write of a moving account is, whichever credential asks.
  const rows = await scope.db.all<{ id: number | null; frozen: number }>(sql`
    SELECT p.id, ${scope.accountId} IN ${FROZEN_ACCOUNTS} AS frozen
      FROM (SELECT 1) LEFT JOIN (SELECT id FROM pre_aggregation_partitions
     WHERE deployment_id = ${scope.deploymentId} AND account_id = ${scope.accountId}
       AND pre_aggregation IN (SELECT value FROM json_each(${JSON.stringify(names)}))
       AND timezone IN (SELECT value FROM json_each(${JSON.stringify(zones)}))
     LIMIT ${MAX_JOB_PARTITIONS + 1}) p ON true`);
  if (rows[0]?.frozen) throw accountMoving();
  const ids = rows.flatMap((r) => (r.id === null ? [] : [r.id]));
  if (ids.length > MAX_JOB_PARTITIONS) {
    throw new ApiError(
      'BAD_REQUEST',
      `The selector names more than ${MAX_JOB_PARTITIONS} partitions: narrow it by cubes, preAggregations or timezones`,
    );
  }
  // Zones the plan does not build yet join it, and it is due at once (the next tick registers
  // them); the claim is in the same batch, so a failure leaves neither.
  const [, claim] = await runBatch<repo.Claimed>(scope.db, [
    sql`
    UPDATE pre_aggregation_plans
       SET timezones = (SELECT json_group_array(z) FROM (
             SELECT value AS z FROM json_each(timezones)
             UNION SELECT value FROM json_each(${JSON.stringify(zones)}) LIMIT ${MAX_TIMEZONES})),
           next_plan_at = ${scope.now.toISOString()}
     WHERE deployment_id = ${scope.deploymentId} AND account_id = ${scope.accountId}
       AND account_id NOT IN ${FROZEN_ACCOUNTS}
       AND EXISTS (SELECT 1 FROM json_each(${JSON.stringify(zones)}) n
                    WHERE n.value <> 'UTC' AND n.value NOT IN (SELECT value FROM json_each(timezones)))`,
    repo.claimStatement(scope.deploymentId, ids, new Date(scope.now.getTime() + CLAIM_TIMEOUT_MS)),
  ]);
  const claimed = claim?.results ?? [];
  const messages = claimed.map(
    (c): MessageSendRequest<PreAggregationMessage> => ({
      body: { kind: 'pre-aggregation-build', partitionId: c.id, version: c.version, shard: scope.shard },
    }),
  );
  for (let i = 0; i < messages.length; i += 100) {
    await scope.ports.preAggregationsQueue.sendBatch(messages.slice(i, i + 100));
  }
  return claimed.map((c) => tokenOf(c.id, c.version));
}

/** Each token's build, as Cube answers it: the partition's table, status and selector. */
export async function getJobs(scope: JobScope, tokens: readonly string[]) {
  const parsed = tokens.map((token) => {
    const m = /^(\d{1,15})_(\d{1,15})$/.exec(token);
    return { token, id: m ? Number(m[1]) : 0, version: m ? Number(m[2]) : 0 };
  });
  const rows = await scope.db.all<{
    id: number;
    pre_aggregation: string;
    table_name: string;
    timezone: string;
    state: string;
    version: number;
    built_version: number;
    last_error: string | null;
  }>(sql`
    SELECT id, pre_aggregation, table_name, timezone, state, version, built_version, last_error
      FROM pre_aggregation_partitions
     WHERE deployment_id = ${scope.deploymentId} AND account_id = ${scope.accountId}
       AND id IN (SELECT value FROM json_each(${JSON.stringify(parsed.map((p) => p.id))}))`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return Object.fromEntries(
    parsed.map(({ token, id, version }) => {
      const row = byId.get(id);
      if (!row || version < 1 || version > row.version) {
        return [token, { table: '', status: 'missing_partition', selector: emptySelector() }];
      }
      const status =
        row.built_version >= version
          ? 'done'
          : row.state === 'failed'
            ? `failure: ${row.last_error ?? 'the build failed'}`
            : row.state === 'building'
              ? 'processing'
              : row.state === 'built'
                ? 'done'
                : 'scheduled';
      return [
        token,
        {
          table: row.table_name,
          status,
          selector: {
            cubes: [row.pre_aggregation.slice(0, row.pre_aggregation.indexOf('.'))],
            preAggregations: [row.pre_aggregation],
            contexts: [],
            timezones: [row.timezone],
            dataSources: ['default'],
          },
        },
      ];
    }),
  );
}

const emptySelector = () => ({
  cubes: [],
  preAggregations: [],
  contexts: [],
  timezones: [],
  dataSources: [],
});

/** One call of the Orchestration API: `post` answers tokens, `get` their statuses. */
export async function runJobs(scope: JobScope, body: InferOutput<typeof jobsBody>) {
  return body.action === 'post' ? postJobs(scope, body.selector) : getJobs(scope, body.tokens);
}
