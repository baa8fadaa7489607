import type { RequestScope } from '../core/scope';
import {
  DIRECTORY_PAGE,
  deleteProvisionedAccounts,
  readShardHoldings,
  readSweepWork,
  settleSweep,
} from './sweep.repository';

/**
 * The sweep of writes cut in half between a shard and the control database (docs/sharding.md,
 * "The sweep"). Every cron tick runs one bounded pass per shard; the operator runs one with
 * `POST /admin/v1/shards/sweep`. A pass on a shard:
 *
 * 1. undoes the shard's provisionings pending for longer than `PENDING_GRACE_MS`: the account
 *    rows they wrote (found by their API key's hash) are deleted, then the pending record.
 *    Undone, not finished: the operator got an error (or no answer), so never the secrets, and
 *    retries with a new request; listing it would leave a second account nobody can sign in to;
 * 2. checks the next `DIRECTORY_PAGE` accounts the directory lists on the shard (a keyset cursor
 *    stored in `sweep_cursors`): one the shard does not hold leaves the directory and the count;
 * 3. at the end of each walk through the shard's directory rows, recounts its `shard_loads`
 *    from the directory (the operator's `bias` is left as it is).
 *
 * Every step is idempotent: a pass cut short, or two passes at once, leave what one would.
 */

/** How long a provisioning may stay pending before the sweep undoes it: far beyond any request. */
export const PENDING_GRACE_MS = 10 * 60_000;

/** What one pass did on one shard (what `POST /admin/v1/shards/sweep` answers). */
export interface ShardSweep {
  shard: number;
  /** Accounts removed from the shard: provisionings cut short before the directory listed them. */
  undoneAccounts: number[];
  /** Pending provisionings ended (undone, or that had written nothing on the shard). */
  settledProvisionings: number;
  /** Accounts taken out of the directory: it listed them on this shard, which holds no such account. */
  unlistedAccounts: number[];
  /** Directory rows checked against the shard by this pass. */
  checked: number;
  /** Where the next pass resumes the walk (0: from the start, after a complete walk). */
  afterId: number;
  /** The shard's load as recounted at the end of a walk (null when this pass did not end one). */
  load: { before: number | null; after: number } | null;
}

/** One bounded pass of the sweep on the scope's shard (a cron tick's, or the operator's). */
export async function sweepShard(scope: RequestScope): Promise<ShardSweep> {
  const cutoff = new Date(scope.now.getTime() - PENDING_GRACE_MS);
  const work = await readSweepWork(scope, cutoff);
  const holdings =
    work.pending.length > 0 || work.listed.length > 0
      ? await readShardHoldings(scope, work.pending, work.listed)
      : { provisioned: new Map<string, number>(), present: new Set<number>() };
  const undone = [...holdings.provisioned.values()].sort((a, b) => a - b);
  // The shard's rows first: a pass cut short here finds the records pending and tries again.
  if (undone.length > 0) await deleteProvisionedAccounts(scope, undone);
  const missing = work.listed.filter((id) => !holdings.present.has(id));
  const complete = work.listed.length < DIRECTORY_PAGE;
  const afterId = complete ? 0 : (work.listed.at(-1) as number);
  const recounted = await settleSweep(scope, {
    settled: work.pending,
    // An undone account the directory lists all the same (a migration step listed it meanwhile) leaves it too.
    unlisted: [...missing, ...undone],
    afterId,
    recount: complete,
  });
  return {
    shard: scope.shard,
    undoneAccounts: undone,
    settledProvisionings: work.pending.length,
    unlistedAccounts: missing,
    checked: work.listed.length,
    afterId,
    load: recounted === null ? null : { before: work.load, after: recounted },
  };
}
