import { badRequest, conflict, notFound } from '../core/errors';
import type { AccountScope, RequestScope } from '../core/scope';
import type { CompiledModel } from '../semantic/model/model.types';
import type { ColumnSpec } from '../sources/csv';
import { deploymentStore, type StoreFailure } from '../sources/deployment-store';
import { indexesOfTable, storeIndexesOf } from '../sources/store-indexes';
import { activeModel, getDeployment } from './deployments.service';
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
  // The serving model's indexes of this table are made with its rows (a build makes the others).
  const [config, serving] = await Promise.all([
    readDataSourceConfig(scope, deploymentId),
    activeModel(scope.db, deploymentId),
  ]);
  if (config.type !== 'embedded') {
    const type = config.type === 'postgres' ? 'postgres' : config.dbType;
    throw conflict(
      `This deployment's data source is ${type} (CUBEJS_DB_TYPE); imports go to the embedded store, which it does not read`,
    );
  }
  const indexes = serving ? indexesOfTable(storeIndexesOf(serving.model), input.table) : [];
  const answer = await deploymentStore(scope.env, deploymentId).importCsv({ ...input, indexes });
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

/**
 * After a build: the embedded store gets the indexes the new model asks for and drops those it
 * no longer does (store-indexes.ts). A deployment reading another database has nothing to index.
 * Indexes only speed reads, so a failure is logged and the build stands: the next build or
 * import of the table makes them.
 */
export async function indexStoreForModel(
  scope: RequestScope,
  deploymentId: number,
  model: CompiledModel,
): Promise<void> {
  try {
    if ((await readDataSourceConfig(scope, deploymentId)).type !== 'embedded') return;
    await deploymentStore(scope.env, deploymentId).syncIndexes(storeIndexesOf(model));
  } catch (err) {
    console.error(JSON.stringify({ event: 'store_indexes_failed', deploymentId, error: String(err) }));
  }
}
