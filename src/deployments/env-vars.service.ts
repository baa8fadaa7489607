import { openText, sealText } from '../core/crypto';
import type { Bindings } from '../core/env';
import { badRequest, notFound } from '../core/errors';
import { pageRequest, toPage } from '../core/pagination';
import type { AccountScope, RequestScope } from '../core/scope';
import {
  DATA_SOURCE_VARS,
  type DataSourceConfig,
  DataSourceError,
  dataSourceConfigOf,
} from '../sources/data-source';
import { getDeployment } from './deployments.service';
import * as repo from './env-vars.repository';
import { ENCRYPTED, ENV_VAR_LIMITS, isSecretName } from './env-vars.schemas';
import { forgetServingState } from './serving-state';

/** Keys derived from ENV_VARS_KEY serve this purpose only. */
const PURPOSE = 'edgeboard deployment env vars';
const PAGE_TAG = 'env-vars';

/**
 * A value is sealed to its deployment and name: a ciphertext copied to another row (or another
 * deployment) does not decrypt.
 */
const contextOf = (deploymentId: number, name: string) => `${deploymentId}/${name}`;

const present = (row: repo.EnvVarRow) => ({ name: row.name, value: row.encrypted ? ENCRYPTED : row.value });

/** Cube's `{items, data, pageInfo}`. */
function listAnswer(page: {
  items: { name: string; value: string }[];
  pageInfo: ReturnType<typeof toPage>['pageInfo'];
}) {
  return { items: page.items, data: page.items, pageInfo: page.pageInfo };
}

/** One page of a deployment's variables, by name; secret values read as `[ENCRYPTED]`. */
export async function getEnvVariables(
  scope: AccountScope,
  deploymentId: number,
  query: { first?: number; after?: string },
) {
  const request = pageRequest(query, PAGE_TAG, 1);
  const afterName = request.after ? String(request.after[0]) : null;
  const rows = await repo.listEnvVars(scope, deploymentId, { afterName, limit: request.limit });
  if (!rows) throw notFound('Deployment');
  return listAnswer(toPage(rows, request, PAGE_TAG, (row) => [row.name], present));
}

/**
 * Adds or updates variables by name (the others keep their values) and answers all of the
 * deployment's variables. Secret-named values are encrypted before they are stored.
 */
export async function setEnvVariables(
  scope: AccountScope,
  deploymentId: number,
  items: { name: string; value: string }[],
) {
  const { env } = scope;
  const now = scope.now.toISOString();
  await getDeployment(scope, deploymentId);
  const rows = await Promise.all(
    items.map(async ({ name, value }) => {
      const encrypted = isSecretName(name);
      return {
        name,
        value: encrypted
          ? await sealText(env.ENV_VARS_KEY, PURPOSE, contextOf(deploymentId, name), value)
          : value,
        encrypted,
        updatedAt: now,
      };
    }),
  );
  let stored: repo.EnvVarRow[];
  try {
    stored = await repo.upsertEnvVars(scope.db, deploymentId, rows, ENV_VAR_LIMITS.maxVariables);
  } catch (err) {
    if (err instanceof repo.TooManyEnvVars) {
      throw badRequest(`A deployment holds at most ${ENV_VAR_LIMITS.maxVariables} env variables`, [
        { path: 'env_variables', message: `At most ${ENV_VAR_LIMITS.maxVariables} variables per deployment` },
      ]);
    }
    throw err;
  }
  forgetServingState(deploymentId);
  const request = { limit: ENV_VAR_LIMITS.maxVariables, after: null };
  return listAnswer(toPage(stored, request, PAGE_TAG, (row) => [row.name], present));
}

async function decrypt(env: Pick<Bindings, 'ENV_VARS_KEY'>, deploymentId: number, row: repo.EnvVarRow) {
  try {
    return await openText(env.ENV_VARS_KEY, PURPOSE, contextOf(deploymentId, row.name), row.value);
  } catch {
    // Sealed under another ENV_VARS_KEY (the key was replaced): only setting it again helps.
    throw new DataSourceError('CONFIG', `${row.name} cannot be decrypted any more; set it again`);
  }
}

/**
 * The data source a deployment's env vars configure, secrets decrypted: what `openDataSource`
 * takes. The caller has checked that the deployment is the caller's.
 */
export async function readDataSourceConfig(
  scope: Pick<RequestScope, 'db' | 'env'>,
  deploymentId: number,
): Promise<DataSourceConfig> {
  const vars: Record<string, string> = {};
  for (const row of await repo.envVarsNamed(scope.db, deploymentId, DATA_SOURCE_VARS)) {
    vars[row.name] = row.encrypted ? await decrypt(scope.env, deploymentId, row) : row.value;
  }
  return dataSourceConfigOf(vars);
}
