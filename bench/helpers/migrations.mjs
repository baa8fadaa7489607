// The checkout's D1 migrations applied as `npm run db:migrate` applies them: what the benchmarks
// (scripts/bench.mjs, scripts/mint-bench.mjs) run before seeding.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Applies every migration of `schema/<folder>` of the checkout at `root` to `d1`, in file order. */
export async function migrateFolder(root, d1, folder) {
  const dir = path.join(root, 'schema', folder);
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const statements = readFileSync(path.join(dir, file), 'utf8')
      .split('--> statement-breakpoint')
      .map((s) => s.trim())
      .filter(Boolean);
    await d1.batch(statements.map((s) => d1.prepare(s)));
  }
}

/** The shard bindings of the checkout at `root`, in shard order, as its wrangler.toml lists them. */
export function shardBindings(root) {
  return (
    /^\s*SHARD_BINDINGS\s*=\s*"([^"]*)"/m.exec(readFileSync(path.join(root, 'wrangler.toml'), 'utf8'))?.[1] ??
    'DB'
  )
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
}
