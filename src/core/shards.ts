import { countedD1, createDb, type QueryCounter } from './db';
import type { Bindings, Db } from './env';

export { idFloor, MAX_SHARDS, SHARD_ID_SPAN, shardOfId } from './shard-schema';

/**
 * The shard databases are D1 bindings listed in order by the SHARD_BINDINGS var of wrangler.toml
 * (`DB,DB_SHARD_1,…`): a shard's number is its position. `DB`, shard 0, is the database that
 * held every account before sharding. See docs/sharding.md.
 */
type ShardEnv = Pick<Bindings, 'SHARD_BINDINGS'>;

const parsed = new Map<string, string[]>();

/** The shard bindings' names, in shard order (just `DB` when SHARD_BINDINGS is unset or empty). */
export function shardNames(env: ShardEnv): string[] {
  const text = env.SHARD_BINDINGS ?? '';
  let names = parsed.get(text);
  if (!names) {
    const listed = text
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    names = listed.length > 0 ? listed : ['DB'];
    parsed.set(text, names);
  }
  return names;
}

/** How many shards there are. */
export const shardCount = (env: ShardEnv): number => shardNames(env).length;

/** Whether `shard` is one of the configured shards. */
export const isShard = (env: ShardEnv, shard: number): boolean =>
  Number.isInteger(shard) && shard >= 0 && shard < shardCount(env);

/**
 * The D1 binding of shard `shard`. A shard the configuration does not list, or a listed binding
 * wrangler.toml does not declare, is a deployment error: it throws (a 500), never a client's 4xx.
 */
export function shardDatabase(env: Bindings, shard: number): D1Database {
  const name = shardNames(env)[shard];
  const binding = name === undefined ? undefined : (env as unknown as Record<string, unknown>)[name];
  if (!binding || typeof (binding as D1Database).prepare !== 'function') {
    throw new Error(`Shard ${shard} has no D1 binding (SHARD_BINDINGS=${env.SHARD_BINDINGS ?? ''})`);
  }
  return binding as D1Database;
}

/**
 * Shard `shard`'s database for one request, tick or batch: the counted binding (every round
 * trip lands in `counter`) and drizzle over it, both knowing their shard (`shardOf`).
 */
export function openShard(env: Bindings, shard: number, counter: QueryCounter): { d1: D1Database; db: Db } {
  const d1 = countedD1(shardDatabase(env, shard), counter, shard);
  return { d1, db: createDb(d1) };
}
