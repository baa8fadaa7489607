import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

// The control database (binding CONTROL_DB, migrations in schema/control-migrations): what must
// be found or unique across every shard. Requests with a credential never read it: the
// credential carries its shard. See docs/sharding.md.

/**
 * The directory: which shard each account lives in. The account's id is the one its shard
 * handed out (ids are spread over the shards by range), recorded here once its rows exist.
 */
export const directoryAccounts = sqliteTable(
  'accounts',
  {
    id: integer().primaryKey(),
    shard: integer().notNull(),
    createdAt: text().notNull(),
  },
  (t) => [index('accounts_shard_idx').on(t.shard, t.id)],
);

/**
 * How loaded each shard is, as placement reads it: the accounts it holds. Kept in the same
 * batch as each directory row, so placement reads one row per shard and counts nothing; the
 * sweep recounts `accounts` from the directory. `bias` is the operator's: accounts placement
 * adds to the count, to steer new accounts away from a shard (the recount never touches it).
 */
export const shardLoads = sqliteTable('shard_loads', {
  shard: integer().primaryKey(),
  accounts: integer().notNull().default(0),
  bias: integer().notNull().default(0),
});

/**
 * Provisionings begun and not yet listed in the directory: written before the shard writes the
 * account, deleted in the batch that lists it. One older than the sweep's grace period was cut
 * in half (the Worker died, or the directory write failed) and the sweep undoes it. `keyHash`
 * is the hash of the account's API key (`api_keys.key_hash` on its shard): how the sweep finds
 * the rows it left there, if any.
 */
export const pendingAccounts = sqliteTable(
  'pending_accounts',
  {
    keyHash: text().primaryKey(),
    shard: integer().notNull(),
    createdAt: text().notNull(),
  },
  (t) => [index('pending_accounts_shard_idx').on(t.shard, t.createdAt)],
);

/**
 * How far each shard's sweep of the directory has walked: it checks the accounts listed on the
 * shard in id order, a bounded page per tick, after `afterId` (0: from the start).
 */
export const sweepCursors = sqliteTable('sweep_cursors', {
  shard: integer().primaryKey(),
  afterId: integer().notNull().default(0),
  updatedAt: text().notNull(),
});

export const CLAIM_KINDS = ['deployment-slug', 'report-public-id'] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

/**
 * Names unique across every shard and account: deployment slugs (a deployment's URL) and report
 * public ids. Claimed before the shard writes the row that uses the name, and never released:
 * a name once used keeps pointing at its account, so an old link never reaches another tenant.
 */
export const claimedNames = sqliteTable(
  'claimed_names',
  {
    kind: text({ enum: CLAIM_KINDS }).notNull(),
    name: text().notNull(),
    accountId: integer().notNull(),
    createdAt: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.name] })],
);
