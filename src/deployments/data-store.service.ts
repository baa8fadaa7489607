import { badRequest, conflict, notFound } from '../core/errors';
import type { AccountScope } from '../core/scope';
import type { ColumnSpec } from '../sources/csv';
import { deploymentStore, type StoreFailure } from '../sources/deployment-store';
import { getDeployment } from './deployments.service';
import { readDataSourceConfig } from './env-vars.service';

function fail({ error }: StoreFailure): never {
  if (error.kind === 'NOT_FOUND') throw notFound('Table');
  throw badRequest(error.message);
}

/**
 * Imports CSV text into a table of the deployment's embedded store. A deployment whose data
 * source is not the embedded store answers 409: its model would never read what it imported.
 */
export async function importTable(
  scope: AccountScope,
  deploymentId: number,
  input: { table: string; csv: string; mode: 'replace' | 'append'; columns?: ColumnSpec[] },
) {
  await getDeployment(scope, deploymentId);
  const config = await readDataSourceConfig(scope, deploymentId);
  if (config.type !== 'embedded') {
    const type = config.type === 'postgres' ? 'postgres' : config.dbType;
    throw conflict(
      `This deployment's data source is ${type} (CUBEJS_DB_TYPE); imports go to the embedded store, which it does not read`,
    );
  }
  const answer = await deploymentStore(scope.env, deploymentId).importCsv(input);
  if ('error' in answer) fail(answer);
  return answer;
}

export async function listTables(scope: AccountScope, deploymentId: number) {
  await getDeployment(scope, deploymentId);
  return { items: await deploymentStore(scope.env, deploymentId).listTables() };
}

export async function dropTable(scope: AccountScope, deploymentId: number, table: string) {
  await getDeployment(scope, deploymentId);
  const answer = await deploymentStore(scope.env, deploymentId).dropTable(table);
  if ('error' in answer) fail(answer);
  return answer;
}
