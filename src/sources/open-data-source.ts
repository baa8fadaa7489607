import type { Bindings } from '../core/env';
import { timed } from '../core/timings';
import { type DataSource, type DataSourceConfig, DataSourceError, type RunLimits } from './data-source';
import { deploymentStore, type StoreAnswer } from './deployment-store';
import { postgresSource } from './postgres.source';

export type { DataSource, DataSourceConfig, DataSourceErrorCode, RunLimits } from './data-source';
export { DataSourceError } from './data-source';

/**
 * The deployment's embedded store as a data source. The object runs the statement in one
 * synchronous step that cannot be interrupted, so the time limit here answers the caller on
 * time; the statement itself is bounded by the object's own CPU limit.
 */
function embeddedSource(env: Bindings, deploymentId: number): DataSource {
  return {
    dialect: 'sqlite',
    async run(sql: string, params: unknown[], limits: RunLimits) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new DataSourceError('TIMEOUT', `The query ran longer than ${limits.timeoutMs} ms`)),
          limits.timeoutMs,
        );
      });
      try {
        // RPC types a union answer loosely; the object's method declares this one.
        const answer = (await timed(limits.timings, 'store-query', () =>
          Promise.race([deploymentStore(env, deploymentId).query(sql, params, limits.maxRows), deadline]),
        )) as StoreAnswer<{ rows: Record<string, unknown>[] }>;
        if ('error' in answer) {
          throw new DataSourceError(
            answer.error.kind === 'TOO_MANY_ROWS' ? 'TOO_MANY_ROWS' : 'QUERY',
            answer.error.message,
          );
        }
        return { rows: answer.rows };
      } catch (err) {
        if (err instanceof DataSourceError) throw err;
        // The object could not be reached or was reset: nothing the caller's SQL did.
        throw new DataSourceError('CONNECTION', "Could not reach the deployment's embedded store; retry");
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * The data source of a deployment's configuration (`readDataSourceConfig`): the embedded store
 * or a PostgreSQL server. Throws DataSourceError CONFIG for settings that are incomplete or of an
 * unsupported type, and FORBIDDEN_HOST for a host in a private range (see host-check.ts).
 */
export function openDataSource(env: Bindings, deploymentId: number, config: DataSourceConfig): DataSource {
  if (config.type === 'embedded') return embeddedSource(env, deploymentId);
  if (config.type === 'postgres') return postgresSource(env, config);
  throw new DataSourceError(
    'CONFIG',
    `CUBEJS_DB_TYPE "${config.dbType.slice(0, 40)}" is not supported: use postgres, or leave it unset for the embedded store`,
  );
}
