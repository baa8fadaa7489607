import { applyD1Migrations, env } from 'cloudflare:test';

// Storage is isolated per test file; this runs once per file before its tests.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
