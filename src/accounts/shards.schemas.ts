import * as v from 'valibot';

const count = (description: string) => v.pipe(v.number(), v.description(description));

/** One shard in the operator's view (`GET /admin/v1/shards`). */
export const shardViewSchema = v.object({
  shard: count('The shard’s number: its position in SHARD_BINDINGS.'),
  binding: v.pipe(v.string(), v.description('The D1 binding of the shard’s database.')),
  accounts: count('Accounts the directory lists on the shard, as placement counts them (`shard_loads`).'),
  bias: count('Accounts placement adds to the count: the operator’s steer away from the shard.'),
  pendingProvisionings: count(
    'Provisionings writing on the shard, or cut short and not yet undone by the sweep.',
  ),
  sweep: v.object({
    afterId: count('The last account id the sweep’s walk of the directory checked; 0: the walk starts over.'),
    updatedAt: v.pipe(v.nullable(v.string()), v.description('When the sweep last ran on the shard.')),
  }),
  database: v.pipe(
    v.nullable(
      v.object({
        sizeBytes: v.pipe(
          v.nullable(v.number()),
          v.description('The database’s size in bytes, as D1 reports it (`meta.size_after`).'),
        ),
        accounts: count('Accounts the shard holds: differs from `accounts` while a write is cut in half.'),
        storedBytes: count('Bytes of workspace content the shard’s accounts store (against their quotas).'),
        queuedBuilds: count('Builds waiting for a builder.'),
        buildingBuilds: count('Builds being built.'),
        dueNotifications: count('Notifications due now, for the next tick to claim.'),
        queuedRuns: count('Notification runs queued for delivery.'),
        runningRuns: count('Notification runs being delivered.'),
        queuedPreAggregationBuilds: count('Pre-aggregation partitions queued for a build or being built.'),
        failedPreAggregationBuilds: count(
          'Pre-aggregation partitions whose last build failed (the last good one keeps serving).',
        ),
      }),
    ),
    v.description('What the shard says of itself, in one statement; null when it did not answer.'),
  ),
  error: v.pipe(v.nullable(v.string()), v.description('Why the shard did not answer; null when it did.')),
});

export const shardsSchema = v.object({ shards: v.array(shardViewSchema) });

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
