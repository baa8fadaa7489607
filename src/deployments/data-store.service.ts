import type { Bindings, Db } from '../core/env';
import { badRequest, conflict, notFound } from '../core/errors';
import type { ColumnSpec } from '../sources/csv';
import { deploymentStore, type StoreFailure } from '../sources/deployment-store';
import { getDeployment } from './deployments.service';
import { readDataSourceConfig } from './env-vars.service';

type Env = Pick<Bindings, 'DEPLOYMENT_STORE' | 'ENV_VARS_KEY'>;

function fail({ error }: StoreFailure): never {
  if (error.kind === 'NOT_FOUND') throw notFound('Table');
  throw badRequest(error.message);
}

/**
 * Imports CSV text into a table of the deployment's embedded store. A deployment whose data
 * source is not the embedded store answers 409: its model would never read what it imported.
 */
export async function importTable(
  db: Db,
  env: Env,
  accountId: number,
  deploymentId: number,
  input: { table: string; csv: string; mode: 'replace' | 'append'; columns?: ColumnSpec[] },
) {
  await getDeployment(db, accountId, deploymentId);
  const config = await readDataSourceConfig(db, deploymentId, env);
  if (config.type !== 'embedded') {
    const type = config.type === 'postgres' ? 'postgres' : config.dbType;
    throw conflict(
      `This deployment's data source is ${type} (CUBEJS_DB_TYPE); imports go to the embedded store, which it does not read`,
    );
  }
  const answer = await deploymentStore(env as Bindings, deploymentId).importCsv(input);
  if ('error' in answer) fail(answer);
  return answer;
}

export async function listTables(db: Db, env: Env, accountId: number, deploymentId: number) {
  await getDeployment(db, accountId, deploymentId);
  return { items: await deploymentStore(env as Bindings, deploymentId).listTables() };
}

export async function dropTable(db: Db, env: Env, accountId: number, deploymentId: number, table: string) {
  await getDeployment(db, accountId, deploymentId);
  const answer = await deploymentStore(env as Bindings, deploymentId).dropTable(table);
  if ('error' in answer) fail(answer);
  return answer;
}
