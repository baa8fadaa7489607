import { env } from 'cloudflare:test';
import {
  compareShards,
  DESCRIBE_SQL,
  describeShard,
  type ShardDescriptionRow,
} from '../../src/core/shard-schema';
import { shardDatabase, shardNames } from '../../src/core/shards';

/** Every shard's D1 binding, in shard order. */
export const shardDbs = (): D1Database[] => shardNames(env).map((_, shard) => shardDatabase(env, shard));

/** What the migration check (`npm run db:check`) says about the test's shards: empty when they agree. */
export async function checkShards(): Promise<string[]> {
  const names = shardNames(env);
  const rows = await Promise.all(
    shardDbs().map((db) => db.prepare(DESCRIBE_SQL).first<ShardDescriptionRow>()),
  );
  return compareShards(
    rows.map((row, shard) => {
      if (!row) throw new Error(`shard ${shard} answered no description`);
      return describeShard(names[shard] as string, shard, row);
    }),
  );
}

/** How many rows of `table` match `where` on each shard, in shard order. */
export async function countPerShard(table: string, where = '1', ...params: unknown[]): Promise<number[]> {
  return Promise.all(
    shardDbs().map(async (db) => {
      const row = await db
        .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)
        .bind(...params)
        .first<{ n: number }>();
      return row?.n ?? 0;
    }),
  );
}
