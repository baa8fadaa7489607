import type { D1Migration } from 'cloudflare:test';
import type { Bindings } from '../src/core/env';

declare global {
  namespace Cloudflare {
    interface Env extends Bindings {
      TEST_MIGRATIONS: D1Migration[];
      /** JSON `{host, port, database, user, password}` of the run's PostgreSQL server. */
      TEST_POSTGRES: string;
    }
  }
}
