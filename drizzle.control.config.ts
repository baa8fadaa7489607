import { defineConfig } from 'drizzle-kit';

// The control database's migrations (`npm run db:generate` runs both configs): the directory,
// shard loads and names unique across shards, from schema/control.ts.
export default defineConfig({
  dialect: 'sqlite',
  schema: './schema/control.ts',
  out: './schema/control-migrations',
  casing: 'snake_case',
});
