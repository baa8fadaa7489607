import type { RequestScope } from '../core/scope';
import { shardNames } from '../core/shards';
import { readControlFigures, readShardFigures, type ShardFigures } from './shard-stats.repository';

/** One shard as the operator sees it (`GET /admin/v1/shards`). */
export interface ShardView {
  shard: number;
  binding: string;
  /** Accounts the directory lists on the shard (`shard_loads.accounts`, recounted by the sweep). */
  accounts: number;
  /** The operator's bias: accounts placement adds to the count, to steer new accounts away. */
  bias: number;
  /** Provisionings in flight (or cut short, until the sweep undoes them) on the shard. */
  pendingProvisionings: number;
  /** Where the sweep's walk of the shard's directory rows is. */
  sweep: { afterId: number; updatedAt: string | null };
  /** What the shard said of itself; null when it did not answer (`error` says why). */
  database: ShardFigures | null;
  error: string | null;
}

/**
 * Every shard's size and load: one statement on each shard, all in parallel with one control
 * batch. A shard that fails to answer is shown with its error; the others still are.
 * `shards` is the request's scope on each shard, in shard order.
 */
export async function describeShards(scope: RequestScope, shards: RequestScope[]): Promise<ShardView[]> {
  const names = shardNames(scope.env);
  const [control, ...figures] = await Promise.all([
    readControlFigures(scope.control),
    ...shards.map((s) => readShardFigures(s).catch((error: unknown) => ({ error: String(error) }))),
  ]);
  return shards.map(({ shard }, i) => {
    const answer = figures[i] as ShardFigures | { error: string };
    const load = control.loads.get(shard);
    const cursor = control.cursors.get(shard);
    return {
      shard,
      binding: names[shard] as string,
      accounts: load?.accounts ?? 0,
      bias: load?.bias ?? 0,
      pendingProvisionings: control.pending.get(shard) ?? 0,
      sweep: { afterId: cursor?.afterId ?? 0, updatedAt: cursor?.updatedAt ?? null },
      database: 'error' in answer ? null : answer,
      error: 'error' in answer ? answer.error : null,
    };
  });
}
