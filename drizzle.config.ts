import { defineConfig } from 'drizzle-kit';

// Migrations are generated from the drizzle tables in schema/*.ts and kept flat
// (NNNN_name.sql) because both `wrangler d1 migrations apply` and the test setup read them so.
// These are the shards' tables; the control database has its own (drizzle.control.config.ts).
export default defineConfig({
  dialect: 'sqlite',
  schema: [
    './schema/accounts.ts',
    './schema/dashboards.ts',
    './schema/deployments.ts',
    './schema/embedding.ts',
    './schema/notifications.ts',
    './schema/workspace.ts',
  ],
  out: './schema/migrations',
  casing: 'snake_case',
});
