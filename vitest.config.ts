import { availableParallelism } from 'node:os';
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-plugin';
import { defineConfig } from 'vitest/config';

// Tests run inside workerd with the bindings of wrangler.toml; test/setup.ts gives each test file
// empty storage (the control database and every shard, migrated), in a runtime files share.
const migrations = await readD1Migrations('./schema/migrations');
const controlMigrations = await readD1Migrations('./schema/control-migrations');

// wrangler logs "Using secrets defined in .dev.vars" (the file `npm start` writes) once per test
// file. The secrets it reads there are overridden by the bindings below, so the line is noise;
// wrangler's warnings and errors still show. WRANGLER_LOG=log (or debug) brings it all back.
process.env.WRANGLER_LOG ??= 'warn';

export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: './wrangler.toml' },
      // workerd's verbose mode logs the runtime's own view of errors JS already gets: a refused TCP
      // connect (the tests of a closed PostgreSQL port) rejects the socket in JS and also printed
      // "read end of pipe was aborted" with a native stack, because pg writes its startup message
      // before the connect settles. Errors, console output and failed tests still show.
      verbose: false,
      miniflare: {
        bindings: {
          ADMIN_TOKEN: 'test-operator-token',
          SESSION_SIGNING_KEY: 'test-session-signing-key-0123456789abcdef',
          // A key being rotated out: sessions it signed must still verify.
          SESSION_SIGNING_KEY_PREVIOUS: 'test-previous-signing-key-fedcba9876543210',
          ENV_VARS_KEY: 'test-env-vars-key-0123456789abcdef0123456789',
          // Round trips per request are part of what the embedding tests assert.
          EXPOSE_DB_METRICS: '1',
          TEST_MIGRATIONS: migrations,
          TEST_CONTROL_MIGRATIONS: controlMigrations,
          // Tests reach the throwaway PostgreSQL server on loopback (test/global/postgres.setup.ts).
          DATA_SOURCES_ALLOW_PRIVATE: '1',
          TEST_POSTGRES: JSON.stringify(inject('postgres')),
          // A listener the private-address rule must keep data sources from (test/global/trap.setup.ts).
          TEST_TRAP: JSON.stringify(inject('trap')),
        },
        // Nothing leaves the machine: any outbound fetch a test did not mock fails loudly.
        outboundService: (request: Request) =>
          new Response(`unexpected outbound request: ${request.url}`, { status: 599 }),
      },
    })),
  ],
  test: {
    globalSetup: ['./test/global/postgres.setup.ts', './test/global/trap.setup.ts'],
    include: ['test/**/*.test.ts'],
    // Failures (with their console output) and the summary; passing files and their logs stay
    // quiet. `npx vitest run --reporter=default` lists every file.
    reporters: ['minimal'],
    // Test files share a runtime: each of the workers below starts workerd once, loads the Worker
    // into it once, and runs its share of the files one after another. Starting a runtime and
    // loading the Worker were most of a file's time (about three quarters of the suite's, summed
    // over its files). test/setup.ts gives each file empty databases, ids no earlier file handed
    // out, an empty session store and export bucket, and the real platform again.
    isolate: false,
    // Two runtimes side by side use both cores of a two-core machine: much of a runtime's time is
    // spent waiting on the other process (vitest serves every module over a socket) and on
    // PostgreSQL. PostgreSQL fixtures live in a schema of their own per file.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A runtime loads the Worker one module per request to vitest: about 800 modules, half of them
    // from a few packages. Pre-bundling those packages (in one build: each entry below becomes a
    // module, and code entries share goes to common chunks, one instance each) halves what it
    // loads. It also gives pg one instance of each of its modules, as wrangler's bundle does:
    // src/sources/scram-keys.ts replaces an export of pg's crypto helpers that pg's SCRAM code reads,
    // which an instance loaded apart would not see.
    // Node's built-ins stay imports: the Workers runtime provides them.
    deps: {
      optimizer: {
        ssr: {
          enabled: true,
          include: [
            'drizzle-orm',
            'drizzle-orm/casing',
            'drizzle-orm/d1',
            'drizzle-orm/sqlite-core',
            'hono',
            'hono/body-limit',
            'hono/client',
            'hono/factory',
            'hono/html',
            'hono/http-exception',
            'hono/utils/html',
            'hono-openapi',
            'jose',
            'pdf-lib',
            'pg',
            'pg/lib/crypto/utils.js',
            'valibot',
            'yaml',
            '@cubejs-client/core',
          ],
          rolldownOptions: {
            external: [
              /^node:/,
              'crypto',
              'dns',
              'events',
              'fs',
              'net',
              'path',
              'stream',
              'string_decoder',
              'tls',
              'util',
              'util/types',
            ],
          },
        },
      },
    },
    setupFiles: ['./test/setup.ts'],
    testTimeout: 20_000,
  },
});
