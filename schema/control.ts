import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

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

export const MOVE_STATES = [
  'freezing',
  'copying',
  'verifying',
  'switching',
  'cleaning',
  'done',
  'failed',
] as const;
export type MoveState = (typeof MOVE_STATES)[number];

/**
 * The operator's moves of an account to another shard (docs/sharding.md, "Moving an account"),
 * each a state machine driven in bounded steps by queue messages. `step` and `cursor` say where
 * the current state stands (the table being copied, checked or deleted, and where in it);
 * `version` counts the steps taken: a message names the version it drives, so a redelivered or
 * doubled one finds the move moved on and does nothing. `counts` holds each table's rows as
 * copied, checked and deleted. At most one move of an account is unfinished at a time (the
 * partial unique index): a failed move is finished once the rows it copied are removed again.
 */
export const accountMoves = sqliteTable(
  'account_moves',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    accountId: integer().notNull(),
    fromShard: integer().notNull(),
    toShard: integer().notNull(),
    state: text({ enum: MOVE_STATES }).notNull(),
    step: integer().notNull().default(0),
    cursor: text(),
    version: integer().notNull().default(0),
    counts: text({ mode: 'json' }).$type<Record<string, MoveTableCounts>>().notNull(),
    /** How many times the move found the account's background work still in flight. */
    waits: integer().notNull().default(0),
    error: text(),
    createdAt: text().notNull(),
    updatedAt: text().notNull(),
    finishedAt: text(),
  },
  (t) => [
    index('account_moves_account_idx').on(t.accountId, t.id),
    uniqueIndex('account_moves_running_idx').on(t.accountId).where(sql`${t.finishedAt} IS NULL`),
  ],
);

/** A table's rows of one move: found on the source, copied to the target, checked, deleted. */
export interface MoveTableCounts {
  copied: number;
  source?: number;
  target?: number;
  deleted?: number;
}
