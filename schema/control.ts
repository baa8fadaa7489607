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
 * batch as each directory row, so placement reads one row per shard and counts nothing.
 */
export const shardLoads = sqliteTable('shard_loads', {
  shard: integer().primaryKey(),
  accounts: integer().notNull().default(0),
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
