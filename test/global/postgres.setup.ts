import type { TestProject } from 'vitest/node';
import { startPostgres } from '../../scripts/postgres.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The throwaway PostgreSQL server the analytics tests query (see scripts/postgres.mjs). */
    postgres: { host: string; port: number; database: string; user: string; password: string };
  }
}

/** Starts one real PostgreSQL server for the whole run; every test file reaches it over TCP. */
export default async function setup(project: TestProject) {
  const pg = await startPostgres();
  project.provide('postgres', {
    host: pg.host,
    port: pg.port,
    database: pg.database,
    user: pg.user,
    password: pg.password,
  });
  return () => pg.stop();
}
