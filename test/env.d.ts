import type { D1Migration } from 'cloudflare:test';
import type { Secrets } from '../src/core/env';

// `env` in tests: the generated bindings (worker-configuration.d.ts), the secrets vitest.config.ts
// sets, and the test-only values.
declare global {
  namespace Cloudflare {
    interface Env extends Secrets {
      TEST_MIGRATIONS: D1Migration[];
      TEST_CONTROL_MIGRATIONS: D1Migration[];
      /** JSON `{host, port, database, user, password}` of the run's PostgreSQL server. */
      TEST_POSTGRES: string;
      /** JSON `{host, resolves, port, countPort}` of the run's trap listener (test/global/trap.setup.ts). */
      TEST_TRAP: string;
    }
  }
}
