import { defineConfig } from 'drizzle-kit';

// Migrations are generated from the drizzle tables in schema/*.ts and kept flat
// (NNNN_name.sql) because both `wrangler d1 migrations apply` and the test setup read them so.
export default defineConfig({
  dialect: 'sqlite',
  schema: './schema/*.ts',
  out: './schema/migrations',
  casing: 'snake_case',
});
