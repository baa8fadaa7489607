import * as v from 'valibot';

const count = (description: string) => v.pipe(v.number(), v.description(description));

/** What one pass of the sweep did on one shard (`POST /admin/v1/shards/sweep`). */
export const shardSweepSchema = v.object({
  shard: count('The shard’s number.'),
  undoneAccounts: v.pipe(
    v.array(v.number()),
    v.description(
      'Accounts removed from the shard: provisionings cut short before the directory listed them.',
    ),
  ),
  settledProvisionings: count('Pending provisionings ended by the pass (undone, or that wrote nothing).'),
  unlistedAccounts: v.pipe(
    v.array(v.number()),
    v.description('Accounts taken out of the directory: listed on this shard, which holds no such account.'),
  ),
  checked: count('Directory rows the pass checked against the shard.'),
  afterId: count('Where the next pass resumes the walk; 0: it starts over (this pass ended a walk).'),
  load: v.pipe(
    v.nullable(v.object({ before: v.nullable(v.number()), after: v.number() })),
    v.description('The shard’s count as recounted from the directory at the end of a walk; null otherwise.'),
  ),
});

export const sweepSchema = v.object({ shards: v.array(shardSweepSchema) });
