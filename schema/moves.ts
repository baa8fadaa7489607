import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** What a forward is keyed by: what a caller holds that names the shard an account left. */
export const FORWARD_KINDS = ['account', 'secret', 'public-id'] as const;
export type ForwardKind = (typeof FORWARD_KINDS)[number];

/**
 * The key of an `account` forward: the id's decimal text. The move that writes it and every
 * lookup spell it here, so they cannot drift apart (bound as a number, D1 wrote `2.0`).
 */
export const accountForwardKey = (accountId: number): string => String(accountId);

/**
 * On the shard an account was moved away from: where what still names this shard now lives
 * (docs/sharding.md, "Moving an account"). Credentials, sessions, public ids and ids issued
 * before the move keep naming the old shard; a request whose hint finds nothing here looks its
 * hint up in this table and is sent on to the shard it names. Kinds: `account` (an account id:
 * the `acc` claim of embed sessions, embed tokens and Cube API tokens), `secret` (the SHA-256 of
 * an API key or access token), `public-id` (a published dashboard's public id). Not an account's
 * row: a move neither copies nor deletes it, and it outlives the account's rows here.
 */
export const forwards = sqliteTable(
  'forwards',
  {
    kind: text({ enum: FORWARD_KINDS }).notNull(),
    key: text().notNull(),
    shard: integer().notNull(),
    accountId: integer().notNull(),
    createdAt: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.key] }), index('forwards_account_idx').on(t.accountId)],
);
