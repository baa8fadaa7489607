import { readdirSync } from 'node:fs';
import { defineConfig } from 'drizzle-kit';

// Migrations are generated from the drizzle tables in schema/*.ts and kept flat
// (NNNN_name.sql) because both `wrangler d1 migrations apply` and the test setup read them so.
// These are the shards' tables: every schema file but the control database's, which has its own
// migrations (drizzle.control.config.ts). Listed by reading the folder, so a new schema file
// cannot be left out of the shards' migrations.
export default defineConfig({
  dialect: 'sqlite',
  schema: readdirSync('./schema')
    .filter((file) => file.endsWith('.ts') && file !== 'control.ts')
    .map((file) => `./schema/${file}`),
  out: './schema/migrations',
  casing: 'snake_case',
});
