import { applyD1Migrations, env } from 'cloudflare:test';
import { afterEach } from 'vitest';
import { resetPlatform } from './helpers/platform';

// Storage is isolated per test file; this runs once per file before its tests.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Whatever boundary a test replaced (clock, delivery ports, …) is the real one again for the next.
afterEach(resetPlatform);
